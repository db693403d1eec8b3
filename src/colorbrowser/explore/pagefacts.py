"""Facts about the page the rules need and the observation does not carry (where a
link leads, which form a button submits and how) and the label/value pairs page
questions are taken from, read by one ``evaluate`` of pagefacts.js."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

_UNIT = r"(second|minute|hour|day|week|month|year)s?"
# "(3 years ago)", "about 2 hours ago", "due in 3 weeks", "5 days late", "yesterday":
# true today, false some day later
_RELATIVE = re.compile(
    rf"\(?\s*\b((about|over|almost|less than|more than)\s+)?"
    rf"((\d+|an?)\s+{_UNIT}\s+(ago|late|left)|due\s+in\s+(\d+|an?)\s+{_UNIT}"
    rf"|just now|today|yesterday|tomorrow)\b\s*\)?", re.I)


def lasting(answer: str) -> str | None:
    """The part of a page's answer that stays true: the text before a phrase relative to
    today ("09/05/23 09:00:00" of "09/05/23 09:00:00 (3 years ago)"), still word for word
    from the page; None when nothing is left of it."""
    found = _RELATIVE.search(answer)
    if found is None:
        return answer
    before = answer[:found.start()].rstrip(" \t,;:-(")
    return before if re.search(r"\w", before) else None


@cache
def _source() -> str:
    return resources.files("colorbrowser.explore").joinpath("pagefacts.js").read_text("utf-8")


@dataclass
class Pair:
    label: str
    value: str
    where: str = ""


@dataclass
class PageFacts:
    elements: dict[str, dict[str, Any]] = field(default_factory=dict)
    pairs: list[Pair] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    h1: str = ""

    def of(self, bid: str) -> dict[str, Any]:
        return self.elements.get(bid, {})

    def value_for(self, label: str) -> str:
        """The value a page shows for ``label`` ('' when it shows none)."""
        for pair in self.pairs:
            if pair.label == label:
                return pair.value
        return ""


def read_facts(page: Page) -> PageFacts:
    """The facts of the page as it is now; empty facts when the page cannot be read."""
    try:
        raw = json.loads(page.evaluate(_source()))
    except (PlaywrightError, ValueError, TypeError):
        return PageFacts()
    return PageFacts(elements=raw.get("elements") or {},
                     pairs=[Pair(**p) for p in raw.get("pairs") or []],
                     tables=raw.get("tables") or [], h1=raw.get("h1") or "")
