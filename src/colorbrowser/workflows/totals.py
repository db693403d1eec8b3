"""Answers that are a total of what a page lists rather than one value on it: "how
many open issues does the project have" is the sum of the "open" column of its
table, one row per tracker. Learning finds the column whose numbers add up to the
run's answer (two numbers or more, so that a single value stays a plain answer
place); the runner adds up the same column on a sibling's page.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from colorbrowser.knowledge.workflow import AnswerSource
from colorbrowser.workflows import page, values

_INT = re.compile(r"\d{1,12}")

Candidates = Callable[[AnswerSource, list[page.Line], dict[str, str]], list[tuple[int, str]]]


def total(texts: list[str]) -> str | None:
    """The sum of whole numbers, or None when one of them is not one (or none is)."""
    if not texts or not all(_INT.fullmatch(t.strip()) for t in texts):
        return None
    return str(sum(int(t) for t in texts))


def column_total(answer: str, lines: list[page.Line], params: dict[str, str],
                 candidates: Candidates) -> AnswerSource | None:
    """The table column of this page whose numbers add up to ``answer``."""
    if not _INT.fullmatch(answer.strip()):
        return None
    tried: set[tuple[str, str]] = set()
    for index, line in enumerate(lines):
        spot = page.column_of(lines, index) if line.bid and _INT.fullmatch(line.text) \
            else None
        header = page.header_of(lines, *spot) if spot else ""
        if not header or (line.role, header) in tried:
            continue
        tried.add((line.role, header))
        source = AnswerSource(target={"role": line.role, "contains": ""},
                              label=values.substitute(header, params), label_kind="column",
                              total=True)
        found = [text for _, text in candidates(source, lines, params)]
        if len(found) >= 2 and total(found) == answer.strip():
            return source
    return None
