"""The copilot gate's timing and its race safety, with the real panel server.

The gate runs on this thread and waits in ``wait_for_timeout`` slices on a real
Chromium page, as in ``colorbrowser copilot``; the panel (Starlette on uvicorn)
serves its own thread; commands come over HTTP like the panel's buttons send them.

- **countdown accuracy**: proposals with a countdown and no answer; the error is the
  time from the proposal to the verdict minus the countdown (target within 100 ms);
- **pause latency**: the panel page, in a second Chromium driven from another thread,
  has its Pause button clicked while a proposal waits; the latency is from the click
  (the page's clock) to the gate having handed over (target p95 under 100 ms);
- **races**: proposals with a short countdown, and a pause or a reject sent over HTTP
  at a random moment near its end (from 30 ms before to 30 ms after). A command the
  panel accepted while the proposal was waiting must stop it: ``ran_after_pause``
  counts the proposals that ran although a pause or reject for them had been
  accepted (target 0). Answers that came too late are refused with 409 and counted
  apart, as are proposals that ran before the command arrived.

    PYTHONPATH=src python benchmarks/gate.py [--races 1000] [--countdowns 30] [--pauses 50]

The last line is ``gate: countdown_err_ms X pause_p95_ms Y races N ran_after_pause K``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time

import httpx
from playwright.sync_api import sync_playwright
from rich.console import Console
from rich.table import Table

from colorbrowser.browser.launch import launch_options
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.copilot.channel import Channel
from colorbrowser.copilot.gate import CopilotGate
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.panel import PanelServer
from colorbrowser.gate import HandOver, Reject, Run
from colorbrowser.steps import Decision, StepContext
from colorbrowser.types import Action


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


class Bench:
    def __init__(self, countdown: float) -> None:
        self.browser = BrowserSession(BrowserSettings()).start()
        self.channel = Channel()
        self.live = Live(lambda: self.browser.page, self.channel.feed)
        self.gate = CopilotGate(self.channel, self.live, countdown=countdown)
        self.panel = PanelServer(self.channel).start()
        self.http = httpx.Client(headers={"X-Token": self.panel.token}, timeout=10)
        self.step = 0

    def propose(self, drain: bool = True) -> tuple[object, float]:
        """One proposal; (verdict, wall time it was given)."""
        self.step += 1
        decision = Decision("bench", Action("scroll", [0, 1]), "")
        verdict = self.gate.review(None, StepContext(step=self.step), decision)  # type: ignore[arg-type]
        held = time.time()
        while drain and self.channel.poll() is not None:  # leftovers hold no later proposal
            pass
        return verdict, held

    def waiting(self, after: int, timeout: float = 10) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            p = self.channel.feed.latest.get("proposal")
            if p and p["id"] > after and not p.get("done"):
                return p
            time.sleep(0.001)
        raise RuntimeError("no proposal")

    def close(self) -> None:
        self.http.close()
        self.panel.close()
        self.browser.close()


def countdown_errors(bench: Bench, n: int, countdown: float) -> list[float]:
    bench.gate.countdown = countdown
    errors = []
    for _ in range(n):
        started = time.monotonic()
        verdict, _ = bench.propose()
        assert isinstance(verdict, Run)
        errors.append((time.monotonic() - started) * 1000 - countdown * 1000)
    return errors


def pause_latencies(bench: Bench, n: int, rng: random.Random) -> list[float]:
    """Click Pause on the real panel page, from a second browser on another thread."""
    bench.gate.countdown = 10.0
    clicks: list[float] = []
    ready = threading.Event()
    failure: list[BaseException] = []

    def person() -> None:
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**launch_options(BrowserSettings()))
                page = browser.new_page()
                page.goto(bench.panel.url)
                ready.set()
                last = 0
                for _ in range(n):
                    proposal = bench.waiting(last)
                    last = proposal["id"]
                    page.wait_for_timeout(rng.randint(100, 300))
                    clicks.append(page.evaluate(
                        "() => { const t = Date.now(); document.getElementById('pause').click();"
                        " return t; }") / 1000)
                browser.close()
        except BaseException as exc:  # reported on the main thread
            failure.append(exc)
            ready.set()

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    ready.wait(30)
    held: list[float] = []
    for _ in range(n):
        if failure:
            raise failure[0]
        verdict, at = bench.propose()
        assert isinstance(verdict, HandOver), verdict
        held.append(at)
    thread.join(30)
    return [(h - c) * 1000 for h, c in zip(held, clicks, strict=True)]


def races(bench: Bench, n: int, countdown: float, rng: random.Random) -> dict[str, int]:
    """Pause or reject near the end of the countdown; an accepted one must hold."""
    bench.gate.countdown = countdown
    counts = {"held": 0, "refused late": 0, "ran before": 0, "ran after accepted": 0}
    answered: dict[int, int] = {}  # proposal -> the proposal waiting when accepted, -1 refused
    done = threading.Event()

    def sender() -> None:
        last = 0
        for _ in range(n):
            proposal = bench.waiting(last)  # polled every millisecond: about when it opened
            seen, last = time.monotonic(), proposal["id"]
            kind = rng.choice(["pause", "reject"])
            time.sleep(max(0.0, seen + countdown + rng.uniform(-0.03, 0.03) - time.monotonic()))
            reply = bench.http.post(f"{bench.panel.base}/command/{kind}",
                                    json={"proposal": last} if kind == "reject" else {})
            data = reply.json()
            answered[last] = data.get("proposal", 0) if data.get("ok") else -1
        done.set()

    thread = threading.Thread(target=sender, daemon=True)
    thread.start()
    for _ in range(n):
        verdict, _ = bench.propose(drain=False)
        pid = bench.channel.feed.latest["proposal"]["id"]
        while pid not in answered and thread.is_alive():
            time.sleep(0.001)  # the command for this proposal is still on its way
        while bench.channel.poll() is not None:  # a late pause must not hold the next one
            pass
        accepted = answered.get(pid, -1)
        if isinstance(verdict, HandOver | Reject):
            counts["held"] += 1
        elif accepted == pid:
            counts["ran after accepted"] += 1  # accepted while it waited, yet it ran
        elif accepted == -1:
            counts["refused late"] += 1
        else:
            counts["ran before"] += 1  # it had run when the pause came: the next step holds
    done.wait(10)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--countdowns", type=int, default=30)
    parser.add_argument("--pauses", type=int, default=50)
    parser.add_argument("--races", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    bench = Bench(countdown=1.0)
    try:
        errors = countdown_errors(bench, args.countdowns, 1.0)
        latencies = pause_latencies(bench, args.pauses, rng)
        counts = races(bench, args.races, 0.15, rng)
    finally:
        bench.close()
    table = Table(title="copilot gate", title_justify="left")
    for name in ("measure", "n", "median", "p95", "max"):
        table.add_column(name, justify="left" if name == "measure" else "right")
    table.add_row("countdown error, ms", str(len(errors)), f"{statistics.median(errors):.1f}",
                  f"{pct([abs(e) for e in errors], 0.95):.1f}", f"{max(map(abs, errors)):.1f}")
    table.add_row("pause latency, ms", str(len(latencies)),
                  f"{statistics.median(latencies):.1f}", f"{pct(latencies, 0.95):.1f}",
                  f"{max(latencies):.1f}")
    console = Console(width=120)
    console.print(table)
    console.print("races: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"gate: countdown_err_ms {pct([abs(e) for e in errors], 0.95):.1f} "
          f"pause_p95_ms {pct(latencies, 0.95):.1f} races {args.races} "
          f"ran_after_pause {counts['ran after accepted']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
