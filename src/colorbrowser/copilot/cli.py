"""``colorbrowser copilot``: the agent proposes, a person in the panel approves,
rejects, edits, pauses and acts in the same browser."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

import click
from rich.console import Console

from colorbrowser.destination import Destination
from colorbrowser.errors import UserError
from colorbrowser.run.cli import _finish
from colorbrowser.run.console import ConsoleHook
from colorbrowser.run.factory import build_episode, new_run_dir
from colorbrowser.run.flags import (
    checked_start,
    knowledge_options,
    loop_overrides,
    model_options,
    require_start_allowed,
    settings_from_flags,
    verify_options,
    verify_overrides,
)
from colorbrowser.safe_text import escape


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@click.command("copilot")
@click.argument("goal")
@click.option("--url", "start_url", required=True, help="Page to start from.")
@model_options
@click.option("--mode", type=click.Choice(["copilot", "ask", "auto"]), default="copilot",
              show_default=True,
              help="copilot: every step counts down; ask: only when a trigger fires or the "
                   "action is risky; auto: only risky actions (with --confirm-risky).")
@click.option("--countdown", type=click.FloatRange(min=0, max=3600), default=5.0,
              show_default=True, help="Seconds before a proposal runs; 0: wait for approval.")
@click.option("--confirm-risky/--no-confirm-risky", default=True, show_default=True,
              help="Risky actions (config [[copilot.risk]]) wait for approval in auto mode.")
@click.option("--allow-hosts", default=None,
              help="Comma-separated hosts the agent may reach (host, *.domain, or host:port "
                   "for that port only); every other host is refused.")
@click.option("--remote-debugging-port", type=click.IntRange(1024, 65535), default=None,
              help="Expose the browser over CDP on 127.0.0.1 (for scripted persons).")
@click.option("--panel-port", type=click.IntRange(0, 65535), default=0,
              help="Port of the control panel on 127.0.0.1 (default: a free one).")
@click.option("--headed/--headless", default=None,
              help="Show the browser window (default: when a display exists).")
@click.option("--max-steps", type=int, default=None, help="Step limit (default 30).")
@click.option("--out", "out_dir", type=Destination("the run folder", folder=True), default=None,
              help="Run folder (default runs/<time>-<goal>).")
@click.option("--linger", type=click.FloatRange(min=0, max=86400), default=0.0,
              help="Keep the panel open this many seconds after the end (to set the "
                   "outcome); Stop in the panel closes it sooner.")
@click.option("--cleanup", is_flag=True,
              help="Let the model relabel your captured actions (drop noise, merge); it may "
                   "only drop or merge what was recorded.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")
@knowledge_options
@verify_options
def copilot_command(goal, start_url, config_path, base_url, model_name, api_key_env, mode,
                    countdown, confirm_risky, allow_hosts, remote_debugging_port, panel_port,
                    headed, max_steps, out_dir, linger, cleanup, as_json, knowledge, kb_path,
                    verify, verify_retries, judge_model):
    """Work on GOAL together: the agent proposes each step in a local panel."""
    from colorbrowser.copilot.asker import PanelAsker
    from colorbrowser.copilot.channel import Channel
    from colorbrowser.copilot.corrections import CorrectionTips
    from colorbrowser.copilot.episode import CopilotEpisode
    from colorbrowser.copilot.keep import WorkflowKeeper
    from colorbrowser.copilot.panel import PanelServer
    from colorbrowser.copilot.report import PanelReport
    from colorbrowser.copilot.wiring import attach_copilot
    from colorbrowser.hitl.risk import RiskPolicy
    from colorbrowser.knowledge.store import open_knowledge

    if not goal.strip():
        raise UserError("the goal is empty; say what the agent should do")
    start_url, _ = checked_start(start_url, False)
    headless = not headed if headed is not None else not has_display()
    settings = settings_from_flags(
        config_path, base_url, model_name, api_key_env,
        {("agent", "max_steps"): max_steps, ("browser", "headless"): headless,
         ("browser", "allow_hosts"): allow_hosts,
         ("browser", "remote_debugging_port"): remote_debugging_port,
         **loop_overrides(knowledge=knowledge, kb_path=kb_path),
         **verify_overrides(verify, verify_retries, judge_model)})
    require_start_allowed(start_url, settings, file_flag=False)  # no --allow-file-url here
    console = Console(stderr=True)
    run_dir = Path(out_dir) if out_dir else new_run_dir(settings.paths.runs, goal)
    if (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} already holds a run; choose another --out")
    with contextlib.ExitStack() as stack:
        kb = open_knowledge(settings, stack) if settings.agent.knowledge != "off" else None
        channel = Channel()
        made: list = []  # the copilot, once attached: the asker waits through its live view
        asker = PanelAsker(channel, lambda: made[0].live if made else None,
                           lambda command: made[0].other(command) if made else None)
        episode = build_episode(goal, start_url, settings, stack, run_dir=run_dir, kb=kb,
                                hooks=[ConsoleHook(console)], episode_type=CopilotEpisode,
                                asker=asker if mode != "auto" else None)  # auto: unwatched
        assert isinstance(episode, CopilotEpisode)
        env = episode.env
        _ = env.page  # the browser starts now: capture and the request spy before any page
        risk = RiskPolicy(settings.copilot.risk, lambda: env.page).install(env.session.context)
        copilot = attach_copilot(episode, env, mode=mode, countdown=countdown,
                                 risk=risk.check, confirm_risky=confirm_risky,
                                 channel=channel, cleanup=_cleanup(episode) if cleanup else None)
        made.append(copilot)
        report = PanelReport(copilot.channel.feed, copilot.live, mode=mode,
                             countdown=countdown,
                             kb=kb if settings.agent.knowledge == "on" else None)
        episode.hooks.insert(0, report)
        if kb is not None and settings.agent.knowledge == "on":
            episode.hooks.append(CorrectionTips(kb))
        keeper = WorkflowKeeper(copilot.channel.feed, run_dir, kb, lambda: report.result,
                                lambda: report.outcome)
        report.keepable = lambda: keeper.refusal() is None
        copilot.handlers.update(tip=report.on_tip, keep=keeper.on_keep,
                                outcome=_outcome(report, keeper,
                                                 settings.agent.learn_workflows))
        panel = stack.enter_context(PanelServer(copilot.channel, panel_port))
        console.print(f"[bold]panel[/] {escape(panel.url)}")
        if remote_debugging_port:
            console.print(f"[bold]browser[/] http://127.0.0.1:{remote_debugging_port} (CDP)")
        result = episode.run()
        _linger(copilot, linger)
        if report.metrics is not None and episode.trajectory is not None:
            episode.trajectory.write_result({**result.to_json(),
                                             "copilot": report.metrics.model_dump()})
    return _finish(console, episode, result, as_json)


def _outcome(report, keeper, learn: bool):
    """The panel's outcome; with ``learn_workflows`` on, "success" after the end is
    the person's approval too, and the run is kept as a workflow."""
    def on_outcome(command) -> None:
        report.on_outcome(command)
        if learn and command.outcome == "success" and report.result is not None:
            keeper.on_keep(command)
    return on_outcome


def _cleanup(episode):
    from colorbrowser.copilot.cleanup import Cleanup

    model = getattr(episode.decider, "model", None)
    return Cleanup(model) if model is not None else None


def _linger(copilot, seconds: float) -> None:
    """Keep the panel answering (outcome, tips) for a while after the end."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        command = copilot.channel.poll()
        if command is None:
            copilot.live.wait(50)
        elif command.kind == "stop":
            return
        else:
            copilot.other(command)
