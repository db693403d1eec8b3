"""A small threaded HTTP server on 127.0.0.1 for local sites: the demo shop,
MiniWoB pages, test pages.

Files are served only under a random token prefix (``/<token>/...``), so another
local user or a page from elsewhere cannot guess URLs on the port; relative links
inside the folder keep working because the prefix is just one more path segment.
A request addressed to another name (DNS rebinding) is refused first
(``colorbrowser.hostcheck``).
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

from colorbrowser.hostcheck import REFUSAL, host_ok

# path (after the prefix) -> handler(request) for pages that need behaviour, not
# files: a server that never answers, a 500, a slow response.
Route = Callable[[SimpleHTTPRequestHandler], None]


class _Handler(SimpleHTTPRequestHandler):
    prefix: ClassVar[str] = "/"
    routes: ClassVar[dict[str, Route]] = {}

    def _strip_prefix(self) -> bool:
        if len(self.headers.get_all("Host") or []) != 1 or \
                not host_ok(self.headers.get("Host"), self.server.server_address[1]):
            self.send_response(403)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(REFUSAL)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(REFUSAL)
            return False
        if not self.path.startswith(self.prefix):
            self.send_error(404)
            return False
        self.path = "/" + self.path[len(self.prefix):]
        return True

    def do_GET(self) -> None:
        if not self._strip_prefix():
            return
        route = self.routes.get(urlsplit(self.path).path)
        if route is not None:
            route(self)
        else:
            super().do_GET()

    do_POST = do_GET

    def do_HEAD(self) -> None:
        if self._strip_prefix():
            super().do_HEAD()

    def end_headers(self) -> None:
        # Each visit must load fresh page code, never a stale cached copy.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:  # keep terminals clean
        pass


class _Server(ThreadingHTTPServer):
    """A browser that hangs up mid-answer (a page left while loading) is no error; any
    other failure of one request is a line on stderr, not a traceback."""

    def handle_error(self, request: object, client_address: object) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError):
            return
        sys.stderr.write(f"local site server: a request failed: {type(exc).__name__}: {exc}\n")


class StaticServer:
    """Serves ``root`` on a free loopback port; ``url`` is the base (no trailing /).

    ``token=None`` draws a random prefix; ``token=""`` serves at the root (tests only).
    """

    def __init__(self, root: Path | str, *, token: str | None = None,
                 routes: dict[str, Route] | None = None, port: int = 0) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"not a folder: {self.root}")
        self.token = secrets.token_urlsafe(16) if token is None else token
        self.routes = dict(routes or {})
        self._port = port  # 0: any free port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("server is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        base = f"http://127.0.0.1:{self.port}"
        return f"{base}/{self.token}" if self.token else base

    def start(self) -> StaticServer:
        if self._server is not None:
            return self
        prefix = f"/{self.token}/" if self.token else "/"
        handler = type("Handler", (_Handler,), {"prefix": prefix, "routes": self.routes})
        serve = partial(handler, directory=str(self.root))
        server = _Server(("127.0.0.1", self._port), serve)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="static-server", daemon=True)
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server._closing = True  # type: ignore[attr-defined]  # lets hang() return
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StaticServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def serve_directory(root: Path, routes: dict[str, Route] | None = None, *,
                    token: str | None = None) -> Iterator[str]:
    """Serve a folder for the duration of a block; yields the base URL."""
    with StaticServer(root, token=token, routes=routes) as server:
        yield server.url


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
