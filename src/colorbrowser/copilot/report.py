"""What the panel shows besides the proposal: the goal, the page, each step, the end
with its metrics; and what the person sends besides answers: tips and the outcome.

A hook on the loop's thread: it publishes to the feed (the panel's stream) and never
waits for the panel. Everything shown passes the episode's redactor first.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.agent.trajectory import load_steps
from colorbrowser.copilot.channel import Command, Feed
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.metrics import CopilotMetrics, measure
from colorbrowser.hitl.asking import propose_scope, tip_from_answer
from colorbrowser.knowledge.tip import InvalidTip
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import EpisodeResult, Step, StepContext
from colorbrowser.types import Observation


class PanelReport(Hook):
    def __init__(self, feed: Feed, live: Live, *, mode: str, countdown: float,
                 kb=None) -> None:
        self.feed = feed
        self.live = live
        self.mode = mode
        self.countdown = countdown
        self.kb = kb  # None: knowledge is off, tips cannot be stored
        self.steps: list[Step] = []
        self.outcome = ""  # set by the person in the panel
        self.metrics: CopilotMetrics | None = None
        self.result: EpisodeResult | None = None  # once the run has ended
        self.keepable: Callable[[], bool] = lambda: False  # may the run become a workflow
        self._view: EpisodeView | None = None

    # -- the loop's side -------------------------------------------------------------------
    def on_start(self, episode: EpisodeView) -> None:
        self._view = episode
        self.feed.publish("info", {"goal": episode.redact(episode.goal), "mode": self.mode,
                                   "countdown": self.countdown})
        self.feed.publish("state", {"state": "running"})

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        site, pattern = propose_scope(obs.url)
        self.feed.publish("page", episode.redact({"url": obs.url, "title": obs.title,
                                                  "site": site, "pattern": pattern}))
        self.live.screenshot(force=True)

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        self.steps.append(step)
        self.feed.publish("step", episode.redact({
            "step": step.step, "actor": step.actor, "action": step.action,
            "executed": step.executed, "ok": step.result.ok, "error": step.result.error}))

    def on_end(self, episode: EpisodeView, result: EpisodeResult) -> None:
        steps = self.steps
        if episode.run_dir is not None:
            steps = load_steps(episode.run_dir)  # a resumed run counts its earlier steps
        self.metrics = measure(steps, result.status, self.outcome)
        self.result = result
        self.feed.publish("state", {"state": "ended"})
        self.feed.publish("end", {"status": result.status,
                                  "answer": episode.redact(result.answer),
                                  "metrics": self.metrics.table(), "keep": self.keepable()})

    # -- the person's side -----------------------------------------------------------------
    def on_tip(self, command: Command) -> None:
        if self.kb is None:
            self.feed.publish("notice", {"text": "tip not stored: knowledge is off or frozen"})
            return
        try:
            text = self._view.redact(command.text) if self._view else command.text
            tip = tip_from_answer(text, command.site,
                                  [command.pattern] if command.pattern.strip() else [])
            self.kb.add(tip)
        except InvalidTip as exc:
            self.feed.publish("notice", {"text": f"tip not stored: {exc}"})
            return
        self.feed.publish("notice", {"text": f"tip {tip.id} stored for {tip.site}"})

    def on_outcome(self, command: Command) -> None:
        self.outcome = command.outcome
        if self.metrics is not None:
            self.metrics = self.metrics.model_copy(update={
                "outcome": command.outcome or self.metrics.outcome,
                "outcome_by": "person" if command.outcome else "agent"})
        self.feed.publish("notice", {"text": f"outcome set: {command.outcome or 'as reported'}"})
