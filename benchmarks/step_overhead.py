"""Time and memory a step costs outside the model, on MiniWoB++ pages.

Runs the real episode loop (``build_episode``: Operator prompt, memory, hooks,
trajectory written to a temporary run folder with screenshots) with a scripted
model that replies at once with cheap valid actions read from the prompt it gets:
click, fill, select, check, hover, scroll, and stop() on the last step of an
episode. Episodes rotate over five tasks in one browser, as an evaluation run does.

Per step: wall time of ``Episode.step`` minus the time spent inside the model call
(so: observe + prompt + execute + record). Memory at steps 10 and 100: RSS of this
Python process, and the proportional set size (PSS, shared pages split fairly) of
this process plus every process under it (the Playwright driver and Chromium).

    PYTHONPATH=src python benchmarks/step_overhead.py [--steps 100] [--per-episode 10]

The last line is ``step overhead median_ms=X rss_growth=Y%`` (Y: the total PSS).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import Settings
from colorbrowser.evaluation.miniwob import MiniWobSuite, MiniWobTask
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.run.factory import build_episode
from colorbrowser.testing import act
from colorbrowser.types import ActionResult, Message, Observation

TASKS = ["click-checkboxes", "enter-text", "choose-list", "social-media", "email-inbox"]
_CONTROL = re.compile(r"^\s*\*?\[(\w+)\] (button|link|checkbox|radio|textbox|searchbox|"
                      r"combobox|listbox|generic|spinbutton)\b(.*)$", re.M)
_OPTIONS = re.compile(r"options=\[(.*?)\]")
_STEP = re.compile(r"\(step (\d+) of at most (\d+)\)")


class TaskEnv:
    """The shared BrowserEnv, with ``reset`` opening a seeded MiniWoB episode."""

    def __init__(self, env: BrowserEnv, task: MiniWobTask) -> None:
        self.env, self.task = env, task

    def reset(self, url: str | None = None) -> Observation:
        self.env.reset()
        self.task.setup(self.env.page)
        return self.env.observe()

    def observe(self) -> Observation:
        return self.env.observe()

    def step(self, action) -> ActionResult:
        return self.env.step(action)

    def close(self) -> None:
        self.task.teardown()


class CheapActions:
    """Scripted replies: a different cheap, valid action each step, on an element the
    last observation shows as visible and actionable (Submit is left alone: it ends
    the MiniWoB episode and covers the task)."""

    def __init__(self, env: BrowserEnv) -> None:
        self.env = env
        self.calls = 0
        self.model_s = 0.0  # time spent producing replies: the "model call"

    def __call__(self, messages: list[Message]) -> str:
        started = time.perf_counter()
        self.calls += 1
        prompt = messages[-1].content
        m = _STEP.search(prompt)
        if m and m.group(1) == m.group(2):
            reply = act("last step", "stop('done')")
        else:
            reply = act("try something", self._pick(prompt, self.calls))
        self.model_s += time.perf_counter() - started
        return reply

    def _pick(self, prompt: str, n: int) -> str:
        obs = self.env.last_observation
        usable = {b for b, e in (obs.elements if obs else {}).items()
                  if e.interactive and e.visible and "submit" not in e.name.lower()}
        controls = [c for c in _CONTROL.findall(prompt) if c[0] in usable]
        if not controls or n % 5 == 4:
            return "scroll(0, 50)" if n % 2 else "scroll(0, -50)"
        bid, role, rest = controls[n % len(controls)]
        if role in ("textbox", "searchbox", "spinbutton"):
            return f"fill('{bid}', '{n}')"
        if role == "combobox" and (m := _OPTIONS.search(rest)):
            first = m.group(1).split(",")[0].strip()
            return f"select_option('{bid}', {first})"
        if role in ("checkbox", "radio"):
            return f"check('{bid}')"
        return f"hover('{bid}')" if n % 3 == 0 else f"click('{bid}')"


def _status_kb(pid: int, field: str, name: str = "status") -> int:
    try:
        text = Path(f"/proc/{pid}/{name}").read_text()
    except OSError:
        return 0
    m = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(m.group(1)) if m else 0


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (the Playwright driver, Chromium and its helpers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@dataclass
class Memory:
    python_rss_mb: float
    total_pss_mb: float
    processes: int


def memory() -> Memory:
    gc.collect()
    me = os.getpid()
    others = descendants(me)
    pss = sum(_status_kb(p, "Pss", "smaps_rollup") for p in [me, *others])
    return Memory(_status_kb(me, "VmRSS") / 1024, pss / 1024, 1 + len(others))


def growth(a: float, b: float) -> float:
    return 100.0 * (b - a) / a if a else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--per-episode", type=int, default=10)
    args = parser.parse_args(argv)
    if args.steps < 10 or args.per_episode < 2:
        parser.error("--steps must be at least 10 and --per-episode at least 2")
    console = Console()
    if console.width < 110:
        console = Console(width=110)

    settings = Settings()
    settings.agent.memory = "full"  # no model calls for memory: only the step is measured
    settings.agent.max_steps = args.per_episode
    overhead: list[float] = []
    parts: dict[str, list[float]] = {"observe": [], "execute": [], "other": []}
    marks: dict[int, Memory] = {}
    suite = MiniWobSuite()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with tempfile.TemporaryDirectory() as tmp, BrowserEnv(settings.browser) as env, \
            Progress(*columns, console=console, transient=True,
                     refresh_per_second=4) as progress:
        bar = progress.add_task("steps", total=args.steps)
        replies = CheapActions(env)
        episode_no = 0
        while len(overhead) < args.steps:
            name = TASKS[episode_no % len(TASKS)]
            task = suite.task(name, seed=episode_no)
            progress.update(bar, description=f"steps ({name})")
            with contextlib.ExitStack() as stack:
                model = ScriptedModel([replies] * (3 * args.per_episode))  # room for retries
                episode = build_episode(
                    f"explore {name}", task.url, settings, stack,
                    run_dir=Path(tmp) / f"{episode_no:03d}-{name}", model=model,
                    env=TaskEnv(env, task))
                while episode.state.status == "running" and len(overhead) < args.steps:
                    before = replies.model_s
                    started = time.perf_counter()
                    record = episode.step()
                    wall = time.perf_counter() - started
                    model_s = replies.model_s - before
                    overhead.append((wall - model_s) * 1000)
                    timings = record.timings
                    parts["observe"].append(timings["observe"] * 1000)
                    parts["execute"].append(timings["execute"] * 1000)
                    parts["other"].append(overhead[-1] - parts["observe"][-1]
                                          - parts["execute"][-1])
                    progress.advance(bar)
                    if os.environ.get("STEP_DEBUG"):
                        console.print(record.action, record.result.error,
                                      f"{overhead[-1]:.0f}", timings)
                    if len(overhead) in (10, args.steps):
                        marks[len(overhead)] = memory()
                task.teardown()
            episode_no += 1
    suite.close()

    table = Table(title=f"Step overhead over {len(overhead)} steps ({episode_no} episodes, "
                        f"MiniWoB: {', '.join(TASKS)})")
    for col in ("", "median ms", "p90 ms", "mean ms"):
        table.add_column(col, justify="left" if not col else "right")
    for label, values in [("step without the model", overhead),
                          *((f"  {k}", v) for k, v in parts.items())]:
        ordered = sorted(values)
        table.add_row(label, f"{statistics.median(values):.1f}",
                      f"{ordered[round(0.9 * (len(ordered) - 1))]:.1f}",
                      f"{statistics.fmean(values):.1f}")
    console.print(table)
    first, last = marks[10], marks[args.steps]
    mem = Table(title="Memory")
    for col in ("", "step 10", f"step {args.steps}", "growth"):
        mem.add_column(col, justify="left" if not col else "right")
    rss = growth(first.python_rss_mb, last.python_rss_mb)
    mem.add_row("Python process RSS (MB)", f"{first.python_rss_mb:.1f}",
                f"{last.python_rss_mb:.1f}", f"{rss:+.1f}%")
    mem.add_row(f"Python + driver + Chromium PSS (MB, {last.processes} processes)",
                f"{first.total_pss_mb:.1f}", f"{last.total_pss_mb:.1f}",
                f"{growth(first.total_pss_mb, last.total_pss_mb):+.1f}%")
    console.print(mem)
    print(f"step overhead median_ms={statistics.median(overhead):.1f} "
          f"rss_growth={growth(first.total_pss_mb, last.total_pss_mb):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
