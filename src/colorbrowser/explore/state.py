"""What an exploration keeps on disk after every action, so running the same command
on the same folder carries on where a killed run stopped (``explore.json``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import write_json_atomic
from colorbrowser.errors import UserError
from colorbrowser.explore.graph import Graph

STATE_FILE = "explore.json"
VERSION = 1


@dataclass
class Tally:
    """Counters the benchmark and the report read."""

    predictions: int = 0
    abstained: int = 0
    model_predictions: int = 0
    checks: dict[str, list[int]] = field(default_factory=dict)  # name -> [right, total]
    writes_tried: int = 0
    writes_skipped: int = 0
    restores: int = 0
    restore_seconds: float = 0.0

    def check(self, name: str, ok: bool) -> None:
        right, total = self.checks.get(name, [0, 0])
        self.checks[name] = [right + int(ok), total + 1]


@dataclass
class ExploreState:
    start_url: str
    strategy: str
    seed: int
    budget: int = 0
    used: int = 0  # browser actions so far, backtracking included
    step: int = 0  # trajectory lines written
    graph: Graph = field(default_factory=Graph)
    uncertainty: dict[str, list[int]] = field(default_factory=dict)
    learned: dict[str, Any] = field(default_factory=dict)  # learned.Outcomes
    tries: dict[str, int] = field(default_factory=dict)  # "node|signature" -> times
    # signature -> [times tried anywhere, times it reached a state not seen before]
    yields: dict[str, list[int]] = field(default_factory=dict)
    tally: Tally = field(default_factory=Tally)
    hops: list[dict[str, Any]] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)  # every distinct address shown
    new_state_at: list[int] = field(default_factory=list)  # action count at each new node
    strategy_state: dict[str, Any] = field(default_factory=dict)
    rng: list[Any] = field(default_factory=list)
    here_url: str = ""
    path: list[Any] = field(default_factory=list)  # plan steps from the start to here
    after_write: bool = False
    dirty: bool = False  # a write is in effect that the sandbox has not undone
    browser: dict[str, Any] = field(default_factory=dict)
    blocked: list[str] = field(default_factory=list)  # requests the write guard stopped
    off_list: list[str] = field(default_factory=list)  # requests to hosts not allowed
    finished: bool = False

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k not in ("graph", "tally")}
        data["graph"] = self.graph.to_json()
        data["tally"] = self.tally.__dict__
        data["version"] = VERSION
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExploreState:
        data = dict(data)
        data.pop("version", None)
        graph = Graph.from_json(data.pop("graph", {}))
        tally = Tally(**data.pop("tally", {}))
        state = cls(**data)
        state.graph, state.tally = graph, tally
        return state

    def save(self, folder: Path) -> None:
        # written after every action and megabytes long by the end: compact
        write_json_atomic(Path(folder) / STATE_FILE, self.to_json(), indent=None)


def load_state(folder: Path) -> ExploreState | None:
    path = Path(folder) / STATE_FILE
    if not path.exists():
        return None
    try:
        return ExploreState.from_json(json.loads(path.read_text("utf-8")))
    except (ValueError, TypeError, KeyError) as exc:
        raise UserError(f"{path} is damaged ({exc}); explore into another --out") from None


def rng_to_json(state: tuple[Any, ...]) -> list[Any]:
    """``random.Random.getstate()`` as JSON holds it, so a resumed run draws on."""
    version, internal, gauss = state
    return [version, list(internal), gauss]


def rng_from_json(data: list[Any]) -> tuple[Any, ...]:
    return (data[0], tuple(data[1]), data[2])
