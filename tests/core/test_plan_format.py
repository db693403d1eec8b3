"""Oracle plans: parsed from plain data, resolved against the page just before each step."""

from __future__ import annotations

import re

import pytest
import yaml

from colorbrowser.errors import UserError
from colorbrowser.evaluation.replay import ReplayOperator, ReplayScript
from colorbrowser.plan.format import (
    OracleMiss,
    decode_step,
    parse_plan,
    parse_step,
)
from colorbrowser.steps import DecisionView
from colorbrowser.types import ElementInfo, Observation

PLAN = yaml.safe_load("""
- goto: __TRAC__/ticket/5
- click: {role: link, name: Roadmap}
- fill: {role: textbox, name: Summary}
  value: Crash on import
- select_option: {role: combobox, contains: Priority}
  options: major
  wrong: minor
- click: {role: button, name: Save}
  wrong: {role: button, name: Cancel}
- "stop('12')"
""")


def page(*elements: tuple[str, str, str, bool], url: str = "http://127.0.0.1:8103/") -> Observation:
    return Observation(url=url, title="t", axtree="", elements={
        bid: ElementInfo(bid=bid, role=role, name=name, visible=visible)
        for bid, role, name, visible in elements})


def test_a_plan_mixes_action_strings_and_steps_that_name_their_targets():
    plan = parse_plan(PLAN)
    assert [s.action for s in plan.steps] == ["goto", "click", "fill", "select_option",
                                              "click", "stop"]
    obs = page(("31", "link", "Roadmap", True), ("40", "textbox", "Summary", True),
               ("41", "combobox", "Priority:", True), ("50", "button", "Save", True))
    env = {"WA_TRAC": "http://127.0.0.1:8203/"}
    texts = [s.action_text(obs, env) for s in plan.steps]
    assert texts == ["goto('http://127.0.0.1:8203/ticket/5')", "click('31')",
                     "fill('40', 'Crash on import')", "select_option('41', 'major')",
                     "click('50')", "stop('12')"]


def test_the_file_form_survives_a_round_trip_through_the_encoded_form():
    plan = parse_plan(PLAN)
    again = parse_plan([s.to_data() for s in plan.steps])
    assert again == plan
    assert [decode_step(text) for text in plan.encode()] == plan.steps


def test_a_target_prefers_visible_elements_and_counts_matches_in_page_order():
    obs = page(("1", "link", "Edit", False), ("2", "link", "Edit", True),
               ("3", "link", "  Edit ", True), ("4", "button", "Edit", True))
    assert parse_step({"click": {"role": "link", "name": "Edit"}}).action_text(obs) == \
        "click('2')"
    assert parse_step({"click": {"role": "link", "name": "Edit", "nth": 1}}).action_text(obs) \
        == "click('3')"
    assert parse_step({"click": {"role": "button", "contains": "edi"}}).action_text(obs) == \
        "click('4')"


def test_a_part_that_ends_the_name_is_not_found_in_the_middle_of_another():
    """An issue's link ends with its subject; a commit's that mentions it goes on."""
    obs = page(("1", "link", "Revision 1a2b (harbor): Add ignore rules (refs #77)", True),
               ("2", "link", "Feature #77 (New): Add ignore rules", True))
    ends = {"click": {"role": "link", "contains": "add IGNORE rules", "ends": True}}
    assert parse_step(ends).action_text(obs) == "click('2')"
    assert parse_step({"click": {"role": "link", "contains": "add ignore rules"}}
                      ).action_text(obs) == "click('1')"
    assert parse_step(ends).describe() == \
        "click the link containing 'add IGNORE rules' at the end"
    assert parse_step(parse_step(ends).to_data()) == parse_step(ends)


def test_a_missing_target_is_an_oracle_miss_that_names_it():
    step = parse_step({"click": {"role": "link", "name": "Orders"}})
    with pytest.raises(OracleMiss, match=re.escape("the link 'Orders' is not on http://127.0.0.1:8103/")):
        step.action_text(page(("1", "link", "Order", True)))


def test_mutants_change_the_marked_value_or_drop_the_last_step():
    plan = parse_plan(PLAN)
    wrong = plan.wrong_value()  # the last step that has a wrong value: a click elsewhere
    assert wrong.steps[4].target.name == "Cancel" and wrong.steps[:4] == plan.steps[:4]
    earlier = parse_plan(PLAN[:4]).wrong_value()
    assert earlier.steps[3].args == ("minor",)
    assert plan.without_last().steps == plan.steps[:-1]
    assert plan.mutable and not parse_plan(["stop('1')"]).mutable
    with pytest.raises(ValueError, match="no step"):
        parse_plan(["stop('1')"]).wrong_value()


def test_steps_read_as_instructions_for_a_person():
    plan = parse_plan(PLAN)
    assert plan.steps[1].describe() == "click the link 'Roadmap'"
    assert plan.steps[2].describe() == "type 'Crash on import' into the textbox 'Summary'"
    assert plan.steps[3].describe() == "choose 'major' in the combobox containing 'Priority'"


@pytest.mark.parametrize(("raw", "reason"), [
    ({"click": {"role": "link", "name": "A"}, "fill": {"role": "textbox", "name": "B"}},
     "exactly one action"),
    ({"click": {"name": "A"}}, "needs a role"),
    ({"click": {"role": "link"}}, "exactly one of name or contains"),
    ({"click": {"role": "link", "name": "A", "near": "B"}}, "unknown target key 'near'"),
    ({"click": {"role": "link", "name": "A", "ends": True}}, "only beside contains"),
    ({"click": {"role": "link", "contains": "A", "ends": "yes"}}, "ends is true or false"),
    ({"fill": {"role": "textbox", "name": "A"}}, "fill needs value"),
    ({"click": {"role": "link", "name": "A"}, "wrong": "B"}, "no value for 'wrong'"),
    ({"fill": {"role": "textbox", "name": "A"}, "value": "x",
      "wrong": {"role": "textbox", "name": "B"}}, "only a click-like step"),
    ({"click": "12"}, "the target must be a mapping"),
    ("click(", "not a valid call"),
    ({"stop": "1", "value": "2"}, "stop takes no 'value'"),
])
def test_bad_steps_are_refused_with_one_reason(raw, reason):
    with pytest.raises(ValueError, match=reason):
        parse_step(raw)


def test_the_replay_agent_runs_oracle_steps_against_the_current_page(tmp_path):
    path = tmp_path / "plans.yaml"
    path.write_text(yaml.safe_dump({"arena:trac-open": [
        {"click": {"role": "link", "name": "Roadmap"}}, {"stop": "done"}]}))
    actions = ReplayScript.load(path).require("arena:trac-open", None)
    operator = ReplayOperator(actions)
    first = operator.decide(DecisionView("g", page(("9", "link", "Roadmap", True)), 1, 5))
    assert str(first.action) == "click('9')"
    assert str(operator.decide(DecisionView("g", page(), 2, 5)).action) == "stop('done')"


def test_the_replay_agent_waits_a_little_for_a_target_then_stops_unanswered():
    operator = ReplayOperator(parse_plan([{"click": {"role": "link", "name": "Roadmap"}}])
                              .encode())
    waits = [operator.decide(DecisionView("g", page(), n, 9)) for n in range(3)]
    assert [str(d.action) for d in waits] == ["scroll(0, 0)"] * 3
    decision = operator.decide(DecisionView("g", page(), 4, 9))
    assert str(decision.action) == "stop()"
    assert "the link 'Roadmap' is not on" in decision.thought


def test_a_target_that_shows_up_while_waiting_is_used():
    operator = ReplayOperator(parse_plan([{"click": {"role": "link", "name": "Roadmap"}}])
                              .encode())
    assert str(operator.decide(DecisionView("g", page(), 1, 9)).action) == "scroll(0, 0)"
    later = page(("4", "link", "Roadmap", True))
    assert str(operator.decide(DecisionView("g", later, 2, 9)).action) == "click('4')"
    assert str(operator.decide(DecisionView("g", later, 3, 9)).action) == "stop()"


def test_a_replay_file_with_a_broken_step_is_one_line(tmp_path):
    path = tmp_path / "plans.yaml"
    path.write_text(yaml.safe_dump({"t": [{"click": {"role": "link"}}]}))
    with pytest.raises(UserError, match=r"plans.yaml: t seed \* step 1: click: the target"):
        ReplayScript.load(path)


def test_a_step_can_wait_for_what_it_makes_appear():
    plan = parse_plan([{"click": {"role": "link", "name": "like (0)"},
                        "expect": {"role": "link", "contains": "remove like"}}])
    assert parse_plan([plan.steps[0].to_data()]) == plan
    operator = ReplayOperator(plan.encode())
    assert str(operator.decide(DecisionView("g", page(("3", "link", "like (0)", True)), 1, 9))
               .action) == "click('3')"
    still = page(("3", "link", "like (0)", True))
    assert str(operator.decide(DecisionView("g", still, 2, 9)).action) == "scroll(0, 0)"
    done = page(("3", "link", "remove like (1)", True))
    assert str(operator.decide(DecisionView("g", done, 3, 9)).action) == "stop()"
