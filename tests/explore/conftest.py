"""Fixtures for exploration: the counting test site, a host it links to that the
explorer may not reach, and a helper that runs one exploration."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.config import BrowserSettings
from colorbrowser.explore.run import ExploreRequest, explore

from .site import sites_linking_out


@pytest.fixture
def linked_sites():
    """The site, and a second server it links to as ``localhost``: a host not on the list."""
    with sites_linking_out("localhost") as pair:
        yield pair


@pytest.fixture
def site(linked_sites):
    return linked_sites[0]


@pytest.fixture
def other_host(linked_sites):
    return linked_sites[1]


@pytest.fixture
def site_url(site) -> str:
    return f"http://127.0.0.1:{site.port}/"


def run_explore(start: str, out: Path, budget: int, **kw) -> str:
    """One exploration with small timeouts; the one-line summary."""
    kw.setdefault("allow_hosts", ["127.0.0.1"])
    kw.setdefault("tasks", False)
    kw.setdefault("screenshots", "nodes")
    request = ExploreRequest(start_url=start, budget=budget, out=out, **kw)
    return explore(request, say=lambda _: None)


SMALL = BrowserSettings(action_timeout_ms=1500)
