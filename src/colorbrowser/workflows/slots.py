"""Healing a renamed control without a model, by the slot it fills.

A step's target that is not on the page by its recorded name may have been renamed in
place ("Modify Ticket" -> "Edit Ticket"). When exactly one control of its role fills
its slot (the same named elements just before and after it as when it was learned,
``page.neighbours``), shares a word with the recorded name, is the only one of its
new name and passes the recorded surroundings, the step runs on it, and a verified
run keeps the new name as the workflow's next version. A removed control leaves no
such slot; a name that holds a goal value is never replaced (a missing value is a
missing thing). The runner (``runner.py``) keeps the bookkeeping; this module decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from colorbrowser.knowledge.workflow import Surroundings, WorkflowStep
from colorbrowser.plan.format import OracleMiss
from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.types import ElementInfo, Observation
from colorbrowser.workflows import instantiate as inst
from colorbrowser.workflows import page, values


@dataclass
class Renamed:
    """A step's target found renamed in its slot: the step aimed at it, the workflow
    step a verified run keeps, and why it may run."""

    step: PlanStep
    kept: WorkflowStep
    reason: str


def renamed(step: PlanStep, ws: WorkflowStep, obs: Observation,
            params: Mapping[str, str]) -> Renamed | None:
    """The step on its target's renamed control, or None (the miss stands)."""
    target, want = step.target, ws.surroundings
    if target is None or target.name is None or want is None or \
            not (want.before and want.after) or \
            "{{" in str(inst.as_mapping(ws.step).get(step.action)):
        return None
    new = page.renamed(obs.axtree, target.role, target.name,
                       inst.fill_text(want.before, params), inst.fill_text(want.after, params))
    if not new:
        return None
    aimed = dataclasses.replace(target, name=new, nth=0)
    try:
        element = aimed.find(obs)
    except OracleMiss:
        return None
    if inst.check_surroundings(ws, element, obs, params):
        return None
    return Renamed(dataclasses.replace(step, target=aimed),
                   _renamed_step(ws, new, params, element, obs),
                   f"{target.describe()} is not on the page; the {target.role} {new!r} fills "
                   "its place (the same neighbours), so it was renamed")


def surroundings_of(element: ElementInfo, obs: Observation) -> Surroundings | None:
    """Where an element sits (label and section heading, as learning records them), so
    a step made from it is checked like the others next time."""
    lines = page.parse(obs.axtree)
    index = page.index_of(lines, element.bid)
    return page.surroundings(lines, index) if index is not None else None


def _renamed_step(ws: WorkflowStep, name: str, params: Mapping[str, str],
                  element: ElementInfo, obs: Observation) -> WorkflowStep:
    """The workflow step with its target's new name and the surroundings it has now
    (no block: the new name is the only one of its kind)."""
    data = inst.as_mapping(ws.step)
    action = next(iter(data))
    data = {**data, action: {**data[action], "name": values.substitute(name, dict(params))}}
    return ws.model_copy(update={"step": data, "healed": True, "block": None,
                                 "surroundings": surroundings_of(element, obs) or
                                 ws.surroundings})
