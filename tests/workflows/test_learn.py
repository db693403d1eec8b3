"""Learning from a run folder written the way an agent's episode writes it: only a
proved run teaches, and only what took effect on its own site is kept."""

from __future__ import annotations

import json

import pytest

from colorbrowser.errors import UserError
from colorbrowser.workflows.learn import learn

from .pages import SITE
from .runs import write_run


def test_a_verified_agent_run_teaches_its_steps_values_and_answer_place(tmp_path):
    flow = learn(write_run(tmp_path / "run"))
    assert flow.goal_pattern == "Who is the owner of ticket #{{ticket}}?"
    assert flow.params == {"ticket": "18"}
    assert [s.step for s in flow.steps] == [  # the scroll took no effect worth keeping
        {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"},
        {"click": {"role": "button", "name": "Submit changes"}}]
    assert flow.steps[1].surroundings.heading == "Add Comment"
    assert flow.steps[0].expect_url == f"http://{SITE}/ticket/{{{{ticket}}}}*"
    assert (flow.answer.label, flow.answer.target) == ("Owned by:",
                                                       {"role": "link", "contains": ""})
    assert flow.provenance.learned_by == "agent" and not flow.proved


@pytest.mark.parametrize("changes, message", [
    ({"verdict": "unverified"}, r"is not proved \(unverified\)"),
    ({"verdict": None}, r"is not proved \(no verdict\)"),
    ({"status": "step_limit"}, "did not finish its task"),
    ({"goto": "http://evil.example/ticket/18"}, "leaves the site"),
    ({"answer": "Zed Nobody"}, "is not on its last page"),
])
def test_a_run_that_cannot_teach_is_refused_with_one_line(tmp_path, changes, message):
    with pytest.raises(UserError, match=message) as caught:
        learn(write_run(tmp_path / "run", **changes))
    assert "\n" not in str(caught.value)


def test_a_folder_that_is_no_run_is_refused(tmp_path):
    with pytest.raises(UserError, match="not a run folder"):
        learn(tmp_path)
    run = write_run(tmp_path / "run")
    (run / "result.json").unlink()
    with pytest.raises(UserError, match="has not finished"):
        learn(run)


def test_the_caller_may_vouch_for_a_run_it_proved_itself(tmp_path):
    run = write_run(tmp_path / "run", verdict=None)
    flow = learn(run, proof="explorer", learned_by="explorer")
    assert flow.provenance.learned_by == "explorer"


def test_an_answer_that_is_a_goal_value_becomes_a_template(tmp_path):
    run = write_run(tmp_path / "run", goal='Repeat "Julian Moore" after opening ticket #18',
                    answer="Julian Moore")
    flow = learn(run)
    assert flow.answer.template == "{{repeat}}"
    assert flow.goal_pattern == 'Repeat "{{repeat}}" after opening ticket #{{ticket}}'


def test_a_run_that_typed_a_masked_secret_is_refused(tmp_path):
    run = write_run(tmp_path / "run")
    lines = (run / "steps.jsonl").read_text().splitlines()
    first = json.loads(lines[0]) | {"action": "fill('2', '***')"}
    (run / "steps.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(UserError, match="typed a value the run masked"):
        learn(run)


def test_a_long_name_that_holds_a_goal_value_is_matched_by_the_words_around_it():
    from colorbrowser.workflows.step_builder import target_of

    assert target_of("link", "[1329514]: Support resumable imports (refs #{{ticket}})") == \
        {"role": "link", "contains": "#{{ticket}})", "ends": True}
    # The value in the middle of the name: a sibling's name may end otherwise.
    assert target_of("link", "Ticket #{{ticket}} (defect: Support resumable imports)") == \
        {"role": "link", "contains": "#{{ticket}}"}
    assert target_of("link", "Milestone: {{milestone}}") == \
        {"role": "link", "name": "Milestone: {{milestone}}"}
    assert target_of("link", "Support resumable imports") == \
        {"role": "link", "name": "Support resumable imports"}


def test_a_run_that_started_on_a_blank_page_belongs_to_the_site_it_opened(tmp_path):
    flow = learn(write_run(tmp_path / "run", start="about:blank"))
    assert flow.site == SITE
    assert flow.steps[0].step == {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"}
    with pytest.raises(UserError, match="leaves the site"):
        learn(write_run(tmp_path / "local", start="about:blank", goto="file:///tmp/y"))


@pytest.mark.parametrize("changes", [
    {"goto": f"http://ann:pw-Quokka-4242@{SITE}/ticket/18"},
    {"start": f"http://ann:pw-Quokka-4242@{SITE}/"},
])
def test_a_password_in_an_address_is_never_quoted_nor_learned(tmp_path, changes):
    """A step that opened ``http://ann:PASSWORD@host/`` cannot teach (a workflow's
    address has no user in it) and the one-line refusal shows the address without it;
    a start page with one is not the site's address: the first plain one is."""
    try:
        flow = learn(write_run(tmp_path / "run", **changes))
    except UserError as exc:
        assert "goto" in changes
        assert "pw-Quokka-4242" not in str(exc) and "\n" not in str(exc)
    else:
        assert "start" in changes and flow.site == SITE
        assert "pw-Quokka-4242" not in flow.model_dump_json()
