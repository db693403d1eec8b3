"""``colorbrowser copilot`` in a child process, its scripted Operator and Summarizer, and
the panel address it prints."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from colorbrowser.testing import ScriptedEndpoint, act, user_text

KEY = "copilot-test-key"


def role(messages) -> str:
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    system = system if isinstance(system, str) else json.dumps(system)
    return "summarizer" if system.startswith("You keep the running memory") else "operator"


def summary() -> str:
    return json.dumps({"progress": ["working on it"], "facts": [], "state": "as expected",
                       "on_track": True, "tip_violations": [], "guidance": ""})


def bid_of(text: str, role_name: str, name: str) -> str:
    m = re.search(rf"\[(\w+)\] {role_name} '{re.escape(name)}'", text)
    assert m, f"{role_name} {name!r} not in the prompt"
    return m.group(1)


def sign_in_as(first: str):
    """Scripted Operator replies: fill the user name (``first``, or ada after a
    rejection) and stop once the field holds ada."""
    def operator(text: str) -> str:
        user = bid_of(text, "textbox", "User")
        if re.search(rf"\[{user}\] textbox 'User'[^\n]* value='ada'", text):
            return act("the name is in", "stop('ada is typed')")
        name = "ada" if "rejected by person" in text else first
        return act("type the name", f"fill('{user}', '{name}')")
    return operator


def scripted(operator):
    def policy(messages):
        if role(messages) == "summarizer":
            return summary()
        return operator(user_text(messages))
    return policy


def prompts(endpoint, who: str = "operator") -> list[str]:
    return [user_text(r["messages"]) for r in endpoint.requests if role(r["messages"]) == who]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def copilot_running(policy, goal: str, url: str, out: Path, *args: str,
                    cdp_port: int | None = None):
    """A scripted endpoint and the copilot command using it; the command is killed at
    the end whatever the test did."""
    with ScriptedEndpoint(policy, token=KEY) as endpoint:
        copilot = CopilotProcess(endpoint, goal, url, out, *args, cdp_port=cdp_port)
        try:
            yield endpoint, copilot
        finally:
            copilot.kill()


class CopilotProcess:
    """The copilot command running in a child process until it ends."""

    def __init__(self, endpoint, goal: str, url: str, out: Path, *args: str,
                 cdp_port: int | None = None):
        self.out = out
        self.cdp_port = cdp_port
        argv = [sys.executable, "-m", "colorbrowser", "copilot", goal, "--url", url,
                "--base-url", endpoint.url, "--model", "scripted", "--api-key-env",
                "COPILOT_KEY", "--out", str(out), "--headless", *args]
        if "--knowledge" not in args:
            argv += ["--knowledge", "off"]
        if "--verify" not in args:  # these runs are about the panel, not the verifier
            argv += ["--verify", "off"]
        if cdp_port:
            argv += ["--remote-debugging-port", str(cdp_port)]
        env = {**os.environ, "COPILOT_KEY": KEY, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        self.lines: list[str] = []
        self.panel_url: str | None = None
        self._seen = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._seen.wait(60):
            self.kill()
            raise AssertionError("no panel address:\n" + "".join(self.lines))

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line)
            m = re.search(r"panel (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            if m:
                self.panel_url = m.group(1)
                self._seen.set()
        self._seen.set()

    @property
    def base(self) -> str:
        return self.panel_url.split("/?")[0]

    @property
    def token(self) -> str:
        return self.panel_url.split("token=")[1]

    def wait(self, timeout: float = 60) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError("copilot did not end:\n" + "".join(self.lines)) from None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def steps(self) -> list[dict]:
        path = self.out / "steps.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def result(self) -> dict:
        return json.loads((self.out / "result.json").read_text())

    def stderr(self) -> str:
        time.sleep(0.1)
        return "".join(self.lines)
