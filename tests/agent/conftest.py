"""Fixtures for episode tests: the demo shop on loopback and a shared real browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import serve_directory

SHOP = Path(__file__).resolve().parents[2] / "src" / "colorbrowser" / "demo" / "site"


@pytest.fixture(scope="module")
def shop_url():
    with serve_directory(SHOP) as url:
        yield url


@pytest.fixture(scope="module")
def browser_env():
    env = BrowserEnv(BrowserSettings(action_timeout_ms=1500))
    yield env
    env.close()
