"""BrowserEnv: the Environment the episode loop talks to.

It keeps the last observation (bids are checked against it before acting) and
carries a failed step's error into the next observation, so the model reads what
went wrong right next to the page it is looking at.
"""

from __future__ import annotations

import contextlib
from types import TracebackType

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from colorbrowser.actions import parse_action
from colorbrowser.browser.execute import execute
from colorbrowser.browser.observe import observe
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import ActionParseError, BrowserError
from colorbrowser.types import Action, ActionResult, Observation


class BrowserEnv:
    """Real Chromium behind the ``Environment`` protocol; the browser starts on first use."""

    def __init__(self, settings: BrowserSettings | None = None) -> None:
        self.settings = settings or BrowserSettings()
        self.session = BrowserSession(self.settings)
        self._last: Observation | None = None
        self._pending_error: str | None = None
        self._restarted: str | None = None

    def _ensure(self) -> None:
        if not self.session.started:
            self.session.start()
        elif not self.session.is_alive:
            self.session.close()
            self.session.start()
            self._last = None
            self._restarted = "the browser stopped and was restarted; open tabs were lost"

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

        Raises BrowserError when the browser cannot start or ``url`` cannot be opened,
        since an episode cannot begin on a page that is not there.
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
        self._last = None
        self._pending_error = None
        if url:
            result = execute(session, Action("goto", [url]), None)
            if not result.ok:
                raise BrowserError(result.error or f"could not open {url}")
        return self.observe()

    def observe(self) -> Observation:
        self._ensure()
        obs = observe(self.session, self._last, interactive_only=self.settings.interactive_only,
                      screenshots=self.settings.screenshots)
        notes = (self._restarted, self._pending_error, obs.last_error)
        obs.last_error = "; ".join(e for e in notes if e) or None
        self._restarted = self._pending_error = None
        self._last = obs
        return obs

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
        result = execute(self.session, action, self._last)
        self._pending_error = None if result.ok else result.error
        return result

    def close(self) -> None:
        self.session.close()
        self._last = None

    def __enter__(self) -> BrowserEnv:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
