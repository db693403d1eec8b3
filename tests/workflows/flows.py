"""Workflows the tests run on Trac, as learning would have stored them."""

from __future__ import annotations

import re

from colorbrowser.knowledge.workflow import AnswerSource, Workflow, WorkflowStep

SEARCH = {"role": "textbox", "name": "Search:"}


def owner_flow() -> Workflow:
    """Learned from "Who is the owner of ticket #18?": quick-jump to the ticket, read
    the name under "Owned by:"."""
    return Workflow(
        site="127.0.0.1", goal_pattern="Who is the owner of ticket #{{ticket}}?",
        params={"ticket": "18"},
        steps=[WorkflowStep(step={"fill": SEARCH, "value": "#{{ticket}}"}),
               WorkflowStep(step={"press": SEARCH, "key": "Enter"},
                            expect_url="__TRAC__/ticket/{{ticket}}")],
        answer=AnswerSource(target={"role": "link", "contains": ""}, label="Owned by:"))


def milestone_flow() -> Workflow:
    return Workflow(
        site="127.0.0.1", goal_pattern="Show me the page of milestone {{m}}.",
        params={"m": "1.3"},
        steps=[WorkflowStep(step={"click": {"role": "link", "name": "Roadmap"}},
                            expect_url="__TRAC__/roadmap"),
               WorkflowStep(step={"click": {"role": "link", "name": "Milestone: {{m}}"}},
                            expect_url="__TRAC__/milestone/{{m}}"),
               WorkflowStep(step="stop()")])


def bid(prompt: str, role: str, name: str) -> str:
    found = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", prompt)
    assert found, f"{role} {name!r} is not on the page the Operator was shown"
    return found.group(1)
