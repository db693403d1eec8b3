"""How well a person's input becomes the agent's actions: our capture and normaliser
against a CowPilot-like debounce, on scripted human sessions in real Chromium.

The corpus (``capture_sessions.py``, ``capture_arena.py``, ``capture_arena_inputs.py``;
a session run and replayed by ``capture_run.py``):
sessions on local pages (``capture_pages/`` and the tests' ``inputs.html``, served on
127.0.0.1) and sessions on the arena's real apps (Trac, MediaWiki, Redmine, Spirit,
Oscar), where a scripted
person acts with real mouse and keyboard input (per-character typing with typos and
backspaces, keys only, selects by arrow keys or by mouse, wheel bursts, hovers, double
clicks, middle clicks, new tabs, reloads, typed addresses, the back button). Every
session has hand-labelled expected actions; most of the arena's sessions are the
held-out half, labelled before the normaliser ran on them. From the same raw events:

- **ours**: ``copilot.normalize.normalise``;
- **baseline**: a debounce like CowPilot's published extension: 1 s trailing debounce
  for clicks and for wheel (the handler sees the last event only), 250 ms for input,
  no key events, no navigation events; new tabs are logged with their address.

Actions are compared as ``name(role 'name', value)`` labels, in order (longest common
subsequence); a click on a checkbox counts as its check or uncheck. Precision, recall
and F1 are summed over all sessions. Then our normalised actions are replayed by the
agent's own executor (``BrowserEnv.step``) from the same start page (an app the session
wrote to is reset first, for the person and for the replay), and the end state (tabs
and their addresses, field values except passwords and hidden tokens, checkboxes,
contenteditable text, scroll position to 50 px, frame contents) is compared with the
person's; each miss is printed with what differs, marked "app" when the app alone
explains it (an id it handed out, a token it issued).

``--stress`` keeps every core busy with busy-loop processes for the whole run, so the
timing-based rules are tried on a loaded machine.

    PYTHONPATH=src python benchmarks/capture.py [--instance N] [--no-arena] [--stress]
        [--limit N] [--no-replay] [--show]

The last line is ``capture: f1 X baseline_f1 Y replay_same Z% heldout_f1 W``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from rich.console import Console
from rich.table import Table

from capture_arena import arena_sessions
from capture_arena_inputs import input_sessions
from capture_run import (
    Outcome,
    StaticCache,
    login_state,
    patience,
    perform,
    replay,
    replay_miss,
)
from capture_sessions import INPUTS, PAGES, Session, local_sessions
from colorbrowser.arena import Arena
from colorbrowser.browser.capture import RawEvent
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserError
from colorbrowser.static_server import send_html
from colorbrowser.testing import serve_directory

CLICK_MS, WHEEL_MS, INPUT_MS = 1000, 1000, 250  # CowPilot's extension debounces


# -- the baseline: a CowPilot-like debounce -------------------------------------------
def _label(name: str, e: RawEvent, *rest: object) -> str:
    shown = ", ".join(repr(r) for r in rest)
    return f"{name}({e.role} {e.name!r}{', ' + shown if shown else ''})"


def baseline(events: list[RawEvent]) -> list[str]:
    """Trailing debounces per event family; each emits when its family goes quiet."""
    out: list[tuple[float, str]] = []
    families = {"click": CLICK_MS, "wheel": WHEEL_MS, "input": INPUT_MS}
    last: dict[str, RawEvent] = {}
    wheel_started: RawEvent | None = None

    def flush(family: str) -> None:
        e = last.pop(family, None)
        if e is None:
            return
        if family == "click" and e.bid:
            out.append((e.t, _label("click", e)))
        elif family == "wheel":
            out.append((e.t, f"scroll({round(e.dx)}, {round(e.dy)})"))
        elif family == "input" and e.bid:
            if e.tag == "select":
                options = e.value if isinstance(e.value, list) else [e.value]
                out.append((e.t, _label("select_option", e, options[0] if options else "")))
            else:
                out.append((e.t, _label("fill", e, e.value)))

    for e in sorted(events, key=lambda e: (e.t, e.seq)):
        for family, wait in families.items():
            if family in last and e.t - last[family].t >= wait:
                flush(family)
        kind = e.kind
        if kind in ("click", "dblclick"):
            last["click"] = e
        elif kind == "wheel":
            wheel_started = wheel_started or e
            last["wheel"] = e
        elif kind == "input" or (kind == "change" and e.tag == "select"):
            last["input"] = e
        elif kind == "hover" and e.bid:
            out.append((e.t, _label("hover", e)))
        elif kind == "tab_open":
            out.append((e.t, "new_tab"))
    for family in list(last):
        flush(family)
    return [text for _, text in sorted(out)]


# -- scoring --------------------------------------------------------------------------
def canonical(label: str) -> str:
    for name in ("uncheck(", "check("):
        if label.startswith(name):
            return "click(" + label[len(name):]
    return label


def lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1],
                                                                        table[i + 1][j])
    return table[-1][-1]


@dataclass
class Score:
    matched: int = 0
    predicted: int = 0
    expected: int = 0

    def add(self, predicted: list[str], expected: list[str]) -> None:
        p, e = [canonical(x) for x in predicted], [canonical(x) for x in expected]
        self.matched += lcs(p, e)
        self.predicted += len(p)
        self.expected += len(e)

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def _new_tab(events: list[RawEvent]) -> str:
    """The baseline logs a new tab with the first address it shows."""
    docs = [e for e in events if e.kind == "doc" and e.tab > 0 and e.url != "about:blank"]
    return f"new_tab({docs[0].url!r})" if docs else "new_tab()"


# -- load ---------------------------------------------------------------------------------
def _spin(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        for _ in range(100_000):
            pass


@contextmanager
def stress(on: bool) -> Iterator[int]:
    """One busy-loop process per core for the duration of the block."""
    if not on:
        yield 0
        return
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
               for _ in range(os.cpu_count() or 2)]
    for w in workers:
        w.start()
    try:
        yield len(workers)
    finally:
        stop.set()
        for w in workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()


# -- the run --------------------------------------------------------------------------
@dataclass
class Miss:
    session: Session
    what: str
    app: bool


def run_one(session: Session, urls: dict[str, str], rng: random.Random, arena: Arena | None,
            person: BrowserSession, env: BrowserEnv | None, files: StaticCache
            ) -> tuple[Outcome, Miss | None]:
    base = urls[session.app]
    login = login_state(session, arena) if session.app else None
    if session.app and arena is not None:  # no session sees another's writes
        arena.reset([session.app])
    outcome = perform(session, base, rng, person, login, files)
    outcome.base = [x if x != "new_tab" else _new_tab(outcome.events)
                    for x in baseline(outcome.events)]
    if env is None:
        return outcome, None
    if session.writes and arena is not None:
        arena.reset([session.app])
    try:
        again = replay(env, f"{base}/{session.start.lstrip('/')}", outcome.actions, login,
                       patience(session), files)
    except (PlaywrightError, BrowserError) as exc:  # the replay broke: a miss, shown
        return outcome, Miss(session, f"replay failed: {str(exc).splitlines()[0]}"[:160],
                             False)
    if again == outcome.person_state:
        return outcome, None
    what, app = replay_miss(outcome.person_state, again)
    return outcome, Miss(session, what, app)


def _row(table: Table, name: str, count: int, o: Score, b: Score, digits: int = 2) -> None:
    f = f"{{:.{digits}f}}"
    table.add_row(name, str(count), *(f.format(x) for x in (
        o.precision, o.recall, o.f1, b.precision, b.recall, b.f1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N sessions")
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument("--no-arena", action="store_true", help="the local pages only")
    parser.add_argument("--instance", type=int, default=0, help="the arena instance to use")
    parser.add_argument("--only", default="",
                        help="only sessions whose name contains this (or one of a|b|c)")
    parser.add_argument("--stress", action="store_true", help="keep every core busy meanwhile")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print every miss")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    local = local_sessions()
    rng.shuffle(local)
    todo = local + ([] if args.no_arena else arena_sessions() + input_sessions())
    wanted = args.only.split("|")  # any of several parts: --only "shop: cart|wiki: More"
    todo = [s for s in todo if any(w in s.name for w in wanted)][: args.limit or None]
    console = Console(width=130)
    ours, base, held_ours, held_base = Score(), Score(), Score(), Score()
    by_kind: dict[str, tuple[Score, Score]] = {}
    misses: list[Miss] = []
    failed: list[str] = []  # sessions whose scripted person could not act
    same = replayed = held_same = held_replayed = 0
    apps = sorted({s.app for s in todo if s.app})
    arena = Arena(args.instance) if apps else None
    started: list[str] = []
    if arena is not None:
        started = [a for a in apps if a not in arena.running()]
        if started:
            arena.up(started)
    inputs = INPUTS.read_text()
    try:
        with serve_directory(PAGES, {"/inputs.html": lambda req: send_html(req, inputs)},
                             token="") as url, stress(args.stress) as busy:
            urls = {"": url, **{a: arena.base_url(a) for a in apps}} if arena else {"": url}
            # One browser for the person and one for the replays, for the whole run:
            # each session gets fresh contexts in them, not a new launch.
            person = BrowserSession(BrowserSettings())
            files = StaticCache()
            env = None if args.no_replay else BrowserEnv(BrowserSettings())
            try:
                for n, session in enumerate(todo, 1):
                    began = time.monotonic()
                    if person.started and not person.is_alive:  # crashed: launch again
                        person.close()
                    try:
                        outcome, miss = run_one(session, urls, rng, arena, person, env,
                                                files)
                    except (PlaywrightError, BrowserError) as exc:  # the script: shown
                        failed.append(f"{session.name}: {str(exc).splitlines()[0]}")
                        continue
                    for o_score, b_score in [(ours, base), by_kind.setdefault(
                            session.kind, (Score(), Score()))] + (
                            [(held_ours, held_base)] if session.heldout else []):
                        o_score.add(outcome.ours, outcome.expected)
                        b_score.add(outcome.base, outcome.expected)
                    if env is not None:
                        replayed += 1
                        same += miss is None
                        held_replayed += session.heldout
                        held_same += session.heldout and miss is None
                    if miss is not None:
                        misses.append(miss)
                    if args.show and (outcome.ours != outcome.expected or miss):
                        console.print(f"[yellow]{session.name}[/]"
                                      f"{' replay differs' if miss else ''}: ours "
                                      f"{outcome.ours} expected {outcome.expected}",
                                      soft_wrap=True)
                    verdict = "same" if outcome.ours == outcome.expected else "differs"
                    print(f"{n}/{len(todo)} {session.name}: actions {verdict}, replay "
                          f"{'-' if env is None else 'miss' if miss else 'same'}, "
                          f"{time.monotonic() - began:.1f} s", file=sys.stderr, flush=True)
            finally:
                person.close()
                if env is not None:
                    env.close()
    finally:
        if arena is not None and started:
            arena.down(started)
    load = f", {busy} busy-loop processes running" if args.stress else ""
    table = Table(title=f"capture: {len(todo)} scripted sessions{load}", title_justify="left")
    for name in ("kind", "sessions", "ours P", "ours R", "ours F1", "baseline P", "baseline R",
                 "baseline F1"):
        table.add_column(name, justify="left" if name == "kind" else "right")
    for kind, (o, b) in sorted(by_kind.items()):
        _row(table, kind, sum(s.kind == kind for s in todo), o, b)
    held = sum(s.heldout for s in todo)
    if held:  # no held-out session run: no figure, rather than an empty score's 1.0
        _row(table, "held-out (arena)", held, held_ours, held_base, 3)
    _row(table, "all", len(todo), ours, base, 3)
    console.print(table)
    if misses:
        missed = Table(title="replays that miss the person's end state", title_justify="left")
        for name in ("session", "cause", "what differs"):
            missed.add_column(name)
        for m in misses:
            missed.add_row(m.session.name, "app" if m.app else "ours", m.what)
        console.print(missed)
    for line in failed:
        console.print(f"[red]not scored, the scripted person failed[/]: {line}", soft_wrap=True)
    share = 100 * same / replayed if replayed else 0.0
    if replayed:
        app_caused = sum(m.app for m in misses)
        console.print(f"replay: {same}/{replayed} sessions reach the person's end state "
                      f"({app_caused} of the misses caused by the app)"
                      + (f"; held-out {held_same}/{held_replayed}" if held_replayed else ""))
    print(f"capture: f1 {ours.f1:.3f} baseline_f1 {base.f1:.3f} replay_same {share:.1f}% "
          f"heldout_f1 {f'{held_ours.f1:.3f}' if held else 'n/a'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
