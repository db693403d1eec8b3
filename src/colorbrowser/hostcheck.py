"""The Host check every local server of ours shares, against DNS rebinding.

A page from anywhere can point a name it controls at 127.0.0.1 and make the person's
browser send requests to a loopback port; such a request carries that name in its
``Host`` header. A loopback server therefore answers only requests addressed to a
loopback name at its own port (``127.0.0.1:8103``, ``localhost:8103``, ``[::1]:8103``);
everything else gets 403 before the app sees it. A token (the copilot panel's) still
guards what lies behind.

The module uses the standard library only: the arena's Trac runs in its own venv and
loads this file by its path (``arena/apps/trac/serve_trac.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
REFUSAL = b"forbidden: this local server answers only requests addressed to itself\n"


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host header values a loopback server on ``port`` answers."""
    names = {f"{name}:{port}" for name in LOOPBACK_NAMES}
    if port == 80:  # browsers leave out the scheme's own port
        names.update(LOOPBACK_NAMES)
    return frozenset(names)


def host_ok(value: str | bytes | None, port: int) -> bool:
    """Whether a request's Host header addresses this loopback server."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return bool(value) and value.strip().lower() in allowed_hosts(port)


class WsgiHostGate:
    """WSGI middleware: 403 for a request whose Host is not this server's."""

    def __init__(self, app: Callable[..., Iterable[bytes]], port: int) -> None:
        self.app = app
        self.port = port

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any],
                 ) -> Iterable[bytes]:
        if host_ok(environ.get("HTTP_HOST"), self.port):
            return self.app(environ, start_response)
        start_response("403 Forbidden", [("Content-Type", "text/plain; charset=utf-8"),
                                         ("Content-Length", str(len(REFUSAL)))])
        return [REFUSAL]


class AsgiHostGate:
    """ASGI middleware: 403 (or a refused websocket) for a request whose Host is not
    this server's."""

    def __init__(self, app: Callable[..., Any], port: int) -> None:
        self.app = app
        self.port = port

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any],
                       send: Callable[..., Any]) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        hosts = [value for key, value in scope.get("headers") or [] if key == b"host"]
        if len(hosts) == 1 and host_ok(hosts[0], self.port):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(REFUSAL)).encode())]})
        await send({"type": "http.response.body", "body": REFUSAL})
