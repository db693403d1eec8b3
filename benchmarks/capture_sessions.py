"""The corpus of ``capture.py`` and how one session is run: the scripted person, the
sessions on the local pages (``capture_pages/`` and the tests' ``inputs.html``), a
session performed in real Chromium with the capture on, its end state, and the replay
of its normalised actions by the agent's own executor. The sessions on the arena's
apps are in ``capture_arena.py``.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from playwright.sync_api import BrowserContext, Page, Route
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.actions import parse_action, spec_for
from colorbrowser.browser.capture import RawEvent, capture_for
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.observe import observe
from colorbrowser.browser.session import BrowserSession
from colorbrowser.copilot.normalize import HumanAction, normalise
from colorbrowser.types import Action

PAGES = Path(__file__).parent / "capture_pages"
# One copy of the issue-26 page, shared with the tests (its links are relative).
INPUTS = Path(__file__).parents[1] / "tests" / "pages" / "copilot" / "inputs.html"


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


    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
            self.pause()


@dataclass
class Session:
    """One scripted person's turn and the actions a person reading it would write.

    ``start`` is a page of the local server, or a path on the arena app ``app`` (logged
    in as ``user``); ``{base}`` in ``expected`` is that server's address. A session
    that writes to its app (``writes``) starts from a reset app, and so does its replay.
    ``heldout`` marks the sessions labelled before the normaliser ever ran on them."""

    name: str
    kind: str
    act: Callable[[Person], None]
    expected: list[str]
    start: str = "form.html"
    app: str = ""
    user: str = ""
    writes: bool = False
    heldout: bool = False


def local_sessions() -> list[Session]:
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


# -- end states and replay --------------------------------------------------------------
_STATE = """() => {
  const out = {};
  const read = (doc, prefix) => {
    doc.querySelectorAll('input,select,textarea').forEach((el, i) => {
      const key = prefix + (el.id || el.name || i);
      if (el.type === 'password') return;  // the agent never learns it
      if (el.type === 'hidden') return;  // a form's token: new on every page load
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


QUIET_MS = 3000  # longest wait for a page's network to go quiet before its state is read
_QUIET = "() => new Promise((done) => setTimeout(done, 0))"


def settle(browser: BrowserSession) -> None:
    """Wait, on conditions rather than a fixed sleep, until every tab is done: a
    navigation under way has loaded, and the page has run what it queued (a record a
    key's handler posts once the page's own handlers ran) and handed its records over."""
    wait = browser.settings.action_timeout_ms
    for page in browser.pages:
        browser.finish_navigation(page, wait)
        with contextlib.suppress(PlaywrightError):
            page.wait_for_load_state(timeout=wait)
            page.evaluate(_QUIET)


def end_state(browser: BrowserSession) -> list[tuple[str, dict]]:
    """Every tab's state once its network is quiet: what a page's scripts load after the
    load event and then change (MediaWiki's modules take the full-text search button
    out of the header's form) is in, for the person and the replay alike."""
    settle(browser)
    for page in browser.pages:
        with contextlib.suppress(PlaywrightError):  # a page that never goes quiet: go on
            page.wait_for_load_state("networkidle", timeout=QUIET_MS)
    state = []
    for page in browser.pages:
        try:
            state.append((page.url.split("#")[0], page.evaluate(_STATE)))
        except PlaywrightError as exc:
            state.append((page.url, {"error": str(exc).splitlines()[0]}))
    return state


def replay(env: BrowserEnv, start: str, actions: list[HumanAction],
           login: dict[str, Any] | None = None, wait: int = 5000,
           files: StaticCache | None = None) -> list[tuple[str, dict]]:
    """The actions, replayed by the agent's executor in a fresh context of the env's
    browser (nothing left of the session before: cookies, storage, cache)."""
    env.settings.action_timeout_ms = wait
    env.session.fresh_context(login)
    if files is not None:
        files.attach(env.session.context)
    env.reset(start)
    # The replay's browser is shared by every session: a draft an app kept in the
    # page's storage (Spirit's comment box) must not reach the next session's replay.
    if env.page.evaluate("() => localStorage.length + sessionStorage.length"):
        env.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        env.reset(start)
    for act in actions:
        action = parse_action(act.text())
        seen(env, action, wait)
        env.step(action)
    return end_state(env.session)


def seen(env: BrowserEnv, action: Action, wait: int) -> None:
    """Observe until the element the action names is on the page, as the person saw it
    when they acted (a suggestion list that comes a moment after the typing): the
    person's script waits for it too. Up to ``wait`` ms; then the step reports the miss."""
    spec = spec_for(action.name)
    target = str(action.args[0]) if spec and spec.params and spec.params[0].kind == "bid" \
        and action.args else None
    deadline = time.monotonic() + wait / 1000
    while True:
        elements = env.observe().elements
        if target is None or target in elements or time.monotonic() > deadline:
            return
        env.page.wait_for_timeout(100)


# -- static files -------------------------------------------------------------------------
class StaticCache:
    """The apps' stylesheets, scripts, images and fonts, kept after their first load
    and handed to every later session's fresh context, as a person's warm browser cache
    would: under load an app's server takes seconds to send a page's twenty of them
    again. Pages, forms and anything else still go to the app."""

    FILES = re.compile(r"^http://127\.0\.0\.1:\d+/[^?#]*\.(css|js|png|svg|gif|ico|jpe?g|"
                       r"webp|woff2?|ttf)(\?[^#]*)?$")
    DROP: ClassVar[set[str]] = {"content-encoding", "content-length", "transfer-encoding",
                                "set-cookie"}

    def __init__(self) -> None:
        self.kept: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def attach(self, context: BrowserContext) -> None:
        context.route(self.FILES, self._serve)

    def _serve(self, route: Route) -> None:
        request = route.request
        if request.method != "GET":
            route.continue_()
            return
        hit = self.kept.get(request.url)
        if hit is None:
            response = route.fetch()
            headers = {k: v for k, v in response.headers.items() if k.lower() not in self.DROP}
            hit = (response.status, headers, response.body())
            if response.status == 200:
                self.kept[request.url] = hit
        status, headers, body = hit
        route.fulfill(status=status, headers=headers, body=body)


# -- one session ------------------------------------------------------------------------
@dataclass
class Outcome:
    session: Session
    ours: list[str]
    base: list[str]
    expected: list[str]
    actions: list[HumanAction] = field(default_factory=list)
    person_state: list[tuple[str, dict]] = field(default_factory=list)
    events: list[RawEvent] = field(default_factory=list)


def login_state(session: Session, arena: Any) -> dict[str, Any] | None:
    """The storage state of the session's arena user (valid after every reset)."""
    if not session.user:
        return None
    return json.loads(arena.login_state(session.app, session.user).read_text())


def patience(session: Session) -> int:
    """Milliseconds the script and the replay wait on a page: the arena's apps answer
    slowly on a loaded machine, and a wait that runs out is a failure, not a result."""
    return 20000 if session.app else 5000


def perform(session: Session, base: str, rng: random.Random, browser: BrowserSession,
            login: dict[str, Any] | None = None, files: StaticCache | None = None) -> Outcome:
    """The scripted person's turn in a fresh context of ``browser`` (one launch for the
    whole corpus; no cookie, storage or cache of another session is left)."""
    browser.settings.action_timeout_ms = patience(session)
    browser.fresh_context(login)
    if files is not None:
        files.attach(browser.context)
    capture = capture_for(browser, None)
    page = browser.page
    page.goto(f"{base}/{session.start.lstrip('/')}")
    observe(browser)  # as in copilot mode: the agent has seen the page (ids given)
    settle(browser)
    mark = time.time() * 1000
    session.act(Person(page, base, rng))
    settle(browser)
    events = [e for e in capture.all() if e.t >= mark]
    done = normalise(capture.all(), keep=lambda e: e.t >= mark)
    expected = [x.replace("{base}", base) for x in session.expected]
    return Outcome(session, [a.label() for a in done.actions], [], expected,
                   done.actions, end_state(browser), events)


# -- why a replay missed --------------------------------------------------------------
_APP_KEYS = ("token", "csrf", "nonce", "captcha")


def _shape(url: str) -> str:
    """An address with its numbers taken out: ids the app hands out differ by run."""
    return re.sub(r"\d+", "#", url)


def replay_miss(person: list[tuple[str, dict]], again: list[tuple[str, dict]]
                ) -> tuple[str, bool]:
    """What differs between the person's end state and the replay's, and whether the
    app alone explains it (an id it handed out, a token it issued), not our actions."""
    if len(person) != len(again):
        return f"{len(person)} tabs, replay {len(again)}", False
    notes: list[str] = []
    app = True
    for n, ((url, fields), (url2, fields2)) in enumerate(zip(person, again, strict=True)):
        if url != url2:
            notes.append(f"tab {n} at {url2} not {url}")
            app = app and _shape(url) == _shape(url2)
        for key in sorted(set(fields) | set(fields2)):
            if fields.get(key) != fields2.get(key):
                notes.append(f"{key} {fields2.get(key)!r} not {fields.get(key)!r}")
                app = app and any(word in key.lower() for word in _APP_KEYS)
    return "; ".join(notes)[:160] or "same", app and bool(notes)
