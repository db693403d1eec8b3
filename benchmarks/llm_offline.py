"""Offline model speed and memory: Q4_0 (what we serve) against the shipped Q4_1.

Both servers run in this process's run, one after the other, on the same
prompt, so the printed ratios compare like with like on this machine:

    PYTHONPATH=src python benchmarks/llm_offline.py [--calls 8]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from colorbrowser.config import ModelSettings
from colorbrowser.llm.client import OpenAIChatModel
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.offline import MODEL_ALIAS, OfflineServer
from colorbrowser.llm.tokens import smollm2_source
from colorbrowser.types import Message

SYSTEM = ("You operate a web browser. Think in one short sentence inside <think></think>, "
          "then give one action inside <action></action>, e.g. click('17').")


def page(step: int) -> str:
    """A different link order each step, like a new observation: no long cached prefix."""
    lines = [f"[{i}] link 'Blue socks, pack of {i % 7 + 1}, ${3 + i % 11}.99'"
             for i in range(10, 90)]
    random.Random(step).shuffle(lines)
    return "Goal: open the cheapest blue socks.\n" + "\n".join(lines)


def measure(label: str, cache: Path, model_path: Path | None, calls: int,
            progress: Progress) -> dict[str, float]:
    start = time.monotonic()
    with OfflineServer(cache, model_path=model_path) as server:
        ready = time.monotonic() - start
        model = OpenAIChatModel(ModelSettings(
            base_url=server.base_url, api_key=server.token, model=MODEL_ALIAS, vision="off",
            max_tokens=300), offline=True)
        constraint = action_constraint([str(i) for i in range(10, 90)], max_thought_chars=120)
        model.complete([Message("user", "hi")], max_tokens=2)  # warm-up
        prompt_s, gen_s, prompt_tok, gen_tok = [], [], 0, 0
        task = progress.add_task(label, total=calls)
        for i in range(calls):
            msgs = [Message("system", SYSTEM), Message("user", page(i))]
            # 1) the new prompt alone; 2) the constrained reply, its prompt now cached
            t = time.monotonic()
            first = model.complete(msgs, max_tokens=1)
            prompt_s.append(time.monotonic() - t)
            t = time.monotonic()
            reply = model.complete(msgs, constraint=constraint, temperature=0.7)
            gen_s.append(time.monotonic() - t)
            prompt_tok += first.usage.prompt_tokens
            gen_tok += reply.usage.completion_tokens
            progress.advance(task)
        step = [a + b for a, b in zip(prompt_s, gen_s, strict=True)]
        return {
            "server ready (s)": ready,
            "prompt tokens per step": prompt_tok / calls,
            "prompt processing (tok/s)": prompt_tok / sum(prompt_s),
            "reply tokens per step": gen_tok / calls,
            "constrained generation (tok/s)": gen_tok / sum(gen_s),
            "median step latency (s)": statistics.median(step),
            "server RSS (MB)": server.rss_bytes() / 2**20,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=8)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as tmp, Progress(console=console) as progress:
        cache = Path(tmp)
        q40 = measure("Q4_0 (served)", cache, None, args.calls, progress)
        q41 = measure("Q4_1 (shipped)", cache, smollm2_source(), args.calls, progress)
    table = Table(title="one agent step: new page (80 bids) + grammar-constrained action")
    for col in ("metric", "Q4_0", "Q4_1", "Q4_1 / Q4_0"):
        table.add_column(col)
    for key in q40:
        ratio = q41[key] / q40[key] if q40[key] else float("nan")
        table.add_row(key, f"{q40[key]:.1f}", f"{q41[key]:.1f}", f"{ratio:.2f}")
    console.print(table)
    console.print("Machine load changes these numbers; compare the ratio column.")


if __name__ == "__main__":
    main()
