"""Answers gathered from many places of a page rather than read at one:

- a **total**: "how many open issues does the project have" is the sum of the "open"
  column of its table, one row per tracker. Learning finds the column whose numbers add
  up to the run's answer (two numbers or more, so that a single value stays a plain
  answer place); the runner adds up the same column on a sibling's page.
- a **joined** text: "summarise the advice people gave in the topic" was answered with
  the topic's replies, the texts of its posts after the first, one after the other.
  Learning finds the role whose places, from one of them to the last, join into the
  answer (two or more); the runner joins the same places of the sibling's page.
- a **count**: "how many replies does the topic have" is the number of its posts after
  the first, which no element of the page states. Learning counts the places of an
  item role (paragraphs, rows, list items, articles), all of them or all but the
  first; the runner counts the same places on the sibling's page. A count is a weaker
  proof than a written value, so it is tried last.
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


GATHER_ROLES = ("paragraph", "row", "listitem", "article")  # what a count may count
MAX_SKIP = 1  # places left out before a count starts (a topic's opening post)


def gather(how: str, texts: list[str], start: int) -> str | None:
    """The answer gathered from these places' texts, from ``start`` on: their number or
    their texts joined; None when the page holds fewer places than ``start`` (a count)
    or none from there (a joined text)."""
    if len(texts) < start:
        return None
    if how == "count":
        return str(len(texts) - start)
    rest = [" ".join(t.split()) for t in texts[start:]]
    return " ".join(rest) if rest else None


def joined(answer: str, lines: list[page.Line], params: dict[str, str],
           candidates: Candidates) -> AnswerSource | None:
    """The role whose places, from one of them to the last, join into ``answer``."""
    want = page.norm(answer)
    if not want:
        return None
    for role in dict.fromkeys(line.role for line in lines if line.bid):
        source = AnswerSource(target={"role": role, "contains": ""}, gather="join")
        texts = [text for _, text in candidates(source, lines, params)]
        for start in range(len(texts) - 1):
            if page.norm(gather("join", texts, start) or "") == want:
                return source.model_copy(update={"target": dict(source.target, nth=start)})
    return None


def countable(answer: str, lines: list[page.Line]) -> set[str]:
    """For a number no line of the page shows: the texts of the elements in its rows,
    so that a goal's words among them (the person whose rows are counted) become
    values of the goal, as the texts a run typed or clicked do."""
    if not _INT.fullmatch(answer.strip()) or \
            any(values.occurs(answer.strip(), line.shown) for line in lines):
        return set()
    return {line.text for i, line in enumerate(lines)
            if line.bid and line.text and page.row_of(lines, i) is not None}


def counted(answer: str, lines: list[page.Line], params: dict[str, str],
            candidates: Candidates) -> AnswerSource | None:
    """The item role whose places, all or all but the first, are ``answer`` many; else
    the rows that hold one of the goal's values (the open bugs of the person the goal
    names, in a list of everyone's)."""
    if not _INT.fullmatch(answer.strip()):
        return None
    tries = [AnswerSource(target={"role": role, "contains": ""}, gather="count")
             for role in GATHER_ROLES]
    tries += [AnswerSource(target={"role": "row", "contains": ""}, gather="count",
                           label=f"{{{{{name}}}}}", label_kind="row")
              for name, value in params.items() if value.strip()]
    for source in tries:
        texts = [text for _, text in candidates(source, lines, params)]
        for start in range(min(MAX_SKIP, len(texts) - 1) + 1):
            if texts and gather("count", texts, start) == answer.strip():
                return source.model_copy(update={"target": dict(source.target, nth=start)})
    return None
