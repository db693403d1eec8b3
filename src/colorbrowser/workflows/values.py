"""The goal's values and where a run used them: what learning turns into parameters.

A value is a quoted string, a number, or a run of the goal's words that the run used
whole (a field's value, an option, a link's whole name, a path segment). Short values
("7") only count where they stand as a field of their own (a path segment, ``#7``), so
a digit that happens to sit inside an address or a name stays literal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit

_QUOTED = re.compile(r"\"([^\"]{1,500})\"|“([^”]{1,500})”|(?<![\w])'([^']{1,500})'(?![\w])")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w])")
_WORD = re.compile(r"[^\s\"“”]+")
_EDGE = ".,;:!?()"
STOPWORDS = frozenset((
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "with", "by", "from", "and", "or",
    "is", "are", "was", "be", "this", "that", "it", "its", "as", "into", "what", "which",
    "who", "how", "many", "much", "does", "do", "me", "my", "please", "show", "open", "find",
    "give", "set", "new"))
RENAME = {"titled": "title", "named": "name", "called": "name", "says": "text",
          "saying": "text", "reads": "text"}
PARAM_MARK = re.compile(r"\{\{[a-z][a-z0-9_]*\}\}")
SHORT = 3  # values shorter than this count only as a field of their own
MAX_WORDS = 60


@dataclass(frozen=True)
class Value:
    text: str
    start: int  # where it sits in the goal
    end: int
    kind: str  # quoted, number, words


def _free(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in spans)


def goal_values(goal: str, used: set[str]) -> list[Value]:
    """Quoted strings and numbers always; runs of words only when ``used`` holds them
    (the run typed, chose or clicked exactly that). Longest first."""
    found: list[Value] = []
    spans: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(goal):
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        found.append(Value(m.group(group), m.start(group), m.end(group), "quoted"))
        spans.append((m.start(), m.end()))
    words = [(m.start(), m.end()) for m in _WORD.finditer(goal)]
    for n in range(min(MAX_WORDS, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            start, end = words[i][0], words[i + n - 1][1]
            text = goal[start:end]
            if text not in used:  # "run it." may be used whole, "1.3." means 1.3
                stripped = text.rstrip(_EDGE)
                end -= len(text) - len(stripped)
                lead = len(stripped) - len(stripped.lstrip(_EDGE + "#"))
                start, stripped = start + lead, stripped[lead:]
            else:
                stripped = text
            if (len(stripped) >= SHORT and stripped in used and _free(spans, start, end)
                    and not _NUMBER.fullmatch(stripped)
                    and not all(w.lower() in STOPWORDS for w in stripped.split())):
                found.append(Value(stripped, start, end, "words"))
                spans.append((start, end))
    for m in _NUMBER.finditer(goal):
        if _free(spans, m.start(), m.end()):
            found.append(Value(m.group(), m.start(), m.end(), "number"))
            spans.append((m.start(), m.end()))
    return sorted(found, key=lambda v: (-len(v.text), v.start))


def name_for(goal: str, value: Value, values: list[Value], taken: set[str]) -> str:
    """A parameter name from the word before the value ("ticket #18" -> ticket)."""
    others = [(v.start, v.end) for v in values if v is not value]
    before = list(_WORD.finditer(goal[: value.start]))[-2:]
    name = "value"
    for m in reversed(before):
        word = m.group().strip(_EDGE + "#").lower()
        if not _free(others, m.start(), m.end()):
            break
        if word and word not in STOPWORDS:
            name = RENAME.get(word, word)
            break
    name = re.sub(r"[^a-z_]+", "_", name).strip("_")[:30] or "value"
    if not name[0].isalpha():
        name = "value"
    return unique_name(name, taken)


def unique_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base_b``, ``base_c``... when taken; the name is added to ``taken``."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{chr(ord('a') + n - 1)}"
    taken.add(name)
    return name


def _boundary(text: str) -> str:
    tail = r"(?!\.\d)" if text[-1].isdigit() else ""
    head = r"(?<!\d\.)" if text[0].isdigit() else ""
    return rf"(?<![A-Za-z0-9_{{]){head}{re.escape(text)}(?![A-Za-z0-9_}}]){tail}"


def find(value: str, text: str) -> int:
    """Where ``value`` stands in ``text`` as a word or number of its own (any case), or -1."""
    match = re.search(_boundary(value), text, re.I) if value else None
    return match.start() if match else -1


def occurs(value: str, text: str) -> bool:
    """Whether ``value`` stands in ``text`` as a word or number of its own."""
    return bool(value) and re.search(_boundary(value), text) is not None


def substitute(text: str, values: dict[str, str], *, whole: bool = False) -> str:
    """``text`` with each value (longest first) replaced by ``{{name}}``. Short values
    only where they are the whole text, or follow '#' (``#7``)."""
    for name, value in sorted(values.items(), key=lambda kv: -len(kv[1])):
        if text == value:
            return f"{{{{{name}}}}}"
        if whole:
            continue
        if len(value) < SHORT:
            text = re.sub(rf"(?<=#){re.escape(value)}(?![A-Za-z0-9_.])", f"{{{{{name}}}}}", text)
        else:
            text = re.sub(_boundary(value), lambda _m, n=name: f"{{{{{n}}}}}", text)
    return text


def url_parts(url: str) -> list[str]:
    """The decoded path segments and query values of an address: the fields a value
    may fill whole."""
    parts = urlsplit(url)
    out = [unquote_plus(seg) for seg in parts.path.split("/") if seg]
    for pair in parts.query.split("&"):
        if "=" in pair:
            out.append(unquote_plus(pair.split("=", 1)[1]))
    return out


def substitute_url(url: str, values: dict[str, str]) -> str:
    """An address with values replaced in its path and query (never its host). A value
    counts in any of its spellings (as is, %-encoded, +-encoded); short values only as a
    whole segment or query value, or after an encoded '#'."""
    parts = urlsplit(url)
    head = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    rest = url[len(head):]
    for name, value in sorted(values.items(), key=lambda kv: -len(kv[1])):
        mark = f"{{{{{name}}}}}"
        for form in dict.fromkeys((value, quote(value, safe=""), quote_plus(value))):
            if len(value) < SHORT:
                rest = re.sub(rf"(?<=[/=]){re.escape(form)}(?=[/&?#]|$)", mark, rest)
                rest = re.sub(rf"(?<=%23){re.escape(form)}(?![A-Za-z0-9_.])", mark, rest)
            else:
                rest = re.sub(
                    rf"(?:(?<=%[0-9A-Fa-f]{{2}})|(?<![A-Za-z0-9_{{%])){re.escape(form)}"
                    r"(?![A-Za-z0-9_}])" + (r"(?!\.\d)" if form[-1].isdigit() else ""),
                    lambda _m, mark=mark: mark, rest)
    return head + rest


SHAPED = re.compile(r"\d+(?:[-/.:]\d+)+")


def shape_of(text: str) -> str | None:
    """A number written with separators (a date, a time) as its shape, digits as 9
    ("2024-07-20" -> "9999-99-99"); None for anything else."""
    text = text.strip()
    if not SHAPED.fullmatch(text) or len(text) > 40 or sum(c.isdigit() for c in text) < 4:
        return None
    return re.sub(r"\d", "9", text)


def shape_pattern(shape: str) -> re.Pattern[str]:
    """What a shape matches, as a word of its own."""
    body = "".join(r"\d" if c == "9" else re.escape(c) for c in shape)
    return re.compile(rf"(?<![\w.:/-])({body})(?![\w.:/-]?\d)")
