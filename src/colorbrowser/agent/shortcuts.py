"""URL-construction shortcuts: jump straight to a search or filter URL instead of
driving the form step by step.

A shortcut is a URL template such as ``http://shop/search?q={query}``. The Operator
sees the templates that apply to the current site and calls ``goto`` with the
blanks filled in plainly (``goto('http://shop/search?q=blue socks')``); this module
recognises the template in that URL and encodes each value for its position, so
the model never has to get percent-encoding right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from string import Formatter
from typing import TYPE_CHECKING
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit

from colorbrowser.agent.hooks import Hook
from colorbrowser.errors import UserError
from colorbrowser.types import Action

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.agent.operator import Decision
    from colorbrowser.agent.state import StepContext
    from colorbrowser.types import Observation


@dataclass(frozen=True)
class Shortcut:
    name: str
    url_template: str
    description: str = ""
    tip_id: str | None = None

    @property
    def host(self) -> str:
        return urlsplit(self.url_template.replace("{", "").replace("}", "")).netloc.lower()

    @property
    def fields(self) -> list[str]:
        return [f for _, f, _, _ in Formatter().parse(self.url_template) if f]

    def line(self) -> str:
        desc = f" ({self.description})" if self.description else ""
        return f"{self.name}: {self.url_template}{desc}"


def _in_query(template: str, placeholder_pos: int) -> bool:
    return "?" in template[:placeholder_pos]


def validate_template(template: str) -> None:
    """Reject templates a person typed wrong, with the reason."""
    try:
        fields = [f for _, f, _, _ in Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise UserError(f"URL template {template!r}: {exc}") from None
    if not fields or any(not re.fullmatch(r"[A-Za-z_]\w*", f) for f in fields):
        raise UserError(f"URL template {template!r} needs named blanks such as {{query}}")
    if not urlsplit(template.split("{", 1)[0]).scheme.startswith("http"):
        raise UserError(f"URL template {template!r} must start with http:// or https://")


def expand(template: str, values: dict[str, str]) -> str:
    """Fill a template, encoding query values with + and path values with %20."""
    out, pos = [], 0
    for literal, name, _spec, _conv in Formatter().parse(template):
        out.append(literal)
        pos += len(literal)
        if name is None:
            continue
        if name not in values:
            raise UserError(f"shortcut value {name!r} is missing")
        raw = str(values[name])
        out.append(quote_plus(raw) if _in_query(template, pos) else quote(raw, safe=""))
        pos += len(name) + 2
    return "".join(out)


def _pattern(template: str) -> re.Pattern[str]:
    # Blanks match lazily between the template's literal parts, so a value the
    # model wrote unencoded ("socks & more") still lands in its own blank.
    parts = []
    for literal, name, _spec, _conv in Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P<{name}>.*?)")
    # An extra tail is only whole "&key=value" pairs, so "& hats" stays in the value.
    return re.compile("".join(parts) + r"(?P<_rest>(?:&[\w.\-\[\]]+=[^&#]*)*(?:#.*)?)$", re.S)


def match(url: str, shortcut: Shortcut) -> tuple[dict[str, str], str] | None:
    """The plain values a URL gives to a template's blanks and any extra tail
    (``&page=2``), or None when the URL is not made from this template."""
    m = _pattern(shortcut.url_template).match(url)
    if not m:
        return None
    groups = m.groupdict()
    rest = groups.pop("_rest") or ""
    return {k: _plain(v) for k, v in groups.items()}, rest


def _plain(value: str) -> str:
    """Undo encoding the model may have done itself, without mangling "C++"."""
    if re.search(r"%[0-9A-Fa-f]{2}", value):
        return unquote_plus(value)
    if " " not in value and re.search(r"\w\+\w", value):
        return value.replace("+", " ")
    return value


def for_url(url: str, shortcuts: Iterable[Shortcut]) -> list[Shortcut]:
    host = urlsplit(url).netloc.lower()
    return [s for s in shortcuts if s.host == host]


# A source gives the shortcuts known for a URL: the knowledge base, or a file.
ShortcutSource = Callable[[str], list[Shortcut]]


@dataclass
class ShortcutHook(Hook):
    """Shows the current site's shortcuts and encodes the ones the Operator uses."""

    source: ShortcutSource
    shown: list[Shortcut] = field(default_factory=list)

    def before_decide(self, episode: Episode, ctx: StepContext, obs: Observation) -> None:
        self.shown = for_url(obs.url, self.source(obs.url))
        ctx.shortcuts = [s.line() for s in self.shown]

    def review(self, episode: Episode, ctx: StepContext, decision: Decision) -> Decision:
        action = decision.action
        if action is None or action.name not in {"goto", "new_tab"} or not action.args[0]:
            return decision
        url = str(action.args[0])
        for shortcut in self.shown:
            found = match(url, shortcut)
            if found is None:
                continue
            values, rest = found
            encoded = expand(shortcut.url_template, values) + rest
            decision.action = Action(action.name, [encoded, *action.args[1:]],
                                     raw=f"{action.name}({encoded!r})")
            ctx.extra["shortcut"] = {"name": shortcut.name, "values": values,
                                     "url": encoded, "tip_id": shortcut.tip_id}
            break
        return decision
