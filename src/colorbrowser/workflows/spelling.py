"""A goal's values as the site spells them.

A goal names things the way a person writes them; the site often writes them
otherwise: the project "Ledgerly" lives at ``/projects/ledgerly``, the product
"Northwind Rain Jacket, Sand, M" at ``/catalogue/northwind-rain-jacket-sand-m_12/``,
the town "Little Saltby" at ``/index.php/Little_Saltby``, the person "Julian Moore"
logs in as ``julian`` (``/query?owner=julian``), and the tracker "bug" is the option
"Bug". Learning looks for each goal value (and each run of the goal's words)
in these spellings among what the run typed, chose, clicked and opened, and records
the parameter as a ``Spelling`` of the goal's one; a sibling's value is spelled the
same way before its steps are filled. An address segment may carry an id after the
spelled value (``kettles_8``): what follows the value there is kept as it was in a
step, and is ``*`` in the address a step expects to lead to, since a sibling's id
differs.

The spellings are a fixed, closed set of pure text functions (``SpellingKind``): a
workflow (a file someone may send) names one of them, never code. When two spellings
write the learned value the same way ("Cycling" is ``cycling`` both in lower case and
as a slug), the order decides: in an address the more specific one (a slug: a sibling's
"Home Brewing" is ``home-brewing`` there), in a typed or chosen text lower case.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import get_args
from urllib.parse import urlsplit

from colorbrowser.knowledge.workflow import SpellingKind, Workflow
from colorbrowser.workflows import values


def slug(text: str) -> str:
    """The usual URL slug: ASCII letters and digits, lower case, '-' between words, the
    apostrophes dropped ("Help: my pile aren't ..." -> ``help-my-pile-arent-...``)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ascii_text = re.sub(r"['’]", "", ascii_text.lower())
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def first(text: str) -> str:
    """A person's name as a login ("Julian Moore" -> ``julian``): the first word, lower
    case. Only a value that looks like a person's name is spelled so (``name_like``)."""
    words = text.split()
    return words[0].lower() if words else ""


def name_like(text: str) -> bool:
    """Two to four capitalised words of letters: what ``first`` may shorten."""
    words = text.split()
    return 2 <= len(words) <= 4 and all(w[:1].isupper() and w.isalpha() for w in words)


SPELL: dict[SpellingKind, Callable[[str], str]] = {
    "lower": str.lower,
    "capitalized": lambda text: text[:1].upper() + text[1:],
    "underscore": lambda text: "_".join(text.split()),
    "slug": slug,
    "first": first,
}
assert set(SPELL) == set(get_args(SpellingKind))
# The order learning tries them in, in typed or chosen texts and in address fields.
TEXT_ORDER: tuple[SpellingKind, ...] = ("lower", "capitalized", "underscore", "slug", "first")
ADDRESS_ORDER: tuple[SpellingKind, ...] = ("underscore", "slug", "first", "lower",
                                           "capitalized")


def spell(text: str, how: SpellingKind) -> str:
    """``text`` in the spelling ``how`` (as is when ``first`` is asked of no name)."""
    if how == "first" and not name_like(text):
        return text
    return SPELL[how](text)


_ID_TAIL = re.compile(r"[_-]\d+")  # what an address may add after a spelled value
MAX_RUN = 8  # words in a run of the goal looked for in another spelling


def with_spellings(flow: Workflow, params: Mapping[str, str]) -> dict[str, str]:
    """The goal's parameters and, for each spelling, its value spelled that way."""
    out = dict(params)
    for name, spelled in flow.spellings.items():
        if spelled.of in params and name not in out:
            out[name] = spell(str(params[spelled.of]), spelled.how)
    return out


def address_fields(url: str) -> list[str]:
    """Path segments and query values, decoded, in any case (``values.url_parts`` keeps
    only those a value fills whole; a spelled value may be lower case)."""
    return values.url_parts(url)


@dataclass(frozen=True)
class Spelled:
    value: values.Value  # the goal's run of words
    how: SpellingKind
    text: str  # as the site spells it


def _fits_field(text: str, field: str, how: str) -> bool:
    if field == text:
        return True
    return how in ("lower", "slug") and field.startswith(text) and \
        _ID_TAIL.fullmatch(field[len(text):]) is not None


def find_spelled(goal: str, found: list[values.Value], texts: Iterable[str],
                 fields: Iterable[str]) -> list[Spelled]:
    """Goal values, and runs of the goal's words that are no value yet, that the run
    used in another spelling: ``texts`` whole (typed, chosen, a target's name),
    ``fields`` as an address field, possibly followed by an id. Longest runs first; a
    run inside one already spelled is not looked at again."""
    texts, fields = set(texts), set(fields)
    spans = [(v.start, v.end) for v in found]
    candidates = [v for v in found if v.kind != "number"]
    words = [(m.start(), m.end()) for m in re.finditer(r"[^\s\"“”]+", goal)]
    for n in range(min(MAX_RUN, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            start, end = words[i][0], words[i + n - 1][1]
            raw = goal[start:end]
            text = raw.strip(values._EDGE + "#")
            start += len(raw) - len(raw.lstrip(values._EDGE + "#"))
            end = start + len(text)
            if len(text) < values.SHORT or values._NUMBER.fullmatch(text) or \
                    all(w.lower() in values.STOPWORDS for w in text.split()) or \
                    not values._free(spans, start, end):
                continue
            candidates.append(values.Value(text, start, end, "words"))
    out: list[Spelled] = []
    done: list[tuple[int, int]] = []
    for value in sorted(candidates, key=lambda v: (-len(v.text), v.start)):
        if not values._free(done, value.start, value.end):
            continue
        spelled = _spelled_in(value.text, texts, fields)
        if spelled is not None:
            out.append(Spelled(value, *spelled))
            done.append((value.start, value.end))
    return out


def _spelled_in(value: str, texts: set[str], fields: set[str]
                ) -> tuple[SpellingKind, str] | None:
    """The spelling (and its text) in which the run used ``value``: typed or chosen
    whole, else as an address field, each in its own order (see the module's text)."""
    for order, fits in ((TEXT_ORDER, lambda text, how: text in texts),
                        (ADDRESS_ORDER, lambda text, how: any(
                            _fits_field(text, f, how) for f in fields))):
        for how in order:
            text = spell(value, how)
            if text != value and len(text) >= values.SHORT and fits(text, how):
                return how, text
    return None


def substitute_url(url: str, params: Mapping[str, str], spelled: Mapping[str, str], *,
                   expect: bool = False) -> str:
    """``values.substitute_url`` first giving a spelled value its mark where an id
    follows it in a segment (``kettles_8`` -> ``{{category_slug}}_8``); in an address
    a step expects (``expect``), such an id becomes ``*``."""
    parts = urlsplit(url)
    head = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    rest = url[len(head):]
    for name, text in sorted(spelled.items(), key=lambda kv: -len(kv[1])):
        def mark(match: re.Match[str], name: str = name) -> str:
            tail = match.group(2)
            return f"{match.group(1)}{{{{{name}}}}}" + (tail[0] + "*" if expect else tail)

        rest = re.sub(rf"(/){re.escape(text)}([_-]\d+)(?=[/?#]|$)", mark, rest)
    return values.substitute_url(head + rest, dict(params) | dict(spelled))


def spaced_forms(params: Mapping[str, str]) -> list[dict[str, str]]:
    """The values as an address may write their spaces ('_', '+'), for comparing an
    address with the one a step expects (``Little Saltby`` at ``/Little_Saltby``)."""
    if not any(" " in str(v) for v in params.values()):
        return []
    return [{k: str(v).replace(" ", sep) for k, v in params.items()} for sep in ("_", "+")]


def run_texts(actions: Iterable[tuple[str, list, str | None]], start: str
              ) -> tuple[set[str], set[str]]:
    """What a run used, for ``find_spelled``: texts it typed or chose, and the fields of
    the addresses it opened (start included). A target's name is not one: a goal's
    word capitalised is a button's or a field's name too often ("comment", "Comment")."""
    texts: set[str] = set()
    fields: set[str] = set(address_fields(start))
    for name, args, _target in actions:
        for arg in args:
            if isinstance(arg, str):
                (fields.update(address_fields(arg)) if name in ("goto", "new_tab")
                 else texts.add(arg))
            elif isinstance(arg, list):
                texts.update(a for a in arg if isinstance(a, str))
    return texts, fields


def open_quotes(goal: str, found: list[values.Value], used: set[str]) -> list[values.Value]:
    """A quoted value the run never used whole ("Same problem as Trac ticket #66: ",
    typed with a title after it) is no value: the numbers inside it are, each on its
    own (a sibling quotes another ticket), and the rest stays the goal's literal text."""
    out = [v for v in found if v.kind != "quoted" or v.text in used]
    spans = [(v.start, v.end) for v in out]
    for quoted in (v for v in found if v.kind == "quoted" and v.text not in used):
        for m in values._NUMBER.finditer(quoted.text):
            start, end = quoted.start + m.start(), quoted.start + m.end()
            if values._free(spans, start, end):
                out.append(values.Value(m.group(), start, end, "number"))
                spans.append((start, end))
    return sorted(out, key=lambda v: (-len(v.text), v.start))


def _names_it(word: str, name: str) -> bool:
    word = word.strip("#/ :").lower()
    return bool(word) and (word == name or word.rstrip("s") == name.split("_")[0])


def mark_shared(text: str, params: Mapping[str, str]) -> str:
    """Where two parameters hold the same value (issue #66 and ticket #66), each
    occurrence gets the parameter the word or address segment before it names
    ("ticket #66", ``/ticket/66`` -> ``{{ticket}}``; ``/issues/66`` -> ``{{issue}}``).
    An occurrence that names neither is left to ``values.substitute``."""
    by_value: dict[str, list[str]] = {}
    for name, value in params.items():
        by_value.setdefault(value, []).append(name)
    for value, names in by_value.items():
        if len(names) < 2 or not value:
            continue

        def pick(match: re.Match[str], names: list[str] = names) -> str:
            word = re.findall(r"[A-Za-z_]+", match.group(1))
            chosen = [n for n in names if word and _names_it(word[-1], n)]
            return match.group(1) + (f"{{{{{chosen[0]}}}}}" if len(chosen) == 1
                                     else match.group(2))

        text = re.sub(rf"([A-Za-z_]+[\s/#=]{{1,3}})({re.escape(value)})(?![A-Za-z0-9_])",
                      pick, text)
    return text
