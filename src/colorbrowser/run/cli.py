"""``colorbrowser run``: one episode on a live site, shown as it happens."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from pathlib import Path

import click
from rich.console import Console

from colorbrowser.destination import Destination, Source
from colorbrowser.errors import UserError
from colorbrowser.run.console import ConsoleHook, print_summary
from colorbrowser.run.factory import build_episode, new_run_dir
from colorbrowser.run.flags import (
    checked_start,
    help_options,
    knowledge_options,
    loop_console_hooks,
    loop_overrides,
    model_options,
    require_start_allowed,
    settings_from_flags,
    terminal_asker,
    verify_options,
    verify_overrides,
    workflow_options,
    workflow_overrides,
)
from colorbrowser.safe_text import escape


@click.command("run")
@click.argument("goal")
@click.option("--url", "start_url", required=True, help="Page to start from.")
@model_options
@click.option("--allow-hosts", default=None,
              help="Comma-separated hosts the agent may reach (example.com, *.example.com, "
                   "127.0.0.1:8103 for that port only); "
                   "every other host is refused, redirects and pop-ups included.")
@click.option("--allow-file-url", is_flag=True,
              help="Let --url be a local file: page. The agent's own actions still open "
                   "only http(s) pages.")
@click.option("--memory", type=click.Choice(["summary", "full", "none"]), default=None,
              help="summary: bounded Summarizer memory (default); full: whole history "
                   "(ablation); none: last actions only.")
@click.option("--summarizer-model", default=None,
              help="Model name for the Summarizer (same endpoint unless the config says).")
@click.option("--summary-budget", type=int, default=None, help="Summary size in tokens.")
@click.option("--max-steps", type=int, default=None, help="Step limit (default 30).")
@click.option("--max-cost", type=float, default=None, help="Stop when the cost reaches this.")
@click.option("--out", "out_dir", type=Destination("the run folder", folder=True), default=None,
              help="Run folder (default runs/<time>-<goal>).")
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@click.option("--output-schema", "output_schema", type=click.Path(dir_okay=False), default=None,
              help="JSON schema file the answer must fit; the answer is then JSON.")
@click.option("--profile", "profile_name", default=None,
              help="Start signed in with a login profile saved by `colorbrowser login`.")
@click.option("--confirm-risky", is_flag=True,
              help="Ask at the terminal before a risky action runs (the [[copilot.risk]] "
                   "policy: payments, deletions, forms that POST...).")
@knowledge_options
@help_options
@verify_options
@workflow_options
def run_command(goal, start_url, config_path, base_url, model_name, api_key_env, allow_hosts,
                allow_file_url, memory, summarizer_model, summary_budget, max_steps, max_cost,
                out_dir, headed, as_json, output_schema, profile_name, confirm_risky, verify,
                verify_retries, judge_model, workflows, learn_workflows,
                **loop_flags):
    """Let the agent work on GOAL starting at --url."""
    if not goal.strip():
        raise UserError("the goal is empty; say what the agent should do")
    start_url, trusted = checked_start(start_url, allow_file_url)
    output = None
    if output_schema is not None:
        from colorbrowser.agent.output import OutputSpec

        output = OutputSpec.from_file(output_schema)
    profile = None
    if profile_name is not None:
        from colorbrowser.run.profiles import load_profile

        profile = load_profile(profile_name)  # a missing or expired one says so now
    settings = settings_from_flags(
        config_path, base_url, model_name, api_key_env,
        {("agent", "max_steps"): max_steps, ("agent", "max_cost"): max_cost,
         ("agent", "memory"): memory, ("agent", "summary_budget"): summary_budget,
         ("summarizer_model", "model"): summarizer_model,
         ("browser", "headless"): False if headed else None,
         ("browser", "allow_hosts"): allow_hosts, ("browser", "trusted_pages"): trusted or None,
         **loop_overrides(**loop_flags),
         **verify_overrides(verify, verify_retries, judge_model),
         **workflow_overrides(workflows, learn_workflows)},
    )
    require_start_allowed(start_url, settings)
    console = Console(stderr=True)
    run_dir = Path(out_dir) if out_dir else new_run_dir(settings.paths.runs, goal)
    if (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} already holds a run; use `colorbrowser resume {run_dir}` "
                        "or another --out")
    with contextlib.ExitStack() as stack:
        episode = build_episode(goal, start_url, settings, stack, run_dir=run_dir,
                                hooks=loop_console_hooks(settings, console),
                                asker=terminal_asker(settings, console), output=output,
                                profile=profile)
        if confirm_risky:
            episode.hooks.append(risk_confirmation(settings, episode, console))
        result = episode.run()
    report_workflow(console, episode, result, settings)
    return _finish(console, episode, result, as_json)


def report_workflow(console: Console, episode, result, settings) -> None:
    """Which workflow ran and what it cost; a workflow learned from a verified run."""
    from colorbrowser.workflows.episode import after_run

    for line in after_run(episode.workflow, result, settings):
        console.print(f"[cyan]workflow[/] {escape(line)}")


def risk_confirmation(settings, episode, console: Console):
    """The approval policy, asking the person at this terminal."""
    from colorbrowser.hitl.risk import ConfirmRisky, RiskPolicy

    def confirm(question: str) -> bool:
        console.print(f"[yellow]risky[/] {escape(episode.redact(question))}")
        try:
            return click.confirm("run it", default=False, err=True)
        except click.exceptions.Abort:  # no terminal input left: do not run it
            return False

    env = episode.env
    _ = env.page  # the browser starts here: the request spy goes in before any page
    policy = RiskPolicy(settings.copilot.risk, lambda: env.page).install(env.session.context)
    return ConfirmRisky(policy, confirm, lambda: episode.obs)


def _finish(console: Console, episode, result, as_json: bool) -> int:
    """The end of a run or a resume: a user mistake as one line, else the summary."""
    if isinstance(episode.failure, UserError):  # e.g. an unreachable endpoint, a bad key
        raise episode.failure  # one `error:` line and exit 2; result.json is written
    result = dataclasses.replace(result, answer=episode.redact(result.answer),
                                 error=episode.redact(result.error))
    print_summary(console, result)
    if as_json:
        click.echo(json.dumps(result.to_json()))
    return 0 if result.status == "done" else 1


@click.command("resume")
@click.argument("run_dir", type=Source(file_okay=False))
@model_options
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
def resume_command(run_dir, config_path, base_url, model_name, api_key_env, headed, as_json):
    """Continue a run that was killed, from its last completed step."""
    from colorbrowser.run.resume import resume_episode

    current = settings_from_flags(config_path, base_url, model_name, api_key_env)
    console = Console(stderr=True)
    with contextlib.ExitStack() as stack:
        def note(text: str) -> None:
            console.print(f"[yellow]note[/] {escape(text)}")

        episode = resume_episode(Path(run_dir), current, stack, hooks=[ConsoleHook(console)],
                                 headed=headed, notice=note)
        console.print(f"[bold]resuming[/] at step {episode.state.step + 1}")
        result = episode.run()
    return _finish(console, episode, result, as_json)


@click.command("login")
@click.argument("site")
@click.option("--url", required=True, help="The site's sign-in page.")
@click.option("--panel", "use_panel", is_flag=True,
              help="Sign in through the copilot panel (the default without a display).")
@click.option("--config", "config_path", type=click.Path(dir_okay=False),
              help="Settings file (TOML).")
def login_command(site: str, url: str, use_panel: bool, config_path: str | None) -> None:
    """Sign in to a site once and save the session as the login profile SITE."""
    import os

    from colorbrowser.copilot.login import panel_wait
    from colorbrowser.run.login import capture_login, terminal_wait

    headed = not use_panel and bool(os.environ.get("DISPLAY") or
                                    os.environ.get("WAYLAND_DISPLAY"))
    settings = settings_from_flags(config_path, None, None, None,
                                   {("browser", "headless"): not headed})
    profile = capture_login(site, url, settings, terminal_wait if headed else panel_wait)
    cookies = len(profile.state.get("cookies") or [])
    click.echo(f"saved login profile {profile.name!r} ({cookies} cookies) to {profile.path}; "
               f"use it with `colorbrowser run --profile {profile.name} ...`", err=True)
