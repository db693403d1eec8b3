"""A small GBNF reader for tests: sample random strings from a grammar, and check
whether a string is in its language.

It covers the subset llama.cpp grammars use here: literals, character classes
(with ^, ranges and escapes), rule references, groups, alternation, and the
postfix operators ? * + {m} {m,} {m,n}.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import ClassVar

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]",
            "-": "-", "/": "/", "'": "'"}


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Cls:
    negated: bool
    ranges: tuple[tuple[str, str], ...]

    def accepts(self, ch: str) -> bool:
        inside = any(lo <= ch <= hi for lo, hi in self.ranges)
        return inside != self.negated


@dataclass(frozen=True)
class Ref:
    name: str


@dataclass(frozen=True)
class Seq:
    items: tuple


@dataclass(frozen=True)
class Alt:
    options: tuple


@dataclass(frozen=True)
class Rep:
    item: object
    lo: int
    hi: int | None


class Grammar:
    def __init__(self, text: str) -> None:
        self.rules: dict[str, object] = {}
        current: list[str] = []
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if re.match(r"^[a-zA-Z0-9-]+\s*::=", line):
                current.append(line)
            else:
                current[-1] += " " + line
        for rule in current:
            name, body = rule.split("::=", 1)
            self._src, self._pos = body.strip(), 0
            node = self._alt()
            if self._pos != len(self._src):
                raise ValueError(f"trailing text in rule {name.strip()}: {self._src[self._pos:]}")
            self.rules[name.strip()] = node
        for name in self._refs():
            if name not in self.rules:
                raise ValueError(f"undefined rule {name}")

    # -- parsing ----------------------------------------------------------------

    def _refs(self):
        def walk(n):
            if isinstance(n, Ref):
                yield n.name
            elif isinstance(n, Seq):
                for i in n.items:
                    yield from walk(i)
            elif isinstance(n, Alt):
                for o in n.options:
                    yield from walk(o)
            elif isinstance(n, Rep):
                yield from walk(n.item)
        for node in self.rules.values():
            yield from walk(node)

    def _peek(self) -> str:
        while self._pos < len(self._src) and self._src[self._pos] in " \t":
            self._pos += 1
        return self._src[self._pos] if self._pos < len(self._src) else ""

    def _alt(self):
        options = [self._seq()]
        while self._peek() == "|":
            self._pos += 1
            options.append(self._seq())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def _seq(self):
        items = []
        while self._peek() not in ("", "|", ")"):
            items.append(self._postfix(self._atom()))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def _char(self) -> str:
        ch = self._src[self._pos]
        self._pos += 1
        if ch != "\\":
            return ch
        esc = self._src[self._pos]
        self._pos += 1
        if esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            code = int(self._src[self._pos:self._pos + width], 16)
            self._pos += width
            return chr(code)
        return _ESCAPES[esc]

    def _atom(self):
        ch = self._peek()
        if ch == '"':
            self._pos += 1
            out = []
            while self._src[self._pos] != '"':
                out.append(self._char())
            self._pos += 1
            return Lit("".join(out))
        if ch == "[":
            self._pos += 1
            negated = self._src[self._pos] == "^"
            self._pos += negated
            ranges = []
            while self._src[self._pos] != "]":
                lo = self._char()
                hi = lo
                if self._src[self._pos] == "-" and self._src[self._pos + 1] != "]":
                    self._pos += 1
                    hi = self._char()
                ranges.append((lo, hi))
            self._pos += 1
            return Cls(negated, tuple(ranges))
        if ch == "(":
            self._pos += 1
            node = self._alt()
            if self._peek() != ")":
                raise ValueError("missing )")
            self._pos += 1
            return node
        m = re.compile(r"[a-zA-Z0-9-]+").match(self._src, self._pos)
        if not m:
            raise ValueError(f"unexpected {self._src[self._pos:self._pos + 20]!r}")
        self._pos = m.end()
        return Ref(m.group())

    def _postfix(self, node):
        ch = self._src[self._pos] if self._pos < len(self._src) else ""
        if ch and ch in "?*+":
            self._pos += 1
            return Rep(node, 1 if ch == "+" else 0, 1 if ch == "?" else None)
        if ch == "{":
            end = self._src.index("}", self._pos)
            lo, _, hi = self._src[self._pos + 1:end].partition(",")
            bounded = "," not in self._src[self._pos:end]
            self._pos = end + 1
            return Rep(node, int(lo), int(lo) if bounded else (int(hi) if hi.strip() else None))
        return node

    # -- sampling -----------------------------------------------------------------

    POOL: ClassVar[list[str]] = [chr(c) for c in range(32, 127)] + list(
        "\n\r\t\x00\x0béß中😀\u2028")
    TRICKY: ClassVar[list[str]] = list("'\"\\<>/\n\r\x00(),[]")

    def sample(self, rng: random.Random, start: str = "root") -> str:
        out: list[str] = []
        self._gen(Ref(start), rng, out)
        return "".join(out)

    def _gen(self, node, rng: random.Random, out: list[str]) -> None:
        if isinstance(node, Lit):
            out.append(node.text)
        elif isinstance(node, Cls):
            for _ in range(1000):
                pool = self.TRICKY if rng.random() < 0.3 else self.POOL
                ch = rng.choice(pool)
                if node.accepts(ch):
                    out.append(ch)
                    return
            raise ValueError(f"cannot sample from {node}")
        elif isinstance(node, Ref):
            self._gen(self.rules[node.name], rng, out)
        elif isinstance(node, Seq):
            for item in node.items:
                self._gen(item, rng, out)
        elif isinstance(node, Alt):
            self._gen(rng.choice(node.options), rng, out)
        elif isinstance(node, Rep):
            hi = node.hi if node.hi is not None else node.lo + 4
            roll = rng.random()
            count = hi if roll < 0.1 else rng.randint(node.lo, min(hi, node.lo + 12))
            for _ in range(count):
                self._gen(node.item, rng, out)

    # -- recognising --------------------------------------------------------------

    def accepts(self, text: str, start: str = "root") -> bool:
        self._memo: dict[tuple[int, int], frozenset[int]] = {}
        return len(text) in self._match(Ref(start), text, 0)

    def _match(self, node, text: str, pos: int) -> frozenset[int]:
        key = (id(node), pos)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = frozenset()  # no left recursion in these grammars
        if isinstance(node, Lit):
            ends = {pos + len(node.text)} if text.startswith(node.text, pos) else set()
        elif isinstance(node, Cls):
            ends = {pos + 1} if pos < len(text) and node.accepts(text[pos]) else set()
        elif isinstance(node, Ref):
            ends = set(self._match(self.rules[node.name], text, pos))
        elif isinstance(node, Seq):
            ends = {pos}
            for item in node.items:
                ends = {e for p in ends for e in self._match(item, text, p)}
        elif isinstance(node, Alt):
            ends = {e for o in node.options for e in self._match(o, text, pos)}
        elif isinstance(node, Rep):
            ends, frontier, count = set(), {pos}, 0
            if node.lo == 0:
                ends.add(pos)
            while frontier and (node.hi is None or count < node.hi):
                frontier = {e for p in frontier for e in self._match(node.item, text, p)}
                count += 1
                if count >= node.lo:
                    ends |= frontier
                if node.hi is None and count > len(text) + 1:
                    break
        else:
            raise TypeError(node)
        result = frozenset(ends)
        self._memo[key] = result
        return result
