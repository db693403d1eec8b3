"""Episode state: everything needed to continue a run, as plain JSON-able data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from colorbrowser.steps import HistoryEntry
from colorbrowser.types import ActionResult, Usage


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class EpisodeState:
    goal: str
    start_url: str | None = None
    step: int = 0  # steps recorded so far, whoever took them
    decisions: int = 0  # steps the decider chose (what the step limit counts)
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
        data = asdict(self)
        if data.get("last_result"):  # the step record keeps the evidence, not the state
            data["last_result"].pop("evidence", None)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EpisodeState:
        data = dict(data)
        data["history"] = [HistoryEntry(**h) for h in data.get("history", [])]
        data["usage"] = Usage(**data.get("usage", {}))
        last = data.get("last_result")
        if last:
            last = {k: v for k, v in last.items() if k != "evidence"}
        data["last_result"] = ActionResult(**last) if last else None
        data.setdefault("decisions", data.get("step", 0))  # a run saved before persons acted
        return cls(**data)
