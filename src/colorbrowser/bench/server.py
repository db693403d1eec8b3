"""A static file server on 127.0.0.1 for benchmark pages (one per worker process).

Files are only served under a random token prefix, so another local user or a
page from elsewhere cannot guess URLs on the port; relative links inside the
served folder keep working because the prefix is just one more path segment.
"""

from __future__ import annotations

import secrets
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _TokenHandler(SimpleHTTPRequestHandler):
    prefix = "/"

    def do_GET(self) -> None:
        if not self.path.startswith(self.prefix):
            self.send_error(404)
            return
        self.path = "/" + self.path[len(self.prefix) :]
        super().do_GET()

    def do_HEAD(self) -> None:
        if not self.path.startswith(self.prefix):
            self.send_error(404)
            return
        self.path = "/" + self.path[len(self.prefix) :]
        super().do_HEAD()

    def log_message(self, format: str, *args: object) -> None:  # benchmark noise
        pass

    def end_headers(self) -> None:
        # Each episode must load fresh task code, never a stale cached copy.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class StaticServer:
    """Serves ``root`` on a free loopback port; ``url`` is the base (no trailing /)."""

    def __init__(self, root: Path | str, *, token: str | None = None) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise FileNotFoundError(f"not a folder: {self.root}")
        self.token = token or secrets.token_urlsafe(16)
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
        return f"http://127.0.0.1:{self.port}/{self.token}"

    def start(self) -> StaticServer:
        if self._server is not None:
            return self
        handler = type("Handler", (_TokenHandler,), {"prefix": f"/{self.token}/"})
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(self.root)))
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="bench-static", daemon=True)
        thread.start()
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StaticServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
