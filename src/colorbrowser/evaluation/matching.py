"""String comparisons with WebArena's semantics (re-implemented, not copied).

The rules that matter for scores:
- cleaning strips surrounding whitespace, then one pair of matching single or
  double quotes, then lowercases; trailing punctuation is kept;
- ``exact_match`` compares the cleaned strings;
- ``must_include`` is a substring test on cleaned strings, except when the
  reference list has a single entry of a single character: then that character
  must stand as a token of its own, so "0" does not match "10" or "1.0";
- in ``program_html`` a must_include entry may list ``|OR|`` alternatives.
"""

from __future__ import annotations

import re

OR_SEPARATOR = " |OR| "


def clean_answer(text: str) -> str:
    text = text.strip()
    # A lone quote counts as both ends of a pair and cleans to "", as in WebArena.
    if text and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text.lower()


def exact_match(reference: str, prediction: str) -> bool:
    return clean_answer(prediction) == clean_answer(reference)


def must_include(reference: str, prediction: str, *, as_token: bool = False) -> bool:
    """``as_token``: the caller's reference list has one entry (WebArena only then
    treats a one-character reference as a whole token)."""
    ref, pred = clean_answer(reference), clean_answer(prediction)
    if as_token and len(ref) == 1 and not ref.isspace():
        return ref in tokens(pred)
    return ref in pred


def must_include_any(reference: str, prediction: str) -> bool:
    """One program_html requirement: any ``|OR|`` alternative found is enough."""
    return any(must_include(alt, prediction) for alt in reference.split(OR_SEPARATOR))


# Tokens in the style of the Penn Treebank rules WebArena's tokenizer follows:
# runs of word characters stay whole when joined by , . : / - + = (numbers like
# "1,000", "0.5", "10:30", "0/5", "-0" are one token); other punctuation, quotes,
# "%" and the clitic "'s" stand apart. Good enough for one-character references,
# the only case where tokens are used.
_JOINED = r"[+\-]?\w+(?:[,.:/\-+=@&]\w+)*"
_TOKEN = re.compile(rf"{_JOINED}|'\w+|\S")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)
