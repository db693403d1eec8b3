"""URL-construction shortcuts: jump straight to a search or listing URL instead of
filling a form step by step (fewer steps, no flaky widgets).

Filling encodes each value for where it lands; matching reads the plain values
back out of a URL the model wrote from a template, so the model never has to get
percent-encoding right.
"""

from __future__ import annotations

import re
import string
from urllib.parse import quote, quote_plus, unquote_plus

from colorbrowser.errors import UserError
from colorbrowser.knowledge.tip import Tip


class ShortcutError(UserError):
    pass


def _parts(template: str):
    """(literal, placeholder name or None, part of the URL it lands in)."""
    part = "path"
    for literal, name, _, _ in string.Formatter().parse(template):
        if "#" in literal:
            part = "fragment"
        elif "?" in literal and part == "path":
            part = "query"
        yield literal, name, part


def fill_template(template: str, values: dict[str, object]) -> str:
    """``quote_plus`` in the query string, ``quote`` (no safe characters) in the path
    and fragment, so a value can never add path segments or parameters."""
    out: list[str] = []
    for literal, name, part in _parts(template):
        out.append(literal)
        if name is None:
            continue
        if values.get(name) is None:
            raise ShortcutError(f"shortcut value {{{name}}} is missing ({template})")
        value = str(values[name])
        out.append(quote_plus(value) if part == "query" else quote(value, safe=""))
    return "".join(out)


def expand_shortcut(tip: Tip, /, **values: object) -> str:
    if tip.kind != "shortcut" or not tip.url_template:
        raise ShortcutError(f"tip {tip.id} is not a URL shortcut")
    names = tip.placeholders()
    missing = [n for n in names if values.get(n) is None]
    if missing:
        need = ", ".join("{" + n + "}" for n in missing)
        raise ShortcutError(f"shortcut {tip.id} needs a value for {need} ({tip.url_template})")
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ShortcutError(
            f"shortcut {tip.id} has no placeholder {{{unknown[0]}}} ({tip.url_template})"
        )
    return fill_template(tip.url_template, values)


def _pattern(template: str) -> re.Pattern[str]:
    # Blanks match lazily between the template's literal parts, so a value the model
    # wrote unencoded ("socks & more") still lands in its own blank. An extra tail is
    # only whole "&key=value" pairs or a fragment.
    parts = []
    for literal, name, _part in _parts(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.*?)")
    tail = r"(?P<_rest>(?:&[\w.\-\[\]]+=[^&#]*)*(?:#.*)?)$"
    return re.compile("".join(parts) + tail, re.S)


def _plain(value: str) -> str:
    """Undo encoding the model may have done itself, without mangling "C++"."""
    if re.search(r"%[0-9A-Fa-f]{2}", value):
        return unquote_plus(value)
    if " " not in value and re.search(r"\w\+\w", value):
        return value.replace("+", " ")
    return value


def match_template(url: str, template: str) -> tuple[dict[str, str], str] | None:
    """The plain values a URL gives to a template's blanks and any extra tail
    (``&page=2``), or None when the URL is not made from this template."""
    m = _pattern(template).match(url)
    if not m:
        return None
    groups = m.groupdict()
    rest = groups.pop("_rest") or ""
    return {k: _plain(v) for k, v in groups.items()}, rest
