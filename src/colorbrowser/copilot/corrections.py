"""A rejection followed by the person's correction is a lesson: offer it as a candidate
tip in the review queue (``colorbrowser review`` turns it into a tip), with the
rejected action as the thing not to do.

A correction is the next step that ran and was the person's: their own action after
a pause, or an edit they ran instead of the proposal. If the agent's next step runs
first, it corrected itself and nothing is offered.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

from colorbrowser.errors import ColorBrowserError
from colorbrowser.hitl.asking import propose_scope
from colorbrowser.knowledge.review_queue import QueueItem
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import Step, StepContext

log = logging.getLogger(__name__)


def _label(step: Step) -> str:
    action = step.action or "(no action)"
    if step.target is not None and step.target.name:
        return f"{action} on {step.target.role} '{step.target.name}'"
    return action


@dataclass
class _Rejected:
    action: str
    reason: str
    url: str


class CorrectionTips(Hook):
    def __init__(self, kb) -> None:
        self.kb = kb
        self.pending: _Rejected | None = None
        self.offered: list[QueueItem] = []

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        rejected = next((g for g in step.gate if g.verdict == "reject" and g.by == "person"),
                        None)
        if rejected is not None:
            self.pending = _Rejected(_label(step), rejected.reason or "", step.url)
            return
        if not step.executed or self.pending is None:
            return
        by_person = step.actor == "person" or any(
            g.verdict == "run" and g.by == "person" and g.edited_from for g in step.gate)
        if by_person:
            self._offer(episode, self.pending, step)
        self.pending = None

    def _offer(self, episode: EpisodeView, rejected: _Rejected, correction: Step) -> None:
        site, _ = propose_scope(rejected.url)
        why = f" ({rejected.reason})" if rejected.reason else ""
        lesson = (f"Do not {rejected.action}{why}; instead {_label(correction)}.")
        item = QueueItem(site=site, url=episode.redact(rejected.url),
                         goal=episode.redact(episode.goal),
                         reason=episode.redact(f"copilot correction: {lesson}"),
                         summary=episode.redact(episode.summary),
                         last_actions=[episode.redact(h.line()) for h in episode.recent(5)],
                         run_dir=str(episode.run_dir) if episode.run_dir else None)
        try:
            self.offered.append(self.kb.queue_add(item))
        except (ColorBrowserError, sqlite3.Error) as exc:  # a frozen store: the run goes on
            log.warning("candidate tip not queued: %s", exc)
