"""The composition root of an exploration: settings and browser, the loop, then what it
leaves behind (graph.json and graph.html, tasks, tips for review, a training set)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import lock_run_dir
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import load_settings
from colorbrowser.errors import writing_where_told
from colorbrowser.explore.loop import ExploreConfig, Explorer
from colorbrowser.explore.sandbox import BrowserStorageSandbox, Sandbox
from colorbrowser.explore.state import ExploreState


@dataclass
class ExploreRequest:
    start_url: str
    budget: int
    out: Path
    seed: int = 0
    strategy: str = "ours"
    allow_hosts: list[str] = field(default_factory=list)
    screenshots: str = "all"
    tasks: bool = True
    kb_path: Path | None = None
    config_path: str | None = None
    headed: bool = False
    sandbox: Sandbox | str | None = None  # "browser": the site keeps its data in the browser
    cookies: list[dict[str, Any]] | None = None
    backtrack: str = "auto"


def explore(request: ExploreRequest, *, on_step: Callable[[ExploreState], None] | None = None,
            say: Callable[[str], None] = print) -> str:
    """Explore, write the outputs, and return a one-line summary."""
    from colorbrowser.explore.outputs import write_outputs

    overrides = {("browser", "allow_hosts"): request.allow_hosts,
                 ("browser", "screenshots"): False,
                 ("browser", "headless"): False if request.headed else None}
    settings = load_settings(request.config_path, overrides)
    out = Path(request.out)
    with contextlib.ExitStack() as stack:
        with writing_where_told("the exploration folder", out):
            out.mkdir(parents=True, exist_ok=True)
        lock_run_dir(out, stack)
        env = stack.enter_context(BrowserEnv(settings.browser))
        sandbox = request.sandbox
        if sandbox == "browser":
            sandbox = BrowserStorageSandbox(lambda: env.session.context)
        config = ExploreConfig(start_url=request.start_url, budget=request.budget, out=out,
                               seed=request.seed, strategy=request.strategy,
                               screenshots=request.screenshots, backtrack=request.backtrack)
        explorer = Explorer(env, config, sandbox=sandbox or None,  # type: ignore[arg-type]
                            cookies=request.cookies, on_step=on_step)
        state = explorer.run()
        written = write_outputs(state, out, env=env, sandbox=explorer.sandbox,
                                tasks=request.tasks, kb_path=request.kb_path,
                                cookies=request.cookies, say=say)
    return (f"explored {state.start_url}: {state.used} actions, {len(state.graph.nodes)} states, "
            f"{len(state.graph.edges)} edges, {len(state.graph.findings)} findings; "
            + ", ".join(written))
