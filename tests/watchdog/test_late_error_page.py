"""A failed load's error page can commit after the next observation has begun.

Scripted stand-ins for the page and session: the race is a matter of event order,
which a real browser on an idle machine almost never shows."""

from __future__ import annotations

from dataclasses import dataclass, field

from colorbrowser.browser.navguard import shows_failure

REFUSED = ("http://127.0.0.1:9/", "net::ERR_CONNECTION_REFUSED")


@dataclass
class LatePage:
    """Shows the old address until ``commits_after`` waits have passed."""

    url: str = "http://127.0.0.1:8000/"
    commits_after: int | None = 3
    waits: int = 0

    def wait_for_timeout(self, ms: float) -> None:
        self.waits += 1
        if self.commits_after is not None and self.waits >= self.commits_after:
            self.url = "chrome-error://chromewebdata/"


@dataclass
class Session:
    failed: tuple[str, str] | None = REFUSED
    forgotten: list[object] = field(default_factory=list)

    def failed_navigation(self, page: object) -> tuple[str, str] | None:
        return self.failed

    def forget_failure(self, page: object) -> None:
        self.forgotten.append(page)
        self.failed = None


def test_a_failure_whose_error_page_is_still_on_its_way_is_seen():
    page, session = LatePage(), Session()
    assert shows_failure(session, page)
    assert page.url.startswith("chrome-error://") and not session.forgotten


def test_a_page_with_no_failed_load_is_not_waited_for():
    page = LatePage()
    assert not shows_failure(Session(failed=None), page)
    assert page.waits == 0


def test_an_aborted_load_shows_no_error_page_and_is_forgotten_at_once():
    page, session = LatePage(), Session(failed=("http://x.test/f.zip", "net::ERR_ABORTED"))
    assert not shows_failure(session, page)
    assert page.waits == 0 and session.forgotten == [page]


def test_an_error_page_that_never_comes_is_waited_for_once():
    page, session = LatePage(commits_after=None), Session()
    assert not shows_failure(session, page)
    waited = page.waits
    assert waited > 0 and session.forgotten == [page]
    assert not shows_failure(session, page)
    assert page.waits == waited
