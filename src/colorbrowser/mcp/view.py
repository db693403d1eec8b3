"""What ``browser_observe`` returns: the tree cut to a token budget, searched, cut by
depth, or only what changed since an earlier look.

Users of other browser MCP servers mostly complain that one page snapshot fills the
assistant's context (tens of thousands of tokens). Our tree is already compact; these
pure functions keep each answer within a budget and let the client ask for the part
it needs. No browser here: the server hands in the observation's text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection
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


_ID = re.compile(r"^( *\*?)\[(\w+)\] ")


def ids_where_acting(lines: list[str], actionable: Collection[str]) -> list[str]:
    """The tree with element ids only on the elements a client acts on.

    A client picks an id to click, type or select; the ids of rows, cells, lists and
    headings are almost never used and cost about three tokens per line, so they go.
    Any element still has its id in the DOM: an action on it works as before."""
    out = []
    for line in lines:
        m = _ID.match(line)
        out.append(line if m is None or m.group(2) in actionable
                   else m.group(1) + line[m.end():])
    return out


def by_depth(lines: list[str], depth: int) -> list[str]:
    """Lines at most ``depth`` levels deep (1: the top level only)."""
    return [lines[i] for i in by_depth_at(lines, depth)]


def by_depth_at(lines: list[str], depth: int) -> list[int]:
    """The indices of the lines ``by_depth`` keeps."""
    return [i for i, line in enumerate(lines) if _depth(line) < depth]


def find(lines: list[str], query: str) -> list[str]:
    """Lines that contain ``query`` (any case), each with the lines that hold it, so a
    match is seen inside its form, dialog or row."""
    return [lines[i] for i in find_at(lines, query)]


def find_at(lines: list[str], query: str) -> list[int]:
    """The indices of the lines ``find`` keeps."""
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
    return sorted(keep)


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
    clipped: bool = False  # its one line was over the budget and lost its end

    @property
    def cut(self) -> bool:
        return self.end < self.total

    @property
    def whole(self) -> bool:
        """Every line from ``start`` on, none clipped."""
        return not self.cut and not self.clipped


CHARS_PER_TOKEN_MAX = 8  # no text the tree holds averages more characters per token


def fit(lines: list[str], max_tokens: int, count: Callable[[str], int], *,
        start: int = 0) -> Window:
    """As many whole lines from ``start`` as fit in ``max_tokens`` (at least one, so a
    single huge line still comes back, cut to the budget).

    Counting tokens costs about as much as reading the page, so lines are never
    counted one by one: a page is counted whole (a huge one only as far as could ever
    fit), cut where its characters-per-token rate says, then moved a few lines."""
    start = max(0, min(start, len(lines)))
    rest = lines[start:]
    if not rest:
        return Window([], start, start, len(lines), 0)
    k, chars = 0, 0
    while k < len(rest) and (k == 0 or chars + len(rest[k]) + 1 <= CHARS_PER_TOKEN_MAX
                             * max_tokens):
        chars += len(rest[k]) + 1
        k += 1
    sample = count("\n".join(rest[:k]))
    if k == len(rest) and sample <= max_tokens:
        return Window(rest, start, len(lines), len(lines), sample)
    room, n = max_tokens * chars / max(1, sample), 0
    while n < len(rest) and room >= len(rest[n]) + 1:
        room -= len(rest[n]) + 1
        n += 1
    used = count("\n".join(rest[:n])) if n else 0
    while n > 0 and used > max_tokens:  # the estimate was too generous
        n = min(n - 1, int(n * max_tokens / used))
        used = count("\n".join(rest[:n])) if n else 0
    while n < len(rest) and used + count(rest[n]) + 1 <= max_tokens:
        used += count(rest[n]) + 1
        n += 1
    if n == 0:  # one line alone is over the budget: cut it
        line = rest[0]
        chars = max(1, int(len(line) * max_tokens / max(1, count(line))))
        return Window([line[:chars] + "…"], start, start + 1, len(lines), max_tokens,
                      clipped=True)
    return Window(rest[:n], start, start + n, len(lines), used)
