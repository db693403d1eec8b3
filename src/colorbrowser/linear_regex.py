"""Regexes written by people and matched against text a page controls, in linear time.

Tip patterns are matched against URLs and error phrases against page text, and a
page chooses both. Python's backtracking engine can take exponential time on a
pattern such as ``(a+)+$``, so these patterns run on RE2, which never backtracks.
RE2 refuses the few constructs that need backtracking (backreferences, lookarounds,
atomic groups, possessive quantifiers); the refusal names the construct.
"""

from __future__ import annotations

import re
import warnings
from typing import Protocol

import re2


class RegexMatch(Protocol):
    def group(self, index: int = 0) -> str: ...


class LinearRegex(Protocol):
    """What callers use of a compiled pattern (RE2's and Python's agree on these)."""

    def search(self, text: str) -> RegexMatch | None: ...

    def fullmatch(self, text: str) -> RegexMatch | None: ...


class RegexRefused(ValueError):
    """A regex that cannot be compiled for linear-time matching; the message says why."""


# RE2's complaint (the operator it stopped at) -> the name a person knows it by.
_OPERATORS = {
    "(?=": "lookahead", "(?!": "lookahead", "(?<=": "lookbehind", "(?<!": "lookbehind",
    "(?>": "atomic group", "(?P": "backreference", "(?(": "conditional group",
    "(?#": "comment group",
}


def compile_linear(body: str, *, name: str, ignore_case: bool = False) -> LinearRegex:
    """``body`` compiled by RE2; RegexRefused names the regex as ``name`` and the problem."""
    options = re2.Options()
    options.log_errors = False  # RE2 would also print the error to stderr
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(body, options)
    except re2.error as exc:
        complaint = exc.args[0].decode() if isinstance(exc.args[0], bytes) else str(exc.args[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Python warns about some sets it still accepts
        try:
            re.compile(body)
        except re.error as exc:  # broken for every engine: Python's words are clearer
            raise RegexRefused(f"invalid regex {name!r}: {exc}") from None
    raise RegexRefused(f"regex {name!r} {_unsupported(complaint)}, which is not supported "
                       "here (patterns are matched by RE2, in time linear in the text)")


def _unsupported(complaint: str) -> str:
    """What in a regex Python accepts made RE2 refuse it, from RE2's message."""
    what, _, fragment = complaint.partition(": ")
    if what == "invalid perl operator" and fragment in _OPERATORS:
        feature = _OPERATORS[fragment]
        return f"uses {'an' if feature[0] in 'aeiou' else 'a'} {feature} {fragment!r}"
    if what == "invalid escape sequence" and fragment[1:].isdigit():
        return f"uses a backreference {fragment!r}"
    if what == "bad repetition operator" and fragment.endswith("+"):
        return f"uses a possessive quantifier {fragment!r}"
    if what == "invalid repetition size":
        return f"repeats more than 1000 times {fragment!r}"
    return f"uses {fragment!r} ({what})" if fragment else f"cannot be compiled ({what})"


_QUANTIFIER = re.compile(r"[*+?]|\{(\d*)(,?)(\d*)\}")


def nested_quantifier(body: str) -> str | None:
    """The first group that repeats and holds a quantifier itself, as in ``(a+)+``.

    Such a group lets a backtracking engine split the same text in exponentially
    many ways. A plain scan is enough: escapes and character classes are skipped,
    and the text is assumed to compile.
    """
    open_groups: list[list[int]] = []  # [start, quantifiers inside]
    closed: tuple[int, int] | None = None  # (start, quantifiers inside) of the group just shut
    i = 0
    while i < len(body):
        ch = body[i]
        quantifier = _QUANTIFIER.match(body, i)
        if quantifier and (ch != "{" or any(quantifier.groups())):
            end = quantifier.end()
            if closed is not None and closed[1] and _repeats(quantifier):
                return body[closed[0]:end]
            if open_groups:
                open_groups[-1][1] += 1
            closed = None
            if end < len(body) and body[end] in "?+":  # a lazy or possessive mark
                end += 1
            i = end
            continue
        closed = None
        if ch == "\\":
            i += 2
        elif ch == "[":
            i = _class_end(body, i)
        elif ch == "(":
            open_groups.append([i, 0])
            i = _group_body(body, i)
        elif ch == ")" and open_groups:
            start, inside = open_groups.pop()
            if open_groups:
                open_groups[-1][1] += inside
            closed = (start, inside)
            i += 1
        else:
            i += 1
    return None


def _repeats(quantifier: re.Match[str]) -> bool:
    """Whether a quantifier can match its atom more than once (``?`` and ``{1}`` cannot)."""
    if quantifier.group(0) in ("*", "+"):
        return True
    if quantifier.group(0) == "?":
        return False
    low, comma, high = quantifier.groups()
    if comma:
        return not high or int(high) > 1
    return int(low) > 1


def _class_end(body: str, i: int) -> int:
    """Index after the character class opening at ``i`` (a leading ``]`` or ``^]`` is literal)."""
    j = i + 1
    if j < len(body) and body[j] == "^":
        j += 1
    if j < len(body) and body[j] == "]":
        j += 1
    while j < len(body) and body[j] != "]":
        j += 2 if body[j] == "\\" else 1
    return j + 1


def _group_body(body: str, i: int) -> int:
    """Index of the first character inside the group opening at ``i``, past ``?:``,
    ``?P<name>`` and the like, so their ``?`` is not taken for a quantifier."""
    if not body.startswith("?", i + 1):
        return i + 1
    if body.startswith(("?P<", "?<"), i + 1) and body[i + 3:i + 4] not in ("=", "!"):
        close = body.find(">", i + 1)
        return close + 1 if close > 0 else len(body)
    return i + 3
