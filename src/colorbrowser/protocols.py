"""The three small protocols the rest of the package is written against.

Anything that satisfies them can be swapped in: a scripted model in tests, a
replay agent in the benchmark harness, a remote browser later.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from colorbrowser.types import Action, ActionResult, Completion, Constraint, Message, Observation


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
