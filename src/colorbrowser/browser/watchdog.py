"""Session watchdogs: each notices one way a browser goes wrong and recovers from it.

- HangGuard: a call into the page (an action, an observation) that does not return
  in time; the tab's renderer is killed so the call fails, and the tab is reloaded.
- a crashed tab comes back at the URL it was showing (BrowserSession does this).
- NetworkWatch: a network error page is retried, then left for the last good page.
- StallWatch: N actions in a row that changed neither URL nor page; the page is reloaded.
- revive: the browser process died; a new one gets the tabs, URLs, cookies and
  storage of the last snapshot.

Every recovery leaves a one-line notice that the next observation carries, so the
Operator knows what happened instead of being surprised by a reloaded page.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import psutil
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from colorbrowser.browser.navguard import shows_failure
from colorbrowser.browser.policy import ERROR_PAGE
from colorbrowser.browser.session import BrowserSession, first_line

if TYPE_CHECKING:
    from colorbrowser.types import Action, ActionResult, Observation


@dataclass
class Snapshot:
    """What a new browser needs to look like the old one."""

    tabs: list[str] = field(default_factory=list)
    active: int = 0
    storage: dict[str, Any] = field(default_factory=dict)
    taken: float = 0.0
    shown: list[str] = field(default_factory=list)  # the web origins the tabs showed

    def to_json(self) -> dict[str, Any]:
        return {"tabs": self.tabs, "active": self.active, "storage": self.storage}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        return cls(tabs=list(data.get("tabs") or []), active=int(data.get("active") or 0),
                   storage=dict(data.get("storage") or {}))


def take_snapshot(session: BrowserSession, *, cookies: list[dict[str, Any]] | None = None,
                  previous: Snapshot | None = None) -> Snapshot:
    """The tabs, the cookies (``cookies``: as the caller just read them) and the local
    storage of every origin the session used.

    Taken after every action, so it must stay cheap: Playwright's ``storage_state()``
    opens a hidden tab and loads every origin the context ever visited that no tab
    shows now, each time (0.7 s on a loaded machine once two sites were visited). The
    origins the tabs show are read from the browser's side (no page script runs);
    the others are ``previous``'s, which cannot be out of date: no page of theirs has
    run since. Only when a tab has just left an origin (whose page may have written
    its storage as it went) is the whole storage read the slow way, once."""
    pages = session.pages
    urls = [p.url for p in pages]
    active = pages.index(session.page) if session.page in pages else 0
    by_page = [(page, _origins(page)) for page in pages]
    shown = [o for _, found in by_page for o in found]
    if previous is not None and set(previous.shown) - set(shown):
        return Snapshot(urls, active, session.storage_state(), time.monotonic(),
                        shown=shown)
    if cookies is None:
        cookies = session.context.cookies()
    read: dict[str, list[dict[str, str]]] = {}
    for page, found in by_page:
        for origin in found:
            if origin not in read and (items := _local_storage(session, page, origin)) \
                    is not None:
                read[origin] = items
    kept = [o for o in (previous.storage.get("origins") or [] if previous else [])
            if isinstance(o, dict) and o.get("origin") not in read]
    origins = kept + [{"origin": o, "localStorage": items} for o, items in read.items()
                      if items]
    return Snapshot(urls, active, {"cookies": cookies, "origins": origins}, time.monotonic(),
                    shown=shown)


def _origins(page: Page) -> list[str]:
    """The web origins of a tab's documents (frames included), in page order."""
    out: list[str] = []
    with contextlib.suppress(PlaywrightError):
        for frame in page.frames:
            parts = urlsplit(frame.url)
            if parts.scheme in ("http", "https") and parts.netloc:
                origin = f"{parts.scheme}://{parts.netloc}"
                if origin not in out:
                    out.append(origin)
    return out


def _local_storage(session: BrowserSession, page: Page, origin: str
                   ) -> list[dict[str, str]] | None:
    """An origin's local storage as ``storage_state()`` writes it (DevTools, one round
    trip); None when the tab cannot tell (the last snapshot's copy is kept)."""
    try:
        reply = session.cdp(page).send("DOMStorage.getDOMStorageItems", {
            "storageId": {"securityOrigin": origin, "isLocalStorage": True}})
    except PlaywrightError:
        return None
    return [{"name": str(item[0]), "value": str(item[1])}
            for item in reply.get("entries") or []
            if isinstance(item, list) and len(item) == 2]


def restore_snapshot(session: BrowserSession, snap: Snapshot, *,
                     web_only: bool = False) -> list[str]:
    """Start a fresh browser context from a snapshot; returns URLs that did not load.

    ``web_only``: the snapshot comes from a file (a run folder to resume), so its tabs
    pass the policy for the agent's own targets (web pages only), not the one for pages
    a person trusted in this process; a tab that does not stays blank."""
    session.close()
    storage = _web_storage(snap.storage) if web_only else snap.storage or None
    failed = []
    try:
        session.start(storage_state=storage)
    except PlaywrightError as exc:  # cookies or storage of the wrong shape: a damaged file
        if storage is None:
            raise
        session.close()
        session.start()
        failed.append(f"the cookies and storage ({first_line(exc)})")
    first = session.page
    for i, url in enumerate(snap.tabs or ["about:blank"]):
        page = first if i == 0 else session.new_tab()
        if web_only and (reason := session.policy.refuse_target(url)):
            failed.append(f"{url} ({reason})")
            continue
        if session.policy.reloadable(url):
            try:
                page.goto(url, wait_until="domcontentloaded")
            except PlaywrightError:
                failed.append(url)
    with contextlib.suppress(IndexError):
        session.focus_tab(min(snap.active, len(session.pages) - 1))
    return failed


def _web_storage(storage: dict[str, Any]) -> dict[str, Any] | None:
    """Cookies, and the local storage of web origins only."""
    if not storage:
        return None
    origins = [o for o in storage.get("origins") or []
               if isinstance(o, dict) and str(o.get("origin", "")).startswith(("http://",
                                                                                "https://"))]
    return {**storage, "origins": origins}


def revive(session: BrowserSession, snap: Snapshot | None) -> str:
    """The browser died: start a new one with what the last snapshot remembered."""
    if snap is None or not snap.tabs:
        session.close()
        session.start()
        return "the browser stopped and was restarted; nothing could be restored"
    failed = restore_snapshot(session, snap)
    note = (f"the browser stopped and was restarted; {len(snap.tabs)} tab(s), cookies and "
            "storage were restored")
    if failed:
        note += f" ({len(failed)} page(s) did not load again: {', '.join(failed[:3])})"
    return note


class HangGuard:
    """Times a blocking call; past the deadline it kills this browser's renderers.

    A page stuck in a script loop never answers, and Playwright's evaluate has no
    timeout of its own. Killing the renderer is the one thing that frees the call
    without touching Playwright from another thread; the session then reopens the
    crashed tab at its URL.
    """

    def __init__(self, session: BrowserSession, timeout_s: float):
        self.session = session
        self.timeout_s = timeout_s
        self.fired: str | None = None

    @staticmethod
    def _renderers(pid: int | None) -> list[psutil.Process]:
        if pid is None:
            return []
        try:
            kids = psutil.Process(pid).children(recursive=True)
        except psutil.Error:
            return []
        out = []
        for proc in kids:
            with contextlib.suppress(psutil.Error):
                if "--type=renderer" in proc.cmdline():
                    out.append(proc)
        return out

    def _expire(self, what: str, pid: int | None) -> None:
        self.fired = what
        for proc in self._renderers(pid):
            with contextlib.suppress(psutil.Error):
                proc.kill()

    @contextlib.contextmanager
    def guard(self, what: str) -> Iterator[None]:
        self.fired = None
        pid = self.session.browser_pid  # asked here: the timer thread must not use Playwright
        timer = threading.Timer(self.timeout_s, self._expire, args=(what, pid))
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

    def notice(self) -> str | None:
        if self.fired is None:
            return None
        return (f"the {self.fired} hung for more than {self.timeout_s:g} s; the page was "
                "stopped and reloaded")


@dataclass
class NetworkWatch:
    """A page that failed to load is retried with a pause, then abandoned for the last
    page that did load, so one flaky request does not end a long task."""

    retries: int = 2
    pause_s: float = 0.5

    def check(self, session: BrowserSession) -> str | None:
        page = session.page
        if not shows_failure(session, page):
            return None
        failed = session.failed_navigation(page)
        target = failed[0] if failed else None
        reason = failed[1] if failed else "the page could not be loaded"
        if target and session.policy.refuse_target(target):
            target = None  # refused by the navigation policy: retrying cannot help
        if target:
            for attempt in range(1, self.retries + 1):
                time.sleep(self.pause_s * attempt)
                try:
                    page.goto(target, wait_until="domcontentloaded")
                except PlaywrightError:
                    continue
                if not page.url.startswith(ERROR_PAGE):
                    return f"{target} failed to load ({reason}) and loaded on retry {attempt}"
        good = session.last_good_url(page)
        where = target or "the page"
        if good:
            with contextlib.suppress(PlaywrightError):
                page.goto(good, wait_until="domcontentloaded")
            return (f"{where} could not be reached ({reason}) after {self.retries} retries; "
                    f"went back to {good}")
        return f"{where} could not be reached ({reason}) after {self.retries} retries"


@dataclass
class StallWatch:
    """Actions that keep changing nothing: reload once, so a wedged page gets a chance."""

    steps: int = 5
    _count: int = 0
    _last: tuple[str, str] | None = None

    def acted(self, action: Action, result: ActionResult) -> None:
        if result.ok and action.name not in {"scroll", "hover", "tab_focus"}:
            self._count += 1

    def check(self, session: BrowserSession, obs: Observation) -> str | None:
        key = (obs.url, obs.dom_hash)
        if key != self._last:
            self._last, self._count = key, 0
            return None
        if self._count < self.steps:
            return None
        self._count = 0
        page = session.page
        if not session.policy.reloadable(page.url):
            return None
        if session.shows_post_result(page):  # a reload would send the form again
            return (f"nothing changed for {self.steps} actions; the page is the answer to a "
                    "form post, so it was not reloaded")
        try:
            page.reload(wait_until="domcontentloaded")
        except PlaywrightError as exc:
            return f"nothing changed for {self.steps} actions; reloading failed: {first_line(exc)}"
        return f"nothing changed for {self.steps} actions; the page was reloaded"
