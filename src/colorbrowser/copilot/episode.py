"""An episode where a person may take over after any proposal.

After the gate hands over, the person's turn runs before the next step: the loop
stays on its own thread, and the person's actions become steps of their own.
"""

from __future__ import annotations

from colorbrowser.agent.loop import Episode
from colorbrowser.copilot.gate import CopilotGate
from colorbrowser.copilot.turn import PersonTurn
from colorbrowser.steps import Step


class CopilotEpisode(Episode):
    gate: CopilotGate
    turn: PersonTurn

    def attach(self, gate: CopilotGate, turn: PersonTurn) -> CopilotEpisode:
        self.gate, self.turn = gate, turn
        if gate not in self.hooks:
            self.hooks.append(gate)  # last: knowledge and triggers have had their say
        return self

    def step(self) -> Step:
        step = super().step()
        if step.gate and step.gate[-1].verdict == "handover":
            self.turn.take(self, self.gate.handover_since or 0.0)
        return step
