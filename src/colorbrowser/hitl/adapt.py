"""The offline adaptation loop: run tasks with nobody watching, queue what went wrong.

Every trigger (once per kind and episode) and every failed task becomes a review
queue item in the knowledge base, with what a person needs to write a tip later
(``colorbrowser review``). Tasks run one after another on one browser; the
parallel evaluation runner is a separate piece.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colorbrowser.agent.hooks import Hook
from colorbrowser.agent.trajectory import slugify
from colorbrowser.evaluation.episode import run_task_episode
from colorbrowser.evaluation.task import Task, Validation
from colorbrowser.hitl.asking import HelpAnswer, HelpRequest, propose_scope
from colorbrowser.knowledge.aliases import SiteAliases
from colorbrowser.knowledge.review_queue import QueueItem

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
