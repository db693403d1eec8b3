"""Observation speed, token cost and coverage: ours against BrowserGym's, same run, same pages.

Pages: the generated corpus in benchmarks/corpus/ (served on 127.0.0.1) and five
MiniWoB++ tasks (seed 0). Each side runs in its own Chromium (same binary, flags and
viewport) because both write a ``bid`` attribute; BrowserGym runs in a subprocess
of the reference venv (see reference_venv.py, created on first use).

Timed, per observation, after one warm-up observation of the loaded page:
  ours   = ``BrowserEnv.observe()``: walker, element table, tree text, change
           summary, tabs, screenshot and the Set-of-Marks PNG;
  theirs = see browsergym_driver.py: mark, DOM snapshot, merged AX tree, focus,
           extra properties, unmark, screenshot, flattened text, SoM overlay.
Tokens: the tree text of each side (ours ``obs.axtree``, theirs the flattened AX
tree with BrowserGym's default options), counted with the SmolLM2 tokenizer.
Coverage: every control BrowserGym lists is one of our actionable elements with the
same role and name, and every text run it lists is in our text.

    PYTHONPATH=src python benchmarks/observation.py [--runs 15] [--pages big,article,...]

The last line is ``big page: time ratio X, token ratio Y, coverage Z%``.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from bench_shared import bid_paths, run_setup
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.launch import launch_options
from colorbrowser.config import BrowserSettings
from colorbrowser.llm.tokens import count_tokens, tokenizer_name
from colorbrowser.static_server import StaticServer
from obs_compare import Coverage, coverage

HERE = Path(__file__).parent
CORPUS = {"big": "big.html", "article": "article.html", "table": "table.html",
          "admin": "admin.html", "frames": "frames.html"}
MINIWOB = ["book-flight", "email-inbox", "social-media-all", "click-checkboxes-large",
           "enter-date"]
ALL_PAGES = [*CORPUS, *MINIWOB]
# MiniWoB's "Time left" display ticks every second; the two sides read the page at
# different moments, so it is frozen on both (the episode timer itself keeps running).
STOP_COUNTDOWN = "() => clearInterval(core.CD_TIMER)"
_URL_ATTR = re.compile(r", url='[^']*'")


@dataclass
class Side:
    times: list[float]
    first: float
    text: str
    tokens: int = 0
    tokens_no_urls: int = 0  # BrowserGym's text without its link URLs (ours has none)
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def p90(self) -> float:
        ordered = sorted(self.times)
        return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


@dataclass
class PageResult:
    name: str
    ours: Side
    theirs: Side | None = None
    cover: Coverage | None = None


class Reference:
    """The BrowserGym driver process: one browser, kept for the whole run."""

    def __init__(self, python: Path, launch: dict[str, Any], viewport: tuple[int, int]) -> None:
        self.proc = subprocess.Popen(
            [str(python), str(HERE / "browsergym_driver.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, bufsize=1)
        self._send({"cmd": "launch", "launch": launch, "viewport": list(viewport)})
        self._reply()

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the BrowserGym driver stopped (see its error output above)")
        return json.loads(line)

    def call(self, message: dict[str, Any]) -> dict[str, Any]:
        self._send(message)
        return self._reply()

    def close(self) -> None:
        try:
            self._send({"cmd": "quit"})
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def setup_steps(name: str, corpus_url: str, miniwob_url: str | None) -> list[list[Any]]:
    if name in CORPUS:
        return [["goto", f"{corpus_url}/{CORPUS[name]}"]]
    from colorbrowser.evaluation import miniwob

    return [["goto", f"{miniwob_url}/miniwob/{name}.html"], ["wait", miniwob._LOADED_JS],
            ["eval", miniwob._START_JS, {"seed": 0, "ms": miniwob.DEFAULT_EPISODE_MS}],
            ["wait", miniwob._READY_JS], ["eval", STOP_COUNTDOWN]]


def measure(env: BrowserEnv, reference: Reference | None, steps: list[list[Any]],
            runs: int, on_progress) -> PageResult:
    """Open the page on both sides, then alternate one timed observation each, so that
    load from elsewhere on the machine falls on both sides alike."""
    env.reset("about:blank")
    run_setup(env.page, steps)
    started = time.perf_counter()
    env.observe()  # warm-up; the first call gives out the bids
    ours = Side(times=[], first=(time.perf_counter() - started) * 1000, text="")
    theirs = parts = None
    if reference is not None:
        theirs = Side(times=[], first=reference.call({"cmd": "open", "setup": steps})["first"],
                      text="")
        parts = []
    for _ in range(runs):
        started = time.perf_counter()
        obs = env.observe()
        ours.times.append((time.perf_counter() - started) * 1000)
        if reference is not None:
            reply = reference.call({"cmd": "observe"})
            theirs.times.append(reply["ms"])
            parts.append(reply["parts"])
        on_progress()
    ours.text = obs.axtree
    ours.tokens = count_tokens(ours.text)
    result = PageResult("", ours)
    if reference is not None:
        final = reference.call({"cmd": "close"})
        theirs.text = final["text"]
        theirs.tokens = count_tokens(theirs.text)
        theirs.tokens_no_urls = count_tokens(_URL_ATTR.sub("", theirs.text))
        theirs.parts = median_parts(parts)
        result.theirs = theirs
        result.cover = coverage(final, obs, ours.text, bid_paths(env.page))
    return result


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def report(console: Console, results: list[PageResult], runs: int) -> None:
    table = Table(title=f"Observation per page: median / p90 ms over {runs} runs; tokens "
                        f"({tokenizer_name()})")
    for col in ("page", "ours ms", "BrowserGym ms", "time ratio", "ours tokens",
                "BrowserGym tokens", "token ratio", "vs BG w/o URLs", "controls", "text"):
        table.add_column(col, justify="left" if col == "page" else "right",
                         no_wrap=col == "page")
    for r in results:
        o, t = r.ours, r.theirs
        ours_ms = f"{o.median:.0f} / {o.p90:.0f}"
        if t is None or r.cover is None:
            table.add_row(r.name, ours_ms, "-", "-", f"{o.tokens:,}", "-", "-", "-", "-", "-")
            continue
        c = r.cover
        table.add_row(
            r.name, ours_ms, f"{t.median:.0f} / {t.p90:.0f}", ratio(o.median, t.median),
            f"{o.tokens:,}", f"{t.tokens:,}", ratio(o.tokens, t.tokens),
            ratio(o.tokens, t.tokens_no_urls), f"{c.controls_ok}/{c.controls}",
            f"{c.texts_ok}/{c.texts}")
    console.print(table)
    first = Table(title="First observation of a freshly loaded page (ms)")
    for col in ("page", "ours", "BrowserGym", "ratio"):
        first.add_column(col, justify="left" if col == "page" else "right")
    for r in results:
        theirs = f"{r.theirs.first:.0f}" if r.theirs else "-"
        first.add_row(r.name, f"{r.ours.first:.0f}", theirs,
                      ratio(r.ours.first, r.theirs.first) if r.theirs else "-")
    console.print(first)
    parts = [r for r in results if r.theirs and r.theirs.parts]
    if parts:
        split = Table(title="Where BrowserGym's time goes (median ms)")
        keys = list(parts[0].theirs.parts)
        split.add_column("page")
        for k in keys:
            split.add_column(k, justify="right")
        for r in parts:
            split.add_row(r.name, *(f"{r.theirs.parts.get(k, 0):.0f}" for k in keys))
        console.print(split)


def median_parts(runs: list[dict[str, float]]) -> dict[str, float]:
    keys = runs[0].keys() if runs else []
    return {k: statistics.median(run.get(k, 0.0) for run in runs) for k in keys}


def final_line(results: list[PageResult]) -> str:
    big = next((r for r in results if r.name == "big"), None)
    if big is None or big.theirs is None or big.cover is None:
        return "big page: time ratio n/a, token ratio n/a, coverage n/a"
    return (f"big page: time ratio {big.ours.median / big.theirs.median:.2f}, "
            f"token ratio {big.ours.tokens / big.theirs.tokens:.2f}, "
            f"coverage {big.cover.pct:.1f}%")


def parse_pages(value: str) -> list[str]:
    if value == "all":
        return list(ALL_PAGES)
    names = [n.strip() for n in value.split(",") if n.strip()]
    unknown = [n for n in names if n not in ALL_PAGES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown page {', '.join(unknown) or '(none)'}; choose from {', '.join(ALL_PAGES)}")
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed observations per page")
    parser.add_argument("--pages", type=parse_pages, default=ALL_PAGES,
                        help=f"comma-separated, or 'all': {','.join(ALL_PAGES)}")
    parser.add_argument("--no-reference", action="store_true",
                        help="measure ours only (quick checks; no ratios)")
    parser.add_argument("--show-misses", action="store_true",
                        help="list every control or text BrowserGym has and ours lacks")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    console = Console()
    if console.width < 150:  # logs and pipes: keep the tables whole
        console = Console(width=150)

    settings = BrowserSettings()
    viewport = (settings.viewport_width, settings.viewport_height)
    reference = None
    if not args.no_reference:
        import reference_venv

        try:
            python = reference_venv.ensure(console)
        except (OSError, RuntimeError) as exc:
            console.print(f"[red]cannot prepare the BrowserGym reference venv:[/] {exc}")
            return 1
        reference = Reference(python, launch_options(settings), viewport)
    corpus = StaticServer(HERE / "corpus").start()
    miniwob_server = None
    if any(p in MINIWOB for p in args.pages):
        from colorbrowser.evaluation.miniwob import html_dir

        miniwob_server = StaticServer(html_dir()).start()
    results: list[PageResult] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    try:
        with BrowserEnv(settings) as env, Progress(*columns, console=console, transient=True,
                                                   refresh_per_second=4) as progress:
            overall = progress.add_task("pages", total=len(args.pages))
            for name in args.pages:
                steps = setup_steps(name, corpus.url,
                                    miniwob_server.url if miniwob_server else None)
                task = progress.add_task(name, total=args.runs)
                result = measure(env, reference, steps, args.runs,
                                 lambda t=task: progress.advance(t))
                result.name = name
                progress.remove_task(task)
                results.append(result)
                progress.advance(overall)
    finally:
        if reference is not None:
            reference.close()
        corpus.stop()
        if miniwob_server is not None:
            miniwob_server.stop()

    report(console, results, args.runs)
    if args.show_misses:
        for r in results:
            for miss in (r.cover.misses if r.cover else [])[:60]:
                console.print(f"[yellow]{r.name}[/]: {miss}", markup=True, highlight=False)
    covered = [r.cover for r in results if r.cover]
    if covered:
        controls = sum(c.controls_ok for c in covered), sum(c.controls for c in covered)
        texts = sum(c.texts_ok for c in covered), sum(c.texts for c in covered)
        console.print(f"all pages: controls covered {controls[0]}/{controls[1]}, "
                      f"text runs covered {texts[0]}/{texts[1]}")
    print(final_line(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
