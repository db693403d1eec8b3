"""Changed pages for the arena: the apps' pages rewritten the way a site's next release
rewrites them, so that blind replay of a recorded workflow breaks.

Four kinds of change, each a rule over the page (``pagechanges.js``), not a patch of one
page: ``rename`` (the target's label gets another word, or is decorated), ``swap`` (its
table row or menu item trades places with a sibling), ``extra`` (an element of the same
role and name, in a box with a heading of its own, is put before it: a selector that
takes the first match now takes the decoy) and ``remove`` (it is gone, with its label).
Which element a rule hits is given by names (a workflow's targets) or, without names,
drawn from the page's controls; the draw, the synonym and the decoy's heading follow the
seed and the page's path, so a run is repeatable.

The rules are injected at the end of every HTML document of the app, either by the
fault proxy (``FaultProxy(changes=...)``) or by a route on the browser context
(``ChangedPages``), which keeps the app's addresses (an evaluator that checks the URL
still sees the app's). Every action on a decoy is reported to
``/__arena_changed__/wrong`` and counted: an action on the wrong element.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs, urljoin, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Route

ChangeKind = Literal["rename", "swap", "extra", "remove"]
KINDS: tuple[ChangeKind, ...] = ("rename", "swap", "extra", "remove")
WRONG_PATH = "/__arena_changed__/wrong"
WRONG_PAGE = ("<!doctype html><title>Wrong element</title>"
              "<h1>Wrong element</h1><p>This link was a decoy put on the page.</p>")
# An app slow to answer on a loaded machine is waited for: falling back would show the
# page unchanged, and the run would not measure a changed page.
FETCH_TIMEOUT_MS = 60_000
_BODY_END = re.compile(rb"</body\s*>(?![\s\S]*</body\s*>)", re.I)


@dataclass(frozen=True)
class PageChange:
    """One rule: ``kind`` applied to the ``nth`` control named one of ``names`` (exact
    names, or ``contains`` texts) on every page where one is found. The other controls
    of those names and the target's tag are its twins: acting on one counts as acting
    on the wrong element, as acting on a decoy does."""

    kind: ChangeKind
    names: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    nth: int = 0
    ends: bool = False  # each ``contains`` text ends the name (a plan target's ``ends``)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown page change {self.kind!r} (one of {', '.join(KINDS)})")
        if isinstance(self.nth, bool) or not isinstance(self.nth, int) or self.nth < 0:
            raise ValueError(f"a page change's nth is a whole number from 0, not {self.nth!r}")

    def to_data(self) -> dict[str, Any]:
        names = [{"text": n, "exact": True} for n in self.names]
        names += [{"text": c, "exact": False, "ends": bool(self.ends)} for c in self.contains]
        return {"kind": self.kind, "names": names, "nth": int(self.nth)}


@cache
def _script() -> str:
    return (resources.files("colorbrowser.arena") / "pagechanges.js").read_text("utf-8")


def script_for(changes: Iterable[PageChange], seed: int) -> str:
    """The rules as one inline script (the configuration is JSON, safe inside <script>)."""
    config = json.dumps({"seed": int(seed), "changes": [c.to_data() for c in changes]})
    config = config.replace("<", "\\u003c")  # no "</script>" can end it early
    return _script().replace("__CONFIG__", config)


def inject(html: bytes, changes: Iterable[PageChange], seed: int) -> bytes:
    """The document with the rules at the end of its body (or appended, without one)."""
    tag = b"<script>" + script_for(changes, seed).encode("utf-8") + b"</script>"
    found = _BODY_END.search(html)
    if found is None:
        return html + tag
    return html[:found.start()] + tag + html[found.start():]


def is_html(content_type: str | None) -> bool:
    return (content_type or "").split(";", 1)[0].strip().lower() in ("text/html",
                                                                      "application/xhtml+xml")


@dataclass
class WrongHits:
    """Actions on decoys, one per decoy and page load (a fill fires input and change)."""

    seen: set[tuple[str, str]] = field(default_factory=set)
    log: list[str] = field(default_factory=list)

    def record(self, url: str) -> None:
        query = parse_qs(urlsplit(url).query)
        decoy = (query.get("decoy") or ["link"])[0]
        page = (query.get("page") or [""])[0]
        via = (query.get("via") or [""])[0]
        if via == "nav":  # the link's own navigation: its click was counted already
            return
        key = (page, decoy)
        if key not in self.seen:
            self.seen.add(key)
            self.log.append(f"{via} on decoy {decoy} of {page}")

    @property
    def count(self) -> int:
        return len(self.seen)


@dataclass
class ChangedPages:
    """Rewrites the documents of the given origins in a browser context as they load."""

    origins: list[str]  # e.g. ["http://127.0.0.1:8103"]
    changes: list[PageChange]
    seed: int = 0
    wrong: WrongHits = field(default_factory=WrongHits)
    pages: int = 0  # documents rewritten
    _context: BrowserContext | None = None
    _handler: Callable[[Route], None] | None = None

    def wants(self, url: str) -> bool:
        return any(url == o or url.startswith(o.rstrip("/") + "/") for o in self.origins)

    def install(self, context: BrowserContext) -> ChangedPages:
        self.uninstall()
        self._context, self._handler = context, self._route
        context.route(self.wants, self._handler)
        return self

    def uninstall(self) -> None:
        context, handler = self._context, self._handler
        self._context = self._handler = None
        if context is not None and handler is not None:
            with contextlib.suppress(Exception):  # a closed context has no routes left
                context.unroute(self.wants, handler)

    def _route(self, route: Route) -> None:
        request = route.request
        if urlsplit(request.url).path == WRONG_PATH:
            self.wrong.record(request.url)
            route.fulfill(status=200, content_type="text/html", body=WRONG_PAGE)
            return
        if request.resource_type != "document":
            route.fallback()
            return
        try:  # a redirect is not followed here: the browser must show where the app
            # sends it (a quick jump to a ticket, a search that finds its article)
            response = route.fetch(max_redirects=0, timeout=FETCH_TIMEOUT_MS)
        except Exception:  # the app went away: let the browser see the real failure
            route.fallback()
            return
        location = response.headers.get("location")
        if 300 <= response.status < 400 and location:
            # A redirect the browser followed itself would not come through this route
            # again (its page would be unchanged): the target is opened as a navigation
            # of its own, which is.
            target = json.dumps(urljoin(request.url, location)).replace("<", "\\u003c")
            route.fulfill(status=200, content_type="text/html",
                          body=f"<!doctype html><script>location.replace({target})</script>")
            return
        headers = {k: v for k, v in response.headers.items()
                   if k.lower() not in ("content-length", "content-security-policy",
                                        "content-encoding")}
        body = response.body()
        if is_html(response.headers.get("content-type")):
            body = inject(body, self.changes, self.seed)
            self.pages += 1
        route.fulfill(status=response.status, headers=headers, body=body)


class ChangedTask:
    """An arena task whose pages are changed while the agent works, and not while its
    evaluator looks (the evaluator checks the app, not the rewrite)."""

    def __init__(self, task: Any, pages: ChangedPages) -> None:
        self.inner = task
        self.pages = pages
        self.id = task.id
        self.site = getattr(task, "site", None)
        self.instance = getattr(task, "instance", None)

    def setup(self, page: Page):
        self.pages.install(page.context)
        return self.inner.setup(page)

    def state_probe(self):
        probe = getattr(self.inner, "state_probe", None)
        return probe() if callable(probe) else None

    def validate(self, page: Page, answer: str | None):
        self.pages.uninstall()
        return self.inner.validate(page, answer)

    def teardown(self) -> None:
        self.pages.uninstall()
        self.inner.teardown()
