"""What the seam between decide and execute can say about a decision.

A hook's ``review`` (the copilot's countdown, a risky-action check, a URL shortcut)
returns one of these, or None for no opinion. The first verdict that is not ``Run``
ends the review; a ``Run`` with another decision is an edit the next hook sees.
Every verdict is logged in the step record (``steps.GateNote``).
"""

from __future__ import annotations

from dataclasses import dataclass

from colorbrowser.steps import Decision, GateNote


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


@dataclass
class HandOver:
    """Someone else acts now; the next decision is made on a fresh observation."""

    reason: str = ""
    by: str = ""
    waited_ms: float | None = None


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
