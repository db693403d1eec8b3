"""The arena's MCP tools (arena_up, arena_reset, arena_env) on a real Trac, through the
SDK's in-process client: a change made through the app is gone after arena_reset."""

from __future__ import annotations

import json
import sqlite3

import httpx
from mcp.shared.memory import create_connected_server_and_client_session

from colorbrowser.arena import Arena
from colorbrowser.arena.ports import STRIDE
from colorbrowser.config import Settings
from colorbrowser.mcp.server import ServerConfig, build_server
from colorbrowser.testing import run_async

# Not instance 0, which the other arena tests share: this one's live data is its own.
INSTANCE = 9


def _ticket_count(db) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT count(*) FROM ticket").fetchone()[0]


def test_up_env_and_reset_drive_the_configured_instance(arena_cache, trac_port):
    config = ServerConfig(settings=Settings(), arena_instance=INSTANCE, arena_cache=arena_cache,
                          arena_ports={"trac": trac_port})

    async def body():
        server = build_server(config)
        async with create_connected_server_and_client_session(server) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"arena_up", "arena_reset", "arena_env"} <= names

            up = await c.call_tool("arena_up", {"apps": ["trac"]})
            assert not up.isError, up.content
            started = up.structuredContent
            assert started["instance"] == INSTANCE
            (trac,) = started["apps"]
            assert trac["url"] == f"http://127.0.0.1:{trac_port + INSTANCE * STRIDE}"
            assert trac["logins"]
            assert httpx.get(trac["url"] + "/report/1").status_code == 200

            env = (await c.call_tool("arena_env", {})).structuredContent["variables"]
            db = next(v for k, v in env.items() if k.startswith("WA_DB_") and "trac" in v)
            before = _ticket_count(db)
            with sqlite3.connect(db) as conn:  # what a task run would have changed
                conn.execute("DELETE FROM ticket WHERE id = (SELECT min(id) FROM ticket)")
            assert _ticket_count(db) == before - 1

            reset = await c.call_tool("arena_reset", {"apps": ["trac"]})
            assert not reset.isError and "trac" in reset.structuredContent["milliseconds"]
            assert _ticket_count(db) == before

            unknown = await c.call_tool("arena_up", {"apps": ["nosuchapp"]})
            assert unknown.isError
            assert "nosuchapp" in json.dumps([c.model_dump() for c in unknown.content])
    try:
        run_async(body)
    finally:
        Arena(INSTANCE, cache=arena_cache, ports={"trac": trac_port}).down()
