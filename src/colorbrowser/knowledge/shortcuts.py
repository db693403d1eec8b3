"""URL-construction shortcuts: jump straight to a search or listing URL instead of
filling a form step by step (fewer steps, no flaky widgets)."""

from __future__ import annotations

import string
from urllib.parse import quote, quote_plus

from colorbrowser.errors import UserError
from colorbrowser.knowledge.tip import Tip


class ShortcutError(UserError):
    pass


def expand_shortcut(tip: Tip, /, **values: object) -> str:
    """Fill a shortcut's template. Values are URL-encoded for where they land:
    ``quote_plus`` in the query string, ``quote`` (no safe characters) in the path
    and fragment, so a value can never add path segments or parameters."""
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
    out: list[str] = []
    part = "path"
    for literal, name, _, _ in string.Formatter().parse(tip.url_template):
        out.append(literal)
        if "#" in literal:
            part = "fragment"
        elif "?" in literal and part == "path":
            part = "query"
        if name is None:
            continue
        value = str(values[name])
        out.append(quote_plus(value) if part == "query" else quote(value, safe=""))
    return "".join(out)
