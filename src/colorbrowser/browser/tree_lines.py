"""Reading the tree text back (``browser/tree.py`` writes it): one ``Line`` per line,
``  [12] link 'Julian Moore'`` (the name is a Python string literal), ``  [5] listitem:
text`` (a folded text) or ``  text: ...`` (a text run).

One reader for every place that reads a page the way a person does: the workflows
(labels, headings, rows around a target) and the verifier (a sentence split at a link).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

_LINE = re.compile(
    r"^(?P<indent> *)\*?\[(?P<bid>[^\]\s]+)\] (?P<role>[^\s:']+)"
    r"(?: (?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(?P<rest>.*)$")
_TEXT = re.compile(r"^(?P<indent> *)text: (?P<text>.*)$")
_LEVEL = re.compile(r"\blevel=(\d+)")
_VALUE = re.compile(r"\bvalue=(?P<value>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")

@dataclass(frozen=True)
class Line:
    depth: int
    bid: str | None  # None for a text run
    role: str  # "text" for a text run
    name: str  # the accessible name, or the folded/run text
    level: int | None = None  # of a heading
    value: str = ""  # what a field holds (``value='140'``)

    @property
    def text(self) -> str:
        return " ".join(self.name.split())

    @property
    def shown(self) -> str:
        """What a person reads there: its text, or the value of a field with no name
        (the stock in a table of unlabelled number fields)."""
        return self.text or " ".join(self.value.split())


def parse(tree: str) -> list[Line]:
    """The tree's lines (a new list each call; the lines are shared, frozen)."""
    return list(_parse(tree))


@functools.lru_cache(maxsize=8)
def _parse(tree: str) -> tuple[Line, ...]:
    """Cached: one decision checks a page several times (the last step's effect, the
    target, its surroundings, a look-alike, the answer), each reading the same tree."""
    out = []
    for raw in tree.splitlines():
        if m := _LINE.match(raw):
            name = _literal(m.group("name")) if m.group("name") else ""
            rest = m.group("rest")
            if ": " in rest and not name:
                name = rest.split(": ", 1)[1]
            level = _LEVEL.search(rest)
            value = _VALUE.search(rest)
            out.append(Line(len(m.group("indent")) // 2, m.group("bid"), m.group("role"), name,
                            int(level.group(1)) if level else None,
                            _literal(value.group("value")) if value else ""))
        elif m := _TEXT.match(raw):
            out.append(Line(len(m.group("indent")) // 2, None, "text", m.group("text")))
    return tuple(out)


def _literal(quoted: str) -> str:
    try:
        return str(ast.literal_eval(quoted))
    except (ValueError, SyntaxError):
        return quoted[1:-1]
