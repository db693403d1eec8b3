"""A fault mode for the arena: a small loopback proxy in front of one app that makes
chosen requests fail the way real sites fail their users.

- ``fail``: the request never reaches the app; the proxy answers 500 with an error page;
- ``fake_saved``: the request never reaches the app; the proxy answers 200 with a
  "Saved!" page, so the page looks right while nothing was stored;
- ``no_cookie``: the request reaches the app, but the answer loses its Set-Cookie
  headers (a sign-in that gives no session).

With ``changes`` (``pagechanges.py``) every HTML page it passes on is rewritten by those
rules, and actions on the decoys they add are counted in ``wrong``.

Everything else passes through. The app sees its own address as the Host (its Host
check would refuse the proxy's), and the redirects it answers with are turned back to
the proxy's address, so the agent stays behind the proxy. The
proxy binds 127.0.0.1 and answers only requests addressed to it (a Host check against
DNS rebinding), like the apps behind it.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

from colorbrowser.arena.pagechanges import (
    WRONG_PAGE,
    WRONG_PATH,
    PageChange,
    WrongHits,
    inject,
    is_html,
)
from colorbrowser.hostcheck import host_ok

FaultMode = Literal["fail", "fake_saved", "no_cookie"]
_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization", "content-length"}
FAIL_PAGE = ("<!doctype html><title>500 Internal Server Error</title>"
             "<h1>Internal Server Error</h1><p>The server could not complete the request.</p>")
SAVED_PAGE = ("<!doctype html><title>Saved</title>"
              "<p class=\"notice\">Saved! Your changes have been stored.</p>"
              "<p><a href=\"/\">Back</a></p>")


@dataclass(frozen=True)
class Fault:
    """Which requests fail and how: ``path`` is a regex matched at the start of the path."""

    method: str
    path: str
    mode: FaultMode

    def matches(self, method: str, path: str) -> bool:
        return method.upper() == self.method.upper() and re.match(self.path, path) is not None


@dataclass
class FaultProxy:
    """Serves on a free loopback port and forwards to ``target_port`` on 127.0.0.1."""

    target_port: int
    faults: list[Fault]
    port: int = 0
    hits: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, mode)
    changes: list[PageChange] = field(default_factory=list)
    seed: int = 0
    wrong: WrongHits = field(default_factory=WrongHits)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def fault_for(self, method: str, path: str) -> Fault | None:
        return next((f for f in self.faults if f.matches(method, path)), None)

    def start(self) -> FaultProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                # A browser that hung up (a page left mid-load) needs no answer.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    proxy.handle(self)

            do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = _any

            def log_message(self, format: str, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.port = int(server.server_address[1])
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fault-proxy",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one request -------------------------------------------------------------------
    def handle(self, req: BaseHTTPRequestHandler) -> None:
        if not host_ok(req.headers.get("Host"), self.port):
            _send(req, 421, "<h1>Misdirected request</h1>")
            return
        if "chunked" in (req.headers.get("Transfer-Encoding") or "").lower():
            req.close_connection = True  # its body is not read: the stream is unusable
            _send(req, 411, "<h1>Length required</h1>")
            return
        try:
            length = int(req.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:
            req.close_connection = True
            _send(req, 400, "<h1>Bad Content-Length</h1>")
            return
        body = req.rfile.read(length) if length else b""
        path = req.path.split("?", 1)[0]
        if self.changes and path == WRONG_PATH:
            self.wrong.record(req.path)
            _send(req, 200, WRONG_PAGE)
            return
        fault = self.fault_for(req.command, path)
        if fault is not None:
            self.hits.append((req.command, path, fault.mode))
            if fault.mode == "fail":
                _send(req, 500, FAIL_PAGE)
                return
            if fault.mode == "fake_saved":
                _send(req, 200, SAVED_PAGE)
                return
        self._forward(req, body, drop_cookies=fault is not None and fault.mode == "no_cookie")

    def _forward(self, req: BaseHTTPRequestHandler, body: bytes, *, drop_cookies: bool) -> None:
        upstream = http.client.HTTPConnection("127.0.0.1", self.target_port, timeout=60)
        try:
            headers = {k: v for k, v in req.headers.items()
                       if k.lower() not in _HOP and k.lower() != "host"}
            # The app checks that a request is addressed to it (hostcheck); its answers'
            # own addresses are turned back to the proxy's below, so the browser stays here.
            headers["Host"] = f"127.0.0.1:{self.target_port}"
            if self.changes:  # pages are rewritten: they must come uncompressed
                headers = {k: v for k, v in headers.items() if k.lower() != "accept-encoding"}
            upstream.request(req.command, req.path, body=body or None, headers=headers)
            answer = upstream.getresponse()
            data = answer.read()
        except OSError as exc:
            _send(req, 502, f"<h1>Bad gateway</h1><p>{type(exc).__name__}</p>")
            return
        finally:
            upstream.close()
        rewrite = bool(self.changes) and is_html(answer.getheader("Content-Type"))
        if rewrite:
            data = inject(data, self.changes, self.seed)
        req.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() in _HOP or (drop_cookies and key.lower() == "set-cookie"):
                continue
            if rewrite and key.lower() == "content-security-policy":
                continue  # the rules run as an inline script
            if key.lower() == "location":
                value = value.replace(f"127.0.0.1:{self.target_port}", f"127.0.0.1:{self.port}")
            req.send_header(key, value)
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        if req.command != "HEAD":
            req.wfile.write(data)


def _send(req: BaseHTTPRequestHandler, status: int, html: str) -> None:
    body = html.encode()
    req.send_response(status)
    req.send_header("Content-Type", "text/html; charset=utf-8")
    req.send_header("Content-Length", str(len(body)))
    req.end_headers()
    if req.command != "HEAD":
        req.wfile.write(body)
