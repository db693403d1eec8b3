"""A workflow is data someone may send: every field is checked, steps are plan steps."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from colorbrowser.knowledge.workflow import Workflow, param_names


def owner_workflow(**changes) -> dict:
    data = {
        "site": "127.0.0.1:18303",
        "goal_pattern": "Who owns ticket #{{ticket}}?",
        "params": {"ticket": "7"},
        "steps": [
            {"step": "goto('__TRAC__/ticket/{{ticket}}')", "expect_url": "*/ticket/{{ticket}}"},
            {"step": {"click": {"role": "link", "name": "Owner"}},
             "surroundings": {"label": "Owned by", "heading": "Ticket #{{ticket}}"}},
        ],
        "answer": {"target": {"role": "cell", "contains": "@"}, "label": "Owned by"},
    }
    data.update(changes)
    return data


def test_a_workflow_gets_an_id_and_keeps_its_parameters():
    flow = Workflow.model_validate(owner_workflow())
    assert flow.id.startswith("wf-127-0-0-1-18303-")
    assert flow.params == {"ticket": "7"}
    assert param_names(flow.goal_pattern) == ["ticket"]
    assert flow.version == 1 and flow.active and not flow.proved


@pytest.mark.parametrize("changes, message", [
    ({"steps": [{"step": "rm -rf /"}]}, "workflow step"),
    ({"steps": [{"step": {"click": {"role": "link"}}}]}, "name or contains"),
    ({"steps": []}, "at least 1"),
    ({"params": {"user": "bob"}}, "not in the goal pattern"),
    ({"goal_pattern": "Who owns a ticket?", "params": {}}, "used by a step"),
    ({"site": "file:///etc"}, "host name"),
    ({"id": "../../etc"}, "workflow id"),
    ({"answer": {"label": "Owned by"}}, "either a target or a template"),
    ({"shell": "sh"}, "Extra inputs"),
])
def test_a_broken_or_hostile_workflow_is_refused(changes, message):
    with pytest.raises(ValidationError, match=message):
        Workflow.model_validate(owner_workflow(**changes))


@pytest.mark.parametrize("url", [
    "file:///etc/passwd",
    "http://evil.example/ticket/{{ticket}}",
    "http://{{ticket}}/x",
    "http://127.0.0.1:18303@evil.example/",
    "javascript:alert(1)",
    "__NOT_A_SITE__/x",
])
def test_a_workflow_opens_only_pages_of_its_own_site(url):
    data = owner_workflow(steps=[{"step": {"goto": url}}])
    with pytest.raises(ValidationError, match=r"workflow opens only|not on the workflow's site"):
        Workflow.model_validate(data)


def test_a_workflow_may_open_its_site_by_address_or_placeholder():
    for url in ("http://127.0.0.1:18303/ticket/{{ticket}}", "__TRAC__/ticket/{{ticket}}"):
        flow = Workflow.model_validate(owner_workflow(steps=[{"step": {"goto": url}}]))
        assert flow.steps[0].step == {"goto": url}
