"""``colorbrowser eval SUITE``: list a suite's tasks, or run a study of them."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click
from pydantic import SecretStr

from colorbrowser.agent.trajectory import slugify
from colorbrowser.config import AUTHORITY, Settings
from colorbrowser.datafile import load_toml
from colorbrowser.destination import Destination
from colorbrowser.errors import ConfigError, UserError
from colorbrowser.evaluation.evaluators import NEEDS_JUDGE
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.evaluation.suites import open_suite
from colorbrowser.evaluation.task import TaskEntry
from colorbrowser.run.flags import (
    knowledge_options,
    model_flags,
    model_options,
    verify_options,
    verify_overrides,
)
from colorbrowser.safe_text import escape

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


def error_hints(records: list[EpisodeRecord]) -> list[str]:
    """What to do about the errored episodes. An episode left unscored for want of a
    judge would only err again under --retry-errors: it needs a model to judge with."""
    errored = [r for r in records if r.errored]
    unjudged = [r for r in errored if NEEDS_JUDGE in (r.error or "")]
    hints = []
    if unjudged:
        hints.append(f"{len(unjudged)} episode(s) could not be scored: fuzzy_match needs a "
                     "judge model, which is the study's model: run them again with "
                     "--base-url URL --model NAME (or [model] in the config file) and a "
                     "new --out")
    if len(unjudged) < len(errored):
        hints.append("errored episodes can be run again with --retry-errors")
    return hints


def arena_instance_env(suite: str, instance: int | None, workers: int, share: bool, *,
                       listing: bool) -> dict[str, str]:
    """The variables that carry ``--instance``/``--share-instance`` to the arena suite in
    this process and in every worker."""
    if suite.strip().split(":", 1)[0] != "arena":
        raise UserError("--instance and --share-instance are for arena suites "
                        "(arena, arena:<apps>, arena:<file>.json)")
    from colorbrowser.arena.arena import default_cache
    from colorbrowser.arena.instances import study_env
    from colorbrowser.arena.layout import Layout

    return study_env(Layout.from_cache(default_cache()), instance, workers, share=share,
                     listing=listing)


MODEL_SECTIONS = ("model", "summarizer_model", "judge")


def agent_config_overrides(path: Path | None) -> dict[tuple[str, ...], Any]:
    """An agent configuration file (TOML, the sections of config.toml) as overrides that
    sit above the config file and environment and below the command's own flags.

    The file may come from someone else, so it is data: a setting that chooses a
    program, a file, a secret, a port or a trusted page (``config.AUTHORITY``) is
    refused with the way to set it yourself, and so is ``api_key_env``, which would
    choose which of your variables is sent to the endpoint the file names."""
    if path is None:
        return {}
    try:
        data = load_toml(path, "agent config", source=f"agent config {path}")
    except UserError as exc:
        raise ConfigError(str(exc)) from None
    out: dict[tuple[str, ...], Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(f"agent config {path}: {section} must be a table like [agent]")
        if section == "secrets":  # someone else's file: it may not pick the person's secrets
            raise ConfigError(f"agent config {path}: [secrets] is refused: an agent config "
                              "may not name your secrets; they are read only from your own "
                              "config file")
        for key, value in table.items():
            if key == "api_key_env" and section in MODEL_SECTIONS:
                raise ConfigError(
                    f"agent config {path}: [{section}] api_key_env is refused: an agent config "
                    "may not choose which of your variables is sent to its endpoint; pass "
                    "--key-for-agent-config VAR to send one yourself")
            if how := AUTHORITY.get((section, key)):
                raise ConfigError(f"agent config {path}: [{section}] {key} is refused: an "
                                  f"agent config may not set it; {how}")
            out[(section, key)] = value
    return out


def study_endpoint_keys(path: Path | None, file: dict[tuple[str, ...], Any],
                        base_url_flag: str | None, api_key_env_flag: str | None,
                        key_flag: str | None = None,
                        ) -> tuple[dict[tuple[str, ...], Any], list[str]]:
    """Keys for the endpoints an agent config file chose, and a note for each.

    The file may come from someone else, so a base_url it sets gets a key only when
    the person names the variable on the command line (``--key-for-agent-config``):
    never OPENAI_API_KEY, COLORBROWSER_API_KEY or ``--api-key-env``, which the person
    set up for endpoints of their own choosing."""
    if key_flag and path is None:
        raise ConfigError("--key-for-agent-config goes with --agent-config")
    key = model_flags(None, None, key_flag).get(("model", "api_key")) if key_flag else None
    forced: dict[tuple[str, ...], Any] = {}
    notes = []
    for section in MODEL_SECTIONS:
        if (section, "base_url") not in file:
            continue
        if section == "model" and base_url_flag:
            continue  # --base-url is the user's choice, and wins over the file
        url = file[(section, "base_url")]
        if key is not None:
            forced[(section, "api_key")] = key
            notes.append(f"[{section}] base_url {url} of {path} gets the key in {key_flag}, "
                         "as --key-for-agent-config says")
            continue
        if section == "model" and api_key_env_flag:
            raise ConfigError(
                f"agent config {path} sets [model] base_url, and --api-key-env keys go only "
                "to endpoints you set yourself: pass --base-url too, or send a key to the "
                "file's endpoint with --key-for-agent-config VAR")
        forced[(section, "api_key")] = ""
        notes.append(f"[{section}] base_url {url} of {path} gets no API key (send one with "
                     "--key-for-agent-config VAR)")
    if key is not None and not forced:
        raise ConfigError(f"--key-for-agent-config: no endpoint of agent config {path} is "
                          "used (it sets no base_url, or --base-url replaced it); use "
                          "--api-key-env for your own endpoint")
    return forced, notes


def keys_only_as_told(settings: Settings, file: dict[tuple[str, ...], Any],
                      base_url_flag: str | None, keys: dict[tuple[str, ...], Any]) -> None:
    """Every model section that ends up at an endpoint the agent config named gets only
    the key the person sent there (or none), whichever way it got there: a summarizer
    of your own config that follows the model's endpoint keeps no key of yours."""
    named = {value: section for (section, key), value in file.items() if key == "base_url"
             and not (section == "model" and base_url_flag)}
    for section in MODEL_SECTIONS:
        if section == "model" and base_url_flag:
            continue  # the endpoint you named yourself keeps your key
        model = getattr(settings, section)
        if model is not None and model.base_url in named:
            sent = keys.get((named[model.base_url], "api_key"))
            model.api_key = SecretStr(sent) if sent else None


def matrix_items(matrix: tuple[str, ...], cells: tuple[str, ...]) -> tuple[str, ...]:
    """``--matrix memory=full,summary knowledge=off,on``: the cells after the first one
    arrive as extra arguments; anything else there is a mistake."""
    if cells and not matrix:
        raise UserError(f"unexpected argument {cells[0]!r} (only --matrix takes KEY=VALUES)")
    for cell in cells:
        if "=" not in cell or cell.startswith("-"):
            raise UserError(f"unexpected argument {cell!r}")
    return (*matrix, *cells)


def default_study_dir(suite: str) -> Path:
    """Deterministic, so running the same command again resumes the same study."""
    return Path("studies") / slugify(Path(suite).stem if suite.endswith(
        (".json", ".yaml", ".yml")) else suite.replace(":", "-"), limit=60)


@click.command("eval")
@click.argument("suite")
@click.argument("cells", nargs=-1, metavar="")
@click.option("--list", "list_only", is_flag=True,
              help="List the tasks and whether each can run here; run nothing.")
@click.option("--tasks", "tasks", metavar="PATTERNS",
              help="Comma list of task ids or globs (the suite prefix may be left out).")
@click.option("--seeds", metavar="SEEDS",
              help="Seeds of generated tasks (MiniWoB): 0,1,2 or 0-4 (default 0).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Parallel workers, each with its own browser.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="local worker processes, or Ray actors.")
@click.option("--ray-address", default=None,
              help="Ray cluster to join (default $RAY_ADDRESS, else a new local one).")
@click.option("--out", "out_dir", type=Destination("the study folder", folder=True, path_type=Path),
              default=None, help="Study folder (default studies/<suite>); the same command "
                                 "run again resumes it.")
@click.option("--agent-config", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Agent settings (TOML, like config.toml) for this study; "
                                 "programs, files, keys and ports are refused there.")
@click.option("--key-for-agent-config", "key_for_agent_config", metavar="VAR", default=None,
              help="Send the key in environment variable VAR to the endpoint the agent "
                   "config names (without it, that endpoint gets no key).")
@click.option("--matrix", multiple=True, metavar="KEY=V1,V2 ...",
              help="Ablation matrix: one variant per combination, e.g. "
                   "--matrix memory=full,summary knowledge=off,on")
@click.option("--replay", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Run the replay agent with the actions in this YAML file (no model).")
@click.option("--timeout", type=click.FloatRange(min=1), default=900, show_default=True,
              help="Hard limit per episode in seconds; a hung episode is killed.")
@click.option("--kill-grace", type=click.FloatRange(min=0), default=15, hidden=True,
              help="Seconds past --timeout before the worker kills its browser.")
@click.option("--hard-grace", type=click.FloatRange(min=0), default=45, hidden=True,
              help="Seconds past that before the coordinator kills the worker.")
@click.option("--retry-errors", is_flag=True,
              help="Run again the episodes that errored (timeouts, crashes, ...).")
@click.option("--max-steps", type=click.IntRange(min=1), default=None,
              help="Step limit per episode.")
@click.option("--memory", type=click.Choice(["summary", "full", "none"]), default=None)
@knowledge_options
@click.option("--headed", is_flag=True, help="Show the browser windows.")
@click.option("--allow-hosts", default=None, metavar="HOSTS",
              help="Comma list of the hosts the browser may reach (host or host:port, "
                   "*.domain); default: the hosts and ports the tasks name.")
@click.option("--instance", type=click.IntRange(0, 50), default=None,
              help="Arena suites: run on arena instance N (worker k on N+k); one another "
                   "process uses is an error. Default: a running one nobody uses, else "
                   "the first free one.")
@click.option("--share-instance", is_flag=True,
              help="Arena suites: use --instance N even while another process uses it.")
@verify_options
@model_options
def eval_command(suite, cells, list_only, tasks, seeds, workers, backend, ray_address,
                 out_dir, agent_config, key_for_agent_config, matrix, replay, timeout,
                 kill_grace, hard_grace, retry_errors, max_steps, memory, knowledge, kb_path,
                 headed, allow_hosts, instance, share_instance, verify, verify_retries,
                 judge_model, config_path, api_key_env, base_url, model_name):
    """Evaluate on SUITE: miniwob, miniwob:<task>[,<task>], webarena, arena[:<apps>],
    arena:<file>.json, a WebArena .json file or a .yaml task file. Results go to
    STUDY_DIR/results.jsonl as they finish."""
    if instance is not None or share_instance:
        os.environ.update(arena_instance_env(suite, instance, workers, share_instance,
                                             listing=list_only))
    if list_only:
        choice = open_suite(suite)
        with choice.suite:
            for line in format_entries(choice.select(tasks)):
                click.echo(line)
        return 0
    from rich.console import Console

    from colorbrowser.evaluation.coordinator import StudyOptions, run_study
    from colorbrowser.run.flags import settings_from_flags

    items = matrix_items(matrix, cells)
    flags = {
        ("agent", "max_steps"): max_steps, ("agent", "memory"): memory,
        ("agent", "knowledge"): knowledge, ("paths", "knowledge"): kb_path,
        ("browser", "headless"): False if headed else None,
        ("browser", "allow_hosts"): allow_hosts,
        **verify_overrides(verify, verify_retries, judge_model),
    }
    from_file = agent_config_overrides(agent_config)
    keys, notes = study_endpoint_keys(agent_config, from_file, base_url, api_key_env,
                                      key_for_agent_config)
    overrides = {**from_file, **{k: v for k, v in flags.items() if v is not None}, **keys}
    settings = settings_from_flags(config_path, base_url, model_name, api_key_env, overrides)
    keys_only_as_told(settings, from_file, base_url, keys)
    console = Console(stderr=True)
    for note in notes:
        console.print(f"[yellow]note[/] {escape(note)}")
    study_dir = out_dir or default_study_dir(suite)
    options = StudyOptions(
        suite=suite, study_dir=study_dir, tasks=tasks, seeds=seeds, workers=workers,
        backend=backend, ray_address=ray_address, matrix=items, replay=replay,
        timeout=timeout, kill_grace=kill_grace, hard_grace=hard_grace,
        retry_errors=retry_errors, command=["colorbrowser", *sys.argv[1:]],
        # The task file's hosts stand in only where the person named none: a list from
        # their config or --allow-hosts is never widened by someone else's file.
        task_hosts=not settings.browser.allow_hosts)
    outcome = run_study(options, settings, console)
    console.print(f"[bold]{escape(outcome.line())}[/]")
    console.print(f"results: {escape(str(outcome.study_dir / 'results.jsonl'))}")
    for hint in error_hints(outcome.records):
        console.print(escape(hint))
    console.print(f"next: colorbrowser report {escape(str(outcome.study_dir))}")
    return 0
