"""``colorbrowser adapt`` (tasks without a person, failures queued) and
``colorbrowser review`` (a person turns queued failures into tips)."""

from __future__ import annotations

import contextlib
import json
from datetime import datetime
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from colorbrowser.agent.cli import model_options
from colorbrowser.errors import UserError
from colorbrowser.safe_text import escape, plain


# -- adapt ----------------------------------------------------------------------------
@click.command("adapt")
@click.argument("suite")
@click.option("--tasks", metavar="PATTERNS",
              help="Comma list of task ids or globs (the suite prefix may be left out).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Episode seed of generated tasks (MiniWoB).")
@click.option("--kb", "kb_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Knowledge base that gets the review queue (default: $COLORBROWSER_KB).")
@click.option("--max-steps", type=int, default=None, help="Step limit per task.")
@click.option("--critic-every", type=click.IntRange(min=0), default=None,
              help="Ask the LLM critic after every N-th action (0: never).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=None, help="Folder for the runs (default runs/adapt-<time>).")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as JSON on stdout.")
@model_options
def adapt_command(suite, tasks, seed, kb_path, max_steps, critic_every, out_dir, headed,
                  as_json, config_path, api_key_env, base_url, model_name):
    """Run SUITE's tasks without a person; queue failures and triggers for review.

    SUITE is what `colorbrowser eval` takes: miniwob, miniwob:<task>[,<task>], a
    WebArena .json file or a .yaml task file. The knowledge base is used "on".
    """
    from colorbrowser.agent.cli import settings_from_flags
    from colorbrowser.agent.factory import open_browser, open_model
    from colorbrowser.evaluation.suites import open_suite
    from colorbrowser.hitl.adapt import run_task, task_run_dir
    from colorbrowser.knowledge.hook import open_knowledge

    settings = settings_from_flags(config_path, base_url, model_name, api_key_env, {
        ("agent", "max_steps"): max_steps, ("agent", "knowledge"): "on",
        ("paths", "knowledge"): kb_path, ("hitl", "critic_every"): critic_every,
        ("hitl", "interactive"): False, ("browser", "headless"): False if headed else None,
    })
    console = Console(stderr=True)
    choice = open_suite(suite)
    outcomes = []
    with choice.suite, contextlib.ExitStack() as stack:
        entries = choice.select(tasks)
        runnable = [e for e in entries if e.runnable]
        for entry in entries:
            if not entry.runnable:
                console.print(f"[yellow]skip[/] {escape(entry.id)}: {escape(entry.status)}")
        if not runnable:
            raise UserError(f"no runnable task in {suite}")
        kb = open_knowledge(settings, stack)
        root = out_dir or settings.paths.runs / f"adapt-{datetime.now():%Y%m%d-%H%M%S}"
        model = open_model(settings.model, stack, settings.paths.cache)
        env = open_browser(settings, stack)
        progress = stack.enter_context(Progress(
            TextColumn("[bold]adapt[/]"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.description}"), console=console, transient=True))
        bar = progress.add_task("", total=len(runnable))
        for entry in runnable:
            progress.update(bar, description=entry.id)
            task = choice.suite.task(entry.id, seed=seed)
            outcome = run_task(task, settings, env=env, model=model, kb=kb,
                               run_dir=task_run_dir(root, entry.id))
            outcomes.append(outcome)
            mark = "[green]success[/]" if outcome.success else f"[red]{outcome.status}[/]"
            note = f" ({escape(outcome.error)})" if outcome.error else ""
            progress.console.print(f"{escape(entry.id)}: {mark}{note}, "
                                   f"{len(outcome.queued)} queued for review")
            progress.advance(bar)
        path = kb.path
    queued = sum(len(o.queued) for o in outcomes)
    solved = sum(o.success for o in outcomes)
    console.print(f"[bold]{solved}/{len(outcomes)} tasks solved; {queued} items queued for "
                  f"review in {escape(str(path))}[/]")
    if queued:
        console.print(f"next: colorbrowser review --kb {escape(str(path))}")
    if as_json:
        click.echo(json.dumps([o.to_json() for o in outcomes]))
    return 0


# -- review ---------------------------------------------------------------------------
@click.command("review")
@click.option("--kb", "kb_path", type=click.Path(dir_okay=False, path_type=Path),
              envvar="COLORBROWSER_KB", default=None,
              help="Knowledge base with the review queue (env COLORBROWSER_KB).")
@click.option("--list", "list_only", is_flag=True, help="List the open items; ask nothing.")
def review_command(kb_path, list_only):
    """Turn queued failures into tips, one item at a time (tip, skip or quit)."""
    from colorbrowser.hitl.review import review
    from colorbrowser.hitl.terminal import TerminalAsker
    from colorbrowser.knowledge.store import KnowledgeBase, default_db_path

    path = kb_path or default_db_path()
    if not Path(path).is_file():
        raise UserError(f"no knowledge base at {path}")
    console = Console(stderr=True)
    with KnowledgeBase.open(path, embeddings=False) as kb:
        items = kb.queue_list("open")
        if not items:
            console.print("the review queue is empty")
            return 0
        if list_only:
            for item in items:
                click.echo(plain(f"{item.id}\t{item.site}\t{item.reason}\t{item.url}"))
            return 0
        tally = review(kb, TerminalAsker(console))
    console.print(tally.line())
    return 0
