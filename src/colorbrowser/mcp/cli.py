"""``colorbrowser mcp``: the MCP server over stdio (an editor or a chat app starts it),
or with ``--http`` over streamable HTTP on 127.0.0.1, behind a token and a Host check."""

from __future__ import annotations

import os
import secrets
import socket

import click

from colorbrowser.errors import UserError
from colorbrowser.run.flags import model_options, settings_from_flags

TOKEN_VAR = "COLORBROWSER_MCP_TOKEN"
DEFAULT_PORT = 8931


@click.command("mcp")
@click.option("--http", "use_http", is_flag=True,
              help="Serve streamable HTTP on 127.0.0.1 instead of stdio; clients send "
                   f"'Authorization: Bearer TOKEN' (TOKEN from ${TOKEN_VAR}, else printed).")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port for --http (0: any free port).")
@model_options
@click.option("--allow-hosts", default=None,
              help="Comma-separated hosts the browser may reach; every other host is refused.")
@click.option("--headed", is_flag=True, help="Show the browser windows.")
@click.option("--arena-instance", type=click.IntRange(0, 50), default=None,
              help="Offer the arena tools (up, reset, env), driving this arena instance.")
def mcp_command(use_http: bool, port: int, config_path, base_url, model_name, api_key_env,
                allow_hosts: str | None, headed: bool, arena_instance: int | None) -> None:
    """Serve the browser, the agent, tips and the arena as MCP tools."""
    try:
        from colorbrowser.mcp.server import ServerConfig, build_server
    except ImportError as exc:
        raise UserError(f"the MCP server needs the mcp extra: pip install 'colorbrowser[mcp]' "
                        f"({exc})") from None
    settings = settings_from_flags(config_path, base_url, model_name, api_key_env, {
        ("browser", "headless"): False if headed else None,
        ("browser", "allow_hosts"): allow_hosts,
    })
    config = ServerConfig(settings=settings, arena_instance=arena_instance)
    if not use_http:
        import anyio

        anyio.run(serve_stdio, build_server(config))
        return
    serve_http(config, port)


async def serve_stdio(server) -> None:
    """The protocol on a private copy of stdout; whatever else writes to stdout (a
    child process, a library's print) lands on stderr instead of corrupting it."""
    import io
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    sys.stdout.flush()
    protocol = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # FastMCP.run_stdio_async does the same with the process's own stdout.
    low = server._mcp_server
    async with stdio_server(stdout=anyio.wrap_file(protocol)) as (read, write):
        await low.run(read, write, low.create_initialization_options())


def serve_http(config, port: int) -> None:
    """Streamable HTTP on 127.0.0.1:PORT until interrupted."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.requests import Request

    from colorbrowser.copilot.panel import TokenGate
    from colorbrowser.mcp.server import build_server

    token = os.environ.get(TOKEN_VAR) or secrets.token_urlsafe(24)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        raise UserError(f"--port {port}: cannot listen there ({exc.strerror})") from None
    sock.listen(128)  # a client that connects before the server runs waits in the queue
    port = sock.getsockname()[1]
    # A page on another site can make the browser send requests here (DNS rebinding):
    # only this exact address is accepted as Host and Origin.
    hosts = [f"127.0.0.1:{port}", f"localhost:{port}"]
    config.host_check = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"http://{h}" for h in hosts])
    app = build_server(config).streamable_http_app()

    def allowed(request: Request) -> bool:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return secrets.compare_digest(given.encode(), token.encode())

    shown = f"${TOKEN_VAR}" if os.environ.get(TOKEN_VAR) else token  # the one in use
    click.echo(f"MCP server on http://127.0.0.1:{port}/mcp (Authorization: Bearer {shown})",
               err=True)
    server = uvicorn.Server(uvicorn.Config(TokenGate(app, allowed), log_level="warning",
                                           access_log=False, timeout_graceful_shutdown=2))
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
