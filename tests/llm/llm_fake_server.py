"""A tiny OpenAI-compatible chat endpoint on 127.0.0.1 that answers from a script.

Each scripted reply is (status, JSON body, extra headers, delay seconds); a
callable reply gets the request and returns such a tuple. Every request is
recorded (path, headers, parsed JSON body, arrival time) so tests can check
exactly what the client sent and when.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any, dict[str, str], float]


def chat_reply(text: str, *, prompt_tokens: int | None = 11, completion_tokens: int = 5,
               model: str = "fake-model") -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
    }
    if prompt_tokens is not None:
        body["usage"] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                         "total_tokens": prompt_tokens + completion_tokens}
    return body


def ok(text: str = "<action>stop()</action>", **kw: Any) -> Reply:
    return (200, chat_reply(text, **kw), {}, 0.0)


def error(status: int, message: str = "boom", headers: dict[str, str] | None = None) -> Reply:
    return (status, {"error": {"message": message, "type": "test"}}, headers or {}, 0.0)


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class FakeEndpoint:
    url: str
    script: list[Reply | Callable[[Recorded], Reply]]
    requests: list[Recorded] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    models_body: Any = None  # sent instead of the list built from ``models``, to break it

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]


@contextmanager
def fake_endpoint(script: list | None = None) -> Iterator[FakeEndpoint]:
    endpoint = FakeEndpoint(url="", script=list(script or []))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode() if not isinstance(body, bytes) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _headers(self) -> dict[str, str]:
            return {k.lower(): v for k, v in self.headers.items()}

        def do_GET(self) -> None:
            with lock:
                endpoint.requests.append(Recorded(self.path, self._headers(), None,
                                                  time.monotonic()))
            if self.path.endswith("/models") and endpoint.models_body is not None:
                self._send(200, endpoint.models_body, {})
            elif self.path.endswith("/models"):
                self._send(200, {"object": "list", "data": [
                    {"id": m, "object": "model", "owned_by": "test"} for m in endpoint.models]},
                    {})
            else:
                self._send(404, {"error": {"message": "not found"}}, {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            rec = Recorded(self.path, self._headers(), json.loads(raw or b"null"),
                           time.monotonic())
            with lock:
                endpoint.requests.append(rec)
                step = endpoint.script.pop(0) if endpoint.script else error(599, "script empty")
            reply = step(rec) if callable(step) else step
            status, body, headers, delay = reply
            if delay:
                time.sleep(delay)
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(status, body, headers)  # the client may have timed out

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    endpoint.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
