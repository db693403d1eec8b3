"""A small site for exploration tests, served from memory so each test can count every
request it receives (by method, host and path): records, a list, a toggle whose panel
the URL does not reproduce, a POST form (with a field
named action, as Trac's have), and a link and an image on another host."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ITEMS = {1: ("Blue kettle", "$24.00"), 2: ("Red teapot", "$31.50"), 3: ("Green mug", "$8.25")}


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body><nav><a href='/'>Home</a> <a href='/items'>Items</a> "
            f"<a href='/about'>About</a></nav><main>{body}</main></body></html>")


def pages(other: str) -> dict[str, str]:
    """Path -> HTML; ``other`` is the base URL of a host the explorer may not reach."""
    out = {
        "/": _page("Home", f"""<h1>Kitchen things</h1>
<p>Welcome.</p><a href="{other}/leak">Partner shop</a>
<img src="{other}/pixel.png" alt="">
<button aria-expanded="false" aria-controls="panel" onclick="
  const p = document.getElementById('panel'); p.hidden = !p.hidden;
  this.setAttribute('aria-expanded', String(!p.hidden));">More options</button>
<div id="panel" hidden><label>Note <input name="note"></label>
<a href="/secret">Hidden corner</a></div>
<form method="post" action="/items/new"><input type="hidden" name="action" value="new">
<label>New item <input name="name"></label>
<button>Create</button></form>"""),
        "/items": _page("Items", "<h1>Items</h1><ul>" + "".join(
            f"<li><a href='/items/{i}'>{name}</a></li>" for i, (name, _) in ITEMS.items())
            + "</ul>"),
        "/about": _page("About", "<h1>About us</h1><p>We sell kitchen things.</p>"),
        "/secret": _page("Secret", "<h1>Hidden corner</h1><p>Only through the panel.</p>"),
    }
    for i, (name, price) in ITEMS.items():
        out[f"/items/{i}"] = _page(name, f"<h1>{name}</h1><dl><dt>Name</dt><dd>{name}</dd>"
                                         f"<dt>Price</dt><dd>{price}</dd></dl>")
    return out


@dataclass
class CountingSite:
    """Serves ``pages`` on 127.0.0.1; ``requests`` holds (method, path) of each one."""

    pages: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    redirects: dict[str, str] = field(default_factory=dict)  # path prefix -> where to
    down: bool = False  # hang up on every request, as a server that has gone away
    slow: dict[str, float] = field(default_factory=dict)  # path -> seconds before it answers

    def __post_init__(self) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                if site.down:
                    self.close_connection = True
                    return
                path = self.path.split("?", 1)[0]
                site.requests.append((self.command, path))
                time.sleep(site.slow.get(path, 0.0))
                to = next((t for p, t in site.redirects.items() if path.startswith(p)), None)
                if to is not None:
                    self.send_response(302)
                    self.send_header("Location", to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                html = site.pages.get(path)
                if self.command != "GET" or html is None:
                    html = _page("Not here", "<h1>Not found</h1>")
                body = html.encode()
                self.send_response(200 if path in site.pages else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextmanager
def sites_linking_out(host: str):
    """The counting site and a second server it links to as ``host``: (site, other)."""
    other = CountingSite()
    site = CountingSite()
    site.pages.update(pages(f"http://{host}:{other.port}"))
    try:
        yield site, other
    finally:
        site.close()
        other.close()
