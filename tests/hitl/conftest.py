"""Fixtures for the human-in-the-loop tests: local sites, one shared browser, stores."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def hitl_url(pages_url):
    """tests/pages/hitl: a checkout whose button needs a ticked box, an access-denied page."""
    return f"{pages_url}/hitl"


@pytest.fixture
def kb_path(tmp_path, monkeypatch) -> Path:
    # Never touch the user's own store, whatever a test forgets to pass.
    monkeypatch.setenv("COLORBROWSER_KB", str(tmp_path / "default-kb.db"))
    return tmp_path / "kb" / "knowledge.db"
