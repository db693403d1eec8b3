"""The MCP server: ColorBrowser's browser, agent, tips and arena as MCP tools.

Built on the official ``mcp`` SDK (1.x, whose server class is ``FastMCP``). Each MCP
session gets its own Workspace (its own Chromium and context) through the server's
lifespan, which the SDK enters once per session and leaves when it ends. Whatever a
tool cannot do comes back as an MCP error result: the server itself never stops for
a bad bid, a bad action or a refused page. Page text is fenced in every result, and
every known secret is replaced before anything leaves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
from mcp.server.fastmcp import Context, FastMCP, Image
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from colorbrowser.errors import ColorBrowserError
from colorbrowser.llm.prompts import Fence, render
from colorbrowser.mcp import view
from colorbrowser.mcp.options import TEMPLATES, ServerConfig, texts
from colorbrowser.mcp.workspace import Seen, ToolFailure, Workspace

__all__ = ["ServerConfig", "build_server"]


def _failure(what: str, detail: str) -> ToolError:
    """An error result whose detail (which may quote the page) is fenced."""
    return ToolError(f"{what}:\n{Fence()(detail)}")


def _workspace(ctx: Context) -> Workspace:
    return ctx.request_context.lifespan_context


async def _run(ws: Workspace, what: str, fn, *args: Any) -> Any:
    try:
        return await ws.call(fn, *args)
    except ToolFailure as exc:
        raise _failure(what, str(exc)) from None
    except ColorBrowserError as exc:  # e.g. the browser could not start
        raise _failure(what, ws.clean(str(exc))) from None


def observe_text(seen: Seen, *, find: str | None, depth: int | None, since: Seen | None,
                 max_tokens: int, from_line: int) -> str:
    """The ``browser_observe`` answer for one observation (see view.py)."""
    from colorbrowser.llm.tokens import count_tokens

    lines, what = seen.lines, []
    if since is not None and since.url != seen.url:
        what.append(f"another page than {since.id}, shown whole")  # a diff would be longer
    elif since is not None:
        lines = view.diff(since.lines, lines)
        what.append(f"changes since {since.id}" if lines else f"no change since {since.id}")
    if depth is not None:
        lines = view.by_depth(lines, depth)
        what.append(f"depth {depth}")
    if find:
        lines = view.find(lines, find)
        what.append(f"{len(lines)} lines around {find!r}" if lines else f"nothing holds {find!r}")
    # The budget is for the whole answer: what surrounds the tree (header, fence, the
    # note on how to go on) is counted first, with room for its numbers to grow.
    empty = view.Window([], 0, 0, len(lines), 0)
    frame = count_tokens(_observe_answer(seen, what, empty, max_tokens, cut=True)) + 12
    window = view.fit(lines, max(1, max_tokens - frame), count_tokens, start=from_line - 1)
    return _observe_answer(seen, what, window, max_tokens, cut=window.cut)


def _observe_answer(seen: Seen, what: list[str], window: view.Window, max_tokens: int, *,
                    cut: bool) -> str:
    return render("observe.j2", [TEMPLATES], seen=seen, what=", ".join(what),
                  lines=window.lines, first=window.start + 1 if window.lines else 0,
                  last=window.end, total=window.total, tokens=window.tokens, cut=cut,
                  next=window.end + 1, max_tokens=max_tokens)


def build_server(config: ServerConfig | None = None) -> FastMCP:
    """The server with every tool; run it with ``run_stdio_async`` or serve
    ``streamable_http_app()`` (see cli.py)."""
    config = config or ServerConfig()
    say = texts()
    vault = config.vault()  # a secret that cannot be read fails here, at the start

    @asynccontextmanager
    async def session(_: FastMCP) -> AsyncIterator[Workspace]:
        ws = Workspace(config.settings.browser, config.settings.secrets(), vault)
        try:
            yield ws
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(ws.close)

    server = FastMCP("colorbrowser", instructions=say["instructions"], lifespan=session,
                     log_level="WARNING", transport_security=config.host_check,
                     max_sessions=config.max_sessions)

    # -- the browser --------------------------------------------------------------------

    async def browser_observe(
        ctx: Context,
        find: str | None = None,
        depth: Annotated[int | None, Field(ge=1)] = None,
        diff_since: str | None = None,
        max_tokens: Annotated[int, Field(ge=100, le=100_000)] = view.DEFAULT_MAX_TOKENS,
        from_line: Annotated[int, Field(ge=1)] = 1,
    ) -> str:
        ws = _workspace(ctx)
        since = await _run(ws, "browser_observe failed", ws.seen, diff_since) \
            if diff_since else None
        seen = await _run(ws, "browser_observe failed", ws.observe)
        return observe_text(seen, find=find, depth=depth, since=since, max_tokens=max_tokens,
                            from_line=from_line)

    async def browser_act(ctx: Context, action: str) -> str:
        ws = _workspace(ctx)
        done = await _run(ws, f"{ws.clean(action.strip())[:80]} failed", ws.act, action)
        return render("act.j2", [TEMPLATES], action=done.action, output=done.output,
                      seen=done.seen)

    async def browser_screenshot(ctx: Context, marks: bool = False) -> list[Any]:
        ws = _workspace(ctx)
        png, seen = await _run(ws, "browser_screenshot failed", ws.screenshot, marks)
        label = f"Screenshot of observation {seen.id}" + (" with bids boxed" if marks else "")
        return [Image(data=png, format="png"), f"{label}:\n{Fence()(seen.header[0])}"]

    for fn in (browser_observe, browser_act, browser_screenshot):
        about = say[fn.__name__]
        if fn is browser_act and vault:
            about += " " + say["secrets"] + " " + "; ".join(vault.prompt_lines())
        server.add_tool(fn, description=about, structured_output=False)

    # -- the agent, knowledge, the arena ------------------------------------------------------
    from colorbrowser.mcp.tools import add_agent_tool, add_knowledge_tools

    add_agent_tool(server, config, say)
    add_knowledge_tools(server, config, say, [*config.settings.secrets(), *vault.values])
    if config.arena_instance is not None:
        from colorbrowser.mcp.tools import add_arena_tools

        add_arena_tools(server, config, say)
    return server
