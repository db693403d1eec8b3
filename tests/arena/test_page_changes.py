"""Changed pages (arena/pagechanges.py): each kind of change rewrites a real page in real
Chromium, through the fault proxy and through a route on the browser context, the same
way for the same seed; a blind replay of a plan (first element of that role and name)
is broken by it, and an action on a decoy is counted as an action on the wrong element."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from colorbrowser.arena.faults import FaultProxy
from colorbrowser.arena.pagechanges import ChangedPages, PageChange, inject
from colorbrowser.plan.format import OracleMiss, Target
from colorbrowser.static_server import serve_directory

PAGE = """<!doctype html><html><head><title>Ticket #7</title>
<script>document.addEventListener("DOMContentLoaded", function () {
  var a = document.createElement("a"); a.href = "/later"; a.textContent = "Built later";
  document.getElementById("nav").appendChild(a);
});</script></head><body>
<div id="nav"><ul>
  <li><a href="/wiki">Wiki</a></li><li><a href="/roadmap">Roadmap</a></li>
  <li><a href="/query">View Tickets</a></li>
</ul></div>
<h2>Tickets</h2>
<table><tbody>
  <tr><td>#1</td><td><a href="/ticket/1">Crash on start</a></td></tr>
  <tr><td>#2</td><td><a href="/ticket/2">Slow import</a></td></tr>
</tbody></table>
<form method="post" action="/ticket/7">
  <label for="prio">Priority:</label>
  <select id="prio" name="priority"><option>minor</option><option>major</option></select>
  <input type="submit" name="submit" value="Submit changes">
</form>
</body></html>
"""


POSTS = """<!doctype html><html><head><title>Topic</title></head><body>
<div class="post"><p>First post</p><a href="#like-1">like (0)</a></div>
<div class="post"><p>Second post</p><a href="#like-2">like (0)</a></div>
<div class="post"><p>Third post</p><a href="#like-3">like (0)</a></div>
</body></html>
"""

ISSUES = """<!doctype html><html><head><title>Search</title></head><body>
<a href="#hidden" style="display:none">Bug #1: Crash on start</a>
<a href="#commit">Commit 3f2: fix Crash on start (refs #1)</a>
<a href="#issue">Bug #1: Crash on start</a>
</body></html>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("changed-site")
    (root / "index.html").write_text(PAGE, "utf-8")
    (root / "posts.html").write_text(POSTS, "utf-8")
    (root / "issues.html").write_text(ISSUES, "utf-8")
    with serve_directory(root, token="") as url:
        yield url


def elements(env, url):
    env.page.goto(url)
    return env.observe()


def names(obs, role):
    return [e.name for e in obs.elements.values() if e.role == role]


def through_proxy(site, changes, seed=3):
    return FaultProxy(urlsplit(site).port or 80, [], changes=changes, seed=seed)


def test_a_renamed_label_is_no_longer_found_by_its_recorded_name(site, browser_env):
    with through_proxy(site, [PageChange("rename", names=("Submit changes",))]) as proxy:
        obs = elements(browser_env, proxy.url + "/index.html")
    with pytest.raises(OracleMiss):
        Target("button", name="Submit changes").find(obs)
    assert "Save changes" in names(obs, "button")
    # the rest of the page is untouched
    assert Target("link", name="Roadmap").find(obs)


def test_a_renamed_form_label_renames_the_control(site, browser_env):
    with through_proxy(site, [PageChange("rename", names=("Priority:",))]) as proxy:
        obs = elements(browser_env, proxy.url + "/index.html")
    assert "Urgency:" in names(obs, "combobox")
    with pytest.raises(OracleMiss):
        Target("combobox", name="Priority:").find(obs)


def test_swapped_rows_and_menu_items_trade_places(site, browser_env):
    plain = elements(browser_env, site + "/index.html")
    with through_proxy(site, [PageChange("swap", names=("Crash on start",)),
                              PageChange("swap", names=("Wiki",))]) as proxy:
        obs = elements(browser_env, proxy.url + "/index.html")
    before, after = names(plain, "link"), names(obs, "link")
    assert sorted(before) == sorted(after) and before != after
    assert after.index("Slow import") < after.index("Crash on start")
    assert after.index("Wiki") > 0  # no longer the first menu item
    # by role and name the row is still found: a swap only breaks replay by position
    assert Target("link", name="Crash on start").find(obs)


def test_an_extra_element_before_the_target_takes_a_blind_first_match(site, browser_env):
    pages = ChangedPages([site], [PageChange("extra", names=("Submit changes",))], seed=5)
    pages.install(browser_env.page.context)
    try:
        obs = elements(browser_env, site + "/index.html")
        buttons = [e for e in obs.elements.values()
                   if e.role == "button" and e.name == "Submit changes"]
        assert len(buttons) == 2
        first = Target("button", name="Submit changes").find(obs)
        assert browser_env.page.locator("[data-arena-wrong] >> nth=0").count() == 1
        browser_env.step(f"click('{first.bid}')")  # blind replay clicks the decoy
        browser_env.page.wait_for_timeout(300)
        assert pages.wrong.count == 1
        browser_env.step(f"click('{buttons[1].bid}')")  # the real one posts the form
        assert pages.wrong.count == 1
    finally:
        pages.uninstall()


def test_an_element_the_pages_own_script_builds_on_ready_is_changed_too(site, browser_env):
    with through_proxy(site, [PageChange("extra", names=("Built later",))]) as proxy:
        obs = elements(browser_env, proxy.url + "/index.html")
    assert names(obs, "link").count("Built later") == 2
    assert browser_env.page.locator("[data-arena-wrong]").count() == 1


def test_a_removed_element_and_its_label_are_gone(site, browser_env):
    with through_proxy(site, [PageChange("remove", names=("Priority:",)),
                              PageChange("remove", names=("Roadmap",))]) as proxy:
        obs = elements(browser_env, proxy.url + "/index.html")
    assert not names(obs, "combobox")
    assert "Roadmap" not in names(obs, "link")
    assert "Priority:" not in browser_env.page.inner_text("body")


def likes(env, url):
    return [e for e in elements(env, url).elements.values()
            if e.role == "link" and "like (0)" in e.name]


def test_acting_on_a_twin_of_a_removed_target_counts_as_the_wrong_element(site, browser_env):
    pages = ChangedPages([site], [PageChange("remove", names=("like (0)",))], seed=5)
    pages.install(browser_env.page.context)
    try:
        left = likes(browser_env, site + "/posts.html")
        assert len(left) == 2  # the first post's link is gone
        browser_env.step(f"click('{left[0].bid}')")  # "the first like link" is now post 2's
        browser_env.page.wait_for_timeout(300)
        assert pages.wrong.count == 1
    finally:
        pages.uninstall()


def test_a_change_with_no_names_marks_no_twins(site, browser_env):
    pages = ChangedPages([site], [PageChange("swap")], seed=5)
    pages.install(browser_env.page.context)
    try:
        elements(browser_env, site + "/posts.html")
        assert browser_env.page.locator("[data-arena-wrong]").count() == 0
    finally:
        pages.uninstall()


def test_twins_of_a_target_named_by_a_contained_text_are_marked_too(site, browser_env):
    pages = ChangedPages([site], [PageChange("remove", contains=("like (",))], seed=5)
    pages.install(browser_env.page.context)
    try:
        left = likes(browser_env, site + "/posts.html")
        assert len(left) == 2
        assert browser_env.page.locator("[data-arena-wrong]").count() == 2
    finally:
        pages.uninstall()


def test_the_change_is_aimed_at_the_steps_own_twin_and_that_one_is_no_wrong_element(
        site, browser_env):
    pages = ChangedPages([site], [PageChange("rename", names=("like (0)",), nth=1)], seed=5)
    pages.install(browser_env.page.context)
    try:
        links = likes(browser_env, site + "/posts.html")
        renamed = [e for e in links if e.name != "like (0)"]
        assert [e.bid for e in renamed] == [links[1].bid]  # the second post's, renamed
        browser_env.step(f"click('{renamed[0].bid}')")
        browser_env.page.wait_for_timeout(300)
        assert pages.wrong.count == 0
        browser_env.step(f"click('{links[0].bid}')")  # its twin keeps the old name
        browser_env.page.wait_for_timeout(300)
        assert pages.wrong.count == 1
    finally:
        pages.uninstall()


def test_the_change_finds_its_target_as_a_plan_does_shown_first_and_by_its_end(
        site, browser_env):
    change = PageChange("rename", contains=("Crash on start",), ends=True)
    pages = ChangedPages([site], [change], seed=5)
    pages.install(browser_env.page.context)
    try:
        obs = elements(browser_env, site + "/issues.html")
        links = {e.name: e for e in obs.elements.values() if e.role == "link"}
        assert "Bug #1: Crash on start" not in links  # the shown issue link was renamed
        commit = links["Commit 3f2: fix Crash on start (refs #1)"]
        browser_env.step(f"click('{commit.bid}')")  # holds the text, does not end with it
        browser_env.page.wait_for_timeout(300)
        assert pages.wrong.count == 0
        assert browser_env.page.locator("[data-arena-wrong]").count() == 1  # the hidden one
    finally:
        pages.uninstall()


def test_the_same_seed_gives_the_same_page_and_another_seed_may_not(site, browser_env):
    seen = []
    for seed in (1, 1, 2, 3, 4):
        with through_proxy(site, [PageChange("swap"), PageChange("rename")], seed) as proxy:
            obs = elements(browser_env, proxy.url + "/index.html")
        seen.append(names(obs, "link") + names(obs, "button"))
    assert seen[0] == seen[1]
    assert any(s != seen[0] for s in seen[2:])


def test_the_rules_are_data_a_name_cannot_end_the_script():
    html = b"<html><body><p>x</p></body></html>"
    out = inject(html, [PageChange("rename", names=("</script><script>alert(1)",))], 0)
    assert out.count(b"</script>") == 1 and out.endswith(b"</body></html>")
    with pytest.raises(ValueError):
        PageChange("shuffle")  # type: ignore[arg-type]
