"""``explore --workflows``: the tasks an exploration proved become workflows in the
knowledge base, each proved again in its learned form, one per family."""

from __future__ import annotations

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
