"""Helpers for the test suite and benchmarks; the server itself is colorbrowser.static_server."""

from __future__ import annotations

from colorbrowser.static_server import Route, hang, send_html, serve_directory

__all__ = ["Route", "ScriptedEndpoint", "act", "bid_in", "hang", "prompt_text", "run_async",
           "run_cli", "send_html", "serve_directory", "start_loopback", "stop_loopback",
           "user_text"]


def run_async(fn, *args):
    """``anyio.run(fn, *args)`` in a thread of its own: a test process whose main thread
    already drives a sync Playwright (the shared browser fixtures) has an event loop
    running there, and a second loop may not start in that thread."""
    import threading

    import anyio

    out: dict[str, object] = {}

    def main() -> None:
        try:
            out["value"] = anyio.run(fn, *args)
        except BaseException as exc:  # handed to the caller's thread
            out["error"] = exc

    thread = threading.Thread(target=main, name="test-event-loop")
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out.get("value")


def start_loopback(handler):
    """A threaded HTTP server on 127.0.0.1 at a free port, serving ``handler`` in a
    daemon thread until ``stop_loopback``: the fake sites and endpoints of the tests."""
    import threading
    from http.server import ThreadingHTTPServer

    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop_loopback(server) -> None:
    server.shutdown()
    server.server_close()


def run_cli(*argv: str) -> int:
    """``colorbrowser ARGV`` in this process; its exit code (0 when it just returns)."""
    from colorbrowser.cli import main

    try:
        main(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def prompt_text(messages) -> str:
    """The last user prompt an agent sent: what a scripted reply may look at."""
    return messages[-1].content


def bid_in(messages, role: str, name: str) -> str:
    """Find an element's id in a prompt, the way a model would."""
    import re

    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", prompt_text(messages))
    if not m:
        raise AssertionError(f"{role} {name!r} not in the prompt")
    return m.group(1)


def act(thought: str, action: str) -> str:
    """A well-formed Operator reply, for scripted models."""
    return f"<think>{thought}</think>\n<action>{action}</action>"


class ScriptedEndpoint:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 whose replies come from a policy
    function of the request's messages: scripted model replies for tests that run the
    real CLI in another process. It requires its bearer token like any local server."""

    def __init__(self, policy, *, token: str = "test-token", delay: float = 0.0):
        self.policy = policy
        self.token = token
        self.delay = delay
        self.requests: list[dict] = []
        self._server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedEndpoint:
        import json
        import time
        from http.server import BaseHTTPRequestHandler

        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def _reply(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._reply(200, {"object": "list", "data": [{"id": "scripted"}]})

            def do_POST(self) -> None:
                if self.headers.get("Authorization") != f"Bearer {endpoint.token}":
                    self._reply(401, {"error": {"message": "bad token"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append(body)
                time.sleep(endpoint.delay)
                text = endpoint.policy(body["messages"])
                self._reply(200, {
                    "id": "x", "object": "chat.completion", "created": 0, "model": "scripted",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = start_loopback(Handler)
        return self

    def __exit__(self, *exc: object) -> None:
        stop_loopback(self._server)


def user_text(messages: list[dict]) -> str:
    """The text of the last user message of an OpenAI-format request."""
    content = [m for m in messages if m["role"] == "user"][-1]["content"]
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
    return content
