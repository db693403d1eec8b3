"""A forum on loopback whose posts each end in the same row of links, as Spirit draws
them ("report", "share", "like (N)", "quote"): the like links of a topic are look-alikes
that only their place tells apart. As on Spirit, a like is sent in the background (a
POST) and the link then reads "remove like (N+1)"; ``likes`` records which posts were
liked, so a test sees which element a workflow acted on."""

from __future__ import annotations

import html
import re
from http.server import BaseHTTPRequestHandler
from urllib.parse import unquote, urlsplit

from colorbrowser.testing import start_loopback, stop_loopback

# topic -> (title, posts as (post id, author, text, likes)), the opening post first.
TOPICS = {
    6: ("Advice needed: my potatoes are small", [
        (60, "northern_maple", "My potatoes are small. Any tips?", 2),
        (61, "clever_sparrow", "I lost mine to a late frost.", 0),
        (62, "admin", "Water them more often.", 0),
        (63, "nimble_fox", "Rotate where you plant them.", 1),
        (64, "tidy_lantern", "Coffee grounds help.", 2)]),
    31: ("Help: my bike chain squeaks", [  # fewer posts, other authors and counts
        (310, "misty_nomad", "My chain squeaks on every hill.", 0),
        (311, "urban_rider", "Oil it and wipe it.", 1),
        (312, "quiet_reader", "A new chain fixed mine.", 0)]),
}


# A like link posts in the background and shows the new count, as Spirit's does.
LIKE_SCRIPT = """
document.querySelectorAll("a[href^='/like/']").forEach(function (link) {
  link.addEventListener("click", function (event) {
    event.preventDefault();
    fetch(link.getAttribute("href"), {method: "POST"}).then(function (r) { return r.text(); })
      .then(function (count) { link.textContent = "remove like (" + count + ")"; });
  });
});
"""


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def topic_path(topic: int) -> str:
    return f"/topic/{topic}/{slug(TOPICS[topic][0])}/"


class LikesForum:
    """The forum running at ``url``; ``likes`` lists the liked posts in order."""

    def __init__(self) -> None:
        self.likes: list[int] = []
        self._server = start_loopback(self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        stop_loopback(self._server)

    def _topic(self, topic: int) -> bytes:
        title, posts = TOPICS[topic]
        body = ""
        for post, author, text, likes in posts:
            liked = post in self.likes
            like = (f"remove like ({likes + 1})" if liked else f"like ({likes})")
            body += (f"<span>{author[0].upper()}</span><a href='/'>{author}</a>"
                     f"<p>{html.escape(text)}</p><ul>"
                     "<li><a href='/report'>report</a></li><li><a href='/share'>share</a></li>"
                     f"<li><a href='/like/{topic}/{post}'>{like}</a></li>"
                     "<li><a href='/quote'>quote</a></li></ul>")
        return (f"<!doctype html><html><head><title>{html.escape(title)}</title></head>"
                f"<body><nav><a href='/'>Forum</a></nav><main><h1>{html.escape(title)}</h1>"
                f"{body}</main><script>{LIKE_SCRIPT}</script></body></html>").encode()

    def _handler(self):
        forum = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body: bytes = b"") -> None:
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = unquote(urlsplit(self.path).path)
                if (m := re.fullmatch(r"/topic/(\d+)/[a-z0-9-]+/", path)) and \
                        int(m.group(1)) in TOPICS:
                    return self._send(200, forum._topic(int(m.group(1))))
                return self._send(200, b"<!doctype html><title>Forum</title><h1>Forum</h1>")

            def do_POST(self) -> None:
                path = unquote(urlsplit(self.path).path)
                m = re.fullmatch(r"/like/(\d+)/(\d+)", path)
                posts = {p[0]: p[3] for p in TOPICS[int(m.group(1))][1]} if m and \
                    int(m.group(1)) in TOPICS else {}
                if m is None or int(m.group(2)) not in posts:
                    return self._send(404)
                forum.likes.append(int(m.group(2)))
                self._send(200, str(posts[int(m.group(2))] + 1).encode())

        return Handler
