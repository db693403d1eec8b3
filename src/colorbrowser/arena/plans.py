"""Replay files for the arena's tasks: the oracle, its mutants, doing nothing, or the
random agent. ``colorbrowser eval arena --replay <file>`` runs any of them.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from colorbrowser.arena.suite import plan_files, task_files
from colorbrowser.datafile import load_json, load_yaml
from colorbrowser.errors import UserError
from colorbrowser.evaluation.oracle import RANDOM, Plan, parse_plan

# How a proof mutates the oracle: itself, doing nothing, a wrong value, no last step.
VARIANT = {"oracle": lambda p: p, "null": lambda p: Plan(), "wrong": Plan.wrong_value,
           "truncated": Plan.without_last}
KINDS = (*VARIANT, RANDOM)


def load_plans(files: list[Path]) -> dict[str, Plan]:
    """Oracle plans by short task id (``trac-comment-33``), from replay-format files."""
    plans: dict[str, Plan] = {}
    for path in files:
        data = load_yaml(path, "plan file") or {}
        if not isinstance(data, dict):
            raise UserError(f"{path}: expected a mapping of task id -> steps")
        for task, steps in data.items():
            try:
                plans[str(task)] = parse_plan(steps, f"{path.name}: {task}")
            except ValueError as exc:
                raise UserError(str(exc)) from None
    return plans




def task_ids() -> list[str]:
    ids = []
    for path in task_files():
        ids += [str(item["task_id"]) for item in load_json(path, "task file")]
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
