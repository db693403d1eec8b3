"""Learning a workflow from a real run on Trac (real Chromium, the replay agent playing
the oracle plan through the evaluation runner): the goal's values become parameters,
and the answer is read where the learned run read its own, also on a sibling's page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from colorbrowser.arena.instances import INSTANCE_VAR
from colorbrowser.arena.suite import plan_files
from colorbrowser.errors import UserError
from colorbrowser.types import Observation
from colorbrowser.workflows.instantiate import goal_for, instantiate, read_answer
from colorbrowser.workflows.learn import approve, learn

from .conftest import own_cache

pytestmark = pytest.mark.slow

TASKS = "trac-ticket-owner-18,trac-ticket-owner-42,trac-priority-36,trac-accepted-by-julian"


@pytest.fixture(scope="module")
def runs(arena_cache, trac_port, tmp_path_factory) -> dict[str, Path]:
    """One oracle run per task, on a freshly reset Trac of this module's own."""
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study

    cache = own_cache(arena_cache, tmp_path_factory.mktemp("wf-learn"))
    study = tmp_path_factory.mktemp("wf-study")
    plan = next(p for p in plan_files() if p.name == "trac.oracle.yaml")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COLORBROWSER_CACHE", str(cache))
        mp.setenv("COLORBROWSER_ARENA_PORTS", f"trac={trac_port}")
        mp.setenv(INSTANCE_VAR, "8")  # clear of the other tests
        options = StudyOptions(suite="arena:trac", study_dir=study, tasks=TASKS, replay=plan)
        records = run_study(options, load_settings(), Console(quiet=True)).records
    assert all(r.success for r in records), [(r.task, r.error) for r in records]
    return {r.task.removeprefix("arena:"): study / r.trajectory for r in records}


def last_page(run: Path) -> Observation:
    steps = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    last = steps[-1]
    return Observation(url=last["url"], title=last["title"], axtree=last["observation"])


def test_the_ticket_number_becomes_a_parameter_and_the_owner_is_read_beside_its_label(runs):
    flow = learn(runs["trac-ticket-owner-18"])
    assert flow.goal_pattern == "Who is the owner of ticket #{{ticket}} in Harbor's tracker?"
    assert flow.params == {"ticket": "18"}
    assert flow.provenance.learned_by == "replay"
    assert flow.provenance.task_id == "arena:trac-ticket-owner-18"
    assert [s.step for s in flow.steps] == [{"goto": f"http://{flow.site}/ticket/{{{{ticket}}}}"}]
    assert flow.answer.label == "Owned by:" and flow.answer.target["role"] == "link"
    # Its own page gives its own answer; the sibling's real page gives the sibling's.
    assert read_answer(flow, last_page(runs["trac-ticket-owner-18"]), flow.params) == \
        "Julian Moore"
    sibling = {"ticket": "42"}
    assert goal_for(flow, sibling) == "Who is the owner of ticket #42 in Harbor's tracker?"
    (goto, _), = instantiate(flow, sibling, env={})
    assert goto.args == (last_page(runs["trac-ticket-owner-42"]).url,)
    assert read_answer(flow, last_page(runs["trac-ticket-owner-42"]), sibling) == "James Chen"


def test_an_edit_keeps_its_targets_by_role_and_name_and_its_value_as_a_parameter(runs):
    flow = learn(runs["trac-priority-36"])
    assert flow.goal_pattern == "Set the priority of ticket #{{ticket}} to {{value}}."
    assert flow.params == {"ticket": "36", "value": "critical"}
    assert [s.step for s in flow.steps[1:]] == [
        {"click": {"role": "link", "name": "Modify Ticket"}},
        {"select_option": {"role": "combobox", "name": "Priority:"}, "options": "{{value}}"},
        {"click": {"role": "button", "name": "Submit changes"}},
    ]
    assert flow.steps[2].surroundings.label == "Priority:"
    assert flow.answer is None


def test_a_count_inside_a_heading_is_cut_out_of_it(runs):
    flow = learn(runs["trac-accepted-by-julian"])
    assert flow.params == {}  # "julian" in the address is not the goal's "Julian Moore"
    assert flow.answer.around == "Custom Query (* matches)"
    assert read_answer(flow, last_page(runs["trac-accepted-by-julian"]), {}) == "6"


def test_an_unproved_run_does_not_teach_until_a_person_approves_it(runs, tmp_path):
    copy = tmp_path / "run"
    source = runs["trac-ticket-owner-18"]
    copy.mkdir()
    for name in ("meta.json", "steps.jsonl"):
        (copy / name).write_bytes((source / name).read_bytes())
    result = json.loads((source / "result.json").read_text())
    result.pop("verdict"), result.pop("verification")
    (copy / "result.json").write_text(json.dumps(result | {"verdict": "unverified"}))
    with pytest.raises(UserError, match="is not proved \\(unverified\\)"):
        learn(copy)
    approve(copy, author="dana")
    flow = learn(copy)
    assert (flow.provenance.learned_by, flow.provenance.author) == ("person", "dana")
