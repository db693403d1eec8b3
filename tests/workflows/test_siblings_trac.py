"""Sibling tasks in real Chromium on the arena's Trac: a goal's value used in the
site's own spelling (a person's name as a login in a query), and a workflow that
starts on the page where the episode starts, checked to be the goal's own."""

from __future__ import annotations

import pytest

from colorbrowser.agent.operator import Operator
from colorbrowser.knowledge.workflow import AnswerSource, Spelling, Workflow, WorkflowStep
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act
from colorbrowser.workflows.addresses import STAY
from colorbrowser.workflows.runner import WorkflowRunner

from .conftest import no_model, run, settings

pytestmark = pytest.mark.slow


def accepted_flow() -> Workflow:
    """As learned from "How many tickets has Julian Moore accepted that are still
    open?", whose run opened ``/query?owner=julian&status=accepted``."""
    return Workflow(
        site="127.0.0.1",
        goal_pattern="How many tickets has {{has}} accepted that are still open?",
        params={"has": "Julian Moore"},
        spellings={"has_first": Spelling(of="has", how="first")},
        steps=[WorkflowStep(step={"goto": "__TRAC__/query?owner={{has_first}}&status=accepted"},
                            expect_url="__TRAC__/query*")],
        answer=AnswerSource(target={"role": "heading", "contains": "Custom Query ("},
                            around="Custom Query (* "))


def owner_here_flow() -> Workflow:
    """As learned from a run that started on the ticket's own page."""
    return Workflow(
        site="127.0.0.1", goal_pattern="Who is the owner of ticket #{{ticket}}?",
        params={"ticket": "18"},
        steps=[WorkflowStep(step=dict(STAY), expect_url="__TRAC__/ticket/{{ticket}}*")],
        answer=AnswerSource(target={"role": "link", "contains": ""}, label="Owned by:"))


def runner_for(flow, params, model) -> WorkflowRunner:
    return WorkflowRunner(flow, params, Operator(model, send_screenshot=False))


def test_a_persons_name_is_written_as_the_sites_login_for_a_sibling(trac_url, env, tmp_path):
    model = no_model()
    runner = runner_for(accepted_flow(), {"has": "James Chen"}, model)
    _, result = run("How many tickets has James Chen accepted that are still open?",
                    f"{trac_url}/", settings(tmp_path), model, env, tmp_path / "run",
                    decider=runner, hooks=[runner])
    assert "owner=james&" in env.page.url
    assert result.status == "done" and result.answer == "7"
    assert model.calls == [] and runner.report.workflow_actions == 1


def test_a_workflow_that_starts_where_the_episode_starts_reads_the_goals_page(
        trac_url, env, tmp_path):
    model = no_model()
    runner = runner_for(owner_here_flow(), {"ticket": "42"}, model)
    _, result = run("Who is the owner of ticket #42?", f"{trac_url}/ticket/42",
                    settings(tmp_path), model, env, tmp_path / "run", decider=runner,
                    hooks=[runner])
    assert result.status == "done" and result.answer == "James Chen"
    assert model.calls == []


def test_started_on_another_page_it_reads_nothing_there_and_hands_over(
        trac_url, env, tmp_path):
    def scripted_operator_reply(messages):
        return act("This is not ticket 42.", "stop('not found')")

    model = ScriptedModel([scripted_operator_reply] * 5)
    runner = runner_for(owner_here_flow(), {"ticket": "42"}, model)
    _, result = run("Who is the owner of ticket #42?", f"{trac_url}/ticket/18",
                    settings(tmp_path), model, env, tmp_path / "run", decider=runner,
                    hooks=[runner])
    assert model.calls and "did not lead where it should" in model.calls[0].messages[-1].content
    assert result.answer != "Julian Moore"  # ticket 18's owner: never read off the wrong page
    assert runner.report.healed_steps == 0
