"""Learning a workflow from a real run on Trac (real Chromium, the replay agent playing
the oracle plan through the evaluation runner): the goal's values become parameters,
and the answer is read where the learned run read its own, also on a sibling's page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from colorbrowser.agent.trajectory import load_steps
from colorbrowser.arena.suite import plan_files
from colorbrowser.errors import UserError
from colorbrowser.types import ElementInfo, Observation
from colorbrowser.workflows.cli import prove_workflow
from colorbrowser.workflows.instantiate import goal_for, instantiate, read_answer
from colorbrowser.workflows.learn import approve, learn, took_effect
from colorbrowser.workflows.page import parse

from .conftest import own_trac_env

# The module records some twenty real episodes before its first test: on a busy
# machine that alone can take longer than the suite's usual five minutes.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

# Every Trac family with more than one task (the single tasks have no sibling to fit).
TASKS = ",".join(f"trac-{name}" for name in (
    "ticket-owner-*", "milestone-size-*", "ticket-resolution-*", "fixing-commit-*",
    "accepted-by-*", "find-ticket-*", "open-milestone-1.3", "open-milestone-2.0",
    "comment-33", "comment-60", "priority-*", "resolve-*"))


@pytest.fixture(scope="module")
def trac_env(arena_cache, trac_port, tmp_path_factory):
    """The arena suite on a Trac of this module's own (its own cache and instance)."""
    with own_trac_env(arena_cache, tmp_path_factory.mktemp("wf-learn"), trac_port, 8):
        yield


@pytest.fixture(scope="module")
def runs(trac_env, tmp_path_factory) -> dict[str, Path]:
    """One oracle run per task, each on a freshly reset Trac."""
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study

    study = tmp_path_factory.mktemp("wf-study")
    plan = next(p for p in plan_files() if p.name == "trac.oracle.yaml")
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
    assert flow.answer.around == "Custom Query (* "
    assert read_answer(flow, last_page(runs["trac-accepted-by-julian"]), flow.params) == "6"


def test_a_name_the_address_writes_as_a_login_is_a_parameter_in_that_spelling(runs):
    """The goal says "Julian Moore", the query says ``owner=julian``: a sibling's
    "James Chen" is written ``owner=james``, and its own count is read there."""
    flow = learn(runs["trac-accepted-by-julian"])
    assert flow.goal_pattern == "How many tickets has {{has}} accepted that are still open?"
    assert flow.params == {"has": "Julian Moore"}
    assert flow.steps[0].step["goto"].endswith("/query?owner={{has_first}}&status=accepted")
    sibling = {"has": "James Chen"}
    (goto, _), = instantiate(flow, sibling, env={})
    assert goto.args == (last_page(runs["trac-accepted-by-james"]).url,)
    assert read_answer(flow, last_page(runs["trac-accepted-by-james"]), sibling) == "7"


def test_a_labelled_place_is_preferred_to_counting_elements(runs):
    """"fixed" shows in the heading, as a link among many, and beside the label
    Resolution: in the change history; only the label carries over to a sibling."""
    flow = learn(runs["trac-ticket-resolution-20"])
    assert (flow.answer.label, flow.answer.around) == ("Resolution:", "→ *")
    assert "nth" not in flow.answer.target
    sibling = last_page(runs["trac-ticket-resolution-27"])
    assert read_answer(flow, sibling, {"ticket": "27"}) == "fixed"


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


def test_a_workflow_proves_itself_by_replay_on_a_fresh_reset(runs, trac_env):
    run = runs["trac-priority-36"]
    assert prove_workflow(learn(run), run).proved
    owner = runs["trac-ticket-owner-18"]
    assert prove_workflow(learn(owner), owner).proved


def test_a_workflow_that_reads_another_answer_does_not_prove_itself(runs, trac_env):
    run = runs["trac-ticket-owner-18"]
    flow = learn(run)
    wrong = flow.model_copy(update={"answer": flow.answer.model_copy(
        update={"label": "Reported by:"})})
    with pytest.raises(UserError, match="reads 'Hannah Thomas' where the run answered "
                                        "'Julian Moore'"):
        prove_workflow(wrong, run)


def fits(flow, goal: str) -> dict[str, str] | None:
    """The values of ``goal`` when it fits the workflow's pattern (as matching would)."""
    pattern = re.escape(flow.goal_pattern)
    pattern = re.sub(r"\\\{\\\{([a-z_]+)\\\}\\\}", r"(?P<\1>.+?)", pattern)
    found = re.fullmatch(pattern, goal)
    return found.groupdict() if found else None


def test_every_family_learned_from_one_task_fits_its_siblings_pages(runs):
    """For each Trac task: the workflow learned from its run, given a sibling's goal,
    resolves each of the sibling's steps on the sibling's recorded pages to the element
    the sibling acted on, and reads the sibling's answer on its last page."""
    flows = {task: learn(run) for task, run in runs.items()}
    pairs = 0
    for task, flow in flows.items():
        for other, run in runs.items():
            meta = json.loads((run / "meta.json").read_text())
            values = fits(flow, meta["goal"]) if other != task else None
            if values is None:
                continue
            pairs += 1
            concrete = [step for step, _ in instantiate(flow, values, env={})]
            done = [s for s in load_steps(run) if took_effect(s)]
            if not done[0].action.startswith("goto"):
                concrete = concrete[1:]  # the workflow opens the start page itself
            assert len(concrete) == len(done), (task, other)
            for step, recorded in zip(concrete, done, strict=True):
                page = Observation(url=recorded.url, title=recorded.title,
                                   axtree=recorded.observation)
                page.elements = {line.bid: ElementInfo(line.bid, line.role, line.name)
                                 for line in parse(recorded.observation) if line.bid}
                assert step.action_text(page) == recorded.action, (task, other)
            answer = json.loads((run / "result.json").read_text())["answer"] or None
            assert read_answer(flow, last_page(run), values) == answer, (task, other)
    assert pairs >= 20
