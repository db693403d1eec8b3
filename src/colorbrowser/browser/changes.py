"""What changed since the previous observation, in one short line for the model.

Agents lose track after an action whose effect is small or far from where they
looked (a toast, a dialog, a row that went away). Bids live in the DOM and survive
re-renders, so comparing two observations of the same document by bid tells what
appeared, what went away and which controls changed state, without any diffing of
text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from colorbrowser.browser.tree import state_words
from colorbrowser.types import ElementInfo, Observation

MAX_LISTED = 3  # elements named per kind of change; the rest are counted
MAX_NAME = 30
# More new elements than this share of the page: the content was replaced, and a
# mark on nearly every line would cost tokens without pointing at anything.
MARK_LIMIT = 0.5
_IGNORED_STATES = {"focused"}  # focus moves on every click; the header shows it


def short(el: ElementInfo) -> str:
    """``[12] button 'Save'``: enough to find the element in the tree."""
    name = el.name if len(el.name) <= MAX_NAME else el.name[:MAX_NAME - 1].rstrip() + "…"
    return f"[{el.bid}] {el.role}" + (f" {name!r}" if name else "")


def _listing(count: int, items: list[str]) -> str:
    shown = items[:MAX_LISTED]
    more = count - len(shown)
    return ", ".join(shown + ([f"+{more} more"] if more > 0 else []))


def _worth_naming(elements: Iterable[ElementInfo]) -> list[ElementInfo]:
    """Named or actionable elements first: an unnamed wrapper says little."""
    items = list(elements)
    return ([e for e in items if e.interactive or e.name]
            + [e for e in items if not (e.interactive or e.name)])


def _comparable(el: ElementInfo) -> dict[str, Any]:
    return {k: v for k, v in el.states.items() if k not in _IGNORED_STATES}


def _changed(before: ElementInfo, after: ElementInfo) -> str | None:
    """``[5] checkbox 'I agree' checked``: the states that differ, as they are now."""
    if before.role != after.role:
        return None  # a node re-used as something else: its new self is in the tree
    old, new = _comparable(before), _comparable(after)
    keys = [k for k in {**old, **new} if old.get(k) != new.get(k)]
    words = state_words({k: new[k] for k in keys if k in new})
    for key in keys:
        if key not in new:  # a flag or value that went away
            words.append("value=''" if key == "value" else f"not {key}")
    if before.name != after.name and after.name:
        name = before.name if len(before.name) <= MAX_NAME else before.name[:MAX_NAME - 1] + "…"
        words.append(f"(was {name!r})")
    return f"{short(after)} {' '.join(words)}" if words else None


def marked_new(obs_elements: dict[str, ElementInfo]) -> set[str]:
    """Bids to mark with ``*`` in the tree: the new ones, unless most of the page is new."""
    new = {b for b, e in obs_elements.items() if e.is_new}
    if not new or len(new) > MARK_LIMIT * len(obs_elements):
        return set()
    return new


def describe_changes(previous: Observation | None, obs: Observation, same_doc: bool,
                     top_new: Iterable[str] = ()) -> str | None:
    """``title changed; 4 new: [31] dialog 'Confirm', ...; 1 removed: [12] button 'Delete'``.

    ``top_new``: new bids whose parent element is not new (a new dialog, not each of
    its buttons); they are named first.
    """
    if previous is None:
        return None
    parts = []
    if obs.url != previous.url:
        parts.append("URL changed")
    elif not same_doc:
        parts.append("page reloaded")
    elif obs.title != previous.title:
        parts.append("title changed")
    if len(obs.tabs) != len(previous.tabs):
        parts.append(f"{len(obs.tabs)} tabs open (was {len(previous.tabs)})")
    if same_doc:
        parts.extend(_element_changes(previous, obs, list(top_new)))
    if not parts:
        parts.append("no change" if obs.dom_hash == previous.dom_hash else "page text changed")
    return "; ".join(parts)


def _element_changes(previous: Observation, obs: Observation, top_new: list[str]) -> list[str]:
    parts = []
    new = [e for e in obs.elements.values() if e.is_new]
    if new:
        first = {b for b in top_new if b in obs.elements}
        ordered = (_worth_naming(obs.elements[b] for b in top_new if b in first)
                   + _worth_naming(e for e in new if e.bid not in first))
        parts.append(f"{len(new)} new: " + _listing(len(new), [short(e) for e in ordered]))
    removed = [e for b, e in previous.elements.items() if b not in obs.elements]
    if removed:
        parts.append(f"{len(removed)} removed: "
                     + _listing(len(removed), [short(e) for e in _worth_naming(removed)]))
    changed = []
    for bid, after in obs.elements.items():
        before = previous.elements.get(bid)
        if after.tag == "option":  # its select's value says it, on one line
            continue
        if before is not None and (line := _changed(before, after)):
            changed.append(line)
    if changed:
        parts.append("changed: " + _listing(len(changed), changed))
    return parts
