"""What a verdict is drawn from (the proof of a stop) and which failures refute it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from colorbrowser.evidence import CheckNote, Late
from colorbrowser.steps import Step


@dataclass
class FinalPage:
    """The page the agent stopped on."""

    url: str = ""
    title: str = ""
    text: str = ""
    error: str | None = None  # what the browser said about it (a failed load...)


@dataclass
class Proof:
    """Everything a verdict is drawn from."""

    goal: str
    answer: str | None
    steps: Sequence[Step]
    final: FinalPage = field(default_factory=FinalPage)
    stopped: bool = True  # False: the episode ended without a stop (limit, error)
    status: str = "done"
    state_changed: bool | None = None  # arena only: did the app's database change?
    state_probe: Callable[[], bool | None] | None = None  # asked only for a change goal
    tail: Late | None = None  # what the last action caused after its step was recorded


Check = Callable[[Proof], CheckNote | None]
# A failed check with one of these names refutes the claim; any other leaves it unverified.
REFUTING = {"answer", "grounded", "write_failed", "write_never_made", "error_page",
            "no_session", "nothing_stored"}

