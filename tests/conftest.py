"""Fixtures shared by every test area: loopback sites and a shared real browser."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.launch import launch_options, shared_playwright
from colorbrowser.config import BrowserSettings
from colorbrowser.testing import serve_directory

PAGES = Path(__file__).parent / "pages"
SHOP = Path(__file__).resolve().parents[1] / "src" / "colorbrowser" / "demo" / "site"


def pytest_configure(config):
    # No test may touch the user's own knowledge base or config, whatever it forgets
    # to pass; subprocesses inherit these too.
    scratch = Path(tempfile.mkdtemp(prefix="colorbrowser-tests-"))
    os.environ["COLORBROWSER_KB"] = str(scratch / "default-knowledge.db")
    os.environ["XDG_CONFIG_HOME"] = str(scratch / "config")
    os.environ["COLORBROWSER_RUNS"] = str(scratch / "runs")


@pytest.fixture(scope="session")
def pages_url():
    """Base URL of tests/pages served on 127.0.0.1."""
    with serve_directory(PAGES, token="") as url:  # pages use root-absolute links
        yield url


@pytest.fixture(scope="session")
def shop_url():
    """The demo shop, under a random token path as `colorbrowser demo` serves it."""
    with serve_directory(SHOP) as url:
        yield url


@pytest.fixture(scope="module")
def browser_env():
    env = BrowserEnv(BrowserSettings(action_timeout_ms=1500))
    yield env
    env.close()


@pytest.fixture(scope="session")
def browser():
    """A plain Playwright Chromium, for tests that drive pages themselves."""
    with shared_playwright() as p:
        browser = p.chromium.launch(**launch_options(BrowserSettings()))
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context()
    yield context
    context.close()


@pytest.fixture
def page(context):
    return context.new_page()
