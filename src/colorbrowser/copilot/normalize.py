"""Raw events of a person (browser/capture.py) -> actions in the agent's own syntax.

Deterministic, no model needed: the same events always give the same actions.

- keystrokes into one field become one ``fill`` with its final value; a click that
  only focused the field before typing is dropped;
- wheel events in one direction, with nothing else in between, become one ``scroll``
  (no time window: load spaces events out); so do the moves of
  the view that keys made (Tab to a control out of sight, Space, PageDown, arrows on
  the page), which no wheel event reports: a Tab dropped as focus keeps its scroll;
- a page load the page itself started (its document fired ``navigate``: a link, a
  form, a script) is the consequence of the person's last click, key press, fill,
  select or check in that tab, and a pop-up tab (one with an opener) of the last such
  action in its opener's tab; any other load is the person's own ``goto``, ``go_back``
  or ``go_forward``, and a tab without an opener their ``new_tab``, however soon after
  an action it comes, unless the person's last action was a click on a link that the
  browser opens in a new tab (a middle click, captured from ``auxclick``, or a
  Ctrl/Shift click);
- click, click, dblclick on one element is one ``dblclick`` (the browser's dblclick says
  the clicks were one double click, whatever their times); a label's click and the
  click it passes to its control are one; a checkbox's click is ``check``/``uncheck``;
- a hover is kept only when the next click lands in the menu it opened: inside the
  hovered element, or on something that appeared while it was hovered (inserted
  anywhere, a portal included, or shown by a :hover style beside it); a click on a
  neighbour that was there before is not, so stray hovers fall away;
- tabs are known by identity (the capture's id for each), not by an index that shifts
  when tabs close: events are ordered and credited by it, and the index an action
  names is the tab's place at that point of the stream;
- Tab that just moves focus on (to the next field, or at the end of the turn) is dropped;
- keys that change the focused field in place (Enter in a textarea, arrows in a radio
  group, a number field or a slider) are not presses: the capture leaves them out, so
  the field's value is one ``fill`` and a group's radio one ``check``, of the last
  choice; a click on a slider is its value's ``fill`` alone;
- a click or double click that only focused (or selected a word in) the field typed
  into next is dropped; a double click on text without an id is dropped; a field's
  change after keys made the page set its value (a suggestion picked) is not a fill;
- browser shortcuts (reload, new tab, history) are not page keys: what they did
  arrives as the load or tab event.

The rules about tabs, loads and hovers are in ``copilot.tab_rules``.

Every raw event is accounted for: used, credited to an action, or dropped with a
reason, so a fidelity report can show a person what was made of their input.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from colorbrowser.actions import format_action
from colorbrowser.browser.capture import RawEvent
from colorbrowser.copilot.human_action import HumanAction, Normalised
from colorbrowser.copilot.tab_rules import (
    CAUSES,
    CREDIT_MS,
    ECHO_MS,
    TabRules,
    TabState,
    event_order,
    hover_counts,
    tab_key,
)
from colorbrowser.steps import Target
from colorbrowser.types import Action

BROWSER_KEYS = {"Control+r", "Meta+r", "F5", "Control+l", "Meta+l", "Control+t", "Meta+t",
                "Control+w", "Meta+w", "Control+Tab", "Control+Shift+Tab", "Alt+ArrowLeft",
                "Alt+ArrowRight", "Meta+[", "Meta+]"}
FIELD_ROLES = {"textbox", "searchbox", "combobox", "spinbutton"}


def _target(e: RawEvent) -> Target | None:
    return Target(bid=e.bid, role=e.role, name=e.name) if e.bid else None


def _checkable(e: RawEvent) -> bool:
    return e.tag == "input" and e.itype in ("checkbox", "radio")


class _Builder(TabRules):
    def __init__(self, keep: Callable[[RawEvent], bool]) -> None:
        self.keep = keep
        self.out = Normalised()
        self.tabs: dict[int, TabState] = {}  # by identity
        self.order: list[int] = []  # identities of the open tabs, in the browser's order
        self.closed: set[int] = set()
        self.active = 0  # identity of the tab in front
        self.last_wheel: RawEvent | None = None
        self.key_scroll: HumanAction | None = None  # the last view move made by keys

    # -- bookkeeping ------------------------------------------------------------
    def drop(self, reason: str) -> None:
        self.out.dropped[reason] += 1

    def emit(self, e: RawEvent, name: str, args: list, *, target: bool = True) -> HumanAction:
        act = HumanAction(Action(name, args, raw=format_action(name, args)), self.index(e),
                          e.url, e.t,
                          _target(e) if target else None, [e.seq], ancestors=list(e.ancestors),
                          via_label=e.via_label, opened_by=e.opened_by, group=e.group,
                          opens_tab=e.opens_tab, key=tab_key(e))
        self.out.actions.append(act)
        self.out.used += 1
        return act

    def last(self, key: int | None = None) -> HumanAction | None:
        for act in reversed(self.out.actions):
            if key is None or act.key == key:
                return act
        return None

    def cause(self, key: int, t: float | None = None) -> HumanAction | None:
        """The action a move starting at ``t`` in ``tab`` is credited to, if any; with no
        ``t`` (the page said it started the move) the last action, however long ago."""
        act = self.last(key)
        if act and act.name in CAUSES and not act.led_to and (
                t is None or 0 <= t - act.t <= CREDIT_MS):
            return act
        return None

    def merge(self, act: HumanAction, e: RawEvent, args: list) -> None:
        act.action = Action(act.name, args, raw=format_action(act.name, args))
        act.events.append(e.seq)
        act.t = e.t
        self.out.used += 1

    # -- one event --------------------------------------------------------------
    def feed(self, e: RawEvent) -> None:
        kept = self.keep(e)
        self.index(e)  # every tab's place, from the first event of it on
        if e.kind in ("doc", "leave", "tab_open", "tab_close", "visible", "history"):
            getattr(self, f"on_{e.kind}")(e, kept)
        elif not kept:
            self.active = tab_key(e)  # the agent's input, or the person's of an earlier turn
            return
        elif not e.top and e.kind == "wheel":
            self.drop("wheel inside a frame")
        else:
            self.come_to(e)
            getattr(self, f"on_{e.kind}")(e)
        if e.kind != "wheel":
            self.last_wheel = None

    def on_click(self, e: RawEvent) -> None:
        prev = self.last(tab_key(e))
        if e.tag in ("select", "option"):
            return self.drop("click on a select (its change is the action)")
        if not e.bid:
            return self.drop("click on an element without an id")
        if e.itype == "range":
            return self.drop("click on a slider (the value it took is the action)")
        if prev and prev.target and e.detail == 0 and prev.name == "press" \
                and prev.action.args[1] == "Enter" and e.t - prev.t <= ECHO_MS:
            if prev.target.bid == e.bid:  # Enter on a button: the button's click
                self.out.actions.remove(prev)
                self.out.used -= 1
            else:
                return self.drop("the click a form's Enter sends to its submit button")
        if prev and prev.target and prev.target.bid == e.bid and e.t - prev.t <= ECHO_MS \
                and prev.name in ("click", "check", "uncheck") and prev.via_label:
            self.out.actions.remove(prev)  # the label's click, now passed to its control
            self.out.used -= 1
            self.drop("a label's click passed on to its control")
        if e.itype == "radio" and e.detail == 0 and e.group and prev is not None \
                and prev.name == "check" and prev.group == e.group:
            # An arrow key moved the choice within the group (the browser sends the new
            # radio a click with no mouse behind it): only the last choice counts.
            prev.target = _target(e)
            prev.ancestors = list(e.ancestors)
            return self.merge(prev, e, [e.bid])
        if _checkable(e):
            self.emit(e, "uncheck" if e.checked is False else "check", [e.bid])
        else:
            button = {1: "middle", 2: "right"}.get(e.button, "left")
            self.emit(e, "click", [e.bid] if button == "left" else [e.bid, button])

    def on_dblclick(self, e: RawEvent) -> None:
        if not e.bid:  # a word of plain text selected: nothing an action could name
            return self.drop("double click on an element without an id")
        # The browser fires dblclick only after the two clicks of a double click, so
        # the clicks just before it on the element are its own however late the page
        # heard of them (a busy machine delays every event): no time window.
        folded = 0
        for act in reversed(self.out.actions[-2:]):
            if act.name == "click" and act.target and act.target.bid == e.bid:
                self.out.actions.remove(act)
                folded += 1
        self.out.used -= folded
        self.out.credited += folded
        self.emit(e, "dblclick", [e.bid])

    def on_input(self, e: RawEvent) -> None:
        if e.tag == "select" or not isinstance(e.value, str):
            return self.drop("input on a select (its change is the action)")
        if not e.bid:
            return self.drop("typing into an element without an id")
        prev = self.last(tab_key(e))
        if prev and prev.name == "fill" and prev.target and prev.target.bid == e.bid:
            return self.merge(prev, e, [e.bid, e.value])
        self.emit(e, "fill", [e.bid, e.value])

    def on_change(self, e: RawEvent) -> None:
        prev = self.last(tab_key(e))
        same = prev is not None and prev.target is not None and prev.target.bid == e.bid
        if e.tag == "select":
            options = e.value if isinstance(e.value, list) else []
            value: str | list[str] = options[0] if len(options) == 1 else options
            if same and prev.name == "select_option":
                return self.merge(prev, e, [e.bid, value])
            self.emit(e, "select_option", [e.bid, value])
        elif _checkable(e):
            if same and prev.name in ("check", "uncheck"):
                self.out.credited += 1
                return None
            self.emit(e, "uncheck" if e.checked is False else "check", [e.bid])
        elif isinstance(e.value, str):
            for act in reversed(self.out.actions):
                if act.key != tab_key(e) or not act.target or act.target.bid != e.bid:
                    continue
                if act.name == "press":
                    # Keys after typing made the page set the value (a suggestion picked
                    # from a list): the keys are the action, not a second fill.
                    self.out.credited += 1
                    return None
                if act.name == "fill":
                    if act.action.args[1] == e.value:
                        self.out.credited += 1
                        return None
                    break
            self.emit(e, "fill", [e.bid, e.value])  # set without typing (autofill)

    def on_key(self, e: RawEvent) -> None:
        if e.key in BROWSER_KEYS:
            return self.drop("a browser shortcut (its load or tab is the action)")
        if e.tag == "select":
            return self.drop("keys in a select (its change is the action)")
        if not e.bid:
            return self.drop("a key with no element focused")
        self.emit(e, "press", [e.bid, e.key])

    def on_wheel(self, e: RawEvent) -> None:
        prev = self.last(tab_key(e))
        dx, dy = round(e.dx), round(e.dy)
        if not dx and not dy:
            return self.drop("a wheel event that moved nothing")
        w = self.last_wheel
        same_way = w is not None and (dy > 0) == (w.dy > 0) and (dx > 0) == (w.dx > 0)
        # Wheel events one way, with nothing else in between, are one scroll however
        # far apart: a time window split a burst when a busy machine (or a slow hand)
        # spaced its events out, and two scrolls one way end where their sum does.
        if prev and prev.name == "scroll" and w is not None and same_way:
            self.merge(prev, e, [prev.action.args[0] + dx, prev.action.args[1] + dy])
        else:
            self.emit(e, "scroll", [dx, dy], target=False)
        self.last_wheel = e

    def on_scroll(self, e: RawEvent) -> None:
        """The view a key moved (Tab to a control out of sight, Space, PageDown, an arrow
        on the page): no wheel said so, yet the person now sees another part of the page,
        so it is a scroll; keys in a row that move it one way are one."""
        dx, dy = round(e.dx), round(e.dy)
        if not dx and not dy:
            return self.drop("a key that moved the view by less than a pixel")
        prev = self.last(tab_key(e))
        if prev is not None and prev is self.key_scroll and (dy > 0) == (prev.action.args[1] > 0) \
                and (dx > 0) == (prev.action.args[0] > 0):
            return self.merge(prev, e, [prev.action.args[0] + dx, prev.action.args[1] + dy])
        self.key_scroll = self.emit(e, "scroll", [dx, dy], target=False)

    # -- after the last event ---------------------------------------------------------
    def finish(self) -> Normalised:
        acts = self.out.actions
        kept: list[HumanAction] = []
        for i, act in enumerate(acts):
            nxt = acts[i + 1] if i + 1 < len(acts) else None
            after = next((a for a in acts[i + 1:] if a.name != "hover"), None)
            if act.name in ("click", "dblclick") and act.target and nxt and nxt.target \
                    and nxt.target.bid == act.target.bid and (nxt.name == "fill" or (
                        nxt.name == "press" and act.target.role in FIELD_ROLES)):
                self.drop("a click that only focused (or selected in) the field typed into next")
                continue
            if act.name == "press" and act.action.args[1] in ("Tab", "Shift+Tab") and not (
                    nxt and nxt.target and act.target and nxt.target.bid == act.target.bid):
                # Focus moving on (to the next field, or past controls at the turn's
                # end): what the person then does there names its element itself.
                self.drop("Tab to the next field")
                continue
            if act.name == "hover" and not hover_counts(act, after):
                self.drop("a stray hover")
                continue
            kept.append(act)
        self.out.actions = kept
        return self.out


def normalise(events: Iterable[RawEvent],
              keep: Callable[[RawEvent], bool] = lambda e: True) -> Normalised:
    """The person's actions in ``events``. Events ``keep`` refuses (before the person's
    turn, or the agent's own input) only update each tab's history."""
    events = list(events)
    ordered = sorted(events, key=event_order(events))
    builder = _Builder(keep)
    for e in ordered:
        builder.feed(e)
    return builder.finish()
