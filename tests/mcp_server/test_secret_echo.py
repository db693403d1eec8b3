"""A client's action is shown back in the result ("Done: goto(...)", "... failed"):
a secret in it (an address carrying the value) is replaced there too, as everywhere
else an MCP result holds page-side text."""

from __future__ import annotations

from colorbrowser.agent.secrets import Secret
from colorbrowser.mcp.server import ServerConfig
from colorbrowser.testing import run_async

from .conftest import client, quick_settings, text

VALUE = "hunter2-SECRET-9876"


def test_an_address_with_a_secret_comes_back_with_its_placeholder(mcp_url):
    secrets = {"pw": Secret(VALUE, ("127.0.0.1",))}

    async def body():
        config = ServerConfig(settings=quick_settings(allow_hosts=["127.0.0.1"]),
                              secrets=secrets)
        async with client(config) as c:
            done = await c.call_tool("browser_act",
                                     {"action": f"goto('{mcp_url('form.html')}?pw={VALUE}')"})
            assert not done.isError, text(done)
            assert VALUE not in text(done) and "pw={{secret:pw}}" in text(done)
            failed = await c.call_tool("browser_act",
                                       {"action": f"goto('http://example.com/?pw={VALUE}')"})
            assert failed.isError and VALUE not in text(failed)
    run_async(body)
