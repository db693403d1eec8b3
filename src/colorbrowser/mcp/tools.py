"""The MCP tools beside the browser: a whole task for the agent (through the Python API,
``colorbrowser.Agent``), tips from the knowledge base, and the arena for agent
developers. Each opens what it needs per call, on a worker thread, so a slow
store or a starting app never holds up the server's event loop."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import BaseModel, Field

from colorbrowser.errors import ColorBrowserError
from colorbrowser.llm.prompts import Fence

if TYPE_CHECKING:
    from colorbrowser.mcp.options import ServerConfig


RUN_TASKS_AT_ONCE = 2  # each run_task is a whole browser and a model


async def _off_loop(fn, *args: Any, limiter: anyio.CapacityLimiter | None = None) -> Any:
    """Run ``fn`` on a worker thread; a user-facing failure becomes an error result."""
    try:
        return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)
    except ColorBrowserError as exc:
        raise ToolError(str(exc)) from None


# -- the whole agent ----------------------------------------------------------------------


class TaskOutcome(BaseModel):
    """How a run_task ended: the agent's status, the verifier's verdict (None where none
    ran), the answer (typed when an output schema was given) and the run folder.

    The answer and the error say what web pages said (a page can write the agent's
    answer for it), so they come back fenced like every page text this server returns,
    and ``untrusted`` tells the calling model so; ``output`` keeps the schema's types."""

    status: str
    verdict: str | None
    answer: str | None
    output: Any = None
    steps: int
    run_dir: str | None
    error: str | None
    untrusted: str = ""


def add_agent_tool(server: FastMCP, config: ServerConfig, say: dict[str, str]) -> None:
    runs: list[anyio.CapacityLimiter] = []  # made on the server's own event loop

    def run(goal: str, url: str, output_schema: dict[str, Any] | None,
            max_steps: int | None) -> TaskOutcome:
        from colorbrowser.api import Agent

        settings = config.settings.model_copy(deep=True)
        if max_steps is not None:
            settings.agent.max_steps = max_steps
        agent = Agent(goal, url=url, settings=settings, output=output_schema,
                      secrets=dict(config.secrets))
        result = agent.run()
        fence = Fence()
        return TaskOutcome(status=result.status, verdict=result.verdict,
                           answer=_fenced(fence, result.answer),
                           output=result.to_json()["output"], steps=len(result.steps),
                           run_dir=str(result.run_dir) if result.run_dir else None,
                           error=_fenced(fence, result.error),
                           untrusted=say["run_task_untrusted"])

    async def run_task(goal: str, url: str, output_schema: dict[str, Any] | None = None,
                       max_steps: Annotated[int | None, Field(ge=1, le=500)] = None
                       ) -> TaskOutcome:
        if not runs:
            runs.append(anyio.CapacityLimiter(RUN_TASKS_AT_ONCE))
        return await _off_loop(run, goal, url, output_schema, max_steps, limiter=runs[0])

    server.add_tool(run_task, description=say["run_task"])


def _fenced(fence: Fence, text: str | None) -> str | None:
    return fence(text) if text else text


# -- knowledge ----------------------------------------------------------------------------


def add_knowledge_tools(server: FastMCP, config: ServerConfig, say: dict[str, str],
                        secrets: list[str]) -> None:
    from colorbrowser.agent.trajectory import Redactor
    from colorbrowser.llm.prompts import render
    from colorbrowser.mcp.options import TEMPLATES

    settings = config.settings
    redactor = Redactor()
    for value in secrets:
        redactor.add(value)

    def open_kb(*, writing: bool):
        from colorbrowser.knowledge import KnowledgeBase, default_db_path

        mode = settings.agent.knowledge
        if mode == "off":
            raise ToolError("the knowledge base is off in this server's settings")
        if writing and mode == "frozen":
            raise ToolError("the knowledge base is frozen (read-only) in this server's settings")
        return KnowledgeBase.open(settings.paths.knowledge or default_db_path(),
                                  readonly=mode == "frozen",
                                  embeddings=settings.agent.tips_embeddings and not writing)

    def search(goal: str, url: str | None, k: int) -> str:
        kb = open_kb(writing=False)
        try:
            found = kb.search(url, goal, k=k)
        finally:
            kb.close()
        return redactor.text(render("tips.j2", [TEMPLATES], found=found))

    async def tips_search(goal: str, url: str | None = None,
                          k: Annotated[int, Field(ge=1, le=20)] = 3) -> str:
        return await _off_loop(search, goal, url, k)

    def add(site: str, text: str, url_patterns: list[str], keywords: list[str]) -> str:
        from colorbrowser.knowledge import make_tip
        from colorbrowser.knowledge.injection import instruction_findings

        if redactor.text(text) != text:
            raise ToolError("the tip holds a secret; tips are shared, so it was not saved")
        # The client is a model that reads pages: a page could plant orders through it.
        for finding in instruction_findings(text, site):
            raise ToolError(f"the tip was not saved: it {finding}")
        tip = make_tip(id="", site=site, text=text, url_patterns=url_patterns,
                       keywords=keywords, author="mcp", source="import")
        kb = open_kb(writing=True)
        try:
            kb.add(tip)
        finally:
            kb.close()
        return f"saved tip {tip.id}"

    async def tips_add(site: str, text: str, url_patterns: list[str] | None = None,
                       keywords: list[str] | None = None) -> str:
        return await _off_loop(add, site, text, url_patterns or [], keywords or [])

    for fn in (tips_search, tips_add):
        server.add_tool(fn, description=say[fn.__name__], structured_output=False)


# -- the arena ----------------------------------------------------------------------------


class AppAddress(BaseModel):
    app: str
    url: str
    logins: list[str]


class ArenaUp(BaseModel):
    instance: int
    apps: list[AppAddress]
    seconds: float


class ArenaReset(BaseModel):
    instance: int
    milliseconds: dict[str, float]


class ArenaEnv(BaseModel):
    instance: int
    variables: dict[str, str]


def add_arena_tools(server: FastMCP, config: ServerConfig, say: dict[str, str]) -> None:
    assert config.arena_instance is not None
    instance = config.arena_instance

    def arena():
        from colorbrowser.arena import Arena

        return Arena(instance, cache=config.arena_cache or config.settings.paths.cache,
                     ports=config.arena_ports)

    def up(apps: list[str]) -> ArenaUp:
        import time

        from colorbrowser.arena.apps import select

        chosen = select(apps)
        a = arena()
        started = time.monotonic()
        a.up(apps)
        out = []
        for app in chosen:
            field = app.login.login_with
            logins = [f"{getattr(acc, field)} / {acc.password} ({acc.role})"
                      for acc in a.accounts(app.name)[:4]]
            out.append(AppAddress(app=app.name, url=a.base_url(app.name), logins=logins))
        return ArenaUp(instance=instance, apps=out, seconds=round(time.monotonic() - started, 2))

    async def arena_up(apps: list[str] | None = None) -> ArenaUp:
        return await _off_loop(up, apps or [])

    def reset(apps: list[str]) -> ArenaReset:
        timings = arena().reset(apps)
        return ArenaReset(instance=instance,
                          milliseconds={k: round(v * 1000, 1) for k, v in timings.items()})

    async def arena_reset(apps: list[str] | None = None) -> ArenaReset:
        return await _off_loop(reset, apps or [])

    def env() -> ArenaEnv:
        from colorbrowser.arena.exports import site_env

        return ArenaEnv(instance=instance, variables=site_env(arena()))

    async def arena_env() -> ArenaEnv:
        return await _off_loop(env)

    for fn in (arena_up, arena_reset, arena_env):
        server.add_tool(fn, description=say[fn.__name__])
