"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1 for CLI tests.

A real ``colorbrowser`` process talks to it over HTTP exactly as it would to a
model server; the test decides each reply from the messages it receives (by role:
operator, summarizer or critic) and can read every request afterwards. It
requires a bearer token, like every local server of the project.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handler = Callable[["Chat"], str]


@dataclass
class Chat:
    """One chat request as the endpoint saw it."""

    messages: list[dict[str, Any]]
    body: dict[str, Any]

    @property
    def system(self) -> str:
        return _text(self.messages[0]) if self.messages else ""

    @property
    def user(self) -> str:
        return _text(self.messages[-1]) if self.messages else ""

    @property
    def role(self) -> str:
        if self.system.startswith("You keep the running memory"):
            return "summarizer"
        if self.system.startswith("You review one step"):
            return "critic"
        return "operator"


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # text + image parts
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return str(content or "")


@dataclass
class FakeModel:
    url: str
    token: str
    handler: Handler
    chats: list[Chat] = field(default_factory=list)

    def of(self, role: str) -> list[Chat]:
        return [c for c in self.chats if c.role == role]


def summary_json(progress: str = "working on it", **more: Any) -> str:
    reply = {"progress": [progress], "facts": [], "state": "page looks as expected",
             "on_track": True, "tip_violations": [], "guidance": ""}
    reply.update(more)
    return json.dumps(reply)


@contextmanager
def fake_model(handler: Handler) -> Iterator[FakeModel]:
    model = FakeModel(url="", token=secrets.token_hex(8), handler=handler)
    lock = threading.Lock()

    class Endpoint(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _authorized(self) -> bool:
            if self.headers.get("Authorization") == f"Bearer {model.token}":
                return True
            self._send(401, {"error": {"message": "bad token", "type": "auth"}})
            return False

        def do_GET(self) -> None:
            if self._authorized():
                self._send(200, {"object": "list", "data": [
                    {"id": "fake", "object": "model", "owned_by": "test"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if not self._authorized():
                return
            chat = Chat(body.get("messages", []), body)
            with lock:
                model.chats.append(chat)
            try:
                text = model.handler(chat)
            except Exception as exc:  # a broken test script shows up as a server error
                self._send(500, {"error": {"message": f"test handler: {exc}", "type": "test"}})
                return
            self._send(200, {
                "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                "model": "fake",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            })

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    model.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
