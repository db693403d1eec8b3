"""A learned workflow in an episode: which decider, which hooks, which memory.

``run/factory.py`` asks ``plan_for`` before the browser starts (so ``--workflows
only`` without a fitting workflow fails at once) and ``attach`` once the Operator
exists. A goal that fits a workflow runs it (``WorkflowRunner``); a similar goal
gets it as guidance in every Operator prompt (``Guided``). While the workflow runs
its own steps the Summarizer is paused: no model call is made unless a step heals.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from colorbrowser.errors import ColorBrowserError, UserError
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.protocols import Decider, EpisodeView, Hook, Memory
from colorbrowser.steps import Decision, DecisionView, EpisodeResult, StepContext
from colorbrowser.types import Observation, Usage
from colorbrowser.workflows.match import WorkflowChoice, choose
from colorbrowser.workflows.runner import WorkflowRunner

if TYPE_CHECKING:
    from colorbrowser.config import Settings
    from colorbrowser.knowledge.store import KnowledgeBase


class Guided:
    """The Operator with a similar workflow shown in every prompt (never run)."""

    def __init__(self, operator: Decider, guidance: str) -> None:
        self.operator = operator
        self.guidance = guidance

    def decide(self, view: DecisionView) -> Decision:
        return self.operator.decide(dataclasses.replace(view, guidance=self.guidance))


class PausedMemory:
    """A memory that folds pages in only while ``active()`` says the model will read it
    (a workflow step needs no summary; a healed step's Operator gets the memory from
    then on, and the recent actions that the loop always shows)."""

    def __init__(self, inner: Memory, active: Callable[[], bool]) -> None:
        self.inner = inner
        self.active = active
        self.title = inner.title
        self.shows_history = inner.shows_history

    def update(self, episode: EpisodeView, obs: Observation, ctx: StepContext) -> Usage:
        return self.inner.update(episode, obs, ctx) if self.active() else Usage()

    def render(self, episode: EpisodeView) -> str:
        return self.inner.render(episode)

    def snapshot(self) -> Any:
        snap = getattr(self.inner, "snapshot", None)
        return snap() if snap is not None else None

    def restore(self, data: Any) -> Any:
        restore = getattr(self.inner, "restore", None)
        return restore(data) if restore is not None else None


@dataclass
class WorkflowPlan:
    """What the workflows setting made of one goal: nothing, a run or a guide."""

    choice: WorkflowChoice | None
    mode: str = "on"
    kb: KnowledgeBase | None = None
    aliases: SiteAliases = NO_ALIASES
    runner: WorkflowRunner | None = field(default=None, init=False)
    skipped: str | None = field(default=None, init=False)  # why a fitting one did not run

    @property
    def runs(self) -> bool:
        """A workflow runs (rather than guides, or nothing)."""
        return self.choice is not None and self.choice.kind == "run"

    def attach(self, operator: Decider, memory: Memory) -> tuple[Decider, list[Hook], Memory]:
        """The decider, the hooks to add and the memory for the episode."""
        choice = self.choice
        if choice is None:
            return operator, [], memory
        if choice.kind == "guide":
            return Guided(operator, choice.guidance()), [], memory
        try:
            runner = WorkflowRunner(choice.workflow, choice.params, operator, kb=self.kb,
                                    mode="only" if self.mode == "only" else "on",
                                    aliases=self.aliases)
        except UserError as exc:  # a value that cannot fill the workflow (off the site...)
            if self.mode == "only":
                raise
            self.choice, self.skipped = None, str(exc)
            return operator, [], memory
        self.runner = runner
        return runner, [runner], PausedMemory(memory, runner.wants_model)


def plan_for(goal: str, start_url: str | None, kb: KnowledgeBase | None, mode: str, *,
             aliases: SiteAliases = NO_ALIASES) -> WorkflowPlan:
    """Choose for ``goal`` at ``start_url``; ``only`` without a workflow that fits is a
    user error (one line), as is ``only`` with the knowledge base off."""
    if mode == "off":
        return WorkflowPlan(None, mode)
    if kb is None:
        if mode == "only":
            raise UserError("--workflows only needs the knowledge base (it holds the "
                            "workflows); drop --knowledge off")
        return WorkflowPlan(None, mode)
    choice = choose(kb, aliases.stable(start_url), goal) if start_url else None
    if mode == "only" and (choice is None or choice.kind != "run"):
        raise UserError("--workflows only: no workflow of this site fits the goal "
                        "(see `colorbrowser workflows list`); use --workflows on")
    return WorkflowPlan(choice, mode, kb, aliases)


def after_run(plan: WorkflowPlan | None, result: EpisodeResult, settings: Settings
              ) -> list[str]:
    """Lines for the person: which workflow ran or guided, what it did, and (when
    ``learn_workflows`` is on) the workflow learned from this run if it was verified."""
    lines: list[str] = []
    choice = plan.choice if plan is not None else None
    if choice is not None and plan is not None:
        flow = choice.workflow
        if plan.runner is not None:
            report = plan.runner.report
            lines.append(f"ran {flow.id} v{flow.version} ({choice.why}): "
                         f"{report.workflow_actions} steps, {report.healed_steps} healed, "
                         f"{report.operator_calls} Operator calls")
            if report.gave_up:
                lines.append(f"gave up: {report.gave_up}")
            if report.new_version:
                lines.append(f"healed steps kept as {report.new_version} "
                             f"(v{flow.version + 1}; v{flow.version} is kept, inactive)")
        else:
            lines.append(f"guided by {flow.id} ({choice.why})")
    if plan is not None and plan.skipped:
        lines.append(f"not run: {plan.skipped}")
    ran = choice is not None and choice.kind == "run"
    if settings.agent.learn_workflows and not ran:
        learned = learn_from(result, settings)
        if learned:
            lines.append(learned)
    return lines


def learn_from(result: EpisodeResult, settings: Settings) -> str | None:
    """A workflow from a run the verifier verified, added to the knowledge base."""
    if result.verdict != "verified" or not result.run_dir:
        return None
    if settings.agent.knowledge != "on":
        return f"not learned: the knowledge base is {settings.agent.knowledge}"
    from colorbrowser.knowledge.store import open_knowledge
    from colorbrowser.workflows.learn import learn

    try:
        flow = learn(Path(result.run_dir), learned_by="agent", with_secrets=True)
        with contextlib.ExitStack() as stack:
            kb = open_knowledge(settings, stack)
            if kb is None:
                return None
            flow = kb.add_workflow(flow)
    except ColorBrowserError as exc:
        return f"not learned: {exc}"
    return f"learned {flow.id} from this run: {flow.goal_pattern!r}"
