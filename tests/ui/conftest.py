"""A real Chromium to open the pages the viewer writes."""

from __future__ import annotations

import pytest

from colorbrowser.browser.launch import launch_options, shared_playwright
from colorbrowser.config import BrowserSettings


@pytest.fixture(scope="session")
def browser():
    with shared_playwright() as p:
        browser = p.chromium.launch(**launch_options(BrowserSettings()))
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    yield context.new_page()
    context.close()
