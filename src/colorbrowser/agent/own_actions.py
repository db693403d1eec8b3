"""The agent's own actions: they change what it knows, not the page.

``stop`` ends the episode with an answer, ``take_note`` remembers a fact across the
summary's compaction, ``calculate`` does exact arithmetic, a tool (tools.py) runs the
person's Python function; everything else is the browser's business.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from colorbrowser.agent.calculator import CalculationError, calculate
from colorbrowser.agent.state import EpisodeState
from colorbrowser.evidence import Evidence
from colorbrowser.protocols import Environment
from colorbrowser.types import Action, ActionResult

if TYPE_CHECKING:
    from colorbrowser.agent.tools import Tool

NOTE_CHARS = 1000


def run_agent_action(state: EpisodeState, env: Environment, action: Action,
                     tools: Mapping[str, Tool] | None = None) -> ActionResult:
    if tools and action.name in tools:
        return tools[action.name].call(action.args)
    if action.name == "stop":
        answer = str(action.args[0]) if action.args else ""
        # What the last browser action caused after its step was recorded: kept with
        # the stop, so the run folder holds every request the verifier read.
        late = getattr(env, "late_evidence", None)
        found = late() if callable(late) else None
        return ActionResult(done=True, answer=answer, output="episode finished",
                            evidence=Evidence(late=found) if found is not None else None)
    if action.name == "take_note":
        text = str(action.args[0]).strip()
        if not text:
            return ActionResult.failure("take_note() needs some text to remember")
        state.notes.append(text[:NOTE_CHARS])
        return ActionResult(output=f"noted ({len(state.notes)} notes)",
                            evidence=Evidence(notes=[text[:NOTE_CHARS]]))
    if action.name == "calculate":
        expression = str(action.args[0])
        try:
            value = calculate(expression)
            return ActionResult(output=value,
                                evidence=Evidence(calculations=[f"{expression} = {value}"]))
        except CalculationError as exc:
            return ActionResult.failure(f"calculate: {exc}")
    return env.step(action)
