"""Helpers shared by the test suite and the benchmarks (not used at run time)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

# path -> handler(request) for pages that need behaviour, not files: a server that
# never answers, a 500, a slow response. The handler writes the whole response.
Route = Callable[[SimpleHTTPRequestHandler], None]


class _Handler(SimpleHTTPRequestHandler):
    routes: ClassVar[dict[str, Route]] = {}

    def do_GET(self) -> None:
        route = self.routes.get(self.path.split("?")[0])
        if route is not None:
            route(self)
        else:
            super().do_GET()

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:  # quiet in tests
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
def serve_directory(root: Path, routes: dict[str, Route] | None = None) -> Iterator[str]:
    """Serve a folder on 127.0.0.1 on a free port; yields the base URL (no trailing /)."""
    handler = type("Handler", (_Handler,), {"routes": dict(routes or {})})
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
