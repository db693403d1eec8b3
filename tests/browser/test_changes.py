"""Change awareness: new elements are starred in the tree and the change line says
what appeared, went away or changed state since the previous observation."""

from __future__ import annotations

from colorbrowser.browser.changes import describe_changes, marked_new
from colorbrowser.types import ElementInfo, Observation

from .browser_helpers import find, line_of


def starred(obs: Observation) -> list[str]:
    return [line.strip() for line in obs.axtree.splitlines() if line.strip().startswith("*[")]


def test_first_observation_has_no_stars_and_no_change_line(env, page_url):
    obs = env.reset(page_url("changes.html"))
    assert obs.changes is None
    assert starred(obs) == []
    assert not any(e.is_new for e in obs.elements.values())


def test_new_elements_are_starred_once_and_named_in_the_change_line(env, page_url):
    first = env.reset(page_url("changes.html"))
    assert env.step(f"click('{find(first, 'Ask to confirm').bid}')").ok
    second = env.observe()
    dialog, ok = find(second, "Confirm", "dialog"), find(second, "OK", "button")
    cancel = find(second, "Cancel", "button")
    assert line_of(second, dialog.bid) == f"*[{dialog.bid}] dialog 'Confirm'"
    assert line_of(second, ok.bid) == f"*[{ok.bid}] button 'OK'"
    assert len(starred(second)) == 5  # dialog, its paragraph, two buttons and a link
    assert line_of(second, find(second, "Orders", "heading").bid).startswith("[")
    # The dialog first (its parts are implied), then named or actionable elements.
    assert second.changes == (f"5 new: [{dialog.bid}] dialog 'Confirm', "
                              f"[{ok.bid}] button 'OK', [{cancel.bid}] button 'Cancel', +2 more")
    third = env.observe()
    assert starred(third) == [] and third.changes == "no change"


def test_removed_elements_are_named_actionable_first(env, page_url):
    first = env.reset(page_url("changes.html"))
    button = find(first, "Delete order 2")
    item = first.elements[next(b for b, e in first.elements.items()
                               if e.role == "listitem" and b < button.bid
                               and int(b) == int(button.bid) - 1)]
    assert env.step(f"click('{button.bid}')").ok
    second = env.observe()
    assert second.changes == (f"2 removed: [{button.bid}] button 'Delete order 2', "
                              f"[{item.bid}] listitem")
    assert starred(second) == []


def test_state_and_value_changes_are_listed_without_focus_noise(env, page_url):
    first = env.reset(page_url("changes.html"))
    agree, city = find(first, "I agree"), find(first, "City")
    assert env.step(f"check('{agree.bid}')").ok
    assert env.observe().changes == f"changed: [{agree.bid}] checkbox 'I agree' checked"
    assert env.step(f"fill('{city.bid}', 'Paris')").ok
    assert env.observe().changes == f"changed: [{city.bid}] textbox 'City' value='Paris'"
    assert env.step(f"fill('{city.bid}', '')").ok
    assert env.observe().changes == f"changed: [{city.bid}] textbox 'City' value=''"


def test_title_and_text_changes(env, page_url):
    first = env.reset(page_url("changes.html"))
    assert env.step(f"click('{find(first, 'Retitle').bid}')").ok
    assert env.observe().changes == "title changed"
    assert env.step(f"click('{find(first, 'Save').bid}')").ok
    obs = env.observe()
    assert obs.changes == "page text changed"
    assert "Saved at noon" in obs.axtree


def test_replaced_page_content_is_counted_but_not_starred(env, page_url):
    first = env.reset(page_url("changes.html"))
    assert env.step(f"click('{find(first, 'Replace everything').bid}')").ok
    second = env.observe()
    assert starred(second) == []  # nearly every line would carry a star
    heading = find(second, "Fresh content", "heading")
    assert second.changes.startswith(f"21 new: [{heading.bid}] heading 'Fresh content', ")
    removed = len(first.elements)
    assert f"; {removed} removed: " in second.changes


def test_a_new_document_starts_over(env, page_url):
    first = env.reset(page_url("changes.html"))
    assert env.step(f"click('{find(first, 'Another page').bid}')").ok
    second = env.observe()
    assert second.title == "Page one"
    assert second.changes == "URL changed"
    assert starred(second) == [] and not any(e.is_new for e in second.elements.values())
    assert env.observe().changes == "no change"


def test_the_operator_prompt_carries_stars_and_change_line(env, page_url):
    from colorbrowser.agent.operator import Operator
    from colorbrowser.llm.scripted import ScriptedModel
    from colorbrowser.steps import DecisionView

    first = env.reset(page_url("changes.html"))
    env.step(f"click('{find(first, 'Ask to confirm').bid}')")
    obs = env.observe()
    system, user = Operator(ScriptedModel([])).messages(
        DecisionView(goal="confirm", obs=obs, step=2, max_steps=10))
    assert f"Since the last step: {obs.changes}" in user.content
    assert f"*[{find(obs, 'OK').bid}] button 'OK'" in user.content
    assert "* before an id" in system.content  # the model is told what the star means


# -- the change line on its own (no browser) ---------------------------------------------

def el(bid: str, role: str = "button", name: str = "", *, new: bool = False,
       interactive: bool = True, **states) -> ElementInfo:
    return ElementInfo(bid=bid, role=role, name=name, interactive=interactive, is_new=new,
                       states=states)


def obs_of(*elements: ElementInfo, title: str = "T", url: str = "http://x/") -> Observation:
    return Observation(url=url, title=title, axtree="", elements={e.bid: e for e in elements},
                       dom_hash=str(len(elements)))


def test_long_names_are_cut_and_extra_elements_counted():
    before = obs_of(el("1", name="Keep"))
    after = obs_of(el("1", name="Keep"), *(el(str(i), name=f"Item {i} " + "x" * 40, new=True)
                                           for i in range(2, 7)))
    line = describe_changes(before, after, True, top_new=["2", "3", "4", "5", "6"])
    assert line == ("5 new: [2] button 'Item 2 xxxxxxxxxxxxxxxxxxxxxx…', "
                    "[3] button 'Item 3 xxxxxxxxxxxxxxxxxxxxxx…', "
                    "[4] button 'Item 4 xxxxxxxxxxxxxxxxxxxxxx…', +2 more")


def test_flags_that_go_away_are_named():
    before = obs_of(el("1", name="Go", disabled=True, focused=True), el("2", "tab", "A",
                                                                       selected=True))
    after = obs_of(el("1", name="Go"), el("2", "tab", "A"))
    assert describe_changes(before, after, True) == (
        "changed: [1] button 'Go' not disabled, [2] tab 'A' not selected")


def test_other_documents_are_not_compared():
    before = obs_of(el("1", name="Old"))
    after = obs_of(el("1", name="New"), el("2", new=True))
    assert describe_changes(before, after, False) == "page reloaded"
    assert describe_changes(None, after, False) is None


def test_stars_only_while_new_elements_are_a_minority():
    few = {e.bid: e for e in [el("1"), el("2"), el("3", new=True)]}
    most = {e.bid: e for e in [el("1"), el("2", new=True), el("3", new=True)]}
    assert marked_new(few) == {"3"}
    assert marked_new(most) == set()
