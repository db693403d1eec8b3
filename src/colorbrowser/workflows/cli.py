"""``colorbrowser workflows``: learn workflows from proved runs, and list, show, remove,
export and import them.

Every user mistake is a UserError (one line, exit 2 through colorbrowser.cli.main)
raised before anything is written. ``learn --prove`` replays the new workflow with its
own values through the evaluation runner (the replay agent, on a freshly reset task)
and keeps it only if it reaches the same change and reads the same answer.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import get_args

import click
import yaml

from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.knowledge.cli import KbState, attach_kb, kb_options
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.knowledge.workflow import LearnedBy, Workflow
from colorbrowser.knowledge.workflow_exchange import (
    dump_yaml,
    export_file,
    import_file,
    workflow_to_dict,
)
from colorbrowser.safe_text import escape, plain

PROVE_TIMEOUT = 300.0


def _kb(ctx: click.Context) -> KnowledgeBase:
    return ctx.find_object(KbState).open()


@click.group("workflows")
@kb_options
@click.pass_context
def workflows(ctx: click.Context, db: Path | None, frozen: bool) -> None:
    """Learned workflows: proved runs made reusable for a family of goals."""
    attach_kb(ctx, db, frozen)


def summary(flow: Workflow) -> str:
    prov = flow.provenance
    who = prov.learned_by + (f" ({prov.author})" if prov.author else "")
    stats = flow.stats
    # plain: a terminal line, and a page's name may hold bidi marks
    return plain(f"{flow.id} v{flow.version}{'' if flow.active else ' (replaced)'}"
                 f"{' proved' if flow.proved else ''}: {flow.goal_pattern} | "
                 f"{len(flow.steps)} steps | learned by {who} from "
                 f"{prov.task_id or prov.run} | runs {stats.runs}, successes "
                 f"{stats.successes}, healed steps {stats.healed_steps}")


@workflows.command("learn")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--goal", default=None, help="The goal to learn for (default: the run's own).")
@click.option("--by", "learned_by", type=click.Choice(get_args(LearnedBy)), default=None,
              help="Who did the run (default: read from the run folder).")
@click.option("--author", default=None, help="Who asked for this workflow.")
@click.option("--prove", is_flag=True,
              help="Replay it with its own values on a freshly reset task first; keep it only "
                   "if it reaches the same change and answer (evaluation and arena tasks).")
@click.option("--dry-run", is_flag=True, help="Print the workflow, store nothing.")
@click.option("--with-secrets", is_flag=True,
              help="Let it keep the secrets the run typed ({{secret:NAME}}): only for a run "
                   "of your own.")
@click.pass_context
def learn_cmd(ctx: click.Context, run_dir: Path, goal: str | None, learned_by: str | None,
              author: str | None, prove: bool, dry_run: bool, with_secrets: bool) -> None:
    """Learn a workflow from a proved run folder (verified, passed by its task's
    evaluator, or approved by a person) and store it."""
    from colorbrowser.workflows.learn import learn

    flow = learn(run_dir, learned_by=learned_by, author=author, goal=goal,
                 with_secrets=with_secrets)
    if prove:
        flow = prove_workflow(flow, run_dir)
    if dry_run:
        click.echo(dump_yaml([flow], stats=False), nl=False)
        return
    _kb(ctx).add_workflow(flow)
    click.echo(summary(flow))


@workflows.command("list")
@click.option("--site", default=None)
@click.option("--all", "include_inactive", is_flag=True, help="Replaced versions too.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def list_cmd(ctx: click.Context, site: str | None, include_inactive: bool, as_json: bool
             ) -> None:
    """List workflows with their provenance and counts."""
    found = _kb(ctx).list_workflows(site=site, include_inactive=include_inactive)
    if as_json:
        click.echo(json.dumps([workflow_to_dict(f) for f in found], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(found)} workflows")
    for column in ("id", "v", "goal pattern", "steps", "learned by", "from",
                   "runs", "ok", "healed"):
        table.add_column(column, overflow="fold")
    for f in found:
        table.add_row(escape(f.id), f"{f.version}{'' if f.active else '*'}",
                      escape(f.goal_pattern), str(len(f.steps)),
                      escape(f.provenance.learned_by + (" proved" if f.proved else "")),
                      escape(f.provenance.task_id or f.provenance.run), str(f.stats.runs),
                      str(f.stats.successes), str(f.stats.healed_steps))
    Console().print(table)


@workflows.command("show")
@click.argument("flow_id")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def show_cmd(ctx: click.Context, flow_id: str, as_json: bool) -> None:
    """Print one workflow in full (YAML, as exported)."""
    flow = _kb(ctx).get_workflow(flow_id)
    if as_json:
        click.echo(json.dumps(workflow_to_dict(flow), indent=2))
        return
    click.echo(f"# {summary(flow)}")
    click.echo(dump_yaml([flow]), nl=False)


@workflows.command("rm")
@click.argument("flow_ids", nargs=-1, required=True)
@click.pass_context
def rm_cmd(ctx: click.Context, flow_ids: tuple[str, ...]) -> None:
    """Remove workflows (a replaced version too, given its id)."""
    kb = _kb(ctx)
    for flow_id in flow_ids:
        kb.get_workflow(flow_id)  # all exist, or nothing is removed
    for flow_id in flow_ids:
        kb.remove_workflow(flow_id)
    click.echo(f"removed {len(flow_ids)} workflow(s)")


@workflows.command("export")
@click.argument("file", type=Destination("the workflows file", folder=False, path_type=Path))
@click.option("--site", default=None)
@click.option("--active", is_flag=True, help="Leave replaced versions out.")
@click.option("--no-stats", is_flag=True, help="Leave run counts out.")
@click.pass_context
def export_cmd(ctx: click.Context, file: Path, site: str | None, active: bool,
               no_stats: bool) -> None:
    """Export workflows as readable YAML."""
    count = export_file(_kb(ctx), file, site, include_inactive=not active, stats=not no_stats)
    click.echo(f"exported {count} workflow(s) to {file}")


@workflows.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--replace", "on_conflict", flag_value="replace", help="Overwrite existing ids.")
@click.option("--skip-existing", "on_conflict", flag_value="skip", help="Keep existing ids.")
@click.option("--with-secrets", is_flag=True,
              help="Let its steps type your secrets ({{secret:NAME}}): only for a file you "
                   "exported yourself.")
@click.pass_context
def import_cmd(ctx: click.Context, file: Path, on_conflict: str | None,
               with_secrets: bool) -> None:
    """Import a workflows file in one transaction (all workflows or none). Each step must
    be a plan step and may open only pages of its workflow's own site, and may not name a
    secret unless you say so."""
    result = import_file(_kb(ctx), file, on_conflict=on_conflict or "error",
                         with_secrets=with_secrets)
    click.echo(f"imported {len(result.added)} new, {len(result.replaced)} replaced, "
               f"{len(result.skipped)} skipped from {file}")


# -- proving ----------------------------------------------------------------------------
def prove_workflow(flow: Workflow, run_dir: Path) -> Workflow:
    """Replay ``flow`` with its own values on its task, freshly set up: the task's
    evaluator must pass and the answer read on the final page must be the learned run's.
    Returns the workflow marked proved; UserError when it does not prove itself."""
    from rich.console import Console

    from colorbrowser.agent.trajectory import load_steps
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study
    from colorbrowser.evaluation.task import short_id
    from colorbrowser.types import Observation
    from colorbrowser.workflows.instantiate import instantiate, read_answer
    from colorbrowser.workflows.learn import recorded_answer

    task = flow.provenance.task_id
    if not task or ":" not in task:
        raise UserError(f"cannot prove a workflow learned from {run_dir}: it is not the run of "
                        "an evaluation or arena task (no task id)")
    suite = task.split(":", 1)[0]
    answer = recorded_answer(run_dir)
    steps = [step.to_data() for step, _ in instantiate(flow, flow.params)]
    with tempfile.TemporaryDirectory(prefix="colorbrowser-prove-") as tmp:
        script = Path(tmp) / "replay.yaml"
        script.write_text(yaml.safe_dump({short_id(task): [*steps, {"stop": answer}]}),
                          "utf-8")
        options = StudyOptions(suite=suite, study_dir=Path(tmp) / "study", tasks=short_id(task),
                               replay=script, timeout=PROVE_TIMEOUT,
                               command=["colorbrowser", "workflows", "learn", "--prove"])
        records = run_study(options, load_settings(), Console(stderr=True, quiet=True)).records
        if len(records) != 1:
            raise UserError(f"cannot prove the workflow: task {task} did not run")
        record = records[0]
        if record.errored or not record.success:
            why = record.error or f"reward {record.reward}"
            raise UserError(f"the workflow did not prove itself on {task}: {why}")
        if flow.answer is not None:
            last = load_steps(Path(tmp) / "study" / record.trajectory)[-1]
            got = read_answer(flow, Observation(url=last.url, title=last.title,
                                                axtree=last.observation), flow.params)
            if got != answer:
                raise UserError(f"the workflow did not prove itself on {task}: it reads "
                                f"{got!r} where the run answered {answer!r}")
    return flow.model_copy(update={"proved": True})
