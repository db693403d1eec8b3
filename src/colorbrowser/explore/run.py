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
from colorbrowser.protocols import Model


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
    max_tasks: int | None = None  # proved at most; None: synth.MAX_TASKS
    kb_path: Path | None = None
    config_path: str | None = None
    headed: bool = False
    sandbox: Sandbox | str | None = None  # "browser": the site keeps its data in the browser
    cookies: list[dict[str, Any]] | None = None
    backtrack: str = "auto"
    predictor: str = "rules"  # rules, or model: a model answers where the rules abstain
    intents: str = "templates"  # templates, or model: a model rewrites kept tasks' intents
    workflows: bool = False  # learn a workflow from each proved task (into the knowledge base)
    model: Model | None = None  # for those roles; None: the configured one (or offline)
    overrides: dict[tuple[str, str], Any] = field(default_factory=dict)  # settings flags


def explore(request: ExploreRequest, *, on_step: Callable[[ExploreState], None] | None = None,
            say: Callable[[str], None] = print) -> str:
    """Explore, write the outputs, and return a one-line summary."""
    from colorbrowser.explore.outputs import write_outputs

    overrides = {("browser", "allow_hosts"): request.allow_hosts,
                 ("browser", "screenshots"): False,
                 ("browser", "headless"): False if request.headed else None,
                 **request.overrides}
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
        predictor, writer = _roles(request, settings, stack)
        explorer = Explorer(env, config, sandbox=sandbox or None,  # type: ignore[arg-type]
                            cookies=request.cookies, on_step=on_step, predictor=predictor)
        state = explorer.run()
        written = write_outputs(state, out, env=env, sandbox=explorer.sandbox,
                                tasks=request.tasks, kb_path=request.kb_path,
                                cookies=request.cookies, writer=writer, say=say,
                                max_tasks=request.max_tasks,
                                workflows_kb=_workflows_kb(request, settings),
                                embeddings=settings.agent.tips_embeddings)
        if writer is not None and writer.rejected:
            written.append(f"{len(writer.rejected)} model intents refused "
                           f"(first: {writer.rejected[0]})")
    return (f"explored {state.start_url}: {state.used} actions, {len(state.graph.nodes)} states, "
            f"{len(state.graph.edges)} edges, {len(state.graph.findings)} findings; "
            + ", ".join(written))


def _roles(request: ExploreRequest, settings, stack: contextlib.ExitStack):
    """The model roles asked for, sharing one model (opened only when one is asked for)."""
    if request.predictor == "rules" and request.intents == "templates":
        return None, None
    from colorbrowser.explore.roles import IntentWriter, PredictorRole
    from colorbrowser.run.factory import open_model

    model = request.model or open_model(settings.model, stack, settings.paths.cache)
    return (PredictorRole(model) if request.predictor == "model" else None,
            IntentWriter(model) if request.intents == "model" else None)


def _workflows_kb(request: ExploreRequest, settings) -> Path | None:
    """Where ``--workflows`` stores what it learns: ``--kb``, else the configured store."""
    if not request.workflows:
        return None
    from colorbrowser.knowledge.store import default_db_path

    return Path(request.kb_path or settings.paths.knowledge or default_db_path())
