"""Operator prompt size per step over a 40-step scripted episode: Summarizer memory
(default) against the full-history ablation.

The agent walks the demo shop on 127.0.0.1 in a fixed 5-page cycle, so steps 5 and 40
show the same page and any difference in prompt size comes from memory alone. The
Operator and the Summarizer are scripted (the summarizer's replies grow a progress
list every step and add a fact every fifth step, as a real model's would). Tokens are
counted with the offline model's tokenizer.

    python benchmarks/prompt_growth.py [--steps 40]

The last line reads ``flatness summary=<step40/step5> full=<step40/step5>``; summary
mode should stay within 15% while full mode grows.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.memory import FullHistory
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.summarizer import Summarizer
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.llm.tokens import count_tokens, tokenizer_name
from colorbrowser.protocols import Hook
from colorbrowser.static_server import StaticServer
from colorbrowser.testing import act

SITE = Path(__file__).resolve().parents[1] / "src" / "colorbrowser" / "demo" / "site"
CYCLE = ["index.html", "category.html?c=Socks", "product.html?id=3", "category.html?c=Shoes",
         "cart.html"]
REPORT_AT = (1, 5, 10, 20, 30, 40)


def summarizer_replies(steps: int) -> list[str]:
    replies = []
    for i in range(1, steps + 1):
        replies.append(json.dumps({
            "progress": [f"visited page {j} of the cycle and checked its prices" for j in
                         range(1, i + 1)],
            "facts": [f"price seen at step {j}: ${10 + j}.50" for j in range(5, i + 1, 5)],
            "state": "On a catalogue page; the category links and the cart link matter next.",
            "on_track": True, "tip_violations": [], "guidance": "",
        }))
    return replies


def run(mode: str, steps: int, base: str, env: BrowserEnv, progress, task) -> list[int]:
    replies = [act(f"Next I look at {CYCLE[i % len(CYCLE)]}.",
                   f"goto('{base}/{CYCLE[i % len(CYCLE)]}')") for i in range(1, steps + 1)]
    operator_model = ScriptedModel(replies)
    memory = (Summarizer(ScriptedModel(summarizer_replies(steps)), budget=500,
                         count_tokens=count_tokens)
              if mode == "summary" else FullHistory())
    episode = Episode("Check the price of every product shown on the pages of the shop",
                      env, Operator(operator_model),
                      settings=AgentSettings(max_steps=steps, memory=mode),
                      start_url=f"{base}/{CYCLE[0]}", memory=memory)

    class Tick(Hook):
        def after_step(self, *args):
            progress.advance(task)

    episode.hooks.append(Tick())
    episode.run()
    sizes = []
    for call in operator_model.calls:
        sizes.append(sum(count_tokens(m.content) for m in call.messages))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args(argv)
    if args.steps < 5:
        parser.error("--steps must be at least 5")
    console = Console()
    results: dict[str, list[int]] = {}
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(StaticServer(SITE))
        env = stack.enter_context(BrowserEnv(BrowserSettings(screenshots=False)))
        with Progress(console=console) as progress:
            for mode in ("summary", "full"):
                task = progress.add_task(f"{mode} memory", total=args.steps)
                results[mode] = run(mode, args.steps, server.url, env, progress, task)
    table = Table(title=f"Operator prompt tokens per step ({tokenizer_name()})")
    table.add_column("step", justify="right")
    for mode in results:
        table.add_column(mode, justify="right")
    for step in [s for s in REPORT_AT if s <= args.steps] + ([args.steps]
                                                               if args.steps not in REPORT_AT
                                                               else []):
        table.add_row(str(step), *(str(results[m][step - 1]) for m in results))
    console.print(table)
    last = args.steps
    flat = {m: results[m][last - 1] / results[m][4] for m in results}
    print(f"flatness summary={flat['summary']:.2f} full={flat['full']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
