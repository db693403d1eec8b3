"""How well a person's input becomes the agent's actions: our capture and normaliser
against a CowPilot-like debounce, on scripted human sessions in real Chromium.

Each session starts on a local page (``capture_pages/``, served on 127.0.0.1), a
scripted person acts with real mouse and keyboard input (per-character typing with
typos and backspaces, wheel bursts, hovers, double clicks, selects, checkboxes, a
contenteditable, an iframe, new tabs, the back button, typed addresses), and every
session has hand-labelled expected actions. From the same raw events of each session:

- **ours**: ``copilot.normalize.normalise``;
- **baseline**: a debounce like CowPilot's published extension: 1 s trailing debounce
  for clicks and for wheel (the handler sees the last event only), 250 ms for input,
  no key events, no navigation events; new tabs are logged with their address.

Actions are compared as ``name(role 'name', value)`` labels, in order (longest common
subsequence); a click on a checkbox counts as its check or uncheck. Precision, recall
and F1 are summed over all sessions. Then our normalised actions are replayed by the
agent's own executor (``BrowserEnv.step``) from the same start page, and the end state
(tabs and their addresses, field values except passwords, which the agent never
learns, checkboxes, contenteditable text, scroll position to 50 px, frame contents) is
compared with the person's.

    PYTHONPATH=src python benchmarks/capture.py [--limit N] [--no-replay]

The last line is ``capture: f1 X baseline_f1 Y replay_same Z%``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from rich.console import Console
from rich.table import Table

from colorbrowser.actions import parse_action
from colorbrowser.browser.capture import RawEvent, capture_for
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.observe import observe
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.copilot.normalize import HumanAction, normalise
from colorbrowser.testing import serve_directory

PAGES = Path(__file__).parent / "capture_pages"
CLICK_MS, WHEEL_MS, INPUT_MS = 1000, 1000, 250  # CowPilot's extension debounces


# -- the scripted person ---------------------------------------------------------------
class Person:
    """Real (CDP) mouse and keyboard input, with human-like timing and mistakes."""

    def __init__(self, page: Page, base: str, rng: random.Random) -> None:
        self.page, self.base, self.rng = page, base, rng

    def pause(self, low: int = 40, high: int = 160) -> None:
        self.page.wait_for_timeout(self.rng.randint(low, high))

    def type(self, text: str, typos: int = 1) -> None:
        wrong = set(self.rng.sample(range(len(text)), min(typos, len(text)))) if text else set()
        for i, ch in enumerate(text):
            if i in wrong:
                self.page.keyboard.type(self.rng.choice("xqzj"))
                self.pause(80, 350)  # noticed the mistake
                self.page.keyboard.press("Backspace")
            self.page.keyboard.type(ch)
            self.page.wait_for_timeout(self.rng.randint(15, 110))

    def click(self, selector: str, page: Page | None = None) -> None:
        (page or self.page).click(selector)
        self.pause()

    def scroll(self, dy: int, bursts: int) -> None:
        self.page.mouse.move(640, 400)
        for _ in range(bursts):
            self.page.mouse.wheel(0, dy)
            self.page.wait_for_timeout(self.rng.randint(20, 60))
        self.pause(300, 500)

    def hover(self, selector: str) -> None:
        self.page.hover(selector)
        self.page.wait_for_timeout(self.rng.randint(350, 500))


@dataclass
class Session:
    name: str
    kind: str
    act: Callable[[Person], None]
    expected: list[str]
    start: str = "form.html"


def sessions(rng: random.Random) -> list[Session]:
    """22 kinds of session, three variants each, and issue 26's ten kinds, two variants
    each; expected actions written by hand."""
    out: list[Session] = []
    names = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
    emails = ["ada@example.org", "grace@navy.example", "alan@bletchley.example"]
    queries = ["rain jacket", "green tea", "wool socks"]
    sizes = [(1, "Medium"), (2, "Large"), (3, "Huge")]
    notes = ["leave at the door", "ring twice", "gift for mum"]
    cities = ["Paris", "Lagos", "Kyoto"]
    frame = "#frame"

    def add(kind: str, act: Callable[[Person], None], expected: list[str]) -> None:
        out.append(Session(f"{kind}-{sum(s.kind == kind for s in out) + 1}", kind, act,
                           expected))

    for v in range(3):
        name, email, query, (downs, size) = names[v], emails[v], queries[v], sizes[v]
        note, city, bursts = notes[v], cities[v], 3 + 2 * v

        def typed(p, name=name, v=v):
            p.click("#name")
            p.type(name, typos=v + 1)
        add("fill with typos", typed, [f"fill(textbox 'Name', '{name}')"])

        def two(p, name=name, email=email):
            p.click("#name")
            p.type(name, typos=1)
            p.page.keyboard.press("Tab")
            p.type(email, typos=0)
        add("two fields, Tab", two, [f"fill(textbox 'Name', '{name}')",
                                     f"fill(textbox 'Email', '{email}')"])

        def search(p, query=query):
            p.click("#q")
            p.type(query, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_url("**/done.html*")
        add("search + Enter", search, [f"fill(searchbox 'Search', '{query}')",
                                       "press(searchbox 'Search', 'Enter')"])

        def select(p, downs=downs):
            p.page.focus("#size")
            for _ in range(downs):
                p.page.keyboard.press("ArrowDown")
                p.pause()
        add("select by keys", select, [f"select_option(combobox 'Size', '{size}')"])

        def tick(p, v=v):
            p.page.mouse.move(10 + v * 5, 10)
            p.click("#gift")
        add("checkbox", tick, ["check(checkbox 'Gift wrap')"])

        def tick_untick(p):
            p.click("#news")
            p.pause(200, 400)
            p.click("text=Newsletter")
        add("check, uncheck by label", tick_untick,
            ["check(checkbox 'Newsletter')", "uncheck(checkbox 'Newsletter')"])

        def radio(p):
            p.click("text=Express")
        add("radio", radio, ["check(radio 'Express')"])

        def burst(p, bursts=bursts):
            p.scroll(100, bursts)
        add("scroll burst", burst, [f"scroll(0, {100 * bursts})"])

        def down_up(p, bursts=bursts):
            p.scroll(120, bursts)
            p.scroll(-120, 2)
        add("scroll down, up", down_up, [f"scroll(0, {120 * bursts})", "scroll(0, -240)"])

        def link(p):
            p.click("#next")
            p.page.wait_for_url("**/next.html")
        add("link", link, ["click(link 'Next page')"])

        def double(p):
            p.page.dblclick("#word")
            p.pause()
        add("double click", double, ["dblclick(button 'Pick word')"])

        def menu(p):
            p.hover("#menu")
            p.click("#settings")
            p.page.wait_for_url("**/settings.html")
        add("hover menu", menu, ["hover(button 'Account')", "click(menuitem 'Settings')"])

        def stray(p):
            p.hover("#menu")
            p.page.mouse.move(900, 300)
            p.pause()
            p.click("#gift")
        add("stray hover", stray, ["check(checkbox 'Gift wrap')"])

        def editable(p, note=note):
            p.click("#note")
            p.type(note, typos=1)
        add("contenteditable", editable, [f"fill(textbox 'Comment', '{note}')"])

        def inner_click(p):
            p.page.frame_locator(frame).locator("#inner").click()
            p.pause()
        add("iframe click", inner_click, ["click(button 'Inner button')"])

        def inner_type(p, city=city):
            p.page.frame_locator(frame).locator("#city").click()
            p.type(city, typos=1)
        add("iframe typing", inner_type, [f"fill(textbox 'City', '{city}')"])

        def popup(p):
            with p.page.context.expect_page() as opened:
                p.click("#popup")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
        add("link to new tab", popup, ["click(link 'Open in new tab')"])

        def first_tab_again(p):
            with p.page.context.expect_page() as opened:
                p.click("#popup")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
            p.page.bring_to_front()  # headless: no page hears that it is shown
            p.click("#word")
            p.pause()
        add("back to the first tab", first_tab_again,
            ["click(link 'Open in new tab')", "tab_focus(0)", "click(button 'Pick word')"])

        def blank_tab(p):
            p.page.wait_for_timeout(5200)  # well after anything that could have opened it
            fresh = p.page.context.new_page()
            fresh.goto(p.base + "/next.html")
            fresh.wait_for_timeout(300)
        add("new tab, typed URL", blank_tab, ["new_tab('{base}/next.html')"])

        def typed_url(p):
            p.page.wait_for_timeout(100)
            p.page.goto(p.base + "/next.html")
            p.pause()
        add("typed URL", typed_url, ["goto('{base}/next.html')"])

        def back(p):
            p.click("#next")
            p.page.wait_for_url("**/next.html")
            p.pause(300, 500)
            p.page.go_back()
            p.pause(200, 300)
        add("back button", back, ["click(link 'Next page')", "go_back()"])

        def password(p, v=v):
            p.click("#pw")
            p.type(f"hunter{v}2{v}", typos=1)
            p.click("#name")
        add("password", password, ["fill(textbox 'Password', '********')",
                                   "click(textbox 'Name')"])
    out.extend(inputs_sessions())
    rng.shuffle(out)
    return out


def inputs_sessions() -> list[Session]:
    """Issue 26's kinds on ``inputs.html``, two variants each: keys that change a value
    in place, focus noise, navigations the person made soon after an action, a middle
    click, a portal menu and a hover before a neighbour's click."""
    out: list[Session] = []

    def add(kind: str, act: Callable[[Person], None], expected: list[str]) -> None:
        out.append(Session(f"{kind}-{sum(s.kind == kind for s in out) + 1}", kind, act,
                           expected, start="inputs.html"))

    for v in range(2):
        line, town = ("two lines", "Par") if v == 0 else ("ok then", "Lag")

        def textarea(p, line=line, v=v):
            p.click("#msg")
            p.type(line, typos=1)
            p.page.keyboard.press("Enter" if v == 0 else "Shift+Enter")
            p.type("end", typos=0)
        add("textarea new line", textarea, [f"fill(textbox 'Message', '{line}\\nend')"])

        def radio_keys(p, v=v):
            p.click("#std")
            for _ in range(v + 1):
                p.page.keyboard.press("ArrowDown")
                p.pause()
        add("radio by arrow keys", radio_keys,
            [f"check(radio '{('Express', 'Overnight')[v]}')"])

        def number_keys(p, v=v):
            p.click("#qty")
            for _ in range(v + 2):
                p.page.keyboard.press("ArrowUp")
                p.pause()
        add("number by arrow keys", number_keys, [f"fill(spinbutton 'Quantity', '{v + 3}')"])

        def retype_word(p):
            p.page.locator("#title").dblclick(position={"x": 12, "y": 8})
            p.pause()
            p.type("Final", typos=0)
        add("double click a word, retype", retype_word, ["fill(textbox 'Title', 'Final title')"])

        def suggestion(p, town=town):
            p.click("#town")
            p.type(town, typos=0)
            p.page.keyboard.press("ArrowDown")
            p.pause()
            p.page.keyboard.press("Enter")
            p.pause()
            p.click("#ok")
        add("suggestion picked by keys", suggestion,
            [f"fill(combobox 'Town', '{town}')", "press(combobox 'Town', 'ArrowDown')",
             "press(combobox 'Town', 'Enter')", "click(button 'OK')"])

        def reload_after(p):
            p.click("#title")
            p.page.keyboard.press("End")
            p.type("!", typos=0)
            p.page.reload()
            p.pause()
        add("reload soon after typing", reload_after,
            ["fill(textbox 'Title', 'Draft title!')", "goto('{base}/inputs.html')"])

        def tab_after(p):
            p.click("#agree")
            fresh = p.page.context.new_page()
            fresh.goto(p.base + "/next.html")
            fresh.wait_for_timeout(300)
        add("new tab soon after a tick", tab_after,
            ["check(checkbox 'I agree')", "new_tab('{base}/next.html')"])

        def middle(p):
            with p.page.context.expect_page() as opened:
                p.page.click("#next", button="middle")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
        add("middle click on a link", middle, ["click(link 'Next page', 'middle')"])

        def portal(p):
            p.hover("#more")
            p.click("#archive")
        add("portal menu by hover", portal, ["hover(button 'More')", "click(menuitem 'Archive')"])

        def neighbour(p):
            p.hover("#more")
            p.click("#help")
        add("hover, then a neighbour", neighbour, ["click(button 'Help')"])
    return out


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


# -- end states and replay --------------------------------------------------------------
_STATE = """() => {
  const out = {};
  const read = (doc, prefix) => {
    doc.querySelectorAll('input,select,textarea').forEach((el, i) => {
      const key = prefix + (el.id || el.name || i);
      if (el.type === 'password') return;  // the agent never learns it
      out[key] = (el.type === 'checkbox' || el.type === 'radio') ? el.checked : el.value;
    });
    doc.querySelectorAll('[contenteditable]').forEach((el) => {
      out[prefix + 'ce:' + el.id] = el.innerText.trim(); });
    doc.querySelectorAll('button').forEach((el) => {
      out[prefix + 'b:' + el.id] = el.textContent; });
    const word = doc.querySelector('#word');
    if (word) out[prefix + 'picked'] = word.dataset.picked || '';
  };
  read(document, '');
  for (const f of document.querySelectorAll('iframe')) {
    try { read(f.contentDocument, 'frame:'); } catch (e) { /* cross-origin */ }
  }
  out.scroll = Math.round(scrollY / 50);
  return out;
}"""


def end_state(pages: list[Page]) -> list[tuple[str, dict]]:
    state = []
    for page in pages:
        try:
            page.wait_for_load_state(timeout=3000)
            state.append((page.url.split("#")[0], page.evaluate(_STATE)))
        except PlaywrightError as exc:
            state.append((page.url, {"error": str(exc).splitlines()[0]}))
    return state


def replay(env: BrowserEnv, start: str, actions: list[HumanAction]) -> list[tuple[str, dict]]:
    env.reset(start)
    for act in actions:
        env.observe()
        env.step(parse_action(act.text()))
    env.page.wait_for_timeout(300)
    return end_state(env.session.pages)


# -- one session ------------------------------------------------------------------------
@dataclass
class Outcome:
    session: Session
    ours: list[str]
    base: list[str]
    expected: list[str]
    actions: list[HumanAction] = field(default_factory=list)
    person_state: list[tuple[str, dict]] = field(default_factory=list)


def perform(session: Session, base: str, rng: random.Random) -> Outcome:
    browser = BrowserSession(BrowserSettings(action_timeout_ms=5000)).start()
    try:
        capture = capture_for(browser, None)
        page = browser.page
        page.goto(f"{base}/{session.start}")
        observe(browser)  # as in copilot mode: the agent has seen the page (ids given)
        page.wait_for_timeout(150)
        mark = time.time() * 1000
        session.act(Person(page, base, rng))
        page.wait_for_timeout(400)
        events = [e for e in capture.all() if e.t >= mark]
        done = normalise(capture.all(), keep=lambda e: e.t >= mark)
        expected = [x.replace("{base}", base) for x in session.expected]
        base_labels = [x if x != "new_tab" else _new_tab(events, base)
                       for x in baseline(events)]
        return Outcome(session, [a.label() for a in done.actions], base_labels, expected,
                       done.actions, end_state(browser.pages))
    finally:
        browser.close()


def _new_tab(events: list[RawEvent], base: str) -> str:
    """The baseline logs a new tab with the first address it shows."""
    docs = [e for e in events if e.kind == "doc" and e.tab > 0 and e.url != "about:blank"]
    return f"new_tab({docs[0].url!r})" if docs else "new_tab()"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="only the first N sessions")
    parser.add_argument("--no-replay", action="store_true")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print every miss")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    todo = sessions(rng)[: args.limit or None]
    console = Console(width=130)
    ours, base = Score(), Score()
    by_kind: dict[str, tuple[Score, Score]] = {}
    same = replayed = 0
    with serve_directory(PAGES, token="") as url:
        env = None if args.no_replay else BrowserEnv(BrowserSettings(action_timeout_ms=3000))
        try:
            for n, session in enumerate(todo, 1):
                outcome = perform(session, url, rng)
                ours.add(outcome.ours, outcome.expected)
                base.add(outcome.base, outcome.expected)
                kind = by_kind.setdefault(session.kind, (Score(), Score()))
                kind[0].add(outcome.ours, outcome.expected)
                kind[1].add(outcome.base, outcome.expected)
                verdict = ""
                if env is not None:
                    replayed += 1
                    again = replay(env, f"{url}/{session.start}", outcome.actions)
                    ok = again == outcome.person_state
                    same += ok
                    verdict = "" if ok else " replay differs"
                if args.show and (outcome.ours != outcome.expected or verdict):
                    console.print(f"[yellow]{session.name}[/]{verdict}: ours {outcome.ours} "
                                  f"expected {outcome.expected}", soft_wrap=True)
                print(f"\r{n}/{len(todo)}", end="", file=sys.stderr, flush=True)
        finally:
            print(file=sys.stderr)
            if env is not None:
                env.close()
    table = Table(title=f"capture: {len(todo)} scripted sessions", title_justify="left")
    for name in ("kind", "sessions", "ours P", "ours R", "ours F1", "baseline P", "baseline R",
                 "baseline F1"):
        table.add_column(name, justify="left" if name == "kind" else "right")
    for kind, (o, b) in sorted(by_kind.items()):
        count = sum(s.kind == kind for s in todo)
        table.add_row(kind, str(count), f"{o.precision:.2f}", f"{o.recall:.2f}", f"{o.f1:.2f}",
                      f"{b.precision:.2f}", f"{b.recall:.2f}", f"{b.f1:.2f}")
    table.add_row("all", str(len(todo)), f"{ours.precision:.3f}", f"{ours.recall:.3f}",
                  f"{ours.f1:.3f}", f"{base.precision:.3f}", f"{base.recall:.3f}",
                  f"{base.f1:.3f}")
    console.print(table)
    share = 100 * same / replayed if replayed else 0.0
    if replayed:
        console.print(f"replay: {same}/{replayed} sessions reach the person's end state")
    print(f"capture: f1 {ours.f1:.3f} baseline_f1 {base.f1:.3f} replay_same {share:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
