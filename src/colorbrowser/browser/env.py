"""BrowserEnv: the Environment the episode loop talks to.

It keeps the last observation (bids are checked against it before acting) and
carries a failed step's error into the next observation, so the model reads what
went wrong right next to the page it is looking at.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from types import TracebackType
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from colorbrowser.actions import parse_action
from colorbrowser.browser.execute import execute
from colorbrowser.browser.messages import ActionFailed, normalize_url
from colorbrowser.browser.navguard import keep_on_the_web
from colorbrowser.browser.observe import observe
from colorbrowser.browser.session import BrowserSession
from colorbrowser.browser.watchdog import (
    HangGuard,
    NetworkWatch,
    Snapshot,
    StallWatch,
    restore_snapshot,
    revive,
    take_snapshot,
)
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import ActionParseError, BrowserError, StartPageFailed
from colorbrowser.evidence import Evidence, Late
from colorbrowser.types import Action, ActionResult, Observation


class BrowserEnv:
    """Real Chromium behind the ``Environment`` protocol; the browser starts on first use."""

    def __init__(self, settings: BrowserSettings | None = None, *,
                 every_option: bool = False) -> None:
        self.settings = settings or BrowserSettings()
        # Also keep a tree with every option of long selects (see observe()); the agent's
        # own prompt always reads the capped one.
        self.every_option = every_option
        self.session = BrowserSession(self.settings)
        self._last: Observation | None = None
        self._pending_error: str | None = None
        self._snapshot: Snapshot | None = None
        self._snapshot_fresh = False
        self.hang = HangGuard(self.session, self.settings.hang_timeout_ms / 1000)
        self.network = NetworkWatch(retries=self.settings.network_retries)
        self.stall = StallWatch(steps=self.settings.stall_steps)
        self._secrets: Callable[[], Collection[str]] = tuple

    def watch_secrets(self, secrets: Callable[[], Collection[str]]) -> None:
        """Where to read the secrets known right now (API keys, typed passwords): fields
        holding one are covered in screenshots. Called anew by every episode."""
        self._secrets = secrets

    def _ensure(self) -> None:
        if not self.session.started:
            self.session.start()
            _ = self.session.browser_pid  # known from the start, so a death can be seen
        elif not self.session.is_alive:
            self._last = None
            self.session.notice(revive(self.session, self._snapshot))

    @property
    def page(self) -> Page:
        """The active Playwright page (starts the browser if needed)."""
        self._ensure()
        return self.session.page

    @property
    def last_observation(self) -> Observation | None:
        return self._last

    def reset(self, url: str | None = None) -> Observation:
        """Start clean: one new tab, no pending errors; open ``url`` in it if given.

        Raises BrowserError when the browser cannot start, and StartPageFailed (a
        BrowserError) when ``url`` does not load: the caller decides whether to begin
        on the blank tab instead, as an episode does.
        """
        self._ensure()
        session = self.session
        old = session.pages
        session.new_tab()  # a fresh tab: no history or state left from an earlier episode
        for page in old:
            with contextlib.suppress(PlaywrightError):
                page.close()
        session.pop_dialogs()
        session.pop_notices()
        session.evidence.forget()  # the start page and the task's cookies are no action's
        self._last = None
        self._pending_error = None
        self.stall = StallWatch(steps=self.settings.stall_steps)
        if url:
            self._open_start(url)
        # A dead browser comes back to this page.
        self._snapshot = take_snapshot(session, previous=self._snapshot)
        self._snapshot_fresh = True
        return self.observe()

    def _open_start(self, url: str) -> None:
        """The start page a person or a task chose: the web, or a page they trusted."""
        session = self.session
        try:
            url = normalize_url(url)
        except ActionFailed as exc:
            raise BrowserError(f"cannot start at {url}: {exc}") from None
        reason = session.policy.refuse_start(url)
        if reason:
            raise BrowserError(f"cannot start at {url}: {reason}")
        if session.policy.refuse_target(url) is None:
            result = execute(session, Action("goto", [url]), None)
            if not result.ok:
                raise StartPageFailed(result.error or f"could not open {url}")
            return
        try:  # a trusted local page: opened for the person, never by the model's goto
            session.page.goto(url, wait_until="domcontentloaded")
        except PlaywrightError as exc:
            raise StartPageFailed(f"could not open {url}: {str(exc).splitlines()[0]}") from None

    def _scan(self, previous: Observation | None) -> Observation:
        s = self.settings
        return observe(self.session, previous, interactive_only=s.interactive_only,
                       offscreen=s.offscreen, screenshots=s.screenshots,
                       secrets=self._secrets(), every_option=self.every_option)

    def _observe_once(self) -> Observation:
        frozen = self.session.page
        with self.hang.guard("observation"):
            try:
                return self._scan(self._last)
            except PlaywrightError:
                if self.hang.fired is None:
                    raise
        self.session.mark_broken(frozen)
        self.session.notice(self.hang.notice() or "the page stopped answering")
        return self._scan(None)

    def observe(self) -> Observation:
        self._ensure()
        if refused := keep_on_the_web(self.session):
            self.session.notice(refused)
        notice = self.network.check(self.session)
        if notice:
            self.session.notice(notice)
        obs = self._observe_once()
        if self.settings.stall_steps and (notice := self.stall.check(self.session, obs)):
            self.session.notice(notice)
            obs = self._observe_once()
        if self._pending_error:
            obs.last_error = "; ".join(e for e in (self._pending_error, obs.last_error) if e)
        self._pending_error = None
        self._last = obs
        return obs

    def snapshot(self) -> dict[str, Any]:
        """Tabs, URLs, cookies and storage: enough to rebuild this browser elsewhere.

        The one taken right after the last action is reused: nothing has changed since."""
        self._ensure()
        if self._snapshot is None or not self._snapshot_fresh:
            self._snapshot = take_snapshot(self.session, previous=self._snapshot)
        self._snapshot_fresh = True
        return self._snapshot.to_json()

    def restore(self, data: dict[str, Any]) -> Observation:
        """Rebuild the browser from ``snapshot()`` output read back from a run folder
        (resuming): its tabs open only where the agent's own actions could go."""
        snap = Snapshot.from_json(data)
        failed = restore_snapshot(self.session, snap, web_only=True)
        self.session.evidence.forget()
        self._snapshot = snap
        self._last = None
        self._pending_error = None
        if failed:
            self.session.notice(f"could not reload {', '.join(failed[:3])} after restoring")
        return self.observe()

    def step(self, action: Action | str) -> ActionResult:
        """Run one action. Never raises: a failure (even a dead browser) is in the result."""
        try:
            self._ensure()
        except BrowserError as exc:
            result = ActionResult.failure(str(exc))
            self._pending_error = result.error
            return result
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ActionParseError as exc:
                result = ActionResult.failure(str(exc))
                self._pending_error = result.error
                return result
        self._snapshot_fresh = False
        frozen = self.session.page
        with self.hang.guard("action"):
            log = self.session.evidence
            with contextlib.suppress(PlaywrightError, BrowserError):
                log.begin(self.session.context.cookies(), self.session.page)
            result = execute(self.session, action, self._last)
            with contextlib.suppress(PlaywrightError, BrowserError):
                if refused := keep_on_the_web(self.session):
                    result = _refused(result, action, refused)
            cookies = None  # read once after the action: the evidence's and the snapshot's
            with contextlib.suppress(PlaywrightError, BrowserError):
                result.evidence, cookies = self._evidence()
            with contextlib.suppress(PlaywrightError, BrowserError):
                # What a revived browser restores. Inside the guard: reading storage
                # from a frozen page blocks just like any other call into it.
                self._snapshot = take_snapshot(self.session, cookies=cookies,
                                               previous=self._snapshot)
                self._snapshot_fresh = self.hang.fired is None
        if self.hang.fired:
            self.session.mark_broken(frozen)
            result = ActionResult.failure(self.hang.notice() or "the page stopped answering",
                                          action=action.name)
        self.stall.acted(action, result)
        self._pending_error = None if result.ok else result.error
        return result

    def _evidence(self) -> tuple[Evidence, list[dict[str, Any]]]:
        """What the action made the browser do, once its requests were answered, and
        the cookies it left."""
        session = self.session
        page = session.page
        session.evidence.wait_for_answers(page)
        cookies = session.context.cookies()
        return session.evidence.collect(page, cookies), cookies

    def late_evidence(self) -> Late | None:
        """What the last action caused after its step was recorded (a form post that
        started late, an answer that came late), for the verifier at a stop."""
        session = self.session
        if not session.started or not session.is_alive:
            return None
        frozen = session.page
        late = None
        with self.hang.guard("look at the last action's effects"), \
                contextlib.suppress(PlaywrightError, BrowserError):
            late = session.evidence.late(frozen, session.context.cookies())
        if self.hang.fired:
            session.mark_broken(frozen)
            session.notice(self.hang.notice() or "the page stopped answering")
            return None
        return late

    def close(self) -> None:
        self.session.close()
        self._last = None

    def __enter__(self) -> BrowserEnv:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _refused(result: ActionResult, action: Action, refused: str) -> ActionResult:
    """An action that led off the allowed web is a failed action, whatever it did."""
    error = f"{action.name} led somewhere the agent may not go: {refused}"
    if not result.ok and result.error:
        error = f"{result.error}; {refused}"
    return ActionResult(ok=False, error=error, output=result.output, info=result.info,
                        evidence=result.evidence)
