"""Fixtures shared by every test area: a loopback server for the test pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.testing import serve_directory

PAGES = Path(__file__).parent / "pages"


@pytest.fixture(scope="session")
def pages_url():
    """Base URL of tests/pages served on 127.0.0.1."""
    with serve_directory(PAGES, token="") as url:  # pages use root-absolute links
        yield url
