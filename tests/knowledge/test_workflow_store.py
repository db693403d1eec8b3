"""Workflows live in the knowledge base file beside the tips: same transactions, same
frozen mode, upgraded in place from a store written before they existed."""

from __future__ import annotations

import sqlite3

import pytest

from colorbrowser.knowledge import (
    InvalidWorkflow,
    KnowledgeBase,
    ReadOnlyError,
    Workflow,
    WorkflowExists,
    WorkflowNotFound,
)
from colorbrowser.knowledge.schema import _V1, SCHEMA_VERSION, _statements

SITE = "127.0.0.1:18303"


def owner_flow(**changes) -> Workflow:
    data = {
        "site": SITE,
        "goal_pattern": "Who owns ticket #{{ticket}}?",
        "params": {"ticket": "7"},
        "steps": [{"step": {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"}},
                  {"step": {"click": {"role": "link", "name": "Owner"}},
                   "surroundings": {"label": "Owned by"}}],
        "answer": {"target": {"role": "cell", "contains": "@"}, "label": "Owned by"},
        "provenance": {"run": "runs/owner-7", "task_id": "trac_owner_7", "learned_by": "oracle"},
    }
    return Workflow.model_validate(data | changes)


def test_a_workflow_reads_back_identical_after_reopening(db_path, shop_tip):
    flow = owner_flow()
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        kb.add(shop_tip())
        assert kb.add_workflow(flow) == flow
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb.get_workflow(flow.id) == flow
        assert [t.id for t in kb.list()] == ["shop-size-first"]  # the tips are untouched


def test_workflows_are_listed_by_site_and_found_for_a_url(kb):
    trac = kb.add_workflow(owner_flow())
    other = kb.add_workflow(owner_flow(site="127.0.0.1:18304", steps=[
        {"step": {"click": {"role": "link", "name": "Ticket #{{ticket}}"}}}]))
    assert {f.id for f in kb.list_workflows()} == {trac.id, other.id}
    assert [f.id for f in kb.list_workflows(site=SITE)] == [trac.id]
    assert [f.id for f in kb.workflows_for_url(f"http://{SITE}/report/1")] == [trac.id]
    assert kb.workflows_for_url("http://127.0.0.1:9999/") == []
    assert kb.workflows_for_url("about:blank") == []


def test_a_new_version_replaces_the_old_one_which_is_kept_inactive(kb):
    old = kb.add_workflow(owner_flow())
    kb.record_workflow_run(old.id, success=True, healed=0)
    healed = owner_flow(steps=[{"step": {"goto": f"http://{SITE}/ticket/{{{{ticket}}}}"}},
                               {"step": {"click": {"role": "link", "name": "Assignee"}},
                                "healed": True}])
    new = kb.new_workflow_version(old.id, healed)
    assert (new.version, new.previous, new.active) == (2, old.id, True)
    assert new.id != old.id
    kept = kb.get_workflow(old.id)
    assert not kept.active and kept.stats.runs == 1 and kept.steps == old.steps
    assert [f.id for f in kb.workflows_for_url(f"http://{SITE}/")] == [new.id]
    assert [f.id for f in kb.list_workflows(include_inactive=True)] == [old.id, new.id]
    with pytest.raises(InvalidWorkflow, match="must stay on"):
        kb.new_workflow_version(new.id, owner_flow(site="127.0.0.1:1", steps=[
            {"step": {"click": {"role": "link", "name": "x{{ticket}}"}}}]))


def test_runs_successes_and_healed_steps_are_counted(kb):
    flow = kb.add_workflow(owner_flow())
    kb.record_workflow_run(flow.id, success=True, healed=2)
    kb.record_workflow_run(flow.id, success=False, healed=0)
    stats = kb.get_workflow(flow.id).stats
    assert (stats.runs, stats.successes, stats.healed_steps) == (2, 1, 2)
    with pytest.raises(WorkflowNotFound):
        kb.record_workflow_run("wf-nope", success=True, healed=0)


def test_missing_and_duplicate_workflows_are_one_line_errors(kb):
    flow = kb.add_workflow(owner_flow())
    with pytest.raises(WorkflowExists, match="already exists"):
        kb.add_workflow(flow)
    kb.remove_workflow(flow.id)
    with pytest.raises(WorkflowNotFound, match="no workflow with id"):
        kb.get_workflow(flow.id)
    with pytest.raises(WorkflowNotFound):
        kb.remove_workflow(flow.id)


def test_an_import_is_all_or_nothing(kb):
    first = kb.add_workflow(owner_flow())
    fresh = owner_flow()
    with pytest.raises(WorkflowExists):
        kb.add_workflows([fresh, first])
    assert [f.id for f in kb.list_workflows()] == [first.id]  # fresh was rolled back
    result = kb.add_workflows([fresh, first], on_conflict="skip")
    assert (result.added, result.skipped) == ([fresh.id], [first.id])


def test_a_frozen_store_refuses_every_workflow_write(db_path):
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        flow = kb.add_workflow(owner_flow())
    with KnowledgeBase.open(db_path, readonly=True, embeddings=False) as kb:
        assert kb.get_workflow(flow.id) == flow
        for write in (lambda: kb.add_workflow(owner_flow()),
                      lambda: kb.remove_workflow(flow.id),
                      lambda: kb.record_workflow_run(flow.id, success=True, healed=0),
                      lambda: kb.new_workflow_version(flow.id, owner_flow())):
            with pytest.raises(ReadOnlyError, match="frozen"):
                write()
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb.get_workflow(flow.id).stats.runs == 0


def test_a_store_from_before_workflows_is_upgraded_in_place_keeping_its_tips(db_path):
    db_path.parent.mkdir(parents=True)
    raw = sqlite3.connect(db_path, isolation_level=None)
    for statement in _statements(_V1):
        raw.execute(statement)
    raw.execute("INSERT INTO tips (id, site, kind, url_patterns, keywords, tags, text, source,"
                " created, updated) VALUES ('old-tip', 'shop.local', 'tip', '[]', '[]', '[]',"
                " 'Choose a size first.', 'person', '2024-01-01T00:00:00Z',"
                " '2024-01-01T00:00:00Z')")
    raw.execute("PRAGMA user_version = 1")
    raw.close()
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        assert kb.get("old-tip").text == "Choose a size first."
        flow = kb.add_workflow(owner_flow())
        assert kb.list_workflows() == [flow]
    raw = sqlite3.connect(db_path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    raw.close()


def test_a_row_edited_by_hand_into_a_hostile_workflow_is_refused_when_read(db_path):
    with KnowledgeBase.open(db_path, embeddings=False) as kb:
        flow = kb.add_workflow(owner_flow())
    raw = sqlite3.connect(db_path)
    data = raw.execute("SELECT data FROM workflows").fetchone()[0]
    raw.execute("UPDATE workflows SET data = ?",
                (data.replace(f"http://{SITE}/ticket", "file:///etc/passwd#"),))
    raw.commit()
    raw.close()
    with KnowledgeBase.open(db_path, embeddings=False) as kb, \
            pytest.raises(InvalidWorkflow, match=f"stored workflow {flow.id}: .*file:///etc"):
        kb.get_workflow(flow.id)
