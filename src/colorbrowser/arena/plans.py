"""Replay files for arena tasks: the oracle, its mutants, doing nothing, or the random
agent. ``colorbrowser eval arena --replay <file>`` runs any of them.

The shipped tasks' oracle plans sit beside their task files (``trac.json`` and
``trac.oracle.yaml``); a user's own task file is read the same way, with the plan file
beside it (``mine.json`` -> ``mine.oracle.yaml``) or named with ``--plans``.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from colorbrowser.arena.suite import plan_files, task_files
from colorbrowser.datafile import load_json, load_yaml
from colorbrowser.errors import UserError
from colorbrowser.plan.format import RANDOM, Plan, parse_plan, parse_step

# How a proof mutates the oracle: itself, doing nothing, a wrong value, no last step.
VARIANT = {"oracle": lambda p: p, "null": lambda p: Plan(), "wrong": Plan.wrong_value,
           "truncated": Plan.without_last}
KINDS = (*VARIANT, RANDOM)
# A page of each site that does not exist: a number far beyond the seeded ones. The
# "error page" trajectory ends there, so the verifier's check of the final page is measured.
MISSING_PAGES = {"__TRAC__": "/ticket/99999", "__SHOPPING__": "/catalogue/missing_99999/",
                 "__SHOPPING_ADMIN__": "/orders/99999/", "__REDDIT__": "/topic/99999/",
                 "__WIKIPEDIA__": "/index.php/Missing_page_99999",
                 "__GITLAB__": "/issues/99999"}


def plan_file_for(tasks: Path) -> Path:
    """Where a task file's oracle plans live by default: ``mine.json`` -> ``mine.oracle.yaml``."""
    return tasks.with_name(tasks.stem + ".oracle.yaml")


def plan_paths(tasks: Path | None, given: Path | None = None) -> list[Path]:
    """The plan files for the shipped tasks (no ``tasks``) or for a user's task file."""
    if tasks is None:
        return [given] if given is not None else plan_files()
    path = given or plan_file_for(tasks)
    if not path.is_file():
        raise UserError(f"no oracle plan file {path} for {tasks} (write the plans there, "
                        "in the replay format, or name the file with --plans)")
    return [path]


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


def task_items(files: list[Path] | None = None) -> list[dict]:
    """The task mappings of the shipped task files, or of ``files``."""
    found = []
    for path in files or task_files():
        data = load_json(path, "task file")
        items = [data] if isinstance(data, dict) else data if isinstance(data, list) else []
        found += [item for item in items if isinstance(item, dict) and "task_id" in item]
    return found


def task_ids(files: list[Path] | None = None) -> list[str]:
    """The task ids of the shipped task files, or of ``files``."""
    return [str(item["task_id"]) for item in task_items(files)]


def missing_page(url: str) -> str | None:
    """A page that does not exist on the site of ``url`` (placeholders kept), or None
    for a site without one in MISSING_PAGES."""
    site = next((p for p in MISSING_PAGES if url.strip().startswith(p)), None)
    return site + MISSING_PAGES[site] if site else None


def ending_on(plan: Plan, url: str) -> Plan:
    """The plan, then a goto to ``url``, then the plan's own stop (if it ends with one)."""
    steps = list(plan.steps)
    stop = [steps.pop()] if steps and steps[-1].action == "stop" else []
    return Plan([*steps, parse_step(f"goto({url!r})"), *stop])


def error_page_plans(*, tasks: Path | None = None,
                     plan_file: Path | None = None) -> dict[str, Plan]:
    """The oracle plans, each ending on a missing page of its task's start site (tasks
    whose site has none are left out)."""
    oracle = plans("oracle", tasks=tasks, plan_file=plan_file)
    found = {}
    for item in task_items([tasks] if tasks is not None else None):
        task = str(item["task_id"])
        url = missing_page(str(item.get("start_url", "")))
        if task in oracle and url is not None:
            found[task] = ending_on(oracle[task], url)
    return found


def random_plan(seed: int, steps: int) -> Plan:
    """``steps`` random actions, then a random answer."""
    return parse_plan([{RANDOM: {"seed": seed, "step": n, "answer": n == steps}}
                       for n in range(steps + 1)])


def plans(kind: str, *, seed: int = 0, steps: int = 10, tasks: Path | None = None,
          plan_file: Path | None = None) -> dict[str, Plan]:
    """Replay plans of ``kind`` for the shipped tasks, or for the task file ``tasks``
    (with its oracle plans from ``plan_file``, by default the file beside it)."""
    if kind not in KINDS:
        raise UserError(f"unknown plan kind {kind!r}; choose from {', '.join(KINDS)}")
    if tasks is not None and not tasks.is_file():
        raise UserError(f"no such task file: {tasks}")
    ids = task_ids([tasks] if tasks is not None else None)
    if kind == RANDOM:
        return {task: random_plan(seed, steps) for task in ids}
    known = load_plans(plan_paths(tasks, plan_file))
    if tasks is not None:
        missing = [task for task in ids if task not in known]
        if missing:
            raise UserError(f"{tasks}: task {missing[0]} has no oracle plan in "
                            f"{plan_paths(tasks, plan_file)[0]}")
        known = {task: known[task] for task in ids}
    unmarked = [task for task, plan in known.items() if kind == "wrong" and not plan.mutable]
    if unmarked:
        raise UserError(f"task {unmarked[0]}: its oracle plan names no wrong value (give a "
                        "step `wrong: <value>`)")
    return {task: VARIANT[kind](plan) for task, plan in known.items()}


def script(found: dict[str, Plan]) -> str:
    """The replay file's text, steps in their file form."""
    data = {task: [s.to_data() for s in plan.steps] or ["stop()"]
            for task, plan in found.items()}
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def write_script(found: dict[str, Plan], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(found), "utf-8")
