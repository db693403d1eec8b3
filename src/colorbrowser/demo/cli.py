"""``colorbrowser demo``: the agent on the bundled shop, with the offline model by default.

It serves the shop on 127.0.0.1, loads the shop's tips into a fresh knowledge base,
runs one episode and shows it step by step; the run folder holds the trajectory.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
from rich.console import Console

from colorbrowser.agent.cli import model_options, settings_from_flags
from colorbrowser.agent.console import ConsoleHook, print_summary
from colorbrowser.agent.factory import build_episode, new_run_dir
from colorbrowser.static_server import StaticServer

SITE = Path(__file__).parent / "site"
DEFAULT_GOAL = "What is the price of the wool hiking socks?"


@click.command("demo")
@click.option("--goal", default=DEFAULT_GOAL, show_default=True)
@model_options
@click.option("--max-steps", type=int, default=8, show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None)
@click.option("--headed", is_flag=True, help="Show the browser window.")
def demo_command(goal, config_path, base_url, model_name, api_key_env, max_steps, out_dir, headed):
    """Run the agent on the bundled demo shop."""
    settings = settings_from_flags(
        config_path, base_url, model_name, api_key_env,
        {("agent", "max_steps"): max_steps, ("browser", "headless"): False if headed else None},
    )
    console = Console(stderr=True)
    run_dir = Path(out_dir) if out_dir else new_run_dir(settings.paths.runs, f"demo {goal}")
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(StaticServer(SITE))
        console.print(f"[bold]demo shop[/] {server.url}/index.html")
        episode = build_episode(goal, f"{server.url}/index.html", settings, stack,
                                run_dir=run_dir, hooks=[ConsoleHook(console)])
        result = episode.run()
    print_summary(console, result)
    return 0
