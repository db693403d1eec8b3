"""Fixtures for the human-in-the-loop tests: local sites, one shared browser, stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import serve_directory

SHOP = Path(__file__).resolve().parents[2] / "src" / "colorbrowser" / "demo" / "site"


@pytest.fixture(scope="module")
def shop_url():
    """The demo shop, under a random token path like `colorbrowser demo` serves it."""
    with serve_directory(SHOP) as url:
        yield url


@pytest.fixture(scope="session")
def hitl_url(pages_url):
    """tests/pages/hitl: a checkout whose button needs a ticked box, an access-denied page."""
    return f"{pages_url}/hitl"


@pytest.fixture(scope="module")
def browser_env():
    env = BrowserEnv(BrowserSettings(action_timeout_ms=1500, screenshots=True))
    yield env
    env.close()


@pytest.fixture
def kb_path(tmp_path, monkeypatch) -> Path:
    # Never touch the user's own store, whatever a test forgets to pass.
    monkeypatch.setenv("COLORBROWSER_KB", str(tmp_path / "default-kb.db"))
    return tmp_path / "kb" / "knowledge.db"
