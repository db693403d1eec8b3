"""A small threaded HTTP server on 127.0.0.1 for local sites (demo shop, MiniWoB, tests).

With a token, every request must carry it as the ``cb_token`` cookie (set by the
browser environment before the first visit) or a ``cb_token`` query parameter, so
other local users cannot read what the agent is working on.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.cookies import SimpleCookie
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlsplit

TOKEN_NAME = "cb_token"

# path -> handler(request) for pages that need behaviour, not files: a server that
# never answers, a 500, a slow response. The handler writes the whole response.
Route = Callable[[SimpleHTTPRequestHandler], None]


class _Handler(SimpleHTTPRequestHandler):
    routes: ClassVar[dict[str, Route]] = {}
    token: ClassVar[str | None] = None

    def _authorised(self) -> bool:
        if not self.token:
            return True
        cookie = SimpleCookie(self.headers.get("Cookie", ""))
        given = cookie[TOKEN_NAME].value if TOKEN_NAME in cookie else None
        if given is None:
            given = (parse_qs(urlsplit(self.path).query).get(TOKEN_NAME) or [None])[0]
        return given is not None and hmac.compare_digest(given, self.token)

    def do_GET(self) -> None:
        if not self._authorised():
            send_html(self, "<h1>403</h1><p>missing or wrong token</p>", 403)
            return
        route = self.routes.get(urlsplit(self.path).path)
        if route is not None:
            route(self)
        else:
            super().do_GET()

    do_POST = do_GET

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # keep terminals clean
        pass


def send_html(req: SimpleHTTPRequestHandler, html: str, status: int = 200) -> None:
    body = html.encode()
    req.send_response(status)
    req.send_header("Content-Type", "text/html; charset=utf-8")
    req.send_header("Content-Length", str(len(body)))
    req.end_headers()
    req.wfile.write(body)


def hang(req: SimpleHTTPRequestHandler, seconds: float = 3600) -> None:
    """Accept the request and never answer (until the server shuts down)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not getattr(req.server, "_closing", False):
        time.sleep(0.05)


@contextmanager
def serve_directory(
    root: Path, routes: dict[str, Route] | None = None, *, token: str | None = None
) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 on a free port; yields the base URL (no trailing /)."""
    handler = type("Handler", (_Handler,), {"routes": dict(routes or {}), "token": token})
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server._closing = True  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()
