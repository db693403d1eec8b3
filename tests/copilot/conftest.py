"""A browser session with capture installed, and a person who acts in it with real
(CDP) mouse and keyboard input, as the copilot's scripted persons do."""

from __future__ import annotations

import time

import pytest

from colorbrowser.browser.capture import Capture
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.copilot.normalize import Normalised, normalise


class Watched:
    """One browser session whose person's input is captured from ``mark()`` on."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.secrets: list[str] = []
        self.session = BrowserSession(BrowserSettings(action_timeout_ms=3000)).start()
        self.capture = Capture(on_secret=self.secrets.append).install(self.session)
        self.since = 0.0

    @property
    def page(self):
        return self.session.page

    def url(self, name: str) -> str:
        return f"{self.base}/copilot/{name}"

    def open(self, name: str) -> None:
        """Open a page before the person's turn (not counted as theirs)."""
        self.page.goto(self.url(name))
        self.page.wait_for_timeout(100)
        self.mark()

    def mark(self) -> None:
        self.since = time.time() * 1000

    def actions(self, settle_ms: int = 300) -> Normalised:
        """What the person did since ``mark()``, in the agent's syntax."""
        self.page.wait_for_timeout(settle_ms)  # events arrive during Playwright calls
        since = self.since
        return normalise(self.capture.all(), keep=lambda e: e.t >= since)

    def texts(self, settle_ms: int = 300) -> list[str]:
        return [a.label() for a in self.actions(settle_ms).actions]

    def close(self) -> None:
        self.session.close()


@pytest.fixture
def watched(pages_url):
    w = Watched(pages_url)
    yield w
    w.close()


@pytest.fixture
def now_ms():
    return lambda: time.time() * 1000
