"""The explorers ours is measured against: what each does with the page it stands on,
and that the link crawlers need only one run, whatever the seed."""

from __future__ import annotations

import json
import random

from colorbrowser.explore.baselines import SEEDLESS, STRATEGIES, make_strategy
from colorbrowser.explore.choice import Here

from .conftest import run_explore


def here(url: str, links: list[str]) -> Here:
    return Here(url=url, key=url, node=None, links=links)  # type: ignore[arg-type]


def walk(name: str, rng: random.Random, site: dict[str, list[str]]) -> list[str]:
    """The URLs a crawler opens on a site given as page -> its links."""
    crawler, url, opened = make_strategy(name, rng), "/", []
    for step in range(20):
        move = crawler.choose(here(url, site[url]), None, step)  # type: ignore[arg-type]
        if move.kind == "done":
            return opened
        url = move.url
        opened.append(url)
    return opened


TREE = {"/": ["/a", "/b"], "/a": ["/a1", "/a2", "/"], "/b": ["/b1"],
        "/a1": [], "/a2": ["/a"], "/b1": ["/"]}


def test_breadth_first_opens_a_level_before_the_next_and_depth_first_goes_down_first():
    assert walk("bfs", random.Random(0), TREE) == ["/a", "/b", "/a1", "/a2", "/b1"]
    assert walk("dfs", random.Random(0), TREE) == ["/a", "/a1", "/a2", "/b", "/b1"]


def test_the_seedless_crawlers_ignore_the_seed_and_the_random_clicker_does_not():
    assert set(SEEDLESS) < set(STRATEGIES) and "random" not in SEEDLESS
    for name in SEEDLESS:
        assert walk(name, random.Random(1), TREE) == walk(name, random.Random(2), TREE)
    clicks = []
    for seed in range(2):
        clicker = make_strategy("random", random.Random(seed))
        page = Here(url="/", key="/", node=None, all_options=list(range(40)))  # type: ignore[arg-type]
        clicks.append([clicker.choose(page, None, i).option for i in range(10)])  # type: ignore[arg-type]
    assert clicks[0] != clicks[1]


def nodes(out) -> list[str]:
    return sorted(n["key"] for n in json.loads((out / "graph.json").read_text())["nodes"])


def test_a_seedless_crawler_explores_a_real_site_the_same_way_under_two_seeds(
        site_url, site, other_host, tmp_path):
    for seed in (0, 1):
        run_explore(site_url, tmp_path / f"bfs-{seed}", budget=8, strategy="bfs", seed=seed,
                    screenshots="none")
    assert nodes(tmp_path / "bfs-0") == nodes(tmp_path / "bfs-1")
    assert len(nodes(tmp_path / "bfs-0")) >= 4  # home, items, an item, about, ...
    assert other_host.requests == []  # the partner link is off the list: never opened


def test_every_baseline_keeps_its_budget_on_a_real_site(site_url, site, tmp_path):
    from colorbrowser.explore.state import load_state

    for name in STRATEGIES[1:]:
        run_explore(site_url, tmp_path / name, budget=6, strategy=name, screenshots="none")
        state = load_state(tmp_path / name)
        assert 1 <= state.used <= 6 and len(state.graph.nodes) >= 2, name
        assert not [r for r in site.requests if r[0] != "GET"], name  # no reset: no writes
