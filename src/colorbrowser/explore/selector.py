"""The Selector and SCALE-Hop: act where the outcome is least known, hop when another
node promises more.

An option's score is novelty (how rarely this action signature was tried from this
kind of state, times how often it reached a new state from anywhere) times the
Predictor's uncertainty (its learned doubt, and whether the state it leads to is a
kind not seen yet). The explorer stays while the best option
here scores at least half of the best frontier node; otherwise it backtracks there.
Once every node is explored, the budget left checks the predictions judged too sure
to be worth a try.
A model-backed Selector (roles.py) may pick among the top options instead.
"""

from __future__ import annotations

import random
from typing import Protocol

from colorbrowser.explore.choice import Here, Move, Option, Strategy
from colorbrowser.explore.graph import Graph

STAY_RATIO = 0.5
PREDICTABLE = 0.15  # uncertainty below this, to a known kind of state: not worth a try


class Picker(Protocol):
    """Chooses among the top options (a model role); None leaves it to the scores."""

    def pick(self, here: Here, options: list[Option]) -> Option | None: ...


class ScaleHop(Strategy):
    name = "ours"
    uses_graph = True

    def __init__(self, rng: random.Random, picker: Picker | None = None, top: int = 5) -> None:
        self.rng = rng
        self.picker = picker
        self.top = top

    def choose(self, here: Here, graph: Graph, step: int) -> Move:
        ranked = sorted(here.options, key=lambda o: (-o.score, self.rng.random()))
        frontier = graph.frontier(exclude=here.key)
        best_elsewhere = frontier[0].best if frontier else 0.0
        if ranked and ranked[0].score >= STAY_RATIO * best_elsewhere:
            chosen = ranked[0]
            if self.picker is not None and len(ranked) > 1:
                chosen = self.picker.pick(here, ranked[: self.top]) or chosen
            return Move("act", option=chosen,
                        why=f"score {chosen.score:.2f} (novelty {chosen.novelty:.2f} x "
                            f"uncertainty {chosen.uncertainty:.2f})")
        if frontier:
            target = frontier[0]
            return Move("hop", node=target.key,
                        why=f"{target.template} has {len(target.open)} open of "
                            f"{target.candidates} (best {target.best:.2f})")
        # every node explored: the budget left tests predictions never tested, the least
        # sure first (a known kind of page can still be a state not seen yet)
        if here.checkable:
            chosen = max(here.checkable, key=lambda o: (o.score, self.rng.random()))
            return Move("act", option=chosen,
                        why=f"every node explored; checking a prediction "
                            f"(uncertainty {chosen.uncertainty:.2f})")
        waiting = graph.to_check(exclude=here.key)
        if waiting:
            return Move("hop", node=waiting[0].key,
                        why=f"every node explored; {waiting[0].template} has "
                            f"{len(waiting[0].predictable)} predictions to check")
        return Move("done", why="every node is explored and every prediction checked")
