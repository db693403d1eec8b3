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
  first, or those tied to a value of the goal: dated in the month it names ("how many
  orders did I place in March 2024", ``dates.py``) or holding the value (the bugs of
  the person it names); the runner counts the same places on the sibling's page. A
  count is a weaker proof than a written value, so it is tried last, except over a
  number read at a place known only by where it stands, which a count tied to the
  goal explains better (``explained``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from colorbrowser.knowledge.workflow import AnswerSource
from colorbrowser.workflows import dates, page, values

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


def by_goal(answer: str, lines: list[page.Line], params: dict[str, str],
            candidates: Candidates) -> AnswerSource | None:
    """The places of an item role tied to a value of the goal that are ``answer`` many:
    those dated in the month the goal names (the orders placed in March 2024), else the
    rows that hold one of the goal's values (the open bugs of the person it names)."""
    if not _INT.fullmatch(answer.strip()):
        return None
    tries = [AnswerSource(target={"role": role, "contains": ""}, gather="count",
                          label=f"{{{{{name}}}}}", label_kind="month")
             for name, value in params.items() if dates.month_of(value)
             for role in GATHER_ROLES]
    tries += [AnswerSource(target={"role": "row", "contains": ""}, gather="count",
                           label=f"{{{{{name}}}}}", label_kind="row")
              for name, value in params.items() if value.strip()]
    for source in tries:
        texts = [text for _, text in candidates(source, lines, params)]
        # None counted is a count only among dated places (the month's orders are none
        # of the list's); a value no row holds explains nothing.
        if (texts or (source.label_kind == "month" and _dated(source, lines, params,
                                                              candidates))) and \
                gather("count", texts, 0) == answer.strip():
            return source
    return None


def _dated(source: AnswerSource, lines: list[page.Line], params: dict[str, str],
           candidates: Candidates) -> bool:
    every = source.model_copy(update={"label": "", "label_kind": "beside"})
    return any(dates.dates_in(text) for _, text in candidates(every, lines, params))


def counted(answer: str, lines: list[page.Line], params: dict[str, str],
            candidates: Candidates) -> AnswerSource | None:
    """The places dated in the goal's month that are ``answer`` many; else the item role
    whose places, all or all but the first, are; else the rows that hold one of the
    goal's values (the open bugs of the person the goal names, in a list of
    everyone's)."""
    if not _INT.fullmatch(answer.strip()):
        return None
    months = by_goal(answer, lines, {n: v for n, v in params.items() if dates.month_of(v)},
                     candidates)
    if months is not None:
        return months
    for role in GATHER_ROLES:
        source = AnswerSource(target={"role": role, "contains": ""}, gather="count")
        texts = [text for _, text in candidates(source, lines, params)]
        for start in range(min(MAX_SKIP, len(texts) - 1) + 1):
            if texts and gather("count", texts, start) == answer.strip():
                return source.model_copy(update={"target": dict(source.target, nth=start)})
    return by_goal(answer, lines, params, candidates)


def explained(source: AnswerSource | None, lines: list[page.Line], answer: str,
              params: dict[str, str], candidates: Candidates) -> AnswerSource | None:
    """A number read at a place known only by where it stands (the fourth cell of a
    column, counted from the start or the end, or its first in a row that holds no value
    of the goal) is a coincidence when a count of places tied to the goal's values explains it:
    "3 orders in January" is not the "3" items of some order. The count is the
    reading then (``by_goal``)."""
    if source is None or source.target is None or source.gather or source.total or \
            values.PARAM_MARK.search(f"{source.label} {source.around or ''}") or \
            not _placed_by_position(source, lines, params, candidates):
        return source
    return by_goal(answer, lines, params, candidates) or source


def _placed_by_position(source: AnswerSource, lines: list[page.Line],
                        params: dict[str, str], candidates: Candidates) -> bool:
    """Counted from the start or the end (``nth``), or the first cell of a column in a
    row that holds none of the goal's values."""
    if source.target and (source.target.get("nth") or source.from_end):
        return True
    if source.label_kind != "column":
        return False
    found = candidates(source, lines, params)
    spot = page.column_of(lines, found[0][0]) if found else None
    if spot is None:
        return False
    row = page.subtree_text(lines, spot[0])
    return not any(values.occurs(v, row) for v in params.values() if v.strip())
