"""A workflow made concrete for one goal: values filled as data, addresses kept on the
site, surroundings checked before a step, the answer read where the learned run read its
own. Unit tests on hand-built observations (no browser)."""

from __future__ import annotations

import pytest

from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow import Workflow
from colorbrowser.workflows.instantiate import (
    check_effect,
    check_surroundings,
    goal_for,
    instantiate,
    read_answer,
)

from .pages import SITE, query_page, ticket_page


def owner_flow(**changes) -> Workflow:
    data = {
        "site": SITE,
        "goal_pattern": "Who is the owner of ticket #{{ticket}}?",
        "params": {"ticket": "18"},
        "steps": [{"step": {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"}},
                  {"step": {"click": {"role": "button", "name": "Submit changes"}},
                   "surroundings": {"heading": "Add Comment"}},
                  {"step": {"stop": ""}}],
        "answer": {"target": {"role": "link", "contains": ""}, "label": "Owned by:"},
    }
    return Workflow.model_validate(data | changes)


def test_each_step_gets_the_goals_values_and_a_concrete_action():
    steps = instantiate(owner_flow(), {"ticket": "42"}, env={})
    assert [s.action for s, _ in steps] == ["goto", "click", "stop"]
    assert steps[0][0].args == (f"http://{SITE}/ticket/42",)
    page = ticket_page(42, "James Chen")
    assert steps[1][0].action_text(page) == "click('114')"
    assert goal_for(owner_flow(), {"ticket": "42"}) == "Who is the owner of ticket #42?"


def test_a_value_can_change_a_path_but_never_the_host_or_the_action():
    steps = instantiate(owner_flow(), {"ticket": "../../x?@evil.example/#"}, env={})
    assert steps[0][0].args == (f"http://{SITE}/ticket/..%2F..%2Fx%3F%40evil.example%2F%23",)
    flow = owner_flow(goal_pattern="Comment {{text}} on #{{ticket}}", params={},
                      steps=[{"step": "stop('{{text}}')"}])
    (step, _), = instantiate(flow, {"text": "a'); goto('file:///etc/passwd"}, env={})
    assert step.action == "stop" and step.args == ("a'); goto('file:///etc/passwd",)


def test_a_placeholder_is_filled_from_the_settings_and_must_land_on_the_site():
    flow = owner_flow(steps=[{"step": {"goto": "__TRAC__/ticket/{{ticket}}"}}])
    (step, _), = instantiate(flow, {"ticket": "7"}, env={"WA_TRAC": f"http://{SITE}"})
    assert step.args == (f"http://{SITE}/ticket/7",)
    with pytest.raises(UserError, match="not on the workflow's site"):
        instantiate(flow, {"ticket": "7"}, env={"WA_TRAC": "http://evil.example"})
    with pytest.raises(UserError, match="only http"):
        instantiate(flow, {"ticket": "7"}, env={})  # unfilled: never opened as is


def test_a_missing_value_is_a_one_line_error():
    with pytest.raises(UserError, match=r"no value for the parameter \{\{ticket\}\}"):
        instantiate(owner_flow(), {}, env={})


def test_surroundings_hold_on_the_same_page_and_fail_on_a_changed_one():
    flow = owner_flow()
    _, ws = instantiate(flow, {"ticket": "42"}, env={})[1]
    page = ticket_page(42, "James Chen")
    assert check_surroundings(ws, page.elements["114"], page, {"ticket": "42"}) is None
    moved = ticket_page(42, "James Chen")
    moved.axtree = moved.axtree.replace("'Add Comment' level=3", "'Attachments' level=3")
    reason = check_surroundings(ws, moved.elements["114"], moved, {"ticket": "42"})
    assert reason == "it is not under the heading 'Add Comment'"


def test_a_label_check_notices_a_renamed_label():
    flow = owner_flow(steps=[{"step": {"click": {"role": "link", "contains": ""}},
                              "surroundings": {"label": "Owned by:"}}])
    ws = flow.steps[0]
    page = ticket_page(42, "James Chen")
    assert check_surroundings(ws, page.elements["51"], page, {}) is None
    assert check_surroundings(ws, page.elements["48"], page, {}) == \
        "its label is 'Reported by:', not 'Owned by:'"
    renamed = ticket_page(42, "James Chen", owner_label="Assigned to:")
    assert "not 'Owned by:'" in check_surroundings(ws, renamed.elements["51"], renamed, {})


def test_a_row_check_needs_the_goals_value_in_the_targets_row():
    flow = owner_flow(steps=[{"step": {"click": {"role": "cell", "name": "defect"}},
                              "surroundings": {"row": "#{{ticket}}"}}])
    page = query_page(2, [("52", "Smart albums", "enhancement"), ("57", "Resumable", "defect")])
    assert check_surroundings(flow.steps[0], page.elements["213"], page, {"ticket": "57"}) is None
    assert check_surroundings(flow.steps[0], page.elements["213"], page, {"ticket": "52"}) == \
        "its row does not hold '#52'"


def test_the_answer_is_read_beside_its_label_on_a_siblings_page():
    flow = owner_flow()
    assert read_answer(flow, ticket_page(42, "James Chen"), {"ticket": "42"}) == "James Chen"
    assert read_answer(flow, ticket_page(76, "Clara Clark", reporter="Julian Moore"),
                       {"ticket": "76"}) == "Clara Clark"
    renamed = ticket_page(42, "James Chen", owner_label="Assigned to:")
    assert read_answer(flow, renamed, {"ticket": "42"}) is None  # never a wrong value


def test_an_answer_inside_a_longer_text_is_cut_out_of_it():
    flow = owner_flow(answer={"target": {"role": "heading", "contains": "Custom Query ("},
                              "around": "Custom Query (* matches)"})
    assert read_answer(flow, query_page(7, []), {"ticket": "1"}) == "7"


def test_an_answer_under_a_column_header_is_taken_from_the_goals_row():
    flow = owner_flow(answer={"target": {"role": "cell", "contains": ""}, "label": "Type",
                              "label_kind": "column"})
    page = query_page(2, [("52", "Smart albums", "enhancement"), ("57", "Resumable", "defect")])
    assert read_answer(flow, page, {"ticket": "57"}) == "defect"
    assert read_answer(flow, page, {"ticket": "99"}) == "enhancement"  # no row: the first


def test_an_answer_that_is_a_goal_value_comes_from_its_template():
    flow = owner_flow(goal_pattern="Say {{word}} about #{{ticket}}", params={},
                      answer={"template": "{{word}}"})
    assert read_answer(flow, ticket_page(1, "x"), {"word": "yes", "ticket": "1"}) == "yes"


def test_the_expected_address_after_a_step_is_checked_with_the_goals_values():
    flow = owner_flow(steps=[{"step": {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"},
                              "expect_url": f"http://{SITE}/ticket/{{{{ticket}}}}*"}])
    ws = flow.steps[0]
    assert check_effect(ws, ticket_page(42, "x"), {"ticket": "42"}) is None
    moved = ticket_page(42, "x")
    moved.url += "#comment:3"
    assert check_effect(ws, moved, {"ticket": "42"}) is None
    assert check_effect(ws, ticket_page(43, "x"), {"ticket": "42"}) == \
        f"the page is http://{SITE}/ticket/43, not http://{SITE}/ticket/42*"
    titled = owner_flow(steps=[{"step": {"stop": ""}, "expect_title": "#{{ticket}} (*"}])
    assert check_effect(titled.steps[0], ticket_page(42, "x"), {"ticket": "42"}) is None
    assert "title" in check_effect(titled.steps[0], ticket_page(42, "x"), {"ticket": "4"})


def test_a_same_named_control_in_a_box_of_its_own_is_not_under_the_recorded_heading():
    """An extra element before the target (benchmarks' changed pages): the recorded heading
    is still somewhere above it, but the nearest heading is the box's own."""
    flow = owner_flow()
    _, ws = instantiate(flow, {"ticket": "42"}, env={})[1]
    page = ticket_page(42, "James Chen")
    boxed = ticket_page(42, "James Chen")
    line = next(text for text in boxed.axtree.splitlines() if "[114]" in text)
    indent = line[:len(line) - len(line.lstrip())]
    box = f"{indent}[900] heading 'Recently viewed' level=4"
    boxed.axtree = boxed.axtree.replace(line, f"{box}\n{line}")
    assert check_surroundings(ws, page.elements["114"], page, {"ticket": "42"}) is None
    assert check_surroundings(ws, boxed.elements["114"], boxed, {"ticket": "42"}) == \
        "it is not under the heading 'Add Comment'"
