"""The contracts the rest of the package is written against.

Anything that satisfies them can be swapped in: a scripted model in tests, a replay
script or a person in place of the Operator, a remote browser later. Hooks and
memories see an episode only through ``EpisodeView``, read-only, and write what they
add into the step's typed ``StepContext``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from colorbrowser.gate import Verdict
from colorbrowser.steps import (
    Decision,
    DecisionView,
    EpisodeResult,
    HistoryEntry,
    Step,
    StepContext,
)
from colorbrowser.types import (
    Action,
    ActionResult,
    Completion,
    Constraint,
    Message,
    Observation,
    Usage,
)


@runtime_checkable
class Model(Protocol):
    """A chat model. ``complete`` raises ModelError only after its own retries."""

    name: str
    vision: bool

    def complete(
        self,
        messages: list[Message],
        *,
        constraint: Constraint | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion: ...


@runtime_checkable
class Environment(Protocol):
    """A browser the agent can look at and act on. ``step`` never raises for a bad action."""

    def reset(self, url: str | None = None) -> Observation: ...

    def observe(self) -> Observation: ...

    def step(self, action: Action) -> ActionResult: ...

    def close(self) -> None: ...


@runtime_checkable
class Restorable(Protocol):
    """Something a killed run can bring back: a browser, a memory."""

    def snapshot(self) -> dict[str, Any]: ...

    def restore(self, data: dict[str, Any]) -> Any: ...


@runtime_checkable
class Decider(Protocol):
    """Picks the next action: the Operator, a replay script, a person, the explorer."""

    def decide(self, view: DecisionView) -> Decision: ...


class EpisodeView(Protocol):
    """A running episode as hooks and memories may see it: read, never write."""

    @property
    def goal(self) -> str: ...

    @property
    def start_url(self) -> str | None: ...

    @property
    def step(self) -> int: ...  # steps completed so far

    @property
    def max_steps(self) -> int: ...

    @property
    def status(self) -> str: ...

    @property
    def history(self) -> Sequence[HistoryEntry]: ...

    @property
    def notes(self) -> Sequence[str]: ...

    @property
    def summary(self) -> str: ...

    @property
    def usage(self) -> Usage: ...

    @property
    def run_dir(self) -> Path | None: ...

    def recent(self, k: int) -> Sequence[HistoryEntry]: ...

    def redact(self, value: Any) -> Any: ...


class Hook:
    """Extension point of the loop; override what you need, the rest does nothing."""

    def on_start(self, episode: EpisodeView) -> None:
        pass

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        """Add tips, shortcuts, hints or triggers to ``ctx`` before the decider is asked."""

    def review(self, episode: EpisodeView, ctx: StepContext,
               decision: Decision) -> Verdict | None:
        """Have a say between decide and execute; None means no opinion."""
        return None

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        """Look at the finished step (triggers, statistics, display)."""

    def on_end(self, episode: EpisodeView, result: EpisodeResult) -> None:
        pass


@runtime_checkable
class Memory(Protocol):
    """What the decider remembers beyond the last few actions."""

    title: str
    shows_history: bool  # True: it already lists every action, so the loop shows none

    def update(self, episode: EpisodeView, obs: Observation, ctx: StepContext) -> Usage:
        """Fold the newest observation in; return the model usage this cost."""
        ...

    def render(self, episode: EpisodeView) -> str: ...
