"""What a strategy sees and returns at each step: the page's candidates, each with its
prediction and scores, and a move (act here, hop to a node, open a URL, restart)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.graph import Graph, Node
from colorbrowser.explore.predict import Prediction


@dataclass
class Option:
    cand: Candidate
    pred: Prediction
    uncertainty: float
    novelty: float
    learn_key: str = ""  # what learned.Outcomes counts its outcome under

    @property
    def score(self) -> float:
        return self.novelty * self.uncertainty


@dataclass
class Here:
    """The page the explorer stands on."""

    url: str
    key: str
    node: Node
    options: list[Option] = field(default_factory=list)  # open ones only
    all_options: list[Option] = field(default_factory=list)
    checkable: list[Option] = field(default_factory=list)  # judged predictable, untried
    links: list[str] = field(default_factory=list)  # hrefs on the page, for crawlers


@dataclass
class Move:
    kind: Literal["act", "hop", "goto", "restart", "done"]
    option: Option | None = None
    node: str | None = None
    url: str | None = None
    why: str = ""


class Strategy:
    """How the next move is chosen; ours is ScaleHop, the baselines are in baselines.py."""

    name = "strategy"
    uses_graph = False  # True: open candidates, predictability and hops matter to it

    def choose(self, here: Here, graph: Graph, step: int) -> Move:
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        return {}

    def load(self, data: dict[str, Any]) -> None:
        pass
