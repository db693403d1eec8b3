"""The Predictor's rules (or its abstention) and the Judger's verdicts, without a
browser: a mismatch or an effect no rule foresaw is a finding."""

from __future__ import annotations

import pytest

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.judger import judge
from colorbrowser.explore.outcome import Outcome
from colorbrowser.explore.predict import Uncertainty, rule_predict
from colorbrowser.steps import Target

PAGE = "http://h/list"


def cand(kind: str, name: str = "x", writes: bool = False, **facts) -> Candidate:
    return Candidate(action="click('1')", kind=kind, target=Target(bid="1", role="link",
                     name=name), signature=f"{kind}|{name}", facts=facts, writes=writes)


def test_a_link_predicts_its_href_and_template_with_get():
    p = rule_predict(cand("link", href="http://h/items/7#top"), PAGE)
    assert (p.navigates, p.url, p.template, p.method) == (True, "http://h/items/7",
                                                         "h/items/{id}", "GET")
    assert p.kind_changes and not p.abstained


def test_a_link_to_this_page_predicts_staying():
    p = rule_predict(cand("link", href="http://h/list#section"), PAGE)
    assert p.navigates is False


def test_a_form_predicts_its_action_and_method():
    get = rule_predict(cand("submit", form={"method": "get", "url": "http://h/s?q=a",
                                            "action": "http://h/s"}), PAGE)
    assert (get.url, get.method, get.submits) == ("http://h/s?q=a", "GET", True)
    post = rule_predict(cand("submit", form={"method": "post", "action": "http://h/new"}), PAGE)
    assert (post.url, post.method) == ("http://h/new", "POST")


def test_a_toggle_predicts_its_expanded_state_flips_and_a_select_its_value():
    p = rule_predict(cand("toggle", expanded=False), PAGE)
    assert p.navigates is False and p.appear and p.states == {"expanded": True}
    s = rule_predict(cand("select", choice="L", options=[["S", "S"], ["L", "L"]]), PAGE)
    assert s.states == {"value": "L"} and s.navigates is False


def test_rules_abstain_on_a_script_button_and_a_scripted_select():
    assert rule_predict(cand("button"), PAGE).abstained
    assert rule_predict(cand("select", choice="L", onchange=True), PAGE).abstained


def test_the_judger_accepts_what_was_predicted():
    c = cand("link", href="http://h/items/7")
    out = Outcome(url="http://h/items/7", navigated=True, method="GET",
                  key_before="a", key_after="b")
    v = judge(c, rule_predict(c, PAGE), out)
    assert v.finding is None and not v.missed and v.checks["url"]


def test_a_submit_that_did_not_navigate_is_a_mismatch_finding():
    c = cand("submit", name="Place order", form={"method": "get", "url": "http://h/done?x=1"})
    out = Outcome(url=PAGE, key_before="a", key_after="a")
    v = judge(c, rule_predict(c, PAGE), out)
    assert v.finding == "mismatch" and not v.checks["navigates"]
    assert "Place order" in v.text and "no visible effect" in v.text


def test_a_toggle_that_showed_nothing_is_a_mismatch_on_appear():
    c = cand("toggle", expanded=False)
    out = Outcome(url=PAGE, states={"expanded": True}, key_before="a", key_after="a")
    v = judge(c, rule_predict(c, PAGE), out)
    assert v.finding == "mismatch" and v.checks == {"navigates": True, "appear": False,
                                                    "disappear": True, "expanded": True,
                                                    "kind": True}


def test_an_effect_no_rule_foresaw_is_unpredicted_and_no_effect_is_no_finding():
    c = cand("button", name="Add to cart")
    seen = judge(c, rule_predict(c, PAGE), Outcome(url=PAGE, appeared=["status 'Added'"]))
    assert seen.finding == "unpredicted" and "status 'Added'" in seen.text
    assert judge(c, rule_predict(c, PAGE), Outcome(url=PAGE)).finding is None


def test_rows_written_by_a_click_that_should_not_write_are_a_mismatch():
    c = cand("link", href="http://h/items/7")
    out = Outcome(url="http://h/items/7", navigated=True, method="GET", key_before="a",
                  key_after="b", db={"app.visits": "3 -> 4 rows"})
    v = judge(c, rule_predict(c, PAGE), out)
    assert v.finding == "mismatch" and v.checks["db"] is False and "app.visits" in v.text


def test_uncertainty_starts_at_the_rule_prior_and_learns_from_misses():
    u = Uncertainty()
    c = cand("link", href="http://h/items/7")
    p = rule_predict(c, PAGE)
    assert u.of("n", c, p) == 0.1
    for _ in range(4):
        u.learn("n", c, missed=True)
    assert u.of("n", c, p) > 0.6
    assert Uncertainty.from_json(u.to_json()).of("n", c, p) == u.of("n", c, p)
    assert u.of("n", cand("button"), rule_predict(cand("button"), PAGE)) == 1.0


def test_links_that_keep_missing_raise_doubt_only_about_links_to_their_kind_of_page():
    u = Uncertainty()
    members = [cand("link", href=f"http://h/user/{i}/member-{i}") for i in range(4)]
    for c in members:  # each ends on the login form instead
        u.learn("n", c, missed=True, pred=rule_predict(c, PAGE))
    other = cand("link", href="http://h/user/9/member-9")
    item = cand("link", href="http://h/items/7")
    assert u.of("m", other, rule_predict(other, PAGE)) > 0.6
    assert u.of("m", item, rule_predict(item, PAGE)) < 0.15


@pytest.mark.parametrize(("name", "method", "writes"), [
    ("Update", "get", False),  # Trac's query and timeline filters
    ("Apply", "get", False),
    ("Place order", "get", True),  # a script may write on a GET form (the demo shop)
    ("Delete", "get", True),
    ("Update", "post", True),
])
def test_a_get_forms_view_button_does_not_write(name, method, writes):
    from colorbrowser.explore.candidates import _one
    from colorbrowser.types import ElementInfo

    el = ElementInfo(bid="1", role="button", name=name, tag="button", interactive=True)
    facts = {"tag": "button", "type": "submit", "submits": True,
             "form": {"action": "http://h/query", "method": method}}
    found = _one(el, facts, 0)
    assert found is not None and found.kind == "submit" and found.writes is writes
