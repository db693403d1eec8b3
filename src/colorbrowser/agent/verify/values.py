"""The checkable values of an answer (dates, numbers, quoted strings, names) and what
the episode saw, so an answer can be held to what was on the pages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from colorbrowser.agent.verify.tree import inline_runs
from colorbrowser.evidence import Evidence
from colorbrowser.steps import Step

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_PATTERNS = (
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(rf"\b({_MONTH})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I),
     ("M", "d", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\s+(\d{{4}})\b", re.I),
     ("d", "M", "y")),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"), ("m", "d", "y")),
)
_QUOTED = re.compile(r"\"([^\"]{2,200})\"|“([^”]{2,200})”|(?<!\w)'([^']{2,200})'(?!\w)")
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?![\w])|(?<![\w.])\.\d+(?!\w)")
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|van|von|der|la|le|du)){0,4}")
_STOP_NAMES = {
    "the", "a", "an", "it", "its", "this", "that", "these", "those", "there", "their", "they",
    "he", "she", "his", "her", "i", "we", "you", "yes", "no", "not", "none", "done",
    "answer", "in", "on", "at", "by", "for", "to", "of", "and", "or", "is", "are", "was",
    "total", "price", "ticket", "page", "task", "which", "what", "who", "when", "where",
    "how", "all", "each", "every", "both", "one", "two", "three", "n/a", "na", "ok",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "usd", "eur", "gbp"}


def _month(text: str) -> int | None:
    word = text.lower().rstrip(".")
    return next((n for name, n in _MONTHS.items() if name.startswith(word[:3])), None)


def dates_in(text: str) -> list[tuple[str, str]]:
    """(as written, ISO date) for each date in the text."""
    out = []
    for pattern, order in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            parts = dict(zip(order, m.groups(), strict=True))
            month = int(parts["m"]) if "m" in parts else _month(parts["M"])
            try:
                day, year = int(parts["d"]), int(parts["y"])
            except ValueError:
                continue
            if month and 1 <= month <= 12 and 1 <= day <= 31:
                out.append((m.group(0), f"{year:04d}-{month:02d}-{day:02d}"))
    return out


def number_value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "").replace("−", "-"))
    except InvalidOperation:
        return None


def numbers_in(text: str) -> list[tuple[str, Decimal]]:
    out = []
    for m in _NUMBER.finditer(text):
        value = number_value(m.group(0))
        if value is not None:
            out.append((m.group(0), value))
    return out


_BID = re.compile(r"^(\s*\*?)\[[A-Za-z0-9_]{1,32}\]", re.M)  # where the tree writes ids


def flat(text: str) -> str:
    return " ".join(text.replace("’", "'").lower().split())


@dataclass
class Value:
    """One value an answer states, and how to look for it."""

    kind: str  # number, date, quoted, name
    text: str  # as written in the answer
    key: str | Decimal  # what must match: a number, an ISO date, flattened text


def values_in(answer: str) -> list[Value]:
    """The checkable values of an answer: dates, quoted strings, numbers, names."""
    rest = answer
    out: list[Value] = []
    for written, iso in dates_in(rest):
        out.append(Value("date", written, iso))
        rest = rest.replace(written, " ")
    for m in _QUOTED.finditer(rest):
        quoted = next(g for g in m.groups() if g)
        out.append(Value("quoted", quoted, flat(quoted)))
        rest = rest.replace(m.group(0), " ")
    for written, value in numbers_in(rest):
        out.append(Value("number", written, value))
    rest = _NUMBER.sub(" ", rest)
    for m in _NAME.finditer(rest):
        words = [w for w in m.group(0).split() if w.lower() not in _STOP_NAMES]
        if not words or (len(words) == 1 and len(words[0]) < 3):
            continue
        opens = not rest[:m.start()].strip() or rest[:m.start()].rstrip()[-1] in ".!?:;"
        if len(m.group(0).split()) == 1 and opens:
            continue  # one capitalised word opening a sentence is no name ("Based on...")
        name = " ".join(words)
        out.append(Value("name", name, flat(name)))
    short = " ".join(re.sub(r"[.!]+$", "", answer).split())
    if not out and 0 < len(short.split()) <= 5 and flat(short) not in _STOP_NAMES:
        out.append(Value("phrase", short, flat(short)))  # a short answer is itself a value
    seen: set[tuple[str, str]] = set()
    unique = []
    for v in out:
        if (v.kind, str(v.key)) not in seen:
            seen.add((v.kind, str(v.key)))
            unique.append(v)
    return unique


@dataclass
class Observed:
    """Everything the agent could have read: page text, the goal, derived values."""

    text: str = ""
    numbers: set[Decimal] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)

    def add(self, text: str) -> None:
        if not text:
            return
        runs = inline_runs(text)  # a text the tree split at a link, read whole
        text = _BID.sub(r"\1 ", text)  # element ids are the tree's numbers, not the page's
        self.text += "\n" + flat(text)
        if runs:
            self.text += "\n" + "\n".join(flat(run) for run in runs)
        self.numbers |= {v for _, v in numbers_in(text)}
        self.dates |= {iso for part in (text, *runs) for _, iso in dates_in(part)}

    def holds(self, value: Value) -> bool:
        if value.kind == "number":
            assert isinstance(value.key, Decimal)
            return value.key in self.numbers or abs(value.key) in self.numbers
        if value.kind == "date":
            return value.key in self.dates or contains(self.text, flat(value.text))
        if value.kind == "phrase" and re.fullmatch(r"(?=\w*\d)\w{6,}", str(value.key)):
            return contains(self.text, str(value.key), prefix=True)  # a hash, abbreviated
        return contains(self.text, str(value.key))


def contains(text: str, needle: str, *, prefix: bool = False) -> bool:
    """``needle`` in ``text`` as whole words ("Ann" is not in "Annabel"); ``prefix``: at
    the start of a word (the first characters of a commit hash)."""
    end = "" if prefix else r"(?!\w)"
    return bool(needle) and re.search(rf"(?<!\w){re.escape(needle)}{end}", text) is not None


def observed_text(goal: str, steps: Sequence[Step], final_text: str = "") -> Observed:
    """What the episode saw, with calculation results whose operands were seen and
    notes whose values were all seen (values the agent carried, not made up)."""
    seen = Observed()
    seen.add(goal)
    for step in steps:
        seen.add(step.observation)
        seen.add(step.title)
        if step.evidence is not None:
            seen.add(" ".join(step.evidence.dialogs + step.evidence.page_errors))
    seen.add(final_text)
    for step in steps:
        evidence = step.evidence or Evidence()
        for calc in evidence.calculations:
            expression, _, result = calc.rpartition(" = ")
            operands = [Value("number", w, v) for w, v in numbers_in(expression)]
            if all(seen.holds(o) for o in operands):
                seen.add(result)
        for note in evidence.notes:
            if all(seen.holds(v) for v in values_in(note)):
                seen.add(note)
    return seen

