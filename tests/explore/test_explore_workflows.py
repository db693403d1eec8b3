"""``explore --workflows``: the tasks an exploration proved become workflows in the
knowledge base, each proved again in its learned form, one per family."""

from __future__ import annotations

import json

import pytest

from colorbrowser.explore.validate import load_tasks
from colorbrowser.knowledge.store import KnowledgeBase

from .conftest import run_explore


@pytest.fixture(scope="module")
def explored(shop_url, tmp_path_factory):
    out = tmp_path_factory.mktemp("shop-workflows")
    kb = out / "kb.db"
    summary = run_explore(f"{shop_url}/index.html", out / "run", budget=40, tasks=True,
                          sandbox="browser", kb_path=kb, workflows=True, max_tasks=12)
    return out / "run", kb, summary


def test_each_family_of_proved_tasks_becomes_one_proved_workflow_learned_by_the_explorer(
        explored):
    out, kb_path, summary = explored
    tasks, _ = load_tasks(out)
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        flows = kb.list_workflows()
    assert flows, summary
    assert f"{len(flows)} workflows stored of {len(tasks)} proved tasks" in summary
    by_id = {t["task_id"]: t for t in tasks}
    for flow in flows:
        assert flow.provenance.learned_by == "explorer" and flow.proved
        source = by_id[flow.provenance.task_id]  # learned from a task the explorer proved
        assert flow.provenance.run == str(out / "proved" / source["task_id"])
        assert flow.site == source["start_url"].split("/")[2]
    patterns = [f.goal_pattern for f in flows]
    assert len(set(patterns)) == len(patterns)  # one workflow per family
    assert any("{{" in p for p in patterns)  # the goal's values became parameters


def test_exploring_again_stores_no_second_workflow_for_a_family_already_served(
        explored, shop_url, tmp_path):
    _, kb_path, _ = explored
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        before = {f.id for f in kb.list_workflows()}
    summary = run_explore(f"{shop_url}/index.html", tmp_path / "again", budget=40, tasks=True,
                          sandbox="browser", kb_path=kb_path, workflows=True, max_tasks=12)
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        after = {f.id for f in kb.list_workflows()}
    assert "0 workflows stored" in summary and "families already served" in summary
    assert after == before


PRODUCT = "Down winter jacket"  # a product the 60-action exploration never asked about
SHOWN = {"Price": "$219.99", "Category": "Jackets"}  # what its page shows (demo/site/shop.js)


def test_the_next_day_a_sibling_goal_runs_the_explorers_workflow_without_a_model(
        explored, shop_url, tmp_path, monkeypatch):
    """A question of a family the explorer proved, about another product: ``run
    --workflows only`` answers it with what the product's page shows, and the model
    endpoint is never called."""
    from colorbrowser.testing import ScriptedEndpoint, run_cli
    from colorbrowser.workflows.match import match_goal

    _, kb_path, _ = explored
    start = f"{shop_url}/index.html"
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        flows = kb.list_workflows()
    goals = [(f'What is the {label} shown for "{PRODUCT}"?', value)
             for label, value in SHOWN.items()]
    fitting = [(goal, value) for goal, value in goals
               if any(match_goal(f, goal) for f in flows)]
    assert fitting, [f.goal_pattern for f in flows]
    monkeypatch.setenv("NO_MODEL_KEY", "no-model-key-28")
    for n, (goal, value) in enumerate(fitting):
        with ScriptedEndpoint(lambda messages: "", token="no-model-key-28") as endpoint:
            run = tmp_path / f"run-{n}"
            code = run_cli("run", goal, "--url", start, "--workflows", "only", "--kb",
                           str(kb_path), "--base-url", endpoint.url, "--model", "none",
                           "--api-key-env", "NO_MODEL_KEY", "--out", str(run))
            steps = [json.loads(line) for line in
                     (run / "steps.jsonl").read_text().splitlines()]
            trace = [(s["action"], (s.get("workflow") or {}).get("reason"),
                      s["result"].get("error")) for s in steps]
            assert endpoint.requests == [], trace  # no model call, not even the Summarizer's
        assert code == 0, trace
        result = json.loads((run / "result.json").read_text())
        assert result["status"] == "done" and value in (result["answer"] or ""), trace
        assert {(s.get("workflow") or {}).get("id") for s in steps} <= {f.id for f in flows}
