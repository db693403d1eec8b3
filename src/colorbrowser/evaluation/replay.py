"""The replay agent: a fixed list of actions per task and seed, no model.

It proves the harness rather than an agent: if hand-written actions for a known
seed score 1 and wrong ones score 0 or less, then task setup, action execution,
early ending and scoring all work. It also checks a new site's task file before
paying for model calls. Script file (YAML)::

    miniwob:click-button:        # a task id (the suite prefix may be left out)
      0: ["click('13')"]         # actions for seed 0
      1: ["click('12')"]
    my-site-login:               # a task without seeds: one list
      - fill('5', "alice")
      - click('7')
      - stop("done")
    arena-trac-close-ticket:     # oracle steps name elements by role and name
      - goto: __TRAC__/ticket/5
      - click: {role: button, name: Submit changes}

Steps may be oracle steps (``plan/format.py``): their targets are looked up in
the current page just before they run, so they survive new element ids.
When the list runs out the agent calls ``stop()`` with no answer.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from colorbrowser.actions import parse_action
from colorbrowser.datafile import parse_yaml, read_text
from colorbrowser.errors import ModelError, UserError
from colorbrowser.evaluation.task import short_id
from colorbrowser.plan.format import (
    OracleMiss,
    Target,
    decode_step,
    parse_plan,
)
from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import Action, Completion, Usage

ANY_SEED = "*"


@dataclass
class ReplayScript:
    """Actions by (task name, seed); a seed of ``*`` stands for any seed."""

    path: Path
    actions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    digest: str = ""

    @classmethod
    def load(cls, path: Path | str) -> ReplayScript:
        path = Path(path)
        text = read_text(path, "replay file")
        raw = text.encode("utf-8")
        data = parse_yaml(text, f"replay file {path}")
        if not isinstance(data, dict) or not data:
            raise UserError(f"replay file {path}: expected a mapping of task id -> actions")
        script = cls(path, digest=hashlib.sha256(raw).hexdigest()[:12])
        for task, value in data.items():
            per_seed = value if isinstance(value, dict) else {ANY_SEED: value}
            for seed, actions in per_seed.items():
                where = f"replay file {path}: {task} seed {seed}"
                if not isinstance(actions, list):
                    raise UserError(f"{where}: expected a list of actions")
                try:
                    plan = parse_plan(actions, where)
                except ValueError as exc:
                    raise UserError(str(exc)) from None
                script.actions[(short_id(str(task)), str(seed))] = plan.encode()
        return script

    def for_task(self, task_id: str, seed: int | None) -> list[str] | None:
        name = short_id(task_id)
        for key in ((name, str(seed)), (name, ANY_SEED)):
            if key in self.actions:
                return list(self.actions[key])
        return None

    def require(self, task_id: str, seed: int | None) -> list[str]:
        actions = self.for_task(task_id, seed)
        if actions is None:
            raise UserError(f"replay file {self.path} has no actions for {task_id} "
                            f"seed {seed}")
        return actions


class ReplayOperator:
    """Stands where the Operator stands; decides by reading the next scripted action."""

    WAITS = 3  # observations an oracle step waits for its target (a tab fading in)

    def __init__(self, actions: list[str]) -> None:
        self.actions = list(actions)
        self.position = 0
        self.waited = 0
        self.expect: Target | None = None  # what the last step should make appear

    def decide(self, view: DecisionView) -> Decision:
        if self.expect is not None:
            try:
                self.expect.find(view.obs)
            except OracleMiss as exc:
                if self.waited < self.WAITS:
                    self.waited += 1
                    return Decision(f"waiting for the last step to show: {exc}",
                                    parse_action("scroll(0, 0)"), "scroll(0, 0)", Usage())
            self.expect, self.waited = None, 0
        if self.position >= len(self.actions):
            text = "stop()"
            thought = "the scripted actions are used up"
        else:
            thought = f"scripted action {self.position + 1} of {len(self.actions)}"
            try:
                step = decode_step(self.actions[self.position])
                text = step.action_text(view.obs, os.environ)
                self.expect = step.expect
            except OracleMiss as exc:
                if self.waited < self.WAITS:  # look again after a no-op
                    self.waited += 1
                    return Decision(f"{thought}: waiting, {exc}", parse_action("scroll(0, 0)"),
                                    "scroll(0, 0)", Usage())
                text, thought = "stop()", f"{thought}: {exc}"  # the plan does not fit
        self.position += 1
        self.waited = 0
        action: Action = parse_action(text)
        return Decision(thought, action, text, Usage())


class NoModel:
    """The replay agent's model slot: nothing may call it."""

    name = "replay"
    vision = False

    def complete(self, messages, **kwargs) -> Completion:
        raise ModelError("the replay agent has no model; a component that needs one is on")
