"""One evaluate on a page that a navigation may cut short.

A call into a tab whose navigation is under way waits until the new document commits,
and then fails: the document it was sent to is gone. The page the navigation brought
is the one to read, once it is parsed; so the call is made again there.
"""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page

_NAVIGATED = ("Execution context was destroyed", "navigat")


def evaluate_settled(target: Page | Frame, expression: str, arg: Any = None, *,
                     tries: int = 3) -> Any:
    """``target.evaluate(expression, arg)``, made again (up to ``tries`` times) on the
    document that replaced the one a navigation took away mid-call."""
    last: PlaywrightError | None = None
    for _ in range(tries):
        try:
            return target.evaluate(expression, arg)
        except PlaywrightError as exc:
            if not any(word in str(exc) for word in _NAVIGATED):
                raise
            last = exc
            with contextlib.suppress(PlaywrightError):
                page = target if isinstance(target, Page) else target.page
                page.wait_for_load_state("domcontentloaded")
    assert last is not None
    raise last
