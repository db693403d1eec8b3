"""``colorbrowser demo``: the agent on the bundled shop, with the offline model by default.

It serves the shop on 127.0.0.1, loads the shop's tips into a fresh knowledge base,
runs one episode and shows it step by step; the run folder holds the trajectory.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import click
from rich.console import Console

from colorbrowser.destination import Destination
from colorbrowser.knowledge.aliases import SiteAliases
from colorbrowser.knowledge.tip import Tip
from colorbrowser.run.console import print_summary
from colorbrowser.run.factory import build_episode, new_run_dir
from colorbrowser.run.flags import (
    help_options,
    loop_console_hooks,
    model_options,
    settings_from_flags,
    terminal_asker,
    verify_options,
    verify_overrides,
)
from colorbrowser.safe_text import escape
from colorbrowser.static_server import StaticServer

SITE = Path(__file__).parent / "site"
TIPS = Path(__file__).parent / "tips.yaml"
SHOP_BASE = "http://shop.local/"  # how tips name the shop, wherever it is served
DEFAULT_GOAL = "What is the price of the wool hiking socks?"


def shop_tips() -> list[Tip]:
    from colorbrowser.knowledge.exchange import read_tips_file

    return read_tips_file(TIPS)


def shop_aliases(served_url: str) -> SiteAliases:
    """The shop's tips (written for SHOP_BASE) apply at this run's port and token path."""
    return SiteAliases.of({served_url: SHOP_BASE})


@click.command("demo")
@click.option("--goal", default=DEFAULT_GOAL, show_default=True)
@model_options
@click.option("--max-steps", type=int, default=8, show_default=True)
@click.option("--out", "out_dir", type=Destination("the run folder", folder=True), default=None)
@click.option("--headed", is_flag=True, help="Show the browser window.")
@click.option("--knowledge", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="off: run without the shop's tips (to compare).")
@help_options
@verify_options
def demo_command(goal, config_path, base_url, model_name, api_key_env, max_steps, out_dir, headed,
                 knowledge, interactive, critic_every, verify, verify_retries, judge_model):
    """Run the agent on the bundled demo shop, with the shop's tips and shortcuts."""
    from colorbrowser.knowledge.store import KnowledgeBase

    settings = settings_from_flags(
        config_path, base_url, model_name, api_key_env,
        {("agent", "max_steps"): max_steps, ("browser", "headless"): False if headed else None,
         ("agent", "knowledge"): knowledge, ("hitl", "interactive"): interactive,
         ("hitl", "critic_every"): critic_every,
         **verify_overrides(verify, verify_retries, judge_model)},
    )
    console = Console(stderr=True)
    run_dir = Path(out_dir) if out_dir else new_run_dir(settings.paths.runs, f"demo {goal}")
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(StaticServer(SITE))
        console.print(f"[bold]demo shop[/] {server.url}/index.html")
        kb = None
        if knowledge == "on":
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="colorbrowser-demo-"))
            kb = KnowledgeBase.open(Path(folder) / "knowledge.db",
                                    embeddings=settings.agent.tips_embeddings)
            stack.callback(kb.close)
            tips = shop_tips()
            kb.add_many(tips)
            console.print(f"[bold]shop tips[/] {len(tips)} loaded into a temporary knowledge "
                          f"base: {escape(', '.join(t.id for t in tips))}")
        episode = build_episode(goal, f"{server.url}/index.html", settings, stack,
                                run_dir=run_dir, kb=kb, site_aliases=shop_aliases(server.url),
                                hooks=loop_console_hooks(settings, console),
                                asker=terminal_asker(settings, console))
        result = episode.run()
    print_summary(console, result)
    return 0
