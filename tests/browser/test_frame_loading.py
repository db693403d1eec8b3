"""A same-origin frame caught while its document is being created is waited for, so its
elements get the same bids as in every later observation."""

from __future__ import annotations

import time

from colorbrowser.testing import send_html, serve_directory

from .browser_helpers import find

TOP = ("<!doctype html><title>Top</title><h1>Top page</h1>"
       "<iframe title='Slow frame' src='slow.html'></iframe>")
INNER = "<!doctype html><title>Inner</title><button>Inside slow frame</button>"


def slow_frame(req) -> None:
    """Headers at once, then the markup a moment later: the frame's new document exists
    but has no root element yet."""
    req.send_response(200)
    req.send_header("Content-Type", "text/html; charset=utf-8")
    req.end_headers()
    req.wfile.write(b"\n" * 64)
    req.wfile.flush()
    time.sleep(0.8)
    req.wfile.write(INNER.encode())


def test_frame_between_documents_is_waited_for_and_keeps_its_bids(env, tmp_path):
    routes = {"/top.html": lambda req: send_html(req, TOP), "/slow.html": slow_frame}
    with serve_directory(tmp_path, routes=routes) as url:
        first = env.reset(f"{url}/top.html")
        button = find(first, "Inside slow frame", "button")
        frame = find(first, "Slow frame", "iframe")
        assert button.frame == [frame.bid]
        assert "_" not in button.bid  # read from its parent, not as a foreign frame
        assert find(env.observe(), "Inside slow frame").bid == button.bid
