"""The control panel: a local web page for the person beside the agent.

Starlette on uvicorn, in a thread of its own, bound to 127.0.0.1 only. Every request
must be addressed to the panel itself (its ``Host``, against DNS rebinding: see
``colorbrowser.hostcheck``) and carry the session's random token (``?token=`` or an
``X-Token`` header); without either the answer is 403. The page is plain HTML and
JavaScript (no build step). It reads a server-sent event stream (proposal, countdown,
screenshots, steps) and sends commands with POST; scripted persons may send the same
commands over HTTP:

- ``POST /command`` with a JSON command (``{"kind": "reject", "reason": "..."}``), or
- ``POST /command/<kind>`` with the other fields as an optional JSON body.

The server never touches the browser: it only puts commands on the channel's queue
and streams what the loop publishes.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

import uvicorn
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from colorbrowser.copilot.channel import Channel, Command
from colorbrowser.errors import UserError
from colorbrowser.hostcheck import AsgiHostGate

PING_S = 10.0
WAKE_S = 0.2  # how soon a stream notices the panel is closing
DRAIN_S = 1.0  # how long closing waits for open streams to send what is queued
MAX_BODY = 64_000


def _page() -> str:
    return resources.files("colorbrowser.copilot").joinpath("templates/panel.html").read_text(
        "utf-8")


def make_app(channel: Channel, token: str, closing: threading.Event, port: int) -> Starlette:
    """The panel's routes on ``port``; every one behind the Host check and the token."""

    def allowed(request: Request) -> bool:
        given = request.query_params.get("token") or request.headers.get("x-token") or ""
        return secrets.compare_digest(given.encode(), token.encode())

    async def index(request: Request) -> Any:
        return HTMLResponse(_page(), headers={"Cache-Control": "no-store",
                                              "Referrer-Policy": "no-referrer"})

    async def events(request: Request) -> Any:
        async def stream():
            q = channel.feed.subscribe()
            try:
                yield "retry: 1000\n\n"
                quiet = 0.0
                while not (closing.is_set() and q.empty()):  # the last messages go out
                    try:
                        message = await asyncio.wait_for(q.get(), WAKE_S)
                    except TimeoutError:
                        quiet += WAKE_S
                        if quiet >= PING_S:
                            quiet = 0.0
                            yield ": ping\n\n"
                        continue
                    quiet = 0.0
                    yield f"data: {json.dumps(message)}\n\n"
            finally:
                channel.feed.unsubscribe(q)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def state(request: Request) -> Any:
        latest = {k: v for k, v in channel.feed.latest.items() if k != "screen"}
        return JSONResponse(latest)

    async def command(request: Request) -> Any:
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"ok": False, "error": "the command is too large"}, 413)
        try:
            data = json.loads(body) if body.strip() else {}
            if not isinstance(data, dict):
                raise ValueError("a command is a JSON object")
            if kind := request.path_params.get("kind"):
                data["kind"] = kind
            data.pop("received", None)
            cmd = Command.model_validate(data)
        except RecursionError:  # "[[[[…" within the size cap: Python's parser gives up
            return JSONResponse({"ok": False, "error": "bad command: nested too deeply"}, 400)
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()
            text = first[2].strip() if isinstance(exc, ValidationError) and len(first) > 2 \
                else (first[0] if first else "bad command")
            return JSONResponse({"ok": False, "error": f"bad command: {text}"}, 400)
        refused = channel.send(cmd)
        if refused:
            return JSONResponse({"ok": False, "error": refused}, 409)
        return JSONResponse({"ok": True, "kind": cmd.kind, "proposal": cmd.proposal})

    return Starlette(routes=[
        Route("/", index), Route("/events", events), Route("/state", state),
        Route("/command", command, methods=["POST"]),
        Route("/command/{kind}", command, methods=["POST"]),
    ], middleware=[Middleware(AsgiHostGate, port=port), Middleware(TokenGate, allowed=allowed)])


class TokenGate:
    """Every request without the token gets 403; nothing of the panel may be framed."""

    def __init__(self, app: ASGIApp, allowed) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self.allowed(Request(scope)):
            await PlainTextResponse("forbidden: this panel needs its token\n", 403)(
                scope, receive, send)
            return

        async def framed_never(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-frame-options", b"DENY")]
            await send(message)

        await self.app(scope, receive, framed_never)


@dataclass
class PanelServer:
    """The panel, served from a thread until ``close``."""

    channel: Channel
    port: int = 0

    def __post_init__(self) -> None:
        self.token = secrets.token_urlsafe(24)
        self._closing = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._sock.bind(("127.0.0.1", self.port))
        except OSError as exc:
            self._sock.close()
            raise UserError(f"--panel-port {self.port}: cannot listen there ({exc.strerror})") \
                from None
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(make_app(self.channel, self.token, self._closing, self.port),
                                log_level="warning", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run,
                                        kwargs={"sockets": [self._sock]}, daemon=True,
                                        name="copilot-panel")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/?token={self.token}"

    def start(self) -> PanelServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def close(self) -> None:
        deadline = time.monotonic() + DRAIN_S
        while self.channel.feed.backlog() and time.monotonic() < deadline:
            time.sleep(0.02)
        self._closing.set()
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> PanelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
