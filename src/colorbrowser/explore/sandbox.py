"""Safety: what may be tried, and how its effects are undone.

Without a way to reset the site, actions that write are skipped, and a network guard
aborts any request that is not a GET, HEAD or OPTIONS (and, always, any request
to a host not on the list), so even a script button whose
effect no rule foresaw cannot change the site. With a sandbox (an arena app, whose
snapshot is restored in milliseconds, or the demo shop, whose data lives in the
browser's storage), writes are tried and the snapshot is restored afterwards.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from playwright.sync_api import BrowserContext, Route

from colorbrowser.browser.policy import NavigationPolicy

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Sandbox(Protocol):
    """A site whose data can be put back as it was."""

    name: str

    def reset(self) -> None: ...

    def db_paths(self) -> list[Path]: ...


class BrowserStorageSandbox:
    """A site that keeps its data in the browser (the demo shop's cart and orders):
    clearing cookies and storage puts it back."""

    name = "browser storage"

    def __init__(self, context: Callable[[], BrowserContext]) -> None:
        self._context = context

    def reset(self) -> None:
        context = self._context()
        context.clear_cookies()
        for page in context.pages:
            with contextlib.suppress(Exception):
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")

    def db_paths(self) -> list[Path]:
        return []


class RequestGuard:
    """Stops a request before it leaves the browser when its host is not on the list
    (always) or when it could write and nothing can undo it (``writes=False``);
    keeps what it stopped. Chromium's host rules alone let IP literals through."""

    def __init__(self, policy: NavigationPolicy, *, writes: bool) -> None:
        self.policy = policy
        self.writes = writes
        self.blocked: list[str] = []  # writes stopped
        self.off_list: list[str] = []  # requests to hosts not allowed

    def install(self, context: BrowserContext) -> None:
        context.route("**/*", self._route)

    def _route(self, route: Route) -> None:
        request = route.request
        url = request.url
        if url.startswith(("http://", "https://")) and self.policy.refuse_target(url):
            self.off_list.append(url[:200])
            route.abort("blockedbyclient")
            return
        if self.writes or request.method.upper() in SAFE_METHODS:
            route.fallback()
            return
        self.blocked.append(f"{request.method} {url[:200]}")
        route.abort("blockedbyclient")


def timed_reset(sandbox: Sandbox) -> float:
    start = time.perf_counter()
    sandbox.reset()
    return time.perf_counter() - start
