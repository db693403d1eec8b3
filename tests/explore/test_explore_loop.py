"""The explorer's loop in real Chromium on a small local site: one node per kind of
page, the budget kept, nothing requested off the allowed hosts, writes never sent
without a reset, and a killed run resumed where it stopped."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from colorbrowser.agent.trajectory import read_steps
from colorbrowser.explore.state import load_state

from .conftest import run_explore
from .site import CountingSite, _page


def graph(out):
    return json.loads((out / "graph.json").read_text())


def test_record_pages_of_one_kind_are_one_node_and_the_budget_is_never_exceeded(
        site_url, site, tmp_path):
    run_explore(site_url, tmp_path, budget=25)
    g = graph(tmp_path)
    item_urls = {e["outcome"]["url"] for e in g["edges"] if "/items/" in e["outcome"]["url"]}
    templates = [n["template"] for n in g["nodes"]]
    assert len(templates) == len(set(n["key"] for n in g["nodes"]))
    assert sum(t.endswith("/items/{id}") for t in templates) == 1
    assert len(item_urls) >= 1
    state = load_state(tmp_path)
    assert state.used == len(read_steps(tmp_path))
    assert state.used == 25 or (state.used < 25 and state.finished)  # or all was explored
    if state.used < 25:
        assert not state.graph.frontier()


def test_nothing_is_requested_from_a_host_off_the_list(site_url, site, other_host, tmp_path):
    run_explore(site_url, tmp_path, budget=20)
    assert other_host.requests == []
    state = load_state(tmp_path)
    assert any("/pixel.png" in u for u in state.off_list)  # the image was stopped here
    actions = " ".join(s["action"] for s in read_steps(tmp_path))
    assert "leak" not in actions


def test_allowing_the_other_host_lets_its_image_load(site_url, other_host, tmp_path):
    run_explore(site_url, tmp_path, budget=3, allow_hosts=["127.0.0.1", "localhost"])
    assert ("GET", "/pixel.png") in other_host.requests


def test_writes_are_skipped_when_the_site_cannot_be_reset(site_url, site, tmp_path):
    run_explore(site_url, tmp_path, budget=25)
    assert not [r for r in site.requests if r[0] != "GET"]
    home = next(n for n in graph(tmp_path)["nodes"] if n["url"] == site_url)
    assert any("create" in s for s in home["skipped"])


def test_a_killed_run_resumes_where_it_stopped(site_url, tmp_path):
    def kill_after_four(state):
        if state.used >= 4:
            raise KeyboardInterrupt

    from colorbrowser.explore.run import ExploreRequest, explore

    request = ExploreRequest(start_url=site_url, budget=9, out=tmp_path, tasks=False,
                             allow_hosts=["127.0.0.1"], screenshots="none")
    with pytest.raises(KeyboardInterrupt):
        explore(request, on_step=kill_after_four, say=lambda _: None)
    first = load_state(tmp_path)
    assert first.used == 4 and not first.finished
    nodes_before = set(first.graph.nodes)
    run_explore(site_url, tmp_path, budget=9, screenshots="none")
    again = load_state(tmp_path)
    steps = [s["step"] for s in read_steps(tmp_path)]
    assert again.used == 9 and steps == list(range(1, 10))
    assert nodes_before <= set(again.graph.nodes)


def test_a_site_that_stops_answering_stops_the_run_which_resumes_once_it_answers(
        site_url, site, tmp_path):
    from colorbrowser.errors import UserError
    from colorbrowser.explore.run import ExploreRequest, explore

    def go_away_after_five(state):
        site.down = site.down or state.used >= 5

    request = ExploreRequest(start_url=site_url, budget=14, out=tmp_path, tasks=False,
                             allow_hosts=["127.0.0.1"], screenshots="none")
    with pytest.raises(UserError, match=r"stopped answering.*run the same command again"):
        explore(request, on_step=go_away_after_five, say=lambda _: None)
    stopped = load_state(tmp_path)
    assert not stopped.finished and stopped.used < 14
    assert not [n for n in stopped.graph.nodes.values() if "chrome-error" in n.url]
    assert not [h for h in stopped.hops if not h["ok"]]  # no node was given up on

    site.down = False
    run_explore(site_url, tmp_path, budget=14, screenshots="none")
    again = load_state(tmp_path)
    assert again.used == 14 or again.finished
    assert set(stopped.graph.nodes) <= set(again.graph.nodes)


def test_a_folder_holding_another_sites_exploration_is_refused(site_url, tmp_path):
    run_explore(site_url, tmp_path, budget=2, screenshots="none")
    from colorbrowser.errors import UserError

    with pytest.raises(UserError, match="holds an exploration of"):
        run_explore(site_url.replace("127.0.0.1", "localhost"), tmp_path, budget=2,
                    allow_hosts=["localhost"])


ROOMS = ["attic", "cellar", "garden", "hall", "kitchen", "study"]


def explore_rooms(extra: str, tmp_path, budget: int, site: CountingSite | None = None) -> dict:
    """A home page and six room pages, each with ``extra`` and a menu of the rooms,
    explored; the graph."""
    site = site or CountingSite()
    nav = " ".join(f"<a href='/{r}'>{r.title()}</a>" for r in ROOMS)
    site.pages["/"] = _page("Home", f"<h1>Home</h1>{extra}<p>{nav}</p>")
    for r in ROOMS:
        site.pages[f"/{r}"] = _page(r, f"<h1>{r}</h1>{extra}<p>{nav}</p><p>{r}</p>")
    try:
        run_explore(f"http://127.0.0.1:{site.port}/", tmp_path, budget=budget)
    finally:
        site.close()
    return graph(tmp_path)


def tries_before_every_room(g: dict, marker: str) -> int:
    """How often an action whose signature holds ``marker`` was tried before the last
    new state was found (every room must have been found)."""
    assert {f"/{r}" for r in ROOMS} <= {urlsplit(n["url"]).path for n in g["nodes"]}
    first_seen: dict[str, int] = {}
    for e in g["edges"]:
        first_seen.setdefault(e["dest"], e["step"])
    last_new = max(first_seen.values())
    return sum(e["step"] < last_new for e in g["edges"] if marker in e["signature"])


def test_a_button_that_never_leads_anywhere_new_stops_outranking_unseen_pages(tmp_path):
    """Every page has a script button the rules cannot predict; once it has shown it
    reaches nothing new, the explorer goes to pages it has not seen before trying it
    again on each kind of page."""
    g = explore_rooms("<button onclick='void 0'>Quiet</button>", tmp_path, budget=30)
    assert any("quiet" in e["signature"] for e in g["edges"])
    assert tries_before_every_room(g, "quiet") <= 2


def test_links_that_all_end_on_one_login_form_stop_outranking_unseen_pages(tmp_path):
    """Twenty members' links, each named differently, all redirect to the login form:
    after a couple of them the explorer goes to the pages it has not seen."""
    members = " ".join(f"<a href='/member/{i}/user-{i}'>{name}</a>" for i, name in
                       enumerate(f"{a}_{b}" for a in ("sunny", "misty", "quiet", "lucky")
                                 for b in ("fox", "owl", "fern", "kettle", "pilot")))
    site = CountingSite()
    site.redirects["/member/"] = "/login"
    site.pages["/login"] = _page("Log in", "<h1>Log in</h1><form method='post'>"
                                 "<input name='user'><button>Log in</button></form>")
    g = explore_rooms(f"<p>{members}</p>", tmp_path, budget=40, site=site)
    assert tries_before_every_room(g, "/member/") <= 3
