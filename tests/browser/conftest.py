"""One Chromium for the whole browser test module set; each test starts on a clean tab."""

from __future__ import annotations

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings

# Short action timeouts so that error paths (disabled, hidden, covered) fail fast, yet
# long enough that a click on a busy machine (load average 30) still lands.
TEST_SETTINGS = dict(action_timeout_ms=2500, navigation_timeout_ms=15000)


@pytest.fixture(scope="session")
def shared_env():
    with BrowserEnv(BrowserSettings(**TEST_SETTINGS)) as env:
        yield env


@pytest.fixture
def env(shared_env: BrowserEnv) -> BrowserEnv:
    """The shared browser, reset to one blank tab with default dialog handling."""
    shared_env.settings.dialogs = "accept"
    shared_env.settings.interactive_only = False
    shared_env.reset("about:blank")
    return shared_env


@pytest.fixture
def page_url(pages_url: str):
    def url(name: str) -> str:
        return f"{pages_url}/browser/{name}"
    return url

