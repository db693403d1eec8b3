"""``colorbrowser eval SUITE``: list a suite's tasks now; run them once the runner lands."""

from __future__ import annotations

import click

from colorbrowser.bench.suites import SuiteChoice, open_suite
from colorbrowser.bench.task import TaskEntry
from colorbrowser.errors import UserError

SUMMARY_WIDTH = 70


def format_entries(entries: list[TaskEntry]) -> list[str]:
    """One aligned line per task, then ``tasks: N, runnable: R, unsupported: U``."""
    id_width = min(max((len(e.id) for e in entries), default=0), 40)
    site_width = min(max((len(e.site) for e in entries), default=0), 24)
    lines = []
    for e in entries:
        status = e.status + (" (judge)" if e.runnable and e.needs_judge else "")
        summary = " ".join(e.summary.split())
        if len(summary) > SUMMARY_WIDTH:
            summary = summary[: SUMMARY_WIDTH - 1] + "…"
        lines.append(f"{e.id:<{id_width}}  {e.site:<{site_width}}  {summary}  [{status}]"
                     .rstrip())
    runnable = sum(e.runnable for e in entries)
    judged = sum(e.runnable and e.needs_judge for e in entries)
    if judged:
        lines.append(f"{judged} runnable task(s) need a judge model (fuzzy_match)")
    lines.append(f"tasks: {len(entries)}, runnable: {runnable}, "
                 f"unsupported: {len(entries) - runnable}")
    return lines


def run_suite(choice: SuiteChoice, entries: list[TaskEntry]) -> None:
    """Where the evaluation runner plugs in (next wave of issue 5)."""
    raise UserError("the runner lands with the evaluation harness runner; use --list")


@click.command("eval")
@click.argument("suite")
@click.option("--list", "list_only", is_flag=True,
              help="List the tasks and whether each can run here; run nothing.")
@click.option("--tasks", "tasks", metavar="PATTERNS",
              help="Comma list of task ids or globs (the suite prefix may be left out).")
def eval_command(suite: str, list_only: bool, tasks: str | None) -> None:
    """Evaluate on SUITE: miniwob, miniwob:<task>[,<task>], webarena, a WebArena .json
    file or a .yaml task file."""
    choice = open_suite(suite)
    with choice.suite:
        entries = choice.select(tasks)
        if list_only:
            for line in format_entries(entries):
                click.echo(line)
            return
        run_suite(choice, entries)
