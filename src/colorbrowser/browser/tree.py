"""The tree text the model reads: one ``[bid] role 'name' states`` line per element.

Compact on purpose, since tokens are the agent's main cost, but nothing the page
shows is dropped: text runs are folded into the line of the element that holds
them, options are listed on their select's line, and unnamed wrappers around a
single element are skipped.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

_STATE_ORDER = ("clickable", "checked", "selected", "expanded", "pressed", "disabled", "required",
                "readonly", "invalid", "multiselectable", "focused", "level", "value", "range",
                "format", "hint")
_FLAG_WORDS = {"clickable", "disabled", "required", "readonly", "invalid", "multiselectable",
               "focused"}


def state_words(states: dict[str, Any]) -> list[str]:
    words = []
    for key in _STATE_ORDER:
        if key not in states:
            continue
        value = states[key]
        if key in _FLAG_WORDS:
            if value:
                words.append(key)
        elif key == "checked":
            words.append("checked" if value is True else "unchecked" if value is False
                         else "checked=mixed")
        elif key == "selected":
            if value:
                words.append("selected")
        elif key == "expanded":
            words.append("expanded" if value else "collapsed")
        elif key == "pressed":
            words.append("pressed" if value is True else "not pressed" if value is False
                         else "pressed=mixed")
        elif key == "level":
            words.append(f"level={value}")
        elif key in ("value", "hint"):
            words.append(f"{key}={value!r}")
        elif key in ("format", "range"):
            words.append(f"{key}={value}")
    return words


# Unnamed wrappers that add a line but no meaning when they hold a single element.
_WRAPPERS = {"cell", "gridcell", "listitem", "paragraph", "generic", "group", "definition",
             "term", "columnheader", "rowheader", "none"}
# Containers whose name (usually an aria-label) is not page text: dropped by interactive_only.
_STRUCTURE = {"banner", "navigation", "main", "contentinfo", "complementary", "region", "form",
              "search", "list", "table", "row", "rowgroup", "group", "article", "figure",
              "iframe", "generic", "none", "tablist", "menu", "menubar", "toolbar", "tree",
              "grid", "radiogroup", "separator"}
# The agent reads at most this many options of a select on its line, then "(+N more)":
# a country or year list would otherwise cost hundreds of tokens at every step.
MAX_INLINE_OPTIONS = 50


def has_long_option_list(rows: list[list[Any]], limit: int = MAX_INLINE_OPTIONS) -> bool:
    """Whether some <select> has more than ``limit`` options (so a cap would cut it)."""
    counts = [0] * len(rows)
    for row in rows:
        p = row[3]
        if p >= 0 and row[11] == "option" and rows[p][11] == "select":
            counts[p] += 1
            if counts[p] > limit:
                return True
    return False


def format_axtree(rows: list[list[Any]], *, interactive_only: bool = False,
                  new: Collection[str] = (),
                  max_options: int | None = MAX_INLINE_OPTIONS) -> str:
    """Indented ``[bid] role 'name' states`` lines; text runs print as ``text: ...``.

    An element whose only content is one text run prints it after a colon; options
    of a <select> are listed on the select's line, at most ``max_options`` of them
    (None: every one); an unnamed wrapper around a single element is not printed.
    With ``interactive_only`` structure-only lines go away; controls and text stay.
    Bids in ``new`` get a ``*`` (``*[31] dialog 'Confirm'``).
    """
    n = len(rows)
    children = [0] * n
    text_kids = [0] * n
    last_child = [-1] * n
    options: dict[int, list[str]] = {}
    for i, row in enumerate(rows):
        p = row[3]
        if p < 0:
            continue
        if row[11] == "option" and rows[p][11] == "select":
            options.setdefault(p, []).append(row[2])
            continue
        children[p] += 1
        last_child[p] = i
        if row[0] == "":
            text_kids[p] += 1
    keep = [True] * n
    fold = [-1] * n  # element -> its single text child, printed on the same line
    folded = [False] * n
    for i, row in enumerate(rows):
        if row[0] == "":
            continue
        if row[11] == "option" and row[3] >= 0 and rows[row[3]][11] == "select":
            keep[i] = False
            continue
        if children[i] == 1 and text_kids[i] == 1:
            fold[i] = last_child[i]
            folded[last_child[i]] = True
        elif (children[i] == 1 and not text_kids[i] and not row[2] and not row[4] & 1
              and row[1] in _WRAPPERS and not row[5]):
            keep[i] = False
        if interactive_only and keep[i]:
            keep[i] = bool(row[4] & 1 or text_kids[i] or (row[2] and row[1] not in _STRUCTURE))
    depth = [0] * n
    eff = [-1] * n  # nearest kept ancestor
    lines: list[str] = []
    for i, row in enumerate(rows):
        p = row[3]
        eff[i] = -1 if p < 0 else (p if keep[p] else eff[p])
        depth[i] = 0 if eff[i] < 0 else depth[eff[i]] + 1
        if not keep[i] or folded[i]:
            continue
        indent = "  " * depth[i]
        if row[0] == "":
            lines.append(f"{indent}text: {row[2]}")
            continue
        star = "*" if row[0] in new else ""
        parts = [f"{indent}{star}[{row[0]}] {row[1]}"]
        if row[2]:
            parts.append(repr(row[2]))
        parts.extend(state_words(row[5] or {}))
        if i in options:
            shown = options[i] if max_options is None else options[i][:max_options]
            more = len(options[i]) - len(shown)
            parts.append(f"options={shown!r}" + (f" (+{more} more)" if more else ""))
        line = " ".join(parts)
        if fold[i] >= 0:
            line += f": {rows[fold[i]][2]}"
        lines.append(line)
    return "\n".join(lines)


