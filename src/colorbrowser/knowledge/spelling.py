"""A goal's value written the way a site writes it where the run used it.

A goal says "Black Peak", the wiki's address holds ``Black_Peak``; a goal says
"Julian Moore", the tracker's query holds ``owner=julian``; a forum's address holds the
topic's title as a slug. A workflow keeps such a use as ``{{name__spelling}}``: the
parameter ``name`` (filled from the sibling's goal) in one of the spellings below, so
a sibling's "Frost Ridge" is written ``Frost_Ridge`` where the learned run wrote
``Black_Peak``. Learning only picks a spelling that turns the learned run's own value
into exactly the text the run used, as a whole address field.

Only these fixed, pure text functions exist: a workflow (a file someone may send)
names one of them, never code.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping

SEP = "__"  # {{title__slug}}: the parameter title, spelled as a slug


def _words(value: str) -> list[str]:
    return value.split()


def underscore(value: str) -> str:
    """Words joined by '_' (wiki titles in addresses)."""
    return "_".join(_words(value))


def slug(value: str) -> str:
    """Lower case ASCII letters and digits, every other run of characters one '-', the
    apostrophes dropped ("Help: my pile aren't ..." -> "help-my-pile-arent-...")."""
    ascii_text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    ascii_text = re.sub(r"['’]", "", ascii_text.lower())
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def lower(value: str) -> str:
    return " ".join(_words(value)).lower()


def first(value: str) -> str:
    """A person's name as a login ("Julian Moore" -> "julian"): the first word, lower
    case. Only for names of two or more capitalised words (see ``name_like``)."""
    words = _words(value)
    return words[0].lower() if words else ""


# In the order learning tries them: the more specific spelling wins when two agree.
SPELLINGS: dict[str, Callable[[str], str]] = {
    "underscore": underscore, "slug": slug, "first": first, "lower": lower}


def name_like(value: str) -> bool:
    """Two to four capitalised words: what ``first`` may shorten."""
    words = _words(value)
    return 2 <= len(words) <= 4 and all(w[:1].isupper() and w.isalpha() for w in words)


def spell(value: str, how: str) -> str:
    return SPELLINGS[how](value)


def split(name: str) -> tuple[str, str | None]:
    """``title__slug`` -> ("title", "slug"); ``title`` -> ("title", None). A suffix that
    is no known spelling raises ValueError."""
    if SEP not in name:
        return name, None
    base, how = name.split(SEP, 1)
    if how not in SPELLINGS or not base:
        raise ValueError(f"parameter {name!r}: {how!r} is not a spelling "
                         f"({', '.join(SPELLINGS)})")
    return base, how


def value_of(name: str, params: Mapping[str, str]) -> str | None:
    """The value of ``name`` (spelled when it carries a spelling), None when missing."""
    base, how = split(name)
    if base not in params:
        return None
    value = str(params[base])
    return spell(value, how) if how else value


def spellings_of(value: str) -> list[tuple[str, str]]:
    """(spelling, text) for each spelling that writes ``value`` differently, in order;
    a text two spellings share goes to the first."""
    out: dict[str, str] = {}
    for how, fn in SPELLINGS.items():
        if how == "first" and not name_like(value):
            continue
        text = fn(value)
        if text and text != value and text not in out:
            out[text] = how
    return [(how, text) for text, how in out.items()]
