"""Workflows from the knowledge base in a whole episode (``build_episode``, as ``run``
and the Python API start one), in real Chromium on Trac: a goal that fits runs the
stored workflow with no model and counts the run; a healed run becomes version 2
and the next sibling runs that version; ``--workflows off`` runs the Operator; a
similar goal gets the workflow as fenced guidance; ``only`` without a fitting
workflow is one error line before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from colorbrowser.agent.trajectory import load_steps
from colorbrowser.errors import UserError
from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.llm.prompts import outside_fences
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act
from colorbrowser.ui.trace import load_trace, render_trace

from .conftest import change_pages, no_model, run, settings
from .flows import bid, milestone_flow, owner_flow

pytestmark = pytest.mark.slow

RENAME_ROADMAP = ("for (const a of document.querySelectorAll('#mainnav a'))"
                  "  if (a.textContent === 'Roadmap') a.textContent = 'Milestones';")


def stored(path, *flows):
    with KnowledgeBase.open(path, embeddings=False) as kb:
        return [kb.add_workflow(f) for f in flows]


def all_versions(path):
    with KnowledgeBase.open(path, embeddings=False) as kb:
        return kb.list_workflows(include_inactive=True)


def test_a_fitting_goal_runs_the_stored_workflow_and_counts_the_run(trac_url, env, tmp_path):
    kb = tmp_path / "kb.db"
    [flow] = stored(kb, owner_flow())
    model = no_model()
    episode, result = run("Who is the owner of ticket #76?", f"{trac_url}/",
                          settings(tmp_path, kb), model, env, tmp_path / "run")
    assert result.answer == "Clara Clark" and result.verdict == "verified"
    assert model.calls == []
    assert episode.workflow.choice.kind == "run" and episode.workflow.choice.params == {
        "ticket": "76"}
    [after] = all_versions(kb)
    assert (after.stats.runs, after.stats.successes, after.stats.healed_steps) == (1, 1, 0)
    steps = load_steps(tmp_path / "run")
    assert all(s.workflow and s.workflow.id == flow.id for s in steps)
    html = render_trace(load_trace(tmp_path / "run"))
    assert f"{flow.id} v1, step 1" in html and f"{flow.id} v1, answer" in html


def test_a_healed_run_becomes_version_2_and_the_next_sibling_runs_it(trac_url, env,
                                                                     tmp_path):
    kb = tmp_path / "kb.db"
    [old] = stored(kb, milestone_flow())
    change_pages(env, RENAME_ROADMAP)

    def scripted_operator_reply(messages):
        return act("Roadmap is called Milestones here.",
                   f"click('{bid(messages[-1].content, 'link', 'Milestones')}')")

    model = ScriptedModel([scripted_operator_reply])
    _, result = run("Show me the page of milestone 2.0.", f"{trac_url}/",
                    settings(tmp_path, kb), model, env, tmp_path / "first")
    assert result.verdict == "verified" and len(model.calls) == 1
    versions = {f.version: f for f in all_versions(kb)}
    assert set(versions) == {1, 2}
    assert not versions[1].active and versions[1].stats.healed_steps == 1
    new = versions[2]
    assert new.active and new.previous == old.id and new.provenance.learned_by == "agent"
    assert new.steps[0].step == {"click": {"role": "link", "name": "Milestones"}}
    assert new.steps[0].healed and new.steps[1:] == old.steps[1:]
    html = render_trace(load_trace(tmp_path / "first"))
    assert "healed by the Operator" in html

    model = no_model()  # the page is still renamed: version 2 needs no help
    _, again = run("Show me the page of milestone 1.3", f"{trac_url}/",
                   settings(tmp_path, kb), model, env, tmp_path / "second")
    assert again.status == "done" and env.page.url == f"{trac_url}/milestone/1.3"
    assert model.calls == []
    assert {s.workflow.version for s in load_steps(tmp_path / "second")} == {2}


def test_workflows_off_runs_the_operator(trac_url, env, tmp_path):
    kb = tmp_path / "kb.db"
    stored(kb, owner_flow())

    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        assert "learned workflow" not in prompt
        if "Owned by:" in prompt:
            return act("It says who owns it.", "stop('James Chen')")
        return act("Open the ticket.", f"goto('{trac_url}/ticket/42')")

    model = ScriptedModel([scripted_operator_reply] * 4)
    episode, result = run("Who is the owner of ticket #42?", f"{trac_url}/",
                          settings(tmp_path, kb, workflows="off"), model, env,
                          tmp_path / "run")
    assert result.answer == "James Chen" and len(model.calls) == 2
    assert episode.workflow.choice is None
    assert all(s.workflow is None for s in load_steps(tmp_path / "run"))
    [flow] = all_versions(kb)
    assert flow.stats.runs == 0


def test_a_similar_goal_gets_the_workflow_as_fenced_guidance_not_a_run(trac_url, env,
                                                                       tmp_path):
    kb = tmp_path / "kb.db"
    stored(kb, owner_flow())
    seen = []

    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        seen.append(prompt)
        if "Owned by:" in prompt:
            return act("Found it.", "stop('James Chen')")
        return act("Open the ticket.", f"goto('{trac_url}/ticket/42')")

    model = ScriptedModel([scripted_operator_reply] * 4)
    episode, result = run("Tell me who owns ticket 42 in this tracker", f"{trac_url}/",
                          settings(tmp_path, kb, tips_embeddings=True), model, env,
                          tmp_path / "run")
    choice = episode.workflow.choice
    assert choice.kind == "guide" and choice.why.startswith("embedding")
    assert result.answer == "James Chen"
    assert all("An earlier run solved a similar goal" in p for p in seen)
    assert all("similar goal" not in outside_fences(p) for p in seen)  # fenced: page words
    assert all(s.workflow is None for s in load_steps(tmp_path / "run"))


def test_only_without_a_fitting_workflow_is_one_error_line_before_anything_starts(
        trac_url, env, tmp_path):
    kb = tmp_path / "kb.db"
    stored(kb, owner_flow())
    with pytest.raises(UserError, match="no workflow of this site fits"):
        run("Close ticket #42.", f"{trac_url}/", settings(tmp_path, kb, workflows="only"),
            no_model(), env, tmp_path / "run")
    assert not (tmp_path / "run" / "steps.jsonl").exists()


def colorbrowser(*args, env=None):
    return subprocess.run([sys.executable, "-m", "colorbrowser", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def test_run_workflows_only_answers_a_sibling_without_any_model(trac_url, tmp_path):
    """The CLI: no endpoint is given and no offline model starts; the answer is read
    from the page and verified."""
    kb = tmp_path / "kb.db"
    stored(kb, owner_flow())
    done = colorbrowser("run", "Who is the owner of ticket #42?", "--url", f"{trac_url}/",
                        "--workflows", "only", "--kb", str(kb), "--memory", "none", "--json",
                        "--out", str(tmp_path / "run"), env={"WA_TRAC": trac_url})
    assert done.returncode == 0, done.stderr
    assert '"answer": "James Chen"' in done.stdout and '"verdict": "verified"' in done.stdout
    assert "Starting the offline model" not in done.stderr
    assert "workflow" in done.stderr and "0 Operator calls" in done.stderr


def test_run_workflows_only_refuses_a_goal_no_workflow_fits(tmp_path):
    kb = tmp_path / "kb.db"
    stored(kb, owner_flow())
    done = colorbrowser("run", "Close ticket #42.", "--url", "http://127.0.0.1:9/",
                        "--workflows", "only", "--kb", str(kb))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].startswith("error: --workflows only: no ")


def test_a_verified_run_teaches_a_workflow_that_runs_its_sibling(trac_url, env, tmp_path):
    """--learn-workflows: the Operator's verified run becomes a workflow (h28a's learn),
    and the sibling task then runs it with no model."""
    from colorbrowser.workflows.episode import after_run

    kb = tmp_path / "kb.db"
    KnowledgeBase.open(kb, embeddings=False).close()

    def scripted_operator_reply(messages):
        prompt = messages[-1].content
        if "Owned by:" in prompt:
            return act("The owner is shown.", "stop('Julian Moore')")
        if "value='#18'" in prompt:
            return act("Jump to it.", f"press('{bid(prompt, 'textbox', 'Search:')}', 'Enter')")
        return act("Search for the ticket.",
                   f"fill('{bid(prompt, 'textbox', 'Search:')}', '#18')")

    teacher = settings(tmp_path, kb, learn_workflows=True)
    model = ScriptedModel([scripted_operator_reply] * 5)
    episode, result = run("Who is the owner of ticket #18?", f"{trac_url}/", teacher, model,
                          env, tmp_path / "taught")
    assert result.verdict == "verified" and len(model.calls) == 3
    [line] = after_run(episode.workflow, result, teacher)
    assert line.startswith("learned wf-")
    [flow] = all_versions(kb)
    assert flow.provenance.learned_by == "agent" and flow.params == {"ticket": "18"}

    model = no_model()
    _, sibling = run("Who is the owner of ticket #42?", f"{trac_url}/", settings(tmp_path, kb),
                     model, env, tmp_path / "sibling")
    assert sibling.answer == "James Chen" and sibling.verdict == "verified"
    assert model.calls == []
    assert after_run(None, sibling, settings(tmp_path, kb)) == []  # learning is off there
