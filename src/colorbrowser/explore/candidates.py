"""The actions worth trying on a page, each with what the rules need to predict it.

One candidate per control: a link to follow, a form to submit, a toggle to flip, a
select to change, a box to tick, an empty field to fill, any other button to press.
Each says whether it writes (a non-GET submission, a delete, a purchase, a message),
which is what the safety rule acts on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from colorbrowser.actions import format_action
from colorbrowser.explore.pagefacts import PageFacts
from colorbrowser.explore.urls import url_template
from colorbrowser.steps import Target
from colorbrowser.types import ElementInfo, Observation

MAX_CANDIDATES = 200
_WRITE_WORDS = re.compile(
    r"\b(delete|remove|destroy|erase|purge|buy|purchase|order|checkout|check out|pay|"
    r"send|post|submit|save|create|add|update|reply|comment|publish|upload|approve|"
    r"reject|close|reopen|like|unlike|follow|subscribe|vote|register|sign up|apply|"
    r"log ?out|sign ?out|preview|move|rename|lock|unlock|watch|unwatch)\b", re.I)
# words that name a filter or a view, not a write, on a GET form ("Update" on Trac's
# query and timeline forms); any other write word still counts there, since a script
# may write on a GET form's submit (the demo shop's "Place order")
_GET_VIEW_WORDS = frozenset({"update", "apply", "preview"})
_LOGOUT = re.compile(r"\b(log ?out|sign ?out|log off)\b", re.I)
_FILL_VALUES = {"email": "explorer@example.com", "number": "1", "tel": "5550100",
                "url": "http://example.com/", "date": "2024-01-15"}
_TEXT_TYPES = {"", "text", "search", "email", "number", "tel", "url"}
_CLICK_ROLES = {"button", "tab", "menuitem", "switch", "treeitem", "option"}


@dataclass
class Candidate:
    action: str  # the action text, bid filled in
    kind: str  # link, submit, toggle, select, check, fill, button
    target: Target
    signature: str  # what "the same action" means across pages of one kind
    facts: dict[str, Any] = field(default_factory=dict)
    writes: bool = False
    why_write: str = ""


def _norm(name: str) -> str:
    return re.sub(r"\d+", "#", " ".join(name.lower().split()))[:40]


def _signature(kind: str, el: ElementInfo, extra: str = "") -> str:
    return f"{kind}|{el.role}|{_norm(el.name)}|{extra}"


def _write(kind: str, el: ElementInfo, facts: dict[str, Any]) -> str:
    """Why the action would change data on the server (or the person's session); ''."""
    form = facts.get("form") or {}
    if kind == "submit" and form.get("method", "get") != "get":
        return f"submits a {form['method'].upper()} form"
    if kind == "submit" and form:
        words = {m.group(0).lower() for m in _WRITE_WORDS.finditer(el.name)}
        return f"a button named {el.name[:40]!r}" if words - _GET_VIEW_WORDS else ""
    if kind == "link":
        return "ends the session" if _LOGOUT.search(el.name) else ""
    if kind in ("submit", "button") and _WRITE_WORDS.search(el.name):
        return f"a button named {el.name[:40]!r}"
    return ""


def _web_link(facts: dict[str, Any]) -> bool:
    href = facts.get("href") or ""
    raw = facts.get("raw_href") or ""
    return href.startswith(("http://", "https://")) and not facts.get("download") \
        and not raw.startswith("#")


def _one(el: ElementInfo, facts: dict[str, Any], rng_pick: int) -> Candidate | None:
    if not el.visible or el.states.get("disabled"):
        return None
    tag = facts.get("tag", el.tag)
    ftype = facts.get("type", "")
    target = Target(bid=el.bid, role=el.role, name=el.name)
    kind, action, extra = "", "", ""
    if tag == "a" and facts.get("href"):
        if not _web_link(facts):
            return None
        kind, action, extra = "link", format_action("click", [el.bid]), url_template(facts["href"])
    elif facts.get("submits"):
        kind, action = "submit", format_action("click", [el.bid])
        to = (facts.get("form") or {}).get("action")
        extra = url_template(to if isinstance(to, str) else "")
    elif "expanded" in facts or "expanded" in el.states:
        kind, action = "toggle", format_action("click", [el.bid])
    elif tag == "select":
        options = [v for v, _ in facts.get("options", []) if v != facts.get("selected")]
        if not options:
            return None
        choice = options[rng_pick % len(options)]
        kind, action = "select", format_action("select_option", [el.bid, choice])
        facts = {**facts, "choice": choice}
    elif ftype in ("checkbox", "radio") or el.role in ("checkbox", "radio"):
        on = el.states.get("checked") is True
        kind, action = "check", format_action("uncheck" if on else "check", [el.bid])
        facts = {**facts, "to": not on}
        if ftype == "radio" and on:
            return None
    elif (tag in ("input", "textarea") and ftype in _TEXT_TYPES and facts.get("empty")
          and not facts.get("readonly")):
        value = _FILL_VALUES.get(ftype, "test")
        kind, action = "fill", format_action("fill", [el.bid, value])
        facts = {**facts, "value": value}
    elif tag == "button" or el.role in _CLICK_ROLES or facts.get("onclick"):
        if ftype == "reset":
            return None
        kind, action = "button", format_action("click", [el.bid])
    else:
        return None
    why = _write(kind, el, facts)
    return Candidate(action=action, kind=kind, target=target,
                     signature=_signature(kind, el, extra), facts=facts,
                     writes=bool(why), why_write=why)


def _leaves(cand: Candidate, allowed: Callable[[str], bool]) -> bool:
    """Whether the candidate would send the browser to an address it may not open."""
    if cand.kind == "link":
        return not allowed(cand.facts["href"])
    if cand.kind == "submit":
        action = (cand.facts.get("form") or {}).get("action") or ""
        return bool(action) and not allowed(action)
    return False


def candidates(obs: Observation, facts: PageFacts, pick: int = 0,
               allowed: Callable[[str], bool] = lambda url: True) -> list[Candidate]:
    """The page's candidates in page order; ``pick`` varies which option a select gets;
    links and forms leading off the allowed hosts are never candidates."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for el in obs.elements.values():
        if el.frame:  # inside an iframe: the facts walk reads the main document only
            continue
        info = facts.of(el.bid)
        if not info and not el.interactive:
            continue
        cand = _one(el, info or {"tag": el.tag}, pick)
        if cand is None or cand.action in seen or _leaves(cand, allowed):
            continue
        seen.add(cand.action)
        out.append(cand)
        if len(out) >= MAX_CANDIDATES:
            break
    return out
