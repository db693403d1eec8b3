"""``colorbrowser arena write-tasks``: run the generators against the built snapshots and
write the task files and oracle plans (a maintainer's tool; the files are committed).

Every answer comes from the snapshot of the default seed, so the files change only
when the seed content does.
"""

from __future__ import annotations

import importlib
import json
import sqlite3
import zlib
from collections.abc import Callable
from pathlib import Path

import yaml
from pydantic import ValidationError

from colorbrowser.arena.apps import get_app
from colorbrowser.arena.layout import Layout
from colorbrowser.arena.tasks.draft import Draft, Snapshot
from colorbrowser.errors import UserError
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.plan.format import parse_plan

# group -> the apps its generator reads (a group is one task file)
GROUPS: dict[str, tuple[str, ...]] = {
    "trac": ("trac",), "tracker": ("tracker",), "shop": ("shop",), "forum": ("forum",),
    "wiki": ("wiki",), "multi": ("shop", "forum", "trac", "tracker", "wiki"),
}


def drafts_of(group: str, layout: Layout) -> list[Draft]:
    snaps: dict[str, Snapshot] = {}

    def snap(app: str) -> Snapshot:
        if app not in snaps:
            db = layout.snap(app) / "data" / get_app(app).databases[0]
            snaps[app] = Snapshot(db)
        return snaps[app]

    module = importlib.import_module(f"colorbrowser.arena.tasks.gen_{group}")
    try:
        found: list[Draft] = module.drafts(snap)
    finally:
        for s in snaps.values():
            s.close()
    return found


def check(draft: Draft) -> None:
    """A draft must make a valid task and a plan the replay agent can run."""
    EvalSpec.model_validate(draft.eval)
    plan = parse_plan(draft.plan, draft.id)
    if not plan.mutable:
        raise ValueError(f"{draft.id}: the plan names no wrong value, so it cannot be proven")


def template_id(template: str) -> int:
    """Stable across writes of some groups or all (WebArena numbers its templates)."""
    return zlib.crc32(template.encode()) % 100_000


def write_group(group: str, layout: Layout, folder: Path) -> int:
    try:
        found = drafts_of(group, layout)
    except (ValueError, AssertionError, sqlite3.Error) as exc:
        raise UserError(f"{group} tasks: {exc or type(exc).__name__}") from None
    seen: set[str] = set()
    for draft in found:
        if draft.id in seen:
            raise ValueError(f"task id {draft.id} is used twice")
        seen.add(draft.id)
        try:
            check(draft)
        except (ValueError, ValidationError) as exc:
            raise UserError(f"{draft.id}: {str(exc).splitlines()[0]}") from None
        draft.template_id = template_id(draft.template)
    folder.mkdir(parents=True, exist_ok=True)
    configs = [d.config() for d in found]
    (folder / f"{group}.json").write_text(json.dumps(configs, indent=1, ensure_ascii=False)
                                          + "\n", "utf-8")
    plans = {d.id: d.plan for d in found}
    text = yaml.safe_dump(plans, sort_keys=False, allow_unicode=True, width=100)
    header = (f"# Oracle plans of the {group} tasks (replay format; plan/format.py).\n"
              f"# Written by `colorbrowser arena write-tasks`; run with\n"
              f"#   colorbrowser eval arena --tasks '{group}-*' --replay <this file>\n")
    (folder / f"{group}.oracle.yaml").write_text(header + text, "utf-8")
    return len(found)


def write_tasks(layout: Layout, folder: Path, groups: list[str] | None = None,
                say: Callable[[str], None] = print) -> dict[str, int]:
    counts = {}
    for group in GROUPS:
        if groups and group not in groups:
            continue
        counts[group] = write_group(group, layout, folder)
        say(f"{group}: {counts[group]} tasks")
    return counts
