"""Every API test talks to ScriptedEndpoint with its token, and keeps login profiles
in a scratch data folder, never the person's own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _scratch_user_folders(monkeypatch, tmp_path):
    monkeypatch.setenv("COLORBROWSER_API_KEY", "test-token")  # ScriptedEndpoint's token
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
