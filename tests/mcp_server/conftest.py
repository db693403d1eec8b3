"""MCP tests talk to the server the way a client does: through the SDK's own client,
in process (memory streams) or over a real pipe or HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest
from mcp.client.session import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session
from mcp.types import CallToolResult

from colorbrowser.config import BrowserSettings, Settings
from colorbrowser.mcp.server import ServerConfig, build_server


def quick_settings(**browser) -> Settings:
    """Short timeouts so the error paths fail fast."""
    return Settings(browser=BrowserSettings(action_timeout_ms=1500,
                                            navigation_timeout_ms=8000, **browser))


@contextlib.asynccontextmanager
async def client(config: ServerConfig | None = None) -> AsyncIterator[ClientSession]:
    """One MCP session with a fresh server, connected in memory."""
    server = build_server(config or ServerConfig(settings=quick_settings()))
    async with create_connected_server_and_client_session(server) as session:
        yield session


def text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


@pytest.fixture
def mcp_url(pages_url: str):
    def url(name: str) -> str:
        return f"{pages_url}/mcp/{name}"
    return url
