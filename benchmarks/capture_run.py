"""How one session of ``capture.py``'s corpus is run: performed by the scripted person in
real Chromium with the capture on, its end state once the pages are quiet, the replay
of its normalised actions by the agent's own executor, and why a replay missed. The
apps' static files are kept across sessions as a warm browser cache would keep them.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from playwright.sync_api import BrowserContext, Route
from playwright.sync_api import Error as PlaywrightError

from capture_sessions import Person, Session
from colorbrowser.actions import parse_action, spec_for
from colorbrowser.browser.capture import RawEvent, capture_for
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.observe import observe
from colorbrowser.browser.session import BrowserSession
from colorbrowser.copilot.normalize import HumanAction, normalise
from colorbrowser.types import Action

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
