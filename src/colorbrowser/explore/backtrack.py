"""Getting back to a frontier node, three ways, each with its cost measured:

- ``url``: open the node's address; enough when the address reproduces the state;
- ``replay``: open the start page and replay the stored path, element by element;
- ``snapshot``: restore the app's snapshot first (an arena app, after a write), then
  go by address or path.

``auto`` picks the cheapest that is sound: snapshot when a write is still in effect,
the address while it is known to reproduce the state, the path otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from colorbrowser.explore.graph import Node
from colorbrowser.explore.plans import PlanStep, Unresolved, goto_step, resolve
from colorbrowser.types import Observation

METHODS = ("url", "replay", "snapshot")


@dataclass
class Hop:
    method: str
    node: str
    ok: bool
    actions: int
    seconds: float
    reached: str = ""
    error: str = ""
    at: int = -1  # actions used when the hop ended: new states after it are its yield

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class HopYield:
    """What one way of backtracking cost, against the new states found after its hops
    (until the next hop): a cheap hop to a spent node is no bargain."""

    hops: int = 0
    actions: int = 0
    seconds: float = 0.0
    new_states: int = 0

    def add(self, other: HopYield) -> None:
        self.hops += other.hops
        self.actions += other.actions
        self.seconds += other.seconds
        self.new_states += other.new_states


def hop_yields(hops: list[dict[str, Any]], new_state_at: list[int]) -> dict[str, HopYield]:
    """Per method, from a run's saved hops (those that reached their node) and the action
    counts at which new states were found. Hops saved before ``at`` was kept are left out."""
    timed = sorted((h for h in hops if h.get("at", -1) >= 0), key=lambda h: h["at"])
    yields: dict[str, HopYield] = {}
    for i, hop in enumerate(timed):
        until = timed[i + 1]["at"] if i + 1 < len(timed) else float("inf")
        found = sum(1 for at in new_state_at if hop["at"] < at <= until)
        if hop["ok"]:
            yields.setdefault(hop["method"], HopYield()).add(
                HopYield(1, hop["actions"], hop["seconds"], found))
    return yields


class Backtracker:
    """Moves the browser; ``act`` runs one action text, told the path from the start
    that it completes, and returns the fresh observation and its state key; ``reset``
    restores the sandbox (None: no sandbox)."""

    def __init__(self, start_url: str,
                 act: Callable[[str, list[PlanStep]], tuple[Observation, str]],
                 reset: Callable[[], None] | None) -> None:
        self.start_url = start_url
        self.act = act
        self.reset = reset

    def method_for(self, node: Node, dirty: bool) -> str:
        if dirty and self.reset is not None:
            return "snapshot"
        if node.url_reproduces is False or node.after_write:
            return "replay"
        return "url"

    def go(self, node: Node, method: str = "auto", dirty: bool = False) -> Hop:
        if method == "auto":
            method = self.method_for(node, dirty)
        start = time.perf_counter()
        actions = 0
        error = ""
        key = ""
        try:
            if method == "snapshot":
                if self.reset is None:
                    raise Unresolved("this site has no snapshot to restore")
                self.reset()
            if method == "url" or (method == "snapshot" and node.url_reproduces is not False
                                   and not node.after_write):
                _, key = self.act(goto_step(node.url), [goto_step(node.url)])
                actions += 1
                if method == "url":
                    node.url_reproduces = key == node.key
            else:
                obs, key = self.act(goto_step(self.start_url), [])
                actions += 1
                for i, step in enumerate(node.path):
                    obs, key = self.act(resolve(step, obs), node.path[: i + 1])
                    actions += 1
        except Unresolved as exc:
            error = str(exc)
        ok = key == node.key
        if not ok and not error:
            error = f"reached {key} instead"
        return Hop(method, node.key, ok, actions, time.perf_counter() - start, key, error)
