"""What the seam between decide and execute can say about a decision.

A hook's ``review`` (the copilot's countdown, a risky-action check, a URL shortcut)
returns one of these, or None for no opinion. The first verdict that is not ``Run``
ends the review; a ``Run`` with another decision is an edit the next hook sees.
Every verdict is logged in the step record (``steps.GateNote``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from colorbrowser.steps import Decision, GateNote, StepContext


@dataclass
class Run:
    """Run this decision (the one reviewed, or an edited one)."""

    decision: Decision
    by: str = ""
    waited_ms: float | None = None


@dataclass
class Reject:
    """Run nothing; ``reason`` reaches the next decision as the failed step's error."""

    reason: str = ""
    by: str = ""
    waited_ms: float | None = None

    def why(self) -> str:
        return f"not run: rejected by {self.by}" + (f": {self.reason}" if self.reason else "")


@dataclass
class HandOver:
    """Someone else acts now; the next decision is made on a fresh observation."""

    reason: str = ""
    by: str = ""
    waited_ms: float | None = None

    def why(self) -> str:
        return f"not run: {self.by} took over" + (f" ({self.reason})" if self.reason else "")


@dataclass
class Abort:
    """End the episode."""

    reason: str = ""
    by: str = ""


Verdict = Run | Reject | HandOver | Abort


def note(verdict: Verdict, reviewed: Decision) -> GateNote:
    """The verdict as the step record keeps it."""
    kind = {Run: "run", Reject: "reject", HandOver: "handover", Abort: "abort"}[type(verdict)]
    edited = None
    if isinstance(verdict, Run) and str(verdict.decision.action) != str(reviewed.action):
        edited = str(reviewed.action) if reviewed.action is not None else None
    return GateNote(verdict=kind, by=verdict.by, reason=getattr(verdict, "reason", None) or None,
                    edited_from=edited, waited_ms=getattr(verdict, "waited_ms", None))


class _Reviewer(Protocol):
    def review(self, episode: Any, ctx: StepContext, decision: Decision) -> Verdict | None: ...


def review(hooks: Sequence[_Reviewer], episode: Any, ctx: StepContext,
           decision: Decision) -> tuple[Verdict, list[GateNote]]:
    """Ask each hook in turn; an edit is what the next one sees, the first refusal wins."""
    verdict: Verdict = Run(decision)
    notes: list[GateNote] = []
    for hook in hooks:
        said = hook.review(episode, ctx, verdict.decision)
        if said is None:
            continue
        said.by = said.by or type(hook).__name__
        notes.append(note(said, verdict.decision))
        verdict = said
        if not isinstance(said, Run):
            break
    return verdict, notes
