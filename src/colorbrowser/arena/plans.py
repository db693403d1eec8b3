"""Replay files for the arena's tasks: the oracle, its mutants, doing nothing, or the
random agent. ``colorbrowser eval arena --replay <file>`` runs any of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from colorbrowser.arena.prove import VARIANT, load_plans
from colorbrowser.errors import UserError
from colorbrowser.evaluation.arena_suite import plan_files, task_files
from colorbrowser.evaluation.oracle import RANDOM, Plan, parse_plan

KINDS = (*VARIANT, RANDOM)


def task_ids() -> list[str]:
    ids = []
    for path in task_files():
        ids += [str(item["task_id"]) for item in json.loads(path.read_text("utf-8"))]
    return ids


def random_plan(seed: int, steps: int) -> Plan:
    """``steps`` random actions, then a random answer."""
    return parse_plan([{RANDOM: {"seed": seed, "step": n, "answer": n == steps}}
                       for n in range(steps + 1)])


def plans(kind: str, *, seed: int = 0, steps: int = 10) -> dict[str, Plan]:
    if kind not in KINDS:
        raise UserError(f"unknown plan kind {kind!r}; choose from {', '.join(KINDS)}")
    if kind == RANDOM:
        return {task: random_plan(seed, steps) for task in task_ids()}
    return {task: VARIANT[kind](plan) for task, plan in load_plans(plan_files()).items()}


def script(found: dict[str, Plan]) -> str:
    """The replay file's text, steps in their file form."""
    data = {task: [s.to_data() for s in plan.steps] or ["stop()"]
            for task, plan in found.items()}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def write_script(found: dict[str, Plan], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(found), "utf-8")
