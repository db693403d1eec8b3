"""Reading the observation's tree text the way a person reads a page: which label a
control sits beside, which section heading is above it, which table row holds it.

Learning records these around a target (``Surroundings``) and the runner checks them
again on the live page before acting, so both sides must compute them the same way:
this module is that one way, over the lines ``browser/tree_lines.py`` reads.
"""

from __future__ import annotations

import re

from colorbrowser.browser.tree_lines import Line, parse
from colorbrowser.knowledge.workflow import Surroundings

LABEL_ROLES = {"columnheader", "rowheader", "term", "label", "LabelText"}
ROW_ROLES = {"row", "listitem"}
LABEL_REACH = 2  # a label stands at most this many siblings before its control


def same_targets(lines: list[Line], role: str, name: str | None = None,
                 contains: str | None = None, *, ends: bool = False) -> list[int]:
    """Lines a target of this role and name (or part of a name; ``ends``: the part that
    ends the name) could be: learning records how many there were, and the runner wants
    as many on the live page."""
    if contains is not None:
        part = " ".join(contains.split()).lower()
        return [i for i, line in enumerate(lines)
                if line.bid and line.role == role and (
                    line.text.lower().endswith(part) if ends else part in line.text.lower())]
    whole = " ".join((name or "").split())
    return [i for i, line in enumerate(lines)
            if line.bid and line.role == role and line.text == whole]


def index_of(lines: list[Line], bid: str) -> int | None:
    return next((i for i, line in enumerate(lines) if line.bid == bid), None)


def parent_of(lines: list[Line], index: int) -> int | None:
    depth = lines[index].depth
    for i in range(index - 1, -1, -1):
        if lines[i].depth < depth:
            return i
    return None


def children_of(lines: list[Line], index: int) -> list[int]:
    depth, out = lines[index].depth, []
    for i in range(index + 1, len(lines)):
        if lines[i].depth <= depth:
            break
        if lines[i].depth == depth + 1:
            out.append(i)
    return out


def subtree_text(lines: list[Line], index: int) -> str:
    depth, parts = lines[index].depth, [lines[index].text]
    for i in range(index + 1, len(lines)):
        if lines[i].depth <= depth:
            break
        parts.append(lines[i].text)
    return " ".join(p for p in parts if p)


def norm(text: str) -> str:
    """Compared the way a person would: spaces, case and a trailing colon do not count."""
    return " ".join(text.split()).rstrip(":").strip().casefold()


def label_of(lines: list[Line], index: int) -> str:
    """The label just before this element among its siblings: a header cell, a term, a
    label, or a text that ends with a colon."""
    depth, seen = lines[index].depth, 0
    for i in range(index - 1, -1, -1):
        line = lines[i]
        if line.depth < depth:
            break
        if line.depth > depth:
            continue
        seen += 1
        if line.role in LABEL_ROLES or (line.text.endswith(":") and line.role in
                                       ("text", "generic", "paragraph", "strong", "cell")):
            return line.text
        if seen >= LABEL_REACH:
            break
    return ""


def row_of(lines: list[Line], index: int) -> int | None:
    """The table row or list item that holds this element."""
    i = parent_of(lines, index)
    while i is not None:
        if lines[i].role in ROW_ROLES:
            return i
        if lines[i].role in ("table", "list", "grid"):
            return None
        i = parent_of(lines, i)
    return None


def stable_heading(line: Line) -> bool:
    """A section heading that names a kind of section ("Add Comment"), not one item
    ("#18 new defect"): item headings differ from one sibling task to the next."""
    return line.role == "heading" and bool(line.text) and not re.search(r"\d", line.text) \
        and (line.level is None or line.level >= 2)


def section_heading(lines: list[Line], index: int) -> str:
    """The nearest heading above this element that titles a section (level 2 or
    lower: not the page's own title), whatever its text, or ""."""
    for i in range(index - 1, -1, -1):
        if lines[i].role == "heading":
            return lines[i].text if (lines[i].level or 2) >= 2 else ""
    return ""


def headings_above(lines: list[Line], index: int) -> list[str]:
    return [line.text for line in lines[:index] if stable_heading(line)]


def surroundings(lines: list[Line], index: int) -> Surroundings:
    """What learning records around a target (``row`` is set by the learner, which
    knows the goal's values)."""
    above = headings_above(lines, index)
    before, after = neighbours(lines, index)
    return Surroundings(label=label_of(lines, index), heading=above[-1] if above else "",
                        no_heading=not above, before=before, after=after)


def named(line: Line) -> str:
    """An element as a neighbour is recorded: its role and name (``link Roadmap``)."""
    return f"{line.role} {line.text}"


def neighbours(lines: list[Line], index: int) -> tuple[str, str]:
    """The named elements just before and just after this one in page order (its own
    contents and the label that names it left out): the slot it fills, which a
    renamed control keeps."""
    own = lines[index].text
    before = next((named(lines[i]) for i in range(index - 1, -1, -1)
                   if lines[i].bid and lines[i].text and lines[i].text != own), "")
    end = index + 1
    while end < len(lines) and lines[end].depth > lines[index].depth:
        end += 1
    after = next((named(lines[i]) for i in range(end, len(lines))
                  if lines[i].bid and lines[i].text and lines[i].text != own), "")
    return before, after


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[^\W_]{3,}", text.casefold())}


def renamed(tree: str, role: str, name: str, before: str, after: str) -> str | None:
    """The new name of a control of ``role`` once named ``name``, when the page shows
    it renamed in its place: nothing of that role and name is there, and exactly one
    control of that role sits between the named elements ``before`` and ``after``
    (as ``named`` writes them), shares a word with the old name and is the only
    control of its new name. None otherwise: a removed control leaves its neighbours
    next to each other, and a guess is never made."""
    lines = parse(tree)
    if same_targets(lines, role, name):
        return None
    old = _words(name)
    slots = []
    for index, line in enumerate(lines):
        if not line.bid or line.role != role or not line.text or not (old & _words(line.text)):
            continue
        got = neighbours(lines, index)
        if norm(got[0]) == norm(before) and norm(got[1]) == norm(after):
            slots.append(line.text)
    if len(slots) != 1 or len(same_targets(lines, role, slots[0])) != 1:
        return None
    return slots[0]


def column_of(lines: list[Line], index: int) -> tuple[int, int] | None:
    """(row line, position among its cells) of an element inside a table row."""
    row = row_of(lines, index)
    if row is None or lines[row].role != "row":
        return None
    cells = children_of(lines, row)
    cell = index
    while cell not in cells:
        parent = parent_of(lines, cell)
        if parent is None:
            return None
        cell = parent
    return row, cells.index(cell)


def header_of(lines: list[Line], row: int, position: int) -> str:
    """The header of a column: the same cell of the first row of the table."""
    table = parent_of(lines, row)
    while table is not None and lines[table].role not in ("table", "grid"):
        table = parent_of(lines, table)
    if table is None:
        return ""
    rows = [i for i in children_of(lines, table) if lines[i].role == "row"]
    if not rows and (group := [i for i in children_of(lines, table)
                               if lines[i].role == "rowgroup"]):
        rows = [r for g in group for r in children_of(lines, g) if lines[r].role == "row"]
    if not rows or rows[0] == row:
        return ""
    cells = children_of(lines, rows[0])
    return subtree_text(lines, cells[position]) if position < len(cells) else ""
