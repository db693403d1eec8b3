"""Episode state: everything needed to continue a run, as plain JSON-able data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from colorbrowser.types import ActionResult, Usage


@dataclass
class HistoryEntry:
    """One finished step, as later steps and the memory see it (no page text)."""

    step: int
    url: str
    action: str | None
    ok: bool
    error: str | None = None
    output: str | None = None
    thought: str = ""

    def line(self) -> str:
        act = self.action or "(no valid action)"
        if self.ok:
            outcome = f"ok: {self.output}" if self.output else "ok"
        else:
            outcome = f"error: {self.error}"
        return f"step {self.step}: {act} -> {outcome}"


@dataclass
class EpisodeState:
    goal: str
    start_url: str | None = None
    step: int = 0  # steps completed so far
    notes: list[str] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    summary: str = ""
    usage: Usage = field(default_factory=Usage)
    answer: str | None = None
    status: str = "running"  # running, done, step_limit, cost_limit, aborted, error
    last_result: ActionResult | None = None
    elapsed: float = 0.0

    def recent(self, k: int) -> list[HistoryEntry]:
        return self.history[-k:] if k > 0 else []

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EpisodeState:
        data = dict(data)
        data["history"] = [HistoryEntry(**h) for h in data.get("history", [])]
        data["usage"] = Usage(**data.get("usage", {}))
        last = data.get("last_result")
        data["last_result"] = ActionResult(**last) if last else None
        return cls(**data)


@dataclass
class StepContext:
    """What is gathered for one step before the Operator decides; hooks add to it."""

    step: int
    tips: list[str] = field(default_factory=list)
    tip_ids: list[str] = field(default_factory=list)
    shortcuts: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    triggers: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
