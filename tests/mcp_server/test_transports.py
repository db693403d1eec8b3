"""The server as a client meets it: launched the way the README tells an editor to,
over a real stdio pipe, and over streamable HTTP with its token and Host check."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from colorbrowser.testing import run_async
from tests.mcp_server.conftest import text

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "test-mcp-token"


def readme_client_config() -> dict:
    """The client configuration the README's "MCP server" section shows."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## MCP server", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```json\n(.*?)```", section, re.S)
    assert block, "the MCP section has no JSON client configuration"
    return json.loads(block.group(1))["mcpServers"]["colorbrowser"]


def child_env() -> dict[str, str]:
    """This checkout's package first, as the launched command must run this code."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), str(ROOT),
                                                    env.get("PYTHONPATH")) if p)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def test_the_readme_config_starts_a_server_whose_failures_are_error_results(mcp_url):
    entry = readme_client_config()
    env = child_env()
    command = shutil.which(entry["command"], path=env["PATH"])
    assert command, f"{entry['command']} is not installed next to {sys.executable}"
    params = StdioServerParameters(command=command, args=entry["args"], env=env)

    async def body():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as c:
            await c.initialize()
            refused = await c.call_tool("browser_act", {"action": "goto('http://example.com/')"})
            assert refused.isError and "not an allowed host" in text(refused)
            went = await c.call_tool("browser_act", {"action": f"goto('{mcp_url('form.html')}')"})
            assert not went.isError, text(went)
            missing = await c.call_tool("browser_act", {"action": "click('nope')"})
            assert missing.isError and "not on the page" in text(missing)
            # The server is still there after the failures.
            seen = await c.call_tool("browser_observe", {"find": "Add to basket"})
            assert not seen.isError and "button 'Add to basket'" in text(seen)
    run_async(body)


class HttpServer:
    """``colorbrowser mcp --http --port 0`` in a child process; stopped by its own pid."""

    def __enter__(self) -> HttpServer:
        env = {**child_env(), "COLORBROWSER_MCP_TOKEN": TOKEN}
        self.proc = subprocess.Popen([sys.executable, "-m", "colorbrowser", "mcp", "--http",
                                      "--port", "0"], env=env, stderr=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, text=True)
        found: list[str] = []

        def read() -> None:
            for line in self.proc.stderr:
                if m := re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line):
                    found.append(m.group(1))
                    return
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout=60)
        assert found, "the HTTP server did not say where it listens"
        self.url = found[0]
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream",
           "Content-Type": "application/json"}


def test_http_needs_the_token_and_its_own_host():
    with HttpServer() as server:
        port = server.url.split(":")[2].split("/")[0]
        no_token = httpx.post(server.url, json=INITIALIZE, headers=HEADERS)
        assert no_token.status_code == 403
        wrong_token = httpx.post(server.url, json=INITIALIZE,
                                 headers={**HEADERS, "Authorization": "Bearer nope"})
        assert wrong_token.status_code == 403
        foreign = httpx.post(server.url, json=INITIALIZE,
                             headers={**HEADERS, "Authorization": f"Bearer {TOKEN}",
                                      "Host": f"attacker.example:{port}"})
        assert foreign.status_code in (400, 403, 421), foreign.status_code
        assert "mcp-session-id" not in foreign.headers

        async def body():
            auth = {"Authorization": f"Bearer {TOKEN}"}
            async with httpx.AsyncClient(headers=auth) as http, \
                    streamable_http_client(server.url, http_client=http) as (read, write, _), \
                    ClientSession(read, write) as c:
                await c.initialize()
                names = {t.name for t in (await c.list_tools()).tools}
                assert "browser_observe" in names
                bad = await c.call_tool("browser_observe", {"diff_since": "o42"})
                assert bad.isError and "o42" in text(bad)
        run_async(body)


def test_a_busy_port_or_a_bad_host_list_is_one_error_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        for args in (["--http", "--port", str(port)], ["--allow-hosts", "not a host!"]):
            done = subprocess.run([sys.executable, "-m", "colorbrowser", "mcp", *args],
                                  env=child_env(), capture_output=True, text=True, timeout=60,
                                  stdin=subprocess.DEVNULL)
            assert done.returncode == 2, done.stderr
            assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
            assert "Traceback" not in done.stderr
