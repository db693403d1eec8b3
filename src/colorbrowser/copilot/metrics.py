"""CowPilot's per-task figures, read from the typed steps of a run.

Agent steps are the agent's actions that ran (a rejected or handed-over proposal ran
nothing); human steps are the person's; interventions are the pauses (hand-overs);
agent-driven completion means the last step that ran was the agent's. The outcome is
the agent's own (it stopped with an answer, or did not), unless the person set it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from colorbrowser.steps import Step

Outcome = Literal["success", "failure"]


class CopilotMetrics(BaseModel):
    outcome: Outcome
    outcome_by: Literal["agent", "person"] = "agent"
    agent_steps: int = 0
    human_steps: int = 0
    total_steps: int = 0
    interventions: int = 0
    rejections: int = 0
    agent_driven: bool = False

    def table(self) -> dict[str, object]:
        return self.model_dump()


def measure(steps: Sequence[Step], status: str, override: str = "") -> CopilotMetrics:
    ran = [s for s in steps if s.executed]
    agent = sum(1 for s in ran if s.actor == "agent")
    human = sum(1 for s in ran if s.actor == "person")
    notes = [g for s in steps for g in s.gate]
    own: Outcome = "success" if status == "done" else "failure"
    return CopilotMetrics(
        outcome=override or own, outcome_by="person" if override else "agent",
        agent_steps=agent, human_steps=human, total_steps=agent + human,
        interventions=sum(1 for g in notes if g.verdict == "handover"),
        rejections=sum(1 for g in notes if g.verdict == "reject"),
        agent_driven=bool(ran) and ran[-1].actor == "agent")
