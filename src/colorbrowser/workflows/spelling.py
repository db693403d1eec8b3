"""A goal's values as the site spells them.

A goal names things the way a person writes them; the site often writes them
otherwise: the project "Ledgerly" lives at ``/projects/ledgerly``, the product
"Northwind Rain Jacket, Sand, M" at ``/catalogue/northwind-rain-jacket-sand-m_12/``,
the town "Little Saltby" at ``/index.php/Little_Saltby``, and the tracker "bug" is the
option "Bug". Learning looks for each goal value (and each run of the goal's words)
in these spellings among what the run typed, chose, clicked and opened, and records
the parameter as a ``Spelling`` of the goal's one; a sibling's value is spelled the
same way before its steps are filled. An address segment may carry an id after the
spelled value (``kettles_8``): what follows the value there is kept as it was in a
step, and is ``*`` in the address a step expects to lead to, since a sibling's id
differs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from colorbrowser.knowledge.workflow import Workflow
from colorbrowser.workflows import values


def slug(text: str) -> str:
    """The usual URL slug: ASCII letters and digits, lower case, '-' between words."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


SPELL: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "capitalized": lambda text: text[:1].upper() + text[1:],
    "underscore": lambda text: "_".join(text.split()),
    "slug": slug,
}
_ID_TAIL = re.compile(r"[_-]\d+")  # what an address may add after a spelled value
MAX_RUN = 8  # words in a run of the goal looked for in another spelling


def with_spellings(flow: Workflow, params: Mapping[str, str]) -> dict[str, str]:
    """The goal's parameters and, for each spelling, its value spelled that way."""
    out = dict(params)
    for name, spelled in flow.spellings.items():
        if spelled.of in params and name not in out:
            out[name] = SPELL[spelled.how](str(params[spelled.of]))
    return out


def address_fields(url: str) -> list[str]:
    """Path segments and query values, decoded, in any case (``values.url_parts`` keeps
    only those a value fills whole; a spelled value may be lower case)."""
    return values.url_parts(url)


@dataclass(frozen=True)
class Spelled:
    value: values.Value  # the goal's run of words
    how: str
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
        for how, spell in SPELL.items():
            text = spell(value.text)
            if text == value.text or len(text) < values.SHORT:
                continue
            if text in texts or any(_fits_field(text, f, how) for f in fields):
                out.append(Spelled(value, how, text))
                done.append((value.start, value.end))
                break
    return out


def substitute_url(url: str, params: Mapping[str, str], spelled: Mapping[str, str], *,
                   expect: bool = False) -> str:
    """``values.substitute_url`` first giving a spelled value its mark where an id
    follows it in a segment (``kettles_8`` -> ``{{category_lower}}_8``); in an address
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


_ID_SEGMENT = re.compile(r"(?<=/)\d+(?=/|$)")


def names_an_id(url: str) -> bool:
    """Whether an address holds a number the goal does not give (``/products/33/``):
    a sibling's page is another one, so a workflow does not open this one first; it
    starts where its episode starts."""
    return _ID_SEGMENT.search(urlsplit(url).path) is not None


def any_id(url: str) -> str:
    """An address a step expects, with each number the goal does not give as ``*``
    (the order a search led to, the ticket a link opened)."""
    parts = urlsplit(url)
    head = f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""
    return head + _ID_SEGMENT.sub("*", url[len(head):])



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
