"""The workflow runner in real Chromium on the arena's Trac: a sibling task runs with
no model at all; a renamed label is healed by the Operator for one step and the
workflow goes on; a swapped row is refused, never clicked; the gate still applies."""

from __future__ import annotations

import pytest

from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import load_steps
from colorbrowser.gate import Reject
from colorbrowser.knowledge.workflow import AnswerSource, Surroundings, Workflow, WorkflowStep
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.protocols import Hook
from colorbrowser.testing import act
from colorbrowser.workflows.runner import WorkflowRunner

from .conftest import change_pages, no_model, run, settings
from .flows import bid, milestone_flow, owner_flow

pytestmark = pytest.mark.slow


def runner_for(flow, params, model, **kw) -> WorkflowRunner:
    return WorkflowRunner(flow, params, Operator(model, send_screenshot=False), **kw)


def test_a_sibling_task_runs_through_the_workflow_without_a_model(trac_url, env, tmp_path):
    model = no_model()
    runner = runner_for(owner_flow(), {"ticket": "42"}, model)
    _, result = run("Who is the owner of ticket #42?", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[runner])
    assert result.status == "done" and result.answer == "James Chen"
    assert result.verdict == "verified"
    assert model.calls == [] and result.usage.calls == 0
    steps = load_steps(tmp_path / "run")
    assert [s.action.split("(")[0] for s in steps if s.action] == ["fill", "press", "stop"]
    assert all(s.workflow is not None and not s.workflow.healed for s in steps)
    assert [s.workflow.step for s in steps] == [1, 2, 0]
    assert {(s.workflow.id, s.workflow.version) for s in steps} == {(runner.flow.id, 1)}
    assert runner.report.workflow_actions == 2 and runner.report.healed_steps == 0


def test_a_renamed_label_is_healed_for_one_step_then_the_workflow_goes_on(
        trac_url, env, tmp_path):
    change_pages(env, "for (const a of document.querySelectorAll('#mainnav a'))"
                      "  if (a.textContent === 'Roadmap') a.textContent = 'Milestones';")

    def scripted_operator_reply(messages):  # the Operator's one healing decision, scripted
        prompt = messages[-1].content
        assert "could not be done as recorded" in prompt and "Milestone: 2.0" in prompt
        return act("The roadmap link is called Milestones now.",
                   f"click('{bid(prompt, 'link', 'Milestones')}')")

    model = ScriptedModel([scripted_operator_reply])
    flow = milestone_flow()
    runner = runner_for(flow, {"m": "2.0"}, model)
    _, result = run("Show me the page of milestone 2.0.", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[runner])
    assert result.status == "done" and env.page.url == f"{trac_url}/milestone/2.0"
    assert len(model.calls) == 1 and runner.report.healed_steps == 1
    steps = load_steps(tmp_path / "run")
    healed = [s for s in steps if s.workflow and s.workflow.healed]
    assert len(healed) == 1 and healed[0].target.name == "Milestones"
    assert healed[0].workflow.step == 1 and "Roadmap" in (healed[0].workflow.reason or "")
    after = steps[steps.index(healed[0]) + 1:]
    assert [s.target.name for s in after if s.target] == ["Milestone: 2.0"]
    assert all(not s.workflow.healed for s in after)
    fresh = runner.next_version(str(tmp_path / "run"))
    assert fresh.steps[0].step == {"click": {"role": "link", "name": "Milestones"}}
    assert fresh.steps[0].healed and not fresh.steps[1].healed
    assert fresh.steps[1:] == flow.steps[1:] and fresh.params == flow.params


SWAP_ROWS = ("const a = [...document.querySelectorAll('a')]"
             "  .find(x => x.textContent.trim() === '#38');"
             "if (a) { const row = a.closest('tr'); const next = row.nextElementSibling;"
             "  if (next) row.parentNode.insertBefore(next, row); }")
OLDEST = "Thumbnail generation loses data when the cache directory is on a full disk"
ACCEPTED = "/query?owner=julian&status=accepted&order=id"


def oldest_ticket_flow() -> Workflow:
    """"Julian's oldest accepted ticket" was the first row: a target by position, with
    the row it was in when the workflow was learned."""
    return Workflow(
        site="127.0.0.1", goal_pattern="Open the oldest ticket Julian accepted.",
        steps=[WorkflowStep(step={"click": {"role": "link", "contains": "#"}},
                            surroundings=Surroundings(row=OLDEST),
                            expect_url="__TRAC__/ticket/38"),
               WorkflowStep(step="stop()")])


def test_a_swapped_row_is_refused_and_never_clicked(trac_url, env, tmp_path):
    change_pages(env, SWAP_ROWS)

    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        assert "its row does not hold" in prompt
        return act("The rows moved; #38 is the oldest.", f"click('{bid(prompt, 'link', '#38')}')")

    model = ScriptedModel([scripted_operator_reply])
    runner = runner_for(oldest_ticket_flow(), {}, model)
    _, result = run("Open the oldest ticket Julian accepted.", trac_url + ACCEPTED,
                    settings(tmp_path), model, env, tmp_path / "run", decider=runner,
                    hooks=[runner])
    steps = load_steps(tmp_path / "run")
    first_row = steps[0].observation.index("link '#52'") < steps[0].observation.index(
        "link '#38'")
    assert first_row  # the page did change: a blind replay clicks #52, the first one listed
    clicked = [s.target.name for s in steps if s.target and s.executed]
    assert clicked == ["#38"]
    assert not any("/ticket/52" in s.url for s in steps)
    assert runner.report.refused == 1 and runner.report.healed_steps == 1
    assert result.status == "done" and env.page.url == f"{trac_url}/ticket/38"


def test_the_same_workflow_clicks_the_first_row_when_nothing_moved(trac_url, env, tmp_path):
    """The check that refused the swapped row lets the unchanged page through."""
    model = no_model()
    runner = runner_for(oldest_ticket_flow(), {}, model)
    _, result = run("Open the oldest ticket Julian accepted.", trac_url + ACCEPTED,
                    settings(tmp_path), model, env, tmp_path / "run", decider=runner,
                    hooks=[runner])
    assert result.status == "done" and env.page.url == f"{trac_url}/ticket/38"
    assert model.calls == [] and runner.report.refused == 0


def test_only_mode_ends_the_episode_when_a_step_cannot_be_healed(trac_url, env, tmp_path):
    change_pages(env, "for (const a of document.querySelectorAll('#mainnav a'))"
                      "  if (a.textContent === 'Roadmap') a.remove();")

    def scripted_operator_reply(messages):
        return act("Nothing like it here.", "scroll(0, 300)")

    model = ScriptedModel([scripted_operator_reply] * 5)
    runner = runner_for(milestone_flow(), {"m": "2.0"}, model, mode="only")
    _, result = run("Show me the page of milestone 2.0.", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[runner])
    assert result.status == "aborted" and "--workflows only" in (result.error or "")
    assert len(model.calls) == WorkflowRunner.HEAL_TRIES
    assert "/milestone/" not in env.page.url


DECOY = ("const decoy = document.createElement('a'); decoy.href = '/ticket/1';"
         "decoy.textContent = 'Roadmap'; document.body.prepend(decoy);")


def test_a_target_that_was_unique_and_has_a_look_alike_now_is_refused_not_guessed(
        trac_url, env, tmp_path):
    """Learned without surroundings (nothing around it to check) but as the only link of
    its name: a same-named link placed before it makes the first match a guess."""
    change_pages(env, DECOY)
    flow = milestone_flow()
    flow.steps[0] = flow.steps[0].model_copy(update={"matches": 1})

    def scripted_operator_reply(messages):  # asked to heal: it declines to pick
        assert "which one is meant cannot be told" in messages[-1].content
        return act("Two links of that name; I will not guess.", "scroll(0, 300)")

    model = ScriptedModel([scripted_operator_reply] * 5)
    runner = runner_for(flow, {"m": "2.0"}, model, mode="only")
    _, result = run("Show me the page of milestone 2.0.", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[runner])
    assert runner.report.refused >= 1 and result.status == "aborted"
    assert "/ticket/1" not in env.page.url
    steps = load_steps(tmp_path / "run")
    assert not any(s.target and s.target.name == "Roadmap" and s.executed for s in steps)


class RefuseFirstPress(Hook):
    """A reviewer at the gate (like the risky-action confirmation) that says no once."""

    def __init__(self):
        self.refused = 0

    def review(self, episode, ctx, decision):
        if decision.action and decision.action.name == "press" and not self.refused:
            self.refused += 1
            return Reject("not now", by="test reviewer")
        return None


def test_a_workflow_step_the_gate_refuses_is_not_run_and_goes_to_the_operator(
        trac_url, env, tmp_path):
    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        assert "not now" in prompt
        return act("Press it myself.", f"press('{bid(prompt, 'textbox', 'Search:')}', 'Enter')")

    model = ScriptedModel([scripted_operator_reply])
    runner = runner_for(owner_flow(), {"ticket": "42"}, model)
    gate = RefuseFirstPress()
    _, result = run("Who is the owner of ticket #42?", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[gate, runner])
    steps = load_steps(tmp_path / "run")
    refused = [s for s in steps if not s.executed]
    assert gate.refused == 1 and len(refused) == 1 and refused[0].workflow.step == 2
    assert len(model.calls) == 1 and result.answer == "James Chen"


def test_an_answer_the_verifier_refuses_goes_to_the_operator(trac_url, env, tmp_path):
    flow = owner_flow()
    flow.answer = AnswerSource(template="Zed Zebra")  # a stale answer the page does not show

    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        assert "Zed Zebra" in prompt and "Owned by:" in prompt
        return act("The page names another owner.", "stop('James Chen')")

    model = ScriptedModel([scripted_operator_reply])
    runner = runner_for(flow, {"ticket": "42"}, model)
    _, result = run("Who is the owner of ticket #42?", f"{trac_url}/", settings(tmp_path),
                    model, env, tmp_path / "run", decider=runner, hooks=[runner])
    assert result.answer == "James Chen" and result.verdict == "verified"
    assert len(model.calls) == 1
    stops = [s for s in load_steps(tmp_path / "run") if s.action and "stop" in s.action]
    assert [s.executed for s in stops] == [False, True]
    assert stops[0].workflow.step == 0 and stops[1].workflow.healed
