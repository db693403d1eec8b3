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

from colorbrowser.browser.tree import MAX_INLINE_OPTIONS
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
    """The ``browser_observe`` answer for one observation (see view.py).

    Every option of every select is listed when the answer fits ``max_tokens`` whole.
    When it does not, long option lists are cut as the agent reads them (the first
    50, "(+N more)"), so the window holds more of the page, and the answer says how
    to see the rest. Both trees have the same lines, so line numbers and matches of
    ``find`` are those of the full tree."""
    what: list[str] = []
    full, brief = seen.lines, seen.brief
    aligned = True  # brief is full line for line (a diff of each need not be)
    if since is not None and since.url != seen.url:
        what.append(f"another page than {since.id}, shown whole")  # a diff would be longer
    elif since is not None:
        full = view.diff(since.lines, seen.lines)
        if brief is not None:
            brief, aligned = view.diff(since.brief or since.lines, brief), False
        what.append(f"changes since {since.id}" if full else f"no change since {since.id}")
    said = list(what)
    keep = _narrowed(full, depth, find, what)
    lines = [full[i] for i in keep]
    answer, window = _fitted(seen, what, lines, max_tokens, from_line)
    if window.whole or brief is None:
        return answer
    if aligned:
        short = [brief[i] for i in keep]
    else:
        what = said
        short = [brief[i] for i in _narrowed(brief, depth, find, what)]
    if short == lines:
        return answer
    return _fitted(seen, what, short, max_tokens, from_line, every=set(lines))[0]


def _narrowed(lines: list[str], depth: int | None, find: str | None,
              what: list[str]) -> list[int]:
    """Indices of the lines ``depth=`` and ``find=`` keep; says so in ``what``."""
    keep = list(range(len(lines)))
    if depth is not None:
        keep = view.by_depth_at(lines, depth)
        what.append(f"depth {depth}")
    if find:
        keep = [keep[j] for j in view.find_at([lines[i] for i in keep], find)]
        what.append(f"{len(keep)} lines around {find!r}" if keep else f"nothing holds {find!r}")
    return keep


def _fitted(seen: Seen, what: list[str], lines: list[str], max_tokens: int, from_line: int,
            *, every: set[str] | None = None) -> tuple[str, view.Window]:
    """The answer holding as many lines from ``from_line`` as fit the budget. With
    ``every`` (the lines listing every option), a shown line not among them had its
    option list cut, and the answer says how to see it whole."""
    from colorbrowser.llm.tokens import count_tokens

    # The budget is for the whole answer: what surrounds the tree (header, fence, the
    # notes on how to go on) is counted first, with room for its numbers to grow.
    empty = view.Window([], 0, 0, len(lines), 0)
    frame = count_tokens(_observe_answer(seen, what, empty, max_tokens, cut=True,
                                         options_cut=every is not None)) + 12
    room = max(1, max_tokens - frame)
    while True:
        window = view.fit(lines, room, count_tokens, start=from_line - 1)
        options_cut = every is not None and any(line not in every for line in window.lines)
        answer = _observe_answer(seen, what, window, max_tokens, cut=window.cut,
                                 options_cut=options_cut)
        if window.tokens + frame < max_tokens - 24 or room == 1:
            return answer, window  # far from the budget: no need to count it again
        # Near the budget, the lines counted apart and the frame's random fence tag
        # can come out a few tokens over once joined: count the answer, cut more.
        over = count_tokens(answer) - max_tokens
        if over <= 0:
            return answer, window
        room = max(1, room - over - 4)


def _observe_answer(seen: Seen, what: list[str], window: view.Window, max_tokens: int, *,
                    cut: bool, options_cut: bool = False) -> str:
    return render("observe.j2", [TEMPLATES], seen=seen, what=", ".join(what),
                  lines=window.lines, first=window.start + 1 if window.lines else 0,
                  last=window.end, total=window.total, tokens=window.tokens, cut=cut,
                  next=window.end + 1, max_tokens=max_tokens, options_cut=options_cut,
                  max_options=MAX_INLINE_OPTIONS)


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
