"""Which goals run a workflow: its pattern over parameters, matched leniently in the
literal parts and strictly everywhere else (a second reading means no run)."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge.workflow import AnswerSource, Workflow, WorkflowStep
from colorbrowser.workflows.match import example_goal, guidance_text, match_goal


def flow(pattern: str, **params: str) -> Workflow:
    names = list(params) or ["x"]
    steps = [WorkflowStep(step="stop('" + " ".join("{{" + n + "}}" for n in names) + "')")]
    return Workflow(site="trac.local", goal_pattern=pattern, params=params, steps=steps)


OWNER = flow("Who is the owner of ticket #{{ticket}} in Harbor's tracker?", ticket="18")


@pytest.mark.parametrize("goal", [
    "Who is the owner of ticket #42 in Harbor's tracker?",
    "who is the OWNER of ticket #42 in harbor's tracker",
    "  Who is the owner   of ticket #42\tin Harbor's tracker?!  ",
    "Who is the owner of ticket #42 in Harbor's tracker.",
])
def test_literal_parts_ignore_case_spaces_and_the_end_punctuation(goal):
    assert match_goal(OWNER, goal) == {"ticket": "42"}


@pytest.mark.parametrize("goal", [
    "Who is the owner of ticket # in Harbor's tracker?",  # an empty parameter
    "Who is the owner of ticket #   in Harbor's tracker?",
    "Who is the reporter of ticket #42 in Harbor's tracker?",  # other words
    "Who is the owner of ticket #42 in Harbor's tracker? And close it.",  # more after it
    "Please tell me: who is the owner of ticket #42 in Harbor's tracker?",  # more before
    "",
])
def test_a_goal_that_does_not_fit_runs_nothing(goal):
    assert match_goal(OWNER, goal) is None


def test_a_goal_that_fits_in_two_ways_runs_nothing():
    pair = flow("Add {{a}} and {{b}} to the cart", a="salt", b="pepper")
    assert match_goal(pair, "add salt and pepper to the cart") == {"a": "salt", "b": "pepper"}
    assert match_goal(pair, "add salt and pepper and oil to the cart") is None


def test_a_parameter_used_twice_must_have_one_value():
    twice = flow("Rename {{name}} to {{name}}2", name="x")
    assert match_goal(twice, "rename foo to foo2") == {"name": "foo"}
    assert match_goal(twice, "rename foo to bar2") is None


def test_values_keep_their_case_and_inner_punctuation():
    title = flow('Open the ticket titled "{{title}}".', title="x")
    assert match_goal(title, 'open the ticket titled "HEIC import is slow, again!".') == \
        {"title": "HEIC import is slow, again!"}
    milestone = flow("Show me the page of milestone {{m}}.", m="1.3")
    assert match_goal(milestone, "Show me the page of milestone 2.0.") == {"m": "2.0"}
    bare = flow("Open {{title}}", title="x")
    assert match_goal(bare, "Open Fix it!") == {"title": "Fix it!"}


def test_regex_characters_in_the_pattern_are_literal():
    odd = flow("Sum (a+b)* of {{n}}?", n="1")
    assert match_goal(odd, "sum (a+b)* of 7") == {"n": "7"}
    assert match_goal(odd, "sum aab of 7") is None


def test_a_long_hostile_goal_is_refused_quickly():
    many = flow("{{a}} x {{b}} x {{c}} x {{d}}", a="1", b="2", c="3", d="4")
    assert match_goal(many, "x " * 900) is None  # ambiguous, and decided in linear time
    assert match_goal(many, "1 x 2 x 3 x 4") == {"a": "1", "b": "2", "c": "3", "d": "4"}


def test_guidance_shows_the_steps_with_values_and_where_the_step_missed():
    owner = Workflow(
        site="trac.local", goal_pattern="Who owns ticket #{{ticket}}?", params={"ticket": "18"},
        steps=[WorkflowStep(step={"fill": {"role": "textbox", "name": "Search:"},
                                  "value": "#{{ticket}}"}),
               WorkflowStep(step={"press": {"role": "textbox", "name": "Search:"},
                                  "key": "Enter"})],
        answer=AnswerSource(target={"role": "link", "contains": ""}, label="Owned by:"))
    assert example_goal(owner) == "Who owns ticket #18?"
    text = guidance_text(owner, {"ticket": "42"}, current=1, done=1, reason="not there")
    assert "type '#42' into the textbox 'Search:' (done)" in text
    assert "press Enter in the textbox 'Search:' <- now" in text
    assert "Step 2 (press Enter in the textbox 'Search:') could not be done as recorded: " \
           "not there" in text
    assert "'Owned by:'" in text and "#18" not in text
    guide = guidance_text(owner, owner.params, example=True)
    assert "similar goal" in guide and "#18" in guide and "<- now" not in guide
