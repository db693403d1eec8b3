"""One Chromium, one context, several tabs, and which tab the agent is looking at.

The session absorbs the browser's surprises so the episode loop sees plain data:
pop-ups become the active tab, JS dialogs are answered and remembered for the next
observation, and a crashed or closed tab is replaced instead of raising.
"""

from __future__ import annotations

import base64
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import psutil
from playwright.sync_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Frame,
    Page,
    Playwright,
    Request,
)
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.browser.evidence import EvidenceLog
from colorbrowser.browser.launch import (
    acquire_driver,
    answers_like_a_browser,
    configured_chromium,
    launch_options,
    listener_script,
    release_driver,
)
from colorbrowser.browser.policy import ERROR_PAGE, NavigationPolicy
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserError, BrowserUnavailable
from colorbrowser.types import Tab


def first_line(exc: BaseException) -> str:
    """Playwright messages carry a call log after the first line; keep the first."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


POPUP_WAIT_MS = 3000


@dataclass
class _NavState:
    """Main-frame navigations of one tab, fed by Playwright events."""

    inflight: set[Request] = field(default_factory=set)
    commits: int = 0
    failed: tuple[str, str] | None = None  # (url, reason) of the last failed navigation
    last_good: str | None = None  # last URL that loaded (for the network watchdog)
    method: str = ""  # of the last main-frame navigation request started
    posted: bool = False  # the document shown came from a form post (no silent reload)
    known: bool = False  # how the document shown was loaded was seen (``posted`` holds)


class BrowserSession:
    """Owns the sync Playwright driver, the browser, its context and the tab list."""

    def __init__(self, settings: BrowserSettings | None = None) -> None:
        self.settings = settings or BrowserSettings()
        self.policy = NavigationPolicy.of(self.settings.allow_hosts, self.settings.trusted_pages)
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._active: Page | None = None
        self._nav: dict[Page, _NavState] = {}
        self._cdp: dict[Page, CDPSession] = {}
        self._browser_cdp: CDPSession | None = None
        self._context_key: str | None = None
        self._crashed: set[Page] = set()
        self._dialogs: list[str] = []
        self._notices: list[str] = []
        self._browser_pid: int | None = None
        self._crash_urls: dict[str, int] = {}
        self.evidence = EvidenceLog()  # what each action made the browser do

    # -- lifecycle ---------------------------------------------------------------

    def start(self, storage_state: dict[str, Any] | None = None) -> BrowserSession:
        """Launch; ``storage_state`` (cookies, local storage) seeds the new context."""
        if self._context is not None:
            return self
        options = launch_options(self.settings)
        try:
            self._pw = acquire_driver()
        except PlaywrightError as exc:
            raise BrowserError(f"cannot start Playwright: {first_line(exc)}") from None
        try:
            self._browser = self._pw.chromium.launch(**options)
        except PlaywrightError as exc:
            release_driver()
            self._pw = None
            where = options.get("executable_path", "Playwright's bundled Chromium")
            configured = configured_chromium(self.settings)
            if configured and not answers_like_a_browser(where):
                raise BrowserUnavailable(
                    f"cannot launch Chromium ({where}): it is not a browser (from "
                    f"{configured[1]}); fix the path or unset it") from None
            hint = "" if "executable_path" in options else " (set CHROMIUM_PATH)"
            raise BrowserError(
                f"cannot launch Chromium ({where}): {first_line(exc)}{hint}") from None
        self._open_context(storage_state)
        return self

    def fresh_context(self, storage_state: dict[str, Any] | None = None) -> BrowserSession:
        """A new, empty context (no cookies, storage, cache or tabs of the old one) in
        the browser already running: far cheaper than a new launch, for callers that run
        many independent sessions in a row (benchmarks, scripted persons)."""
        if self._context is None:
            return self.start(storage_state)
        with contextlib.suppress(Exception):  # best effort: it may already be gone
            self._context.close()
        self._context = None
        self._forget_context()
        self._dialogs.clear()
        self._notices.clear()
        self.evidence.forget()
        self._open_context(storage_state)
        return self

    def _open_context(self, storage_state: dict[str, Any] | None) -> None:
        s = self.settings
        assert self._browser is not None
        self._context = self._browser.new_context(
            viewport={"width": s.viewport_width, "height": s.viewport_height},
            storage_state=storage_state,  # type: ignore[arg-type]
        )
        self.apply_timeouts()
        self._context.add_init_script(script=listener_script())
        # The evidence listens to the context, not to each tab: a tab is announced only
        # once its first page loaded, after the request that opened it (a form posting
        # into a new tab) had been made.
        self._context.on("request", self.evidence.on_request)
        self._context.on("response", self.evidence.on_response)
        self._context.on("requestfailed", self.evidence.on_failed)
        self._context.on("page", self._adopt)
        self._adopt(self._context.new_page())

    def _forget_context(self) -> None:
        """Drop what was known about the context's tabs (the browser's is kept)."""
        self._context_key = None
        self._active = None
        self._nav.clear()
        self._cdp.clear()
        self._crashed.clear()

    def close(self) -> None:
        for closer in (
            self._context.close if self._context else None,
            self._browser.close if self._browser else None,
            release_driver if self._pw else None,
        ):
            if closer is None:
                continue
            with contextlib.suppress(Exception):  # best effort: it may already be gone
                closer()
        self._context = self._browser = self._pw = None
        self._browser_cdp = None
        self._browser_pid = None
        self._forget_context()

    def apply_timeouts(self) -> None:
        """Push the settings' action and navigation timeouts to the browser context."""
        self.context.set_default_timeout(self.settings.action_timeout_ms)
        self.context.set_default_navigation_timeout(self.settings.navigation_timeout_ms)

    @property
    def started(self) -> bool:
        return self._context is not None

    @property
    def is_alive(self) -> bool:
        """Connected, and the process still runs: the disconnect event of a killed
        browser can arrive only after the next command has already failed."""
        if self._browser is None or not self._browser.is_connected():
            return False
        pid = self._browser_pid
        if pid is None:
            return True
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    @property
    def browser_pid(self) -> int | None:
        """Process id of the browser (for the hang watchdog), asked once per launch."""
        if self._browser_pid is None and self._browser is not None:
            with contextlib.suppress(PlaywrightError, KeyError, StopIteration):
                cdp = self._browser.new_browser_cdp_session()
                info = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
                self._browser_pid = next(p["id"] for p in info if p["type"] == "browser")
                cdp.detach()
        return self._browser_pid

    @property
    def browser(self) -> Browser:
        if self._browser is None:
            raise BrowserError("the browser is not started")
        return self._browser

    @property
    def context(self) -> BrowserContext:
        if self._context is None:
            raise BrowserError("the browser is not started")
        return self._context

    # -- tabs --------------------------------------------------------------------

    def _adopt(self, page: Page) -> None:
        """Listen to a new tab and make it the active one (new tabs and pop-ups alike)."""
        if page in self._nav:
            return
        nav = self._nav[page] = _NavState()

        def on_request(req: Request) -> None:
            try:
                if req.is_navigation_request() and req.frame.parent_frame is None:
                    nav.inflight.add(req)
                    nav.method = req.method.upper()
            except PlaywrightError:
                pass

        def on_navigated(frame: Frame) -> None:
            if frame.parent_frame is None:
                nav.commits += 1
                nav.inflight.clear()
                if nav.method:  # a document load, not a same-document move
                    nav.posted, nav.method = nav.method not in ("GET", "HEAD"), ""
                    nav.known = True
                if self.policy.reloadable(frame.url):
                    nav.last_good = frame.url
                if not frame.url.startswith(ERROR_PAGE):
                    nav.failed = None  # a later load succeeded: the failure is over

        def on_request_done(req: Request) -> None:
            nav.inflight.discard(req)

        def on_request_failed(req: Request) -> None:
            nav.inflight.discard(req)
            with contextlib.suppress(PlaywrightError):
                if req.is_navigation_request() and req.frame.parent_frame is None:
                    nav.failed = (req.url, req.failure or "failed")

        page.on("request", on_request)
        page.on("download", self.evidence.on_download)
        page.on("requestfailed", on_request_failed)
        page.on("requestfinished", on_request_done)
        page.on("framenavigated", on_navigated)
        page.on("dialog", self._on_dialog)
        page.on("crash", lambda p: self._crashed.add(p))
        page.on("close", self._forget)
        self._active = page

    def _forget(self, page: Page) -> None:
        self._nav.pop(page, None)
        self._cdp.pop(page, None)

    def _on_dialog(self, dialog: Any) -> None:
        accept = self.settings.dialogs == "accept"
        try:
            if accept:
                dialog.accept()
            else:
                dialog.dismiss()
        except PlaywrightError:
            pass
        message = " ".join(dialog.message.split())[:200]
        verb = "accepted" if accept else "dismissed"
        said = f"{dialog.type} {message!r} was {verb}" if message else f"{dialog.type} was {verb}"
        self._dialogs.append(said)
        self.evidence.on_dialog(said)

    @property
    def pages(self) -> list[Page]:
        """Open tabs in creation order (index = tab number the agent uses)."""
        return [p for p in self.context.pages if not p.is_closed()]

    @property
    def page(self) -> Page:
        """The active tab; a crashed or closed one is replaced and the swap is noted."""
        page = self._active
        if page is not None and not page.is_closed() and page not in self._crashed:
            return page
        if page is not None and page in self._crashed:
            return self._reopen_crashed(page)
        else:
            reason = "the active tab was closed"
        remaining = [p for p in self.pages if p not in self._crashed]
        if remaining:
            self._active = remaining[-1]
        else:
            self._adopt(self.context.new_page())
        assert self._active is not None
        self._notices.append(f"{reason}; now on tab {self.index_of(self._active)} "
                             f"({self._active.url})")
        return self._active

    def _reopen_crashed(self, page: Page) -> Page:
        """A crashed tab comes back at its URL, once: a URL that crashes twice is not
        reloaded again, so a page that always crashes cannot trap the agent."""
        url = page.url
        self._crashed.discard(page)
        with contextlib.suppress(PlaywrightError):
            page.close()
        fresh = self.context.new_page()
        self._adopt(fresh)
        seen = self._crash_urls[url] = self._crash_urls.get(url, 0) + 1
        if seen > 1 or not self.policy.reloadable(url):
            self._notices.append(f"the tab crashed at {url} and was replaced by a blank tab")
            return fresh
        try:
            fresh.goto(url, wait_until="domcontentloaded")
            self._notices.append(f"the tab crashed and was reopened at {url}")
        except PlaywrightError as exc:
            self._notices.append(f"the tab crashed; reopening {url} failed: {first_line(exc)}")
        return fresh

    def notice(self, text: str) -> None:
        """A note for the next observation (watchdog recoveries use this)."""
        self._notices.append(text)

    def failed_navigation(self, page: Page) -> tuple[str, str] | None:
        """(URL, reason) of the navigation that left ``page`` on an error page.

        A pop-up's first navigation can fail before Playwright announces the tab, so
        its failure event is never seen; the tab's history still holds the address."""
        nav = self._nav.get(page)
        if nav is not None and nav.failed:
            return nav.failed
        if not page.url.startswith(ERROR_PAGE):
            return None
        try:
            history = self.cdp(page).send("Page.getNavigationHistory")
            url = history["entries"][history["currentIndex"]]["url"]
        except (PlaywrightError, KeyError, IndexError):
            return None
        return (url, "the page could not be loaded") if url else None

    def forget_failure(self, page: Page) -> None:
        """The failed navigation of ``page`` has been dealt with (a refusal reported)."""
        nav = self._nav.get(page)
        if nav is not None:
            nav.failed = None

    def last_good_url(self, page: Page) -> str | None:
        nav = self._nav.get(page)
        return nav.last_good if nav else None

    def index_of(self, page: Page) -> int:
        pages = self.pages
        return pages.index(page) if page in pages else -1

    def is_crashed(self, page: Page) -> bool:
        return page in self._crashed

    def mark_broken(self, page: Page) -> None:
        """A tab that no longer answers is treated like a crashed one at the next look."""
        if not page.is_closed():
            self._crashed.add(page)

    def new_tab(self, url: str | None = None) -> Page:
        page = self.context.new_page()
        self._adopt(page)
        self._active = page
        if url:
            page.goto(url, wait_until="domcontentloaded")
        return page

    def focus_tab(self, index: int) -> Page:
        pages = self.pages
        if not 0 <= index < len(pages):
            raise IndexError(f"no tab {index}; open tabs are 0..{len(pages) - 1}")
        self._active = pages[index]
        self._active.bring_to_front()
        return self._active

    def close_tab(self, index: int | None = None) -> Page:
        """Close a tab and return the one now active (a fresh blank one if none is left)."""
        pages = self.pages
        if index is None:
            target = self.page
            index = pages.index(target)
        elif not 0 <= index < len(pages):
            raise IndexError(f"no tab {index}; open tabs are 0..{len(pages) - 1}")
        else:
            target = pages[index]
        was_active = target is self._active
        target.close()
        left = self.pages
        if not left:
            self._adopt(self.context.new_page())
        elif was_active:
            self._active = left[max(0, index - 1)]
            self._active.bring_to_front()
        assert self._active is not None
        return self._active

    def tabs(self, title_page: Page | None = None, active_title: str | None = None) -> list[Tab]:
        """Open tabs; a title already known for ``title_page`` saves a round trip."""
        out = []
        for i, p in enumerate(self.pages):
            if p in self._crashed:
                title = "(crashed)"
            elif p is title_page and active_title is not None:
                title = active_title
            elif self.navigation_pending(p):
                title = "(loading)"
            else:
                try:
                    title = p.title()
                except PlaywrightError:
                    title = ""
            out.append(Tab(index=i, url=p.url, title=title, active=p is self._active))
        return out

    # -- what happened since the last look ---------------------------------------------

    def pop_dialogs(self) -> str | None:
        text = "; ".join(self._dialogs) or None
        self._dialogs.clear()
        return text

    def pop_notices(self) -> str | None:
        text = "; ".join(self._notices) or None
        self._notices.clear()
        return text

    def wait_for_new_tabs(self, timeout_ms: int) -> None:
        """Wait for tabs the browser has opened but Playwright has not announced yet.

        A click on a ``target=_blank`` link returns before the pop-up's page event; asking
        the browser for its targets (one round trip) tells whether one is on its way.
        """
        if self._browser is None:
            return
        try:
            if self._browser_cdp is None:
                self._browser_cdp = self._browser.new_browser_cdp_session()
            infos = self._browser_cdp.send("Target.getTargets")["targetInfos"]
        except PlaywrightError:
            return
        ours = self._context_id()
        opened = sum(1 for t in infos if t.get("type") == "page" and not t.get("subtype")
                     and (ours is None or t.get("browserContextId") == ours))
        if opened > len(self.context.pages):
            # Pop-ups are announced within ~100 ms; do not stall a step on a stray target.
            with contextlib.suppress(PlaywrightError):
                self.context.wait_for_event("page", timeout=min(timeout_ms, POPUP_WAIT_MS))

    def _context_id(self) -> str | None:
        if self._context_key is None:
            with contextlib.suppress(PlaywrightError, KeyError):
                info = self.cdp(self.page).send("Target.getTargetInfo")
                self._context_key = info["targetInfo"]["browserContextId"]
        return self._context_key

    def finish_navigation(self, page: Page, timeout_ms: int | None = None) -> str | None:
        """Let a started main-frame navigation commit; stop it when it takes too long.

        While a navigation is waiting for its server, Chromium holds back every
        DevTools command to the tab, so an evaluate would block until the server
        answers, possibly forever. Call this before talking to the page; it only uses
        driver-side waits. Returns a note when loading had to be stopped.
        """
        if not self.navigation_pending(page):
            return None
        limit = timeout_ms if timeout_ms is not None else self.settings.navigation_timeout_ms
        deadline = time.monotonic() + limit / 1000
        with contextlib.suppress(PlaywrightError):
            while self.navigation_pending(page) and time.monotonic() < deadline:
                page.wait_for_timeout(15)
        if not self.navigation_pending(page):
            return None
        self.stop_loading(page)
        return f"the page did not load within {limit / 1000:g} s; loading was stopped"

    def stop_loading(self, page: Page) -> None:
        with contextlib.suppress(PlaywrightError):
            self.cdp(page).send("Page.stopLoading")
        nav = self._nav.get(page)
        if nav is not None:
            nav.inflight.clear()

    def cdp(self, page: Page) -> CDPSession:
        """A DevTools session on the tab, kept for its lifetime."""
        cdp = self._cdp.get(page)
        if cdp is None:
            cdp = self._cdp[page] = self.context.new_cdp_session(page)
        return cdp

    def navigation_mark(self, page: Page) -> int:
        nav = self._nav.get(page)
        return nav.commits if nav else 0

    def shows_post_result(self, page: Page) -> bool:
        """The tab's document is the answer to a form post: reloading it posts again.

        A tab opened by a form (``target=_blank``) is announced after its post was
        made, so how its page was loaded may never have been seen; then the tab's
        history says whether a form sent it there (a form that got a redirect, or one
        that sends a GET, counts too: such a page is not reloaded silently either)."""
        nav = self._nav.get(page)
        if nav is None or nav.known:
            return bool(nav and nav.posted)
        try:
            history = self.cdp(page).send("Page.getNavigationHistory")
            entry = history["entries"][history["currentIndex"]]
        except (PlaywrightError, KeyError, IndexError):
            return True  # not known: better not to send a post again
        return entry.get("transitionType") == "form_submit"

    def navigation_pending(self, page: Page) -> bool:
        nav = self._nav.get(page)
        return bool(nav and nav.inflight)

    # -- helpers -------------------------------------------------------------------

    def screenshot(self, page: Page) -> bytes:
        """Viewport PNG through CDP: about 3x faster than ``page.screenshot``."""
        try:
            data = self.cdp(page).send("Page.captureScreenshot",
                                       {"format": "png", "optimizeForSpeed": True})
            return base64.b64decode(data["data"])
        except PlaywrightError:
            self._cdp.pop(page, None)
            return page.screenshot(type="png")

    def storage_state(self, path: str | None = None) -> dict[str, Any]:
        """Cookies and local storage, e.g. to reuse a login in a later run."""
        return dict(self.context.storage_state(path=path))
