"""The explorers ours is measured against, on the same loop, budget and state key:
a random clicker, breadth- and depth-first link crawlers (exact URLs, as Go-Browse
keys its nodes), and a count-based curiosity explorer in the manner of WebExplor."""

from __future__ import annotations

import random
from collections import Counter, deque
from typing import Any

from colorbrowser.explore.choice import Here, Move, Strategy
from colorbrowser.explore.graph import Graph


class RandomClicker(Strategy):
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, here: Here, graph: Graph, step: int) -> Move:
        if not here.all_options:
            return Move("restart", why="nothing to click")
        return Move("act", option=self.rng.choice(here.all_options))


class LinkCrawler(Strategy):
    """Follows hrefs by opening them, first in first out (BFS) or last in first out (DFS)."""

    def __init__(self, depth_first: bool) -> None:
        self.name = "dfs" if depth_first else "bfs"
        self.depth_first = depth_first
        self.queue: deque[str] = deque()
        self.seen: set[str] = set()

    def choose(self, here: Here, graph: Graph, step: int) -> Move:
        self.seen.add(here.url.split("#", 1)[0])
        fresh = [u for u in dict.fromkeys(here.links) if u not in self.seen]
        for url in fresh:
            self.seen.add(url)
        if self.depth_first:
            self.queue.extend(reversed(fresh))
        else:
            self.queue.extend(fresh)
        if not self.queue:
            return Move("done", why="no link left to open")
        url = self.queue.pop() if self.depth_first else self.queue.popleft()
        return Move("goto", url=url)

    def to_json(self) -> dict[str, Any]:
        return {"queue": list(self.queue), "seen": sorted(self.seen)}

    def load(self, data: dict[str, Any]) -> None:
        self.queue = deque(data.get("queue", []))
        self.seen = set(data.get("seen", []))


class Curiosity(Strategy):
    """Count-based novelty: the action least tried from this kind of state, with an
    episode restart every ``episode`` actions (WebExplor restarts its episodes too)."""

    name = "curiosity"

    def __init__(self, rng: random.Random, episode: int = 25) -> None:
        self.rng = rng
        self.episode = episode
        self.counts: Counter[str] = Counter()
        self.since = 0

    def choose(self, here: Here, graph: Graph, step: int) -> Move:
        self.since += 1
        if self.since > self.episode or not here.all_options:
            self.since = 0
            return Move("restart", why="episode over")
        def count(o) -> int:
            return self.counts[f"{here.key}|{o.cand.signature}"]
        low = min(count(o) for o in here.all_options)
        option = self.rng.choice([o for o in here.all_options if count(o) == low])
        self.counts[f"{here.key}|{option.cand.signature}"] += 1
        return Move("act", option=option)

    def to_json(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "since": self.since}

    def load(self, data: dict[str, Any]) -> None:
        self.counts = Counter(data.get("counts", {}))
        self.since = int(data.get("since", 0))


def make_strategy(name: str, rng: random.Random) -> Strategy:
    from colorbrowser.explore.selector import ScaleHop

    makers = {"ours": lambda: ScaleHop(rng), "random": lambda: RandomClicker(rng),
              "bfs": lambda: LinkCrawler(False), "dfs": lambda: LinkCrawler(True),
              "curiosity": lambda: Curiosity(rng)}
    return makers[name]()


STRATEGIES = ("ours", "random", "bfs", "dfs", "curiosity")
# the link crawlers draw no random numbers: on a reset app a second seed repeats the first
SEEDLESS = ("bfs", "dfs")
