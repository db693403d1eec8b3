"""Backtracking to a frontier node: by its address when that reproduces the state, by
replaying the stored path from the start when it does not; each hop's cost is kept."""

from __future__ import annotations

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.explore.backtrack import hop_yields
from colorbrowser.explore.loop import ExploreConfig, Explorer


@pytest.fixture
def explored(site_url, tmp_path):
    """The small site explored until nothing is left, the browser still open."""
    settings = BrowserSettings(allow_hosts=["127.0.0.1"], action_timeout_ms=1500)
    with BrowserEnv(settings) as env:
        explorer = Explorer(env, ExploreConfig(start_url=site_url, budget=40, out=tmp_path,
                                               screenshots="none"))
        explorer.run()
        explorer.state.budget += 40
        yield explorer


def node_where(explorer, test):
    return next(n for n in explorer.state.graph.nodes.values() if test(n))


def test_a_record_page_is_reached_again_by_its_address_in_one_action(explored):
    item = node_where(explored, lambda n: n.template.endswith("/items/{id}"))
    explored.config.backtrack = "url"
    used = explored.state.used
    assert explored._hop(item.key)
    hop = explored.state.hops[-1]
    assert hop["ok"] and hop["method"] == "url" and hop["actions"] == 1
    assert explored.state.used == used + 1 and explored.page.key == item.key
    assert hop["at"] == used + 1  # when it ended, so the states found after it are its yield
    assert item.url_reproduces is True


def test_a_state_its_address_does_not_reproduce_is_reached_by_replaying_its_path(explored):
    home_template = node_where(explored, lambda n: n.path == []).template
    panel = node_where(explored, lambda n: n.template == home_template and n.path)
    assert any("More options" in str(step) for step in panel.path)
    explored.config.backtrack = "url"
    explored._hop(panel.key)
    by_url = explored.state.hops[-1]
    assert not by_url["ok"] and by_url["reached"] != panel.key
    assert panel.url_reproduces is False
    explored.config.backtrack = "auto"
    panel = explored.state.graph.nodes[panel.key]
    panel.open = ["again"]  # the failed hop closed it; open it to go back
    assert explored._hop(panel.key)
    by_path = explored.state.hops[-1]
    assert by_path["ok"] and by_path["method"] == "replay"
    assert by_path["actions"] == len(panel.path) + 1
    assert explored.page.key == panel.key and by_path["seconds"] > 0


def test_a_hop_the_budget_cannot_pay_for_is_not_started(explored):
    panel = node_where(explored, lambda n: len(n.path) >= 1 and n.url_reproduces is not True)
    explored.config.backtrack = "replay"
    explored.state.budget = explored.state.used + len(panel.path)  # one action short
    hops = len(explored.state.hops)
    assert explored._hop(panel.key) is False
    assert len(explored.state.hops) == hops


def hop(method, at, actions=1, seconds=0.5, ok=True):
    return {"method": method, "ok": ok, "actions": actions, "seconds": seconds, "at": at}


def test_a_hop_is_credited_with_the_new_states_found_before_the_next_hop():
    hops = [hop("url", 10), hop("replay", 20, actions=4, seconds=2.0), hop("url", 30)]
    new_state_at = [3, 11, 12, 20, 25, 31]  # 3: before any hop; 20: during the replay
    yields = hop_yields(hops, new_state_at)
    assert (yields["url"].hops, yields["url"].actions, yields["url"].new_states) == (2, 2, 4)
    assert (yields["replay"].actions, yields["replay"].seconds, yields["replay"].new_states) \
        == (4, 2.0, 1)


def test_a_failed_hop_is_no_way_back_and_hops_saved_without_their_time_are_left_out():
    hops = [hop("url", 10, ok=False), {"method": "snapshot", "ok": True, "actions": 1,
                                       "seconds": 0.2}]
    assert hop_yields(hops, [11, 12]) == {}
