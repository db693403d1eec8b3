"""What ``browser_observe`` returns: the tree cut to a token budget, searched, cut by
depth, or only what changed since an earlier look.

Users of other browser MCP servers mostly complain that one page snapshot fills the
assistant's context (tens of thousands of tokens). Our tree is already compact; these
pure functions keep each answer within a budget and let the client ask for the part
it needs. No browser here: the server hands in the observation's text.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

INDENT = "  "  # the tree indents each level by two spaces (browser/tree.py)
DEFAULT_MAX_TOKENS = 4000


def _depth(line: str) -> int:
    return (len(line) - len(line.lstrip(" "))) // len(INDENT)


def _plain(line: str) -> str:
    """A tree line without the mark of a new element (``*[12]`` -> ``[12]``): the mark
    says when an element appeared, not what the page shows."""
    body = line.lstrip(" ")
    if body.startswith("*["):
        return line[: len(line) - len(body)] + body[1:]
    return line


def by_depth(lines: list[str], depth: int) -> list[str]:
    """Lines at most ``depth`` levels deep (1: the top level only)."""
    return [line for line in lines if _depth(line) < depth]


def find(lines: list[str], query: str) -> list[str]:
    """Lines that contain ``query`` (any case), each with the lines that hold it, so a
    match is seen inside its form, dialog or row."""
    needle = query.casefold()
    keep: set[int] = set()
    chain: list[int] = []  # indices of the open ancestors of the current line
    for i, line in enumerate(lines):
        d = _depth(line)
        del chain[d:]
        if needle in line.casefold():
            keep.update(chain)
            keep.add(i)
        chain.append(i)
    return [lines[i] for i in sorted(keep)]


def diff(old: list[str], new: list[str]) -> list[str]:
    """Lines that went away (``- ``) and lines that appeared or changed (``+ ``).

    Bids stay with an element while it lives, so a changed control is one ``-`` and
    one ``+`` line with the same bid."""
    a = [_plain(line) for line in old]
    b = [_plain(line) for line in new]
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.extend(f"- {line}" for line in a[i1:i2])
        out.extend(f"+ {line}" for line in b[j1:j2])
    return out


@dataclass(frozen=True)
class Window:
    """The lines that fit the budget: ``lines[start:end]`` of ``total``."""

    lines: list[str]
    start: int
    end: int
    total: int
    tokens: int

    @property
    def cut(self) -> bool:
        return self.end < self.total


def fit(lines: list[str], max_tokens: int, count: Callable[[str], int], *,
        start: int = 0) -> Window:
    """As many whole lines from ``start`` as fit in ``max_tokens`` (at least one, so a
    single huge line still comes back, cut to the budget)."""
    start = max(0, min(start, len(lines)))
    used = 0
    end = start
    for line in lines[start:]:
        cost = count(line) + 1  # the newline
        if used + cost > max_tokens and end > start:
            break
        used += cost
        end += 1
        if used > max_tokens:  # one line alone is over the budget: cut it
            chars = max(1, len(line) * max_tokens // cost)
            return Window([line[:chars] + "…"], start, end, len(lines), max_tokens)
    return Window(lines[start:end], start, end, len(lines), used)
