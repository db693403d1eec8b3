"""The last layer of the navigation policy: no tab the agent may not look at stays open.

Runs after every action and before every observation. A tab on a page the policy
refuses (another local file reached from a trusted one, a pop-up to a host that is
not allowed, an error page left by a refused redirect) is closed when it is a fresh
pop-up, and otherwise sent back in its history, or to about:blank when there is no
safe page to go back to. The page's text is never observed, so it never reaches a
prompt, a trajectory or a screenshot.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from colorbrowser.browser.policy import BLANK, ERROR_PAGE
from colorbrowser.browser.session import BrowserSession

COMMIT_WAIT_MS = 1000  # a refused navigation's error page commits a moment after it fails


def _refusal(session: BrowserSession, page: Page) -> str | None:
    """What is wrong when ``page`` shows, or is about to show, what the agent may not see."""
    failed = session.failed_navigation(page)
    reason = session.policy.refuse_target(failed[0]) if failed else None
    if failed and reason:  # the browser would not resolve the host: nothing was sent
        _await_error_page(page)
        session.forget_failure(page)
        return f"{_shown(failed[0])} was refused: {reason}"
    url = page.url
    if url.startswith(ERROR_PAGE):
        return None  # an ordinary failure: the network watchdog's business
    reason = session.policy.refuse_page(url)
    return f"{_shown(url)} was left unread: {reason}" if reason else None


def _await_url(page: Page, arrived: Callable[[str], bool]) -> None:
    """Until the tab's address, which follows the driver's events, shows the commit
    that is on its way (at most ``COMMIT_WAIT_MS``)."""
    with contextlib.suppress(PlaywrightError):
        for _ in range(COMMIT_WAIT_MS // 20):
            if arrived(page.url):
                return
            page.wait_for_timeout(20)


def _await_error_page(page: Page) -> None:
    _await_url(page, lambda url: url.startswith(ERROR_PAGE))


def shows_failure(session: BrowserSession, page: Page) -> bool:
    """Whether ``page`` shows, or is about to show, the error page of a failed load.

    The error page commits a moment after the failure is reported; on a busy machine
    that is after the next observation has begun, and the watchdog would miss it."""
    if page.url.startswith(ERROR_PAGE):
        return True
    failed = session.failed_navigation(page)
    if failed is None:
        return False
    if "ERR_ABORTED" not in failed[1]:  # an aborted load (a download, a newer one) shows none
        _await_error_page(page)
        if page.url.startswith(ERROR_PAGE):
            return True
    session.forget_failure(page)
    return False


def _shown(url: str) -> str:
    return url if len(url) <= 100 else url[:99] + "…"


def leave_unread(session: BrowserSession, page: Page, url: str) -> str | None:
    """The document just read from ``page`` is at ``url``; when the agent may not look
    at it, the tab leaves it and the report says so, and the read must be dropped.

    ``keep_on_the_web`` judges the tab's address, which follows the driver's events: a
    navigation that commits after them (the page's own script, just before a look) is
    read by the next call into the page all the same, so the read itself is judged."""
    reason = session.policy.refuse_page(url)
    if reason is None:
        return None
    _await_url(page, url.__eq__)  # the tab's address catches up with the read
    if page.url != url:
        with contextlib.suppress(PlaywrightError):
            page.goto(BLANK)
        return f"{_shown(url)} was left unread: {reason}; the tab now shows about:blank"
    return f"{_shown(url)} was left unread: {reason}; {_retreat(session, page)}"


def _retreat(session: BrowserSession, page: Page) -> str:
    """Leave a refused page: close a pop-up, else go back, else go blank."""
    with contextlib.suppress(PlaywrightError, IndexError):
        opener = page.opener()
        if opener is not None and len(session.pages) > 1:
            page.close()
            pages = session.pages
            session.focus_tab(pages.index(opener) if opener in pages else len(pages) - 1)
            return "the tab was closed"
    if page.url.startswith(ERROR_PAGE) or session.policy.refuse_page(page.url):
        _go_back(page)
    if page.url != BLANK and not page.url.startswith(ERROR_PAGE) \
            and session.policy.refuse_page(page.url) is None:
        return f"the tab is back at {page.url}"
    with contextlib.suppress(PlaywrightError):
        page.goto(BLANK)
    return "the tab now shows about:blank"


def _go_back(page: Page, tries: int = 5) -> None:
    """Back one page. Right after an error page commits, the tab can be between two
    renderers for a moment ("not attached to an active page"): asked again then."""
    for _ in range(tries):
        try:
            page.go_back(wait_until="domcontentloaded")
            return
        except PlaywrightError as exc:
            if "not attached" not in str(exc).lower():
                return
            with contextlib.suppress(PlaywrightError):
                page.wait_for_timeout(100)


def keep_on_the_web(session: BrowserSession) -> str | None:
    """Enforce the policy on every open tab; a one-line report of what was refused."""
    if not session.started:
        return None
    notes = []
    for page in list(session.pages):
        what = _refusal(session, page)
        if what is not None:
            notes.append(f"{what}; {_retreat(session, page)}")
    return "; ".join(notes) or None
