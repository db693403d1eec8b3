"""The runner on Trac pages changed by the arena's own rules (``arena/pagechanges.py``),
in real Chromium and without a model: a control renamed in its place is found again
by the slot it fills (the same neighbours) and the workflow goes on; a removed one
leaves no slot and nothing is clicked instead; a look-alike put before a target that
was the only one of its name is refused, and the decoy is never acted on."""

from __future__ import annotations

import pytest

from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import load_steps
from colorbrowser.arena.pagechanges import ChangedPages, PageChange
from colorbrowser.errors import ModelError
from colorbrowser.knowledge.workflow import Workflow, WorkflowStep
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act
from colorbrowser.workflows import page
from colorbrowser.workflows.runner import WorkflowRunner

from .conftest import no_model, run, settings

pytestmark = pytest.mark.slow

GOAL = "Show me the list of ticket reports."
TICKETS = {"role": "link", "name": "View Tickets"}


def learned(env, trac_url: str, name: str, goal: str, expect_url: str | None = None
            ) -> Workflow:
    """A one-click workflow as learning stores it: the link's surroundings read on the
    unchanged start page (its neighbours among them), and the only link of its name."""
    obs = env.reset(f"{trac_url}/")
    lines = page.parse(obs.axtree)
    at = page.same_targets(lines, "link", name)
    assert len(at) == 1
    return Workflow(
        site="127.0.0.1", goal_pattern=goal,
        steps=[WorkflowStep(step={"click": {"role": "link", "name": name}},
                            surroundings=page.surroundings(lines, at[0]),
                            expect_url=expect_url, matches=1),
               WorkflowStep(step="stop()")])


def reports_flow(env, trac_url: str) -> Workflow:
    return learned(env, trac_url, "View Tickets", GOAL, "__TRAC__/report*")


def changed(env, trac_url: str, kind: str, name: str = "View Tickets") -> ChangedPages:
    return ChangedPages([trac_url], [PageChange(kind, names=(name,))],
                        seed=28).install(env.session.context)


def declining_operator() -> ScriptedModel:
    """Asked to heal, it does nothing (the tests check what the workflow itself did)."""
    return ScriptedModel([lambda messages: act("I will not guess.", "scroll(0, 300)")] * 5)



def run_only(flow, goal, env, trac_url, tmp_path):
    """The workflow alone (``only``), its Operator declining every step: (runner, the
    episode's result, its recorded steps)."""
    model = declining_operator()
    runner = WorkflowRunner(flow, {}, Operator(model, send_screenshot=False), mode="only")
    _, result = run(goal, f"{trac_url}/", settings(tmp_path), model, env, tmp_path / "run",
                    decider=runner, hooks=[runner])
    return runner, result, load_steps(tmp_path / "run")

def test_a_control_renamed_in_its_place_is_found_again_without_a_model(
        trac_url, env, tmp_path):
    flow = reports_flow(env, trac_url)
    before = flow.steps[0].surroundings.before
    assert before and flow.steps[0].surroundings.after
    pages = changed(env, trac_url, "rename")
    model = no_model()
    runner = WorkflowRunner(flow, {}, Operator(model, send_screenshot=False))
    _, result = run(GOAL, f"{trac_url}/", settings(tmp_path), model, env, tmp_path / "run",
                    decider=runner, hooks=[runner])
    steps = load_steps(tmp_path / "run")
    assert "link 'View Tickets'" not in steps[0].observation  # the page did change
    assert result.status == "done" and env.page.url.startswith(f"{trac_url}/report")
    assert model.calls == [] and pages.wrong.count == 0
    assert runner.report.renamed == 1 and runner.report.healed_steps == 1
    clicked = [s for s in steps if s.target and s.executed]
    assert [s.target.name for s in clicked] == ["Show Tickets"]
    assert "renamed" in (clicked[0].workflow.reason or "")
    fresh = runner.next_version(str(tmp_path / "run"))
    assert fresh.steps[0].step == {"click": {"role": "link", "name": "Show Tickets"}}
    assert fresh.steps[0].healed and fresh.steps[0].surroundings.before == before


def test_a_removed_control_is_not_replaced_by_its_neighbour(trac_url, env, tmp_path):
    flow = reports_flow(env, trac_url)
    pages = changed(env, trac_url, "remove")
    runner, result, steps = run_only(flow, GOAL, env, trac_url, tmp_path)
    assert "link 'Browse Source'" in steps[0].observation  # the neighbours are there
    assert "link 'View Tickets'" not in steps[0].observation
    assert result.status == "aborted" and runner.report.renamed == 0
    assert not any(s.target and s.executed for s in steps)
    assert env.page.url == f"{trac_url}/" and pages.wrong.count == 0


def test_a_step_handed_to_an_operator_that_fails_still_counts_as_handed(
        trac_url, env, tmp_path):
    """The benchmark's "handed" column: a hand-over is counted when it is made, so a
    run whose Operator has no model (it fails) does not read as never handed over."""
    flow = reports_flow(env, trac_url)
    changed(env, trac_url, "remove")
    model = ScriptedModel([ModelError("no model here (scripted)")])
    runner = WorkflowRunner(flow, {}, Operator(model, send_screenshot=False))
    _, result = run(GOAL, f"{trac_url}/", settings(tmp_path), model, env, tmp_path / "run",
                    decider=runner, hooks=[runner])
    assert result.status == "error"
    assert runner.report.operator_calls == 1


def test_a_renamed_control_that_shares_no_word_with_its_name_is_not_taken(
        trac_url, env, tmp_path):
    """The slot alone does not make a rename: "Roadmap" -> "Plan" fills it, but so
    would a different control put where one was removed."""
    goal = "Open the roadmap."
    flow = learned(env, trac_url, "Roadmap", goal)
    pages = changed(env, trac_url, "rename", "Roadmap")
    runner, result, steps = run_only(flow, goal, env, trac_url, tmp_path)
    assert "link 'Plan'" in steps[0].observation
    assert result.status == "aborted" and runner.report.renamed == 0
    assert not any(s.target and s.executed for s in steps)
    assert pages.wrong.count == 0


def test_a_look_alike_before_a_target_learned_unique_is_refused(trac_url, env, tmp_path):
    flow = reports_flow(env, trac_url)
    pages = changed(env, trac_url, "extra")
    runner, result, steps = run_only(flow, GOAL, env, trac_url, tmp_path)
    assert steps[0].observation.count("link 'View Tickets'") == 2  # the decoy is there
    assert runner.report.refused >= 1 and result.status == "aborted"
    assert not any(s.target and s.executed for s in steps)
    assert pages.wrong.count == 0


def test_a_target_learned_with_no_heading_above_it_is_refused_under_a_decoys_heading(
        trac_url, env, tmp_path):
    """No count of look-alikes to go by (a step the Operator healed keeps none): the
    absence of a section heading, recorded as a fact, is what refuses the decoy's box."""
    flow = reports_flow(env, trac_url)
    assert flow.steps[0].surroundings.no_heading
    flow.steps[0] = flow.steps[0].model_copy(update={"matches": None})
    pages = changed(env, trac_url, "extra")
    runner, result, steps = run_only(flow, GOAL, env, trac_url, tmp_path)
    assert steps[0].observation.count("link 'View Tickets'") == 2
    assert runner.report.refused >= 1 and result.status == "aborted"
    assert "where it had no section heading" in (runner.report.gave_up or "")
    assert not any(s.target and s.executed for s in steps)
    assert pages.wrong.count == 0


def test_a_redirect_through_changed_pages_lands_where_the_app_sends_it(
        trac_url, env, tmp_path):
    """Trac's quick jump answers "#42" with a redirect to the ticket: the browser must
    follow it and show the ticket's address, as it does on the unchanged app (a rule
    that fetched the redirect's target itself would leave the search address shown)."""
    _ = env.page
    pages = changed(env, trac_url, "rename", "Roadmap")
    env.page.goto(f"{trac_url}/search?q=%2342")
    env.page.wait_for_url(f"{trac_url}/ticket/42")
    assert pages.pages >= 1 and "Plan" in env.page.content()
