"""The offline adaptation loop: run tasks with nobody watching, queue what went wrong.

Every trigger (once per kind and episode) and every failed task becomes a review
queue item in the knowledge base, with what a person needs to write a tip later
(``colorbrowser review``). Tasks run one after another on one browser; the
parallel evaluation runner is a separate piece.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from colorbrowser.agent.trajectory import slugify
from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.evaluation.episode import run_task_episode
from colorbrowser.evaluation.task import Task, Validation
from colorbrowser.hitl.asking import HelpAnswer, HelpRequest, propose_scope
from colorbrowser.knowledge.aliases import SiteAliases
from colorbrowser.knowledge.review_queue import QueueItem
from colorbrowser.protocols import Hook
from colorbrowser.run.flags import model_options
from colorbrowser.safe_text import escape

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.config import Settings
    from colorbrowser.knowledge.store import KnowledgeBase
    from colorbrowser.protocols import Model


class QueueAsker:
    """Stands in for the person during ``adapt``: each request is queued, the run goes on."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.kinds: set[str] = set()
        self.items: list[QueueItem] = []

    def ask(self, request: HelpRequest) -> HelpAnswer:
        kinds = set(request.kinds) or {request.reason}
        if kinds <= self.kinds:  # already queued for this episode
            return HelpAnswer("skip")
        self.kinds |= kinds
        self.queue(QueueItem(
            site=request.site, url=request.url, goal=request.goal, reason=request.reason,
            summary=request.summary, last_actions=list(request.last_actions),
            screenshot_path=request.screenshot, run_dir=request.run_dir,
        ))
        return HelpAnswer("skip")

    def queue(self, item: QueueItem) -> QueueItem:
        item = self.kb.queue_add(item)
        self.items.append(item)
        return item


@dataclass
class TaskOutcome:
    task_id: str
    status: str  # the episode's status, or "setup_error"
    success: bool = False
    reward: float = 0.0
    steps: int = 0
    queued: list[int] = field(default_factory=list)  # review queue ids
    run_dir: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def failure_reason(status: str, validation: Validation) -> str:
    if validation.error:
        return f"task could not be scored ({validation.error}); episode ended: {status}"
    detail = validation.info.get("reason")
    tail = f", {detail}" if detail else ""
    return f"task failed (episode ended: {status}, reward {validation.reward:g}{tail})"


def _final_screenshot(env: BrowserEnv, episode: Episode) -> str | None:
    if episode.trajectory is None:
        return None
    try:
        png = env.page.screenshot()
    except Exception:  # a page that is gone has no picture; the queue item still helps
        return None
    rel = episode.trajectory.save_image("final.png", png)
    return str(episode.trajectory.dir / rel) if rel else None


def run_task(task: Task, settings: Settings, *, env: BrowserEnv, model: Model,
             kb: KnowledgeBase, run_dir: Path, hooks: list[Hook] | None = None) -> TaskOutcome:
    """Run one task (see ``evaluation.episode``) and queue it for review when it failed."""
    asker = QueueAsker(kb)
    run = run_task_episode(task, settings, env=env, model=model, run_dir=run_dir, kb=kb,
                           asker=asker, hooks=hooks or [], keep_episode=True)
    outcome = TaskOutcome(task.id, run.status, success=run.success, reward=run.reward,
                          steps=run.steps, run_dir=str(run_dir), error=run.error)
    episode, validation = run.episode, run.validation
    if episode is not None and validation is not None and not validation.success:
        url = SiteAliases.of(run.spec.site_aliases if run.spec else None).stable(env.page.url)
        state = episode.state
        asker.queue(QueueItem(
            site=propose_scope(url)[0] or task.site, url=url, goal=run.goal,
            reason=failure_reason(run.status, validation), summary=state.summary,
            last_actions=[h.line() for h in state.recent(5)],
            screenshot_path=_final_screenshot(env, episode), run_dir=str(run_dir),
        ))
    outcome.queued = [item.id for item in asker.items if item.id is not None]
    return outcome


def task_run_dir(root: Path, task_id: str) -> Path:
    base = root / slugify(task_id.replace(":", "-"), limit=60)
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}-{n}")
    return path


# -- adapt ----------------------------------------------------------------------------
@click.command("adapt")
@click.argument("suite")
@click.option("--tasks", metavar="PATTERNS",
              help="Comma list of task ids or globs (the suite prefix may be left out).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Episode seed of generated tasks (MiniWoB).")
@click.option("--kb", "kb_path",
              type=Destination("the knowledge base", folder=False, path_type=Path), default=None,
              help="Knowledge base that gets the review queue (default: $COLORBROWSER_KB).")
@click.option("--max-steps", type=int, default=None, help="Step limit per task.")
@click.option("--critic-every", type=click.IntRange(min=0), default=None,
              help="Ask the LLM critic after every N-th action (0: never).")
@click.option("--out", "out_dir", type=Destination("the runs folder", folder=True, path_type=Path),
              default=None, help="Folder for the runs (default runs/adapt-<time>).")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON on stdout.")
@model_options
def adapt_command(suite, tasks, seed, kb_path, max_steps, critic_every, out_dir, headed,
                  as_json, config_path, api_key_env, base_url, model_name):
    """Run SUITE's tasks without a person; queue failures and triggers for review.

    SUITE is what `colorbrowser eval` takes: miniwob, miniwob:<task>[,<task>], a
    WebArena .json file or a .yaml task file. The knowledge base is used "on".
    """
    from colorbrowser.evaluation.configured import with_task_hosts
    from colorbrowser.evaluation.suites import open_suite
    from colorbrowser.knowledge.store import open_knowledge
    from colorbrowser.run.factory import open_browser, open_model
    from colorbrowser.run.flags import settings_from_flags

    settings = settings_from_flags(config_path, base_url, model_name, api_key_env, {
        ("agent", "max_steps"): max_steps, ("agent", "knowledge"): "on",
        ("paths", "knowledge"): kb_path, ("hitl", "critic_every"): critic_every,
        ("hitl", "interactive"): False, ("browser", "headless"): False if headed else None,
    })
    console = Console(stderr=True)
    choice = open_suite(suite)
    outcomes = []
    with choice.suite, contextlib.ExitStack() as stack:
        # The browser reaches only the hosts the tasks name, as in `eval`.
        settings = with_task_hosts(settings, choice.suite.hosts(), suite)
        entries = choice.select(tasks)
        runnable = [e for e in entries if e.runnable]
        for entry in entries:
            if not entry.runnable:
                console.print(f"[yellow]skip[/] {escape(entry.id)}: {escape(entry.status)}")
        if not runnable:
            raise UserError(f"no runnable task in {suite}")
        kb = open_knowledge(settings, stack)
        root = out_dir or settings.paths.runs / f"adapt-{datetime.now():%Y%m%d-%H%M%S}"
        model = open_model(settings.model, stack, settings.paths.cache)
        env = open_browser(settings, stack)
        progress = stack.enter_context(Progress(
            TextColumn("[bold]adapt[/]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}"), console=console, transient=True))
        bar = progress.add_task("", total=len(runnable))
        for entry in runnable:
            progress.update(bar, description=entry.id)
            task = choice.suite.task(entry.id, seed=seed)
            outcome = run_task(task, settings, env=env, model=model, kb=kb,
                               run_dir=task_run_dir(root, entry.id))
            outcomes.append(outcome)
            mark = "[green]success[/]" if outcome.success else f"[red]{outcome.status}[/]"
            note = f" ({escape(outcome.error)})" if outcome.error else ""
            progress.console.print(f"{escape(entry.id)}: {mark}{note}, "
                                   f"{len(outcome.queued)} queued for review")
            progress.advance(bar)
        path = kb.path
    queued = sum(len(o.queued) for o in outcomes)
    solved = sum(o.success for o in outcomes)
    console.print(f"[bold]{solved}/{len(outcomes)} tasks solved; {queued} items queued for "
                  f"review in {escape(str(path))}[/]")
    if queued:
        console.print(f"next: colorbrowser review --kb {escape(str(path))}")
    if as_json:
        click.echo(json.dumps([o.to_json() for o in outcomes]))
    return 0
