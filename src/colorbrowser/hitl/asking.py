"""Asking a person for help: one typed request in, one typed answer out.

The terminal answers it today (TerminalAsker); the planned web panel, a review
queue or a test can answer the same ``Asker`` protocol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Protocol
from urllib.parse import urlsplit

from colorbrowser.knowledge.patterns import host_matches_site, match, url_host
from colorbrowser.knowledge.tip import InvalidTip, Tip, make_tip

AnswerKind = Literal["tip", "hint", "skip", "abort", "quit"]
RUN_CHOICES: tuple[AnswerKind, ...] = ("tip", "hint", "skip", "abort")
REVIEW_CHOICES: tuple[AnswerKind, ...] = ("tip", "skip", "quit")
WHOLE_SITE = "-"  # typed instead of a pattern: the tip applies on every page of the site


@dataclass
class HelpRequest:
    """Everything a person needs to understand where the agent is stuck."""

    reason: str
    goal: str
    url: str
    step: int | None = None
    summary: str = ""
    last_actions: list[str] = field(default_factory=list)
    screenshot: str | None = None  # path of the screenshot of the current page
    site: str = ""  # proposed scope of a tip ...
    pattern: str = ""  # ... and its proposed URL pattern
    choices: tuple[AnswerKind, ...] = RUN_CHOICES
    can_store: bool = True  # False: knowledge is off or frozen, a tip lives for this run only
    title: str = "The agent needs help"
    kinds: list[str] = field(default_factory=list)  # trigger kinds behind the reason
    run_dir: str | None = None
    live_url: str | None = None  # where ``url`` (a stable site name) is served right now

    @classmethod
    def at(cls, reason: str, goal: str, url: str, **more: object) -> HelpRequest:
        """A request with the tip's scope proposed from the current URL."""
        site, pattern = propose_scope(url)
        return cls(reason=reason, goal=goal, url=url, site=site, pattern=pattern, **more)


@dataclass
class HelpAnswer:
    kind: AnswerKind
    text: str = ""
    site: str = ""  # confirmed scope of a tip
    patterns: list[str] = field(default_factory=list)
    closed: bool = False  # the person's input ended: do not ask again

    def tip(self, **extra: object) -> Tip:
        """The stored form of a ``tip`` answer (raises InvalidTip, one line)."""
        return tip_from_answer(self.text, self.site, self.patterns, **extra)


class Asker(Protocol):
    def ask(self, request: HelpRequest) -> HelpAnswer: ...


_ID_SEGMENT = re.compile(r"^(?:\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36})$", re.I)


def propose_scope(url: str) -> tuple[str, str]:
    """(site, URL glob) a tip written on this page would most likely apply to.

    Record ids at the end of the path are dropped and the query is left out, so the
    tip covers the whole family of pages: ``/admin/order/view/42?tab=2`` becomes
    ``http://host/admin/order/view/*`` and ``/product.html?id=3`` becomes
    ``http://host/product.html*``.
    """
    parts = urlsplit(url.strip())
    host = url_host(url)
    if parts.scheme not in ("http", "https") or not host:
        return host, ""
    path = parts.path or "/"
    segments = path.rstrip("/").split("/")  # "/a/b/" -> ["", "a", "b"]; "/" -> [""]
    dropped = False
    while len(segments) > 1 and _ID_SEGMENT.match(segments[-1]):
        segments.pop()
        dropped = True
    base = "/".join(segments)
    # A file (product.html?id=3) takes a bare star; a folder or a plain last segment
    # (/search) becomes a folder glob, which also covers the segment itself.
    is_file = not dropped and not path.endswith("/") and "." in segments[-1]
    glob = base + ("*" if is_file else "/*")
    return host, f"{parts.scheme}://{host}{glob}"


def tip_from_answer(text: str, site: str, patterns: list[str], **extra: object) -> Tip:
    """Validate a person's tip and scope; every problem is one readable line."""
    text = (text or "").strip()
    if not text:
        raise InvalidTip("the tip is empty: write what the agent should know about this site")
    if not (site or "").strip():
        raise InvalidTip("the tip needs a site (a host such as shop.example.com)")
    fields: dict[str, object] = {"source": "person", **extra}
    try:
        return make_tip(site=site.strip(), url_patterns=[p.strip() for p in patterns],
                        text=text, **fields)
    except InvalidTip as exc:
        # The id is generated, so "tip <id>: " would only confuse the person.
        raise InvalidTip(re.sub(r"^tip [^:\s]*:\s*|^tip:\s*", "", str(exc))) from None


def scope_matches(tip: Tip, url: str) -> bool:
    """Whether a tip's scope covers a URL (site, then patterns if it has any)."""
    if not host_matches_site(url_host(url), tip.site):
        return False
    try:
        return not tip.url_patterns or any(match(p, url) for p in tip.url_patterns)
    except ValueError:
        return False
