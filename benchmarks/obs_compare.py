"""Coverage of our observation against BrowserGym's, element by element.

BrowserGym's flattened AX tree is parsed back into (bid, role, name) lines. Its
interactive lines are matched to our elements through DOM paths computed by the
same script in both browsers (both projects write a ``bid`` attribute, so the two
observations run on separate page loads). Its text lines must appear in our text.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from colorbrowser.types import Observation

# Chromium AX roles BrowserGym prints for things an agent acts on, and the roles that
# count as the same control on our side (Chromium has internal names for some).
ROLE_MATCH: dict[str, set[str]] = {
    "link": {"link"},
    "button": {"button"},
    "DisclosureTriangle": {"button"},  # <summary>
    "PopUpButton": {"button", "combobox"},
    "ColorWell": {"button"},  # <input type=color>
    "textbox": {"textbox", "searchbox"},
    "searchbox": {"searchbox", "textbox"},
    "combobox": {"combobox"},
    "listbox": {"listbox"},
    "checkbox": {"checkbox"},
    "radio": {"radio"},
    "switch": {"switch"},
    "slider": {"slider"},
    "spinbutton": {"spinbutton"},
    "tab": {"tab"},
    "menuitem": {"menuitem"},
    "menuitemcheckbox": {"menuitemcheckbox"},
    "menuitemradio": {"menuitemradio"},
    "treeitem": {"treeitem"},
    "option": {"option"},
    "MenuListOption": {"option"},
    "ListBoxOption": {"option"},
    "Date": {"textbox"},  # <input type=date>: one field for us, parts for Chromium
    "DateTime": {"textbox"},
    "InputTime": {"textbox"},
}
_LINE = re.compile(r"^(\t*)(?:\[([^\]]+)\] )?(\S+)(?: (.*))?$")


@dataclass
class TheirLine:
    bid: str | None
    role: str
    name: str
    value: str | None = None  # a quoted value=... (what a field shows)


def parse_flat_axtree(text: str) -> list[TheirLine]:
    """Lines of ``flatten_axtree_to_str``: ``[bid] role 'name', attr=...``."""
    out = []
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if not m:
            continue
        rest = m.group(4) or ""
        name, value = "", None
        if rest[:1] in ("'", '"'):
            name, end = _literal(rest)
            rest = rest[end:]
        if rest.startswith(" value=") and rest[7:8] in ("'", '"'):
            value, _ = _literal(rest[7:])
        out.append(TheirLine(m.group(2), m.group(3), name, value))
    return out


def _literal(text: str) -> tuple[str, int]:
    """The string literal at the start of ``text`` and where it ends."""
    token = next(tokenize.generate_tokens(io.StringIO(text).readline))
    if token.type != tokenize.STRING:
        return "", 0
    return eval_string(token.string), token.end[1]


def eval_string(literal: str) -> str:
    """A Python string literal BrowserGym printed with repr(); parsed, not evaluated."""
    import ast

    value = ast.literal_eval(literal)
    return value if isinstance(value, str) else str(value)


def norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def names_agree(theirs: str, ours: str) -> bool:
    t, o = norm(theirs), norm(ours)
    if not t or t == o:
        return True
    return o.endswith("…") and t.startswith(o[:-1].rstrip())  # ours is capped at 150 chars


@dataclass
class Coverage:
    controls: int = 0
    controls_ok: int = 0
    texts: int = 0
    texts_ok: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def control_pct(self) -> float:
        return 100.0 * self.controls_ok / self.controls if self.controls else 100.0

    @property
    def text_pct(self) -> float:
        return 100.0 * self.texts_ok / self.texts if self.texts else 100.0

    @property
    def pct(self) -> float:
        """Both checks in one number: the lower of the two."""
        return min(self.control_pct, self.text_pct)


def _tag(path: str) -> str:
    return path.rsplit("/", 1)[-1].split("[", 1)[0]


# Clickable in the DOM snapshot but not a target of their own: the document (a
# listener on <body>) and labels, which forward clicks to the control they name.
_NOT_TARGETS = {"html", "body", "label"}


def coverage(theirs: dict, obs: Observation, our_text: str,
             our_paths: dict[str, str]) -> Coverage:
    """``theirs``: the driver's result (text, paths, clickable and visible bids)."""
    by_path = {path: bid for bid, path in our_paths.items()}
    paths: dict[str, str] = theirs["paths"]
    haystack = norm(our_text.replace("\\'", "'").replace('\\"', '"'))
    result = Coverage()
    controls: dict[str, list[TheirLine]] = {}
    for line in parse_flat_axtree(theirs["text"]):
        if line.role == "StaticText":
            text = norm(line.name)
            if not text:
                continue
            result.texts += 1
            # A password shows one bullet per character; ours masks the length too.
            if text in haystack or (set(text) == {"•"} and "•" in haystack):
                result.texts_ok += 1
            else:
                result.misses.append(f"text {line.name!r}")
        elif line.role in ROLE_MATCH and line.bid is not None:
            controls.setdefault(line.bid, []).append(line)
            value = norm(line.value or "")
            if value and set(value) != {"•"}:  # what a field shows is page text too
                result.texts += 1
                if value in haystack:
                    result.texts_ok += 1
                else:
                    result.misses.append(f"value {line.value!r} of [{line.bid}] {line.role}")
    visible = set(theirs.get("visible", ()))
    for bid in theirs.get("clickable", ()):
        path = paths.get(bid, "")
        if bid in visible and bid not in controls and path and _tag(path) not in _NOT_TARGETS:
            controls[bid] = []
    for bid, lines in controls.items():
        result.controls += 1
        first = lines[0] if lines else TheirLine(bid, "clickable", "")
        what = f"[{bid}] {first.role} {first.name!r}"
        path = paths.get(bid)
        ours = obs.elements.get(by_path.get(path, "")) if path else None
        if ours is None:
            result.misses.append(f"{what}: not in our observation")
        elif not ours.interactive:
            result.misses.append(f"{what}: ours [{ours.bid}] {ours.role} is not actionable")
        elif lines and not any(ours.role in ROLE_MATCH[x.role] for x in lines):
            result.misses.append(f"{what}: ours [{ours.bid}] has role {ours.role}")
        elif not names_agree(first.name, ours.name):
            result.misses.append(f"{what}: ours [{ours.bid}] is named {ours.name!r}")
        else:
            result.controls_ok += 1
    return result
