"""The normaliser's rules about tabs, loads and hovers (see ``copilot.normalize``).

Tabs are known by identity (the capture's id for each), not by an index that shifts
when tabs close: events are ordered and credited by it, and the index an action names
is the tab's place at that point of the stream. A load the page started is credited to
the person's last action in that tab, a pop-up to the action in its opener that opened
it; any other load or tab is the person's own. A hover counts only when the next
click lands in what it opened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from colorbrowser.browser.capture import RawEvent

if TYPE_CHECKING:
    from colorbrowser.copilot.human_action import HumanAction, Normalised

CREDIT_MS = 5000  # a same-document history move this soon after an action is its doing
ECHO_MS = 250  # a label's click reaches its control within this
BLANK = "about:blank"
OPEN_LAG_MS = 2000  # how late Python may hear of a tab its first page is loading in
CAUSES = {"click", "dblclick", "press", "fill", "select_option", "check", "uncheck"}


@dataclass
class TabState:
    history: list[str] = field(default_factory=list)
    index: int = -1
    popup: bool = False  # opened by an action: its first page is that action's doing
    leaving: bool = False  # its page started a navigation itself (a link, form, script)
    fresh: HumanAction | None = None  # a new_tab() waiting for its first address


def tab_key(e: RawEvent) -> int:
    """A tab's identity: its capture id, else (events made by hand) its index."""
    return e.tab_id if e.tab_id >= 0 else e.tab


class TabRules:
    """The builder's handlers of loads, tabs and hovers; the builder (``_Builder`` in
    ``copilot.normalize``) supplies the bookkeeping these use."""

    keep: Callable[[RawEvent], bool]
    out: Normalised
    tabs: dict[int, TabState]
    order: list[int]
    closed: set[int]
    active: int

    if TYPE_CHECKING:
        def emit(self, e: RawEvent, name: str, args: list, *,
                 target: bool = True) -> HumanAction: ...

        def last(self, key: int | None = None) -> HumanAction | None: ...

        def cause(self, key: int, t: float | None = None) -> HumanAction | None: ...

        def merge(self, act: HumanAction, e: RawEvent, args: list) -> None: ...

        def drop(self, reason: str) -> None: ...

    def tab(self, key: int) -> TabState:
        return self.tabs.setdefault(key, TabState())

    def index(self, e: RawEvent) -> int:
        """The tab's index now, from the tabs opened and closed so far in the stream (a
        tab first heard of here goes where the capture saw it)."""
        key = tab_key(e)
        if key in self.closed:
            return e.tab
        if key not in self.order:
            while len(self.order) < e.tab:  # tabs before it that no event showed yet
                self.order.append(-2 - len(self.order))
            unknown = e.tab < len(self.order) and self.order[e.tab] < 0
            if unknown:
                self.order[e.tab] = key
            else:
                self.order.insert(min(e.tab, len(self.order)), key)
        return self.order.index(key)

    def on_hover(self, e: RawEvent) -> None:
        if not e.bid:
            return self.drop("hover on an element without an id")
        self.emit(e, "hover", [e.bid])

    # -- loads and tabs ------------------------------------------------------------
    def on_doc(self, e: RawEvent, kept: bool) -> None:
        tab = self.tab(tab_key(e))
        if e.url == BLANK or not e.url:
            return self.drop("a blank page") if kept else None
        direction = self._move(tab, e)
        leaving, tab.leaving = tab.leaving, False
        if not kept:
            return None
        if tab.fresh is not None:  # the first address of a tab the person opened
            self.merge(tab.fresh, e, [e.url])
            tab.fresh = None
            return None
        if tab.popup:
            tab.popup = False
            self.out.credited += 1
            return None
        if direction == "reload" or direction == "navigate":
            if not leaving:  # the address bar, a bookmark or reload: the person's
                self.emit(e, "goto", [e.url], target=False)
                return None
            act = self.cause(tab_key(e))
            if act is None:
                return self.drop("a load the page started with no action of the person's")
            act.led_to.append(f"the page moved to {e.url}")
            self.out.credited += 1
        else:
            self.emit(e, direction, [], target=False)
        return None

    def on_leave(self, e: RawEvent, kept: bool) -> None:
        if e.top:
            self.tab(tab_key(e)).leaving = True

    def _move(self, tab: TabState, e: RawEvent) -> str:
        """Update the tab's history with a load; how it was reached."""
        h = tab.history
        if e.nav == "back_forward":
            if tab.index + 1 < len(h) and h[tab.index + 1] == e.url and not (
                    tab.index > 0 and h[tab.index - 1] == e.url):
                tab.index += 1
                return "go_forward"
            earlier = [i for i in range(tab.index) if h[i] == e.url]
            tab.index = earlier[-1] if earlier else max(tab.index - 1, 0)
            return "go_back"
        if e.nav == "reload" and 0 <= tab.index < len(h):
            h[tab.index] = e.url
            return "reload"
        del h[tab.index + 1:]
        h.append(e.url)
        tab.index = len(h) - 1
        return "navigate"

    def on_history(self, e: RawEvent, kept: bool) -> None:
        if not kept:
            return None
        prev = self.last(tab_key(e))
        if prev and prev.name == "go_back" and e.t - prev.t <= ECHO_MS:
            self.out.credited += 1  # popstate and hashchange of one move
            return None
        act = self.cause(tab_key(e), e.t)
        if act is not None:
            self.out.credited += 1
            return None
        self.emit(e, "go_back", [], target=False)
        return None

    def on_tab_open(self, e: RawEvent, kept: bool) -> None:
        tab = self.tab(tab_key(e))
        self.active = tab_key(e)
        if not kept:
            return None
        last = self.last()
        if e.opener < 0 and last is not None and last.opens_tab and not last.led_to:
            opener: HumanAction | None = last  # a middle or Ctrl click on a link
        elif e.opener < 0:  # no page and no link opened it: the person's own new tab
            tab.fresh = self.emit(e, "new_tab", [], target=False)
            return None
        else:
            opener = next((a for a in reversed(self.out.actions)
                           if a.key == e.opener and a.name in CAUSES), None)
        tab.popup = True
        if opener is None:
            return self.drop("a pop-up the page opened with no action of the person's")
        opener.led_to.append(f"it opened tab {self.index(e)}")
        self.out.credited += 1
        return None

    def on_tab_close(self, e: RawEvent, kept: bool) -> None:
        key, index = tab_key(e), self.index(e)
        if kept:
            self.emit(e, "tab_close", [index], target=False)
        self.tabs.pop(key, None)
        if key in self.order:
            self.order.remove(key)
        self.closed.add(key)
        if kept and self.order and (self.active == key or self.active not in self.order):
            self.active = self.order[min(index, len(self.order) - 1)]

    def come_to(self, e: RawEvent) -> None:
        """Input in a tab other than the front one means the person went to it first.
        Headless Chromium tells no tab it came to the front, and a headed one may tell
        it after the first click, so the input itself is the reliable sign. Only a move
        between two tabs this turn's events know of counts: a page the events never
        showed opening (one from before the turn's window, a helper page) proves nothing."""
        key = tab_key(e)
        if key != self.active:
            known = key in self.tabs and self.active in self.tabs
            self.active = key
            if known:
                self.emit(e, "tab_focus", [self.index(e)], target=False)

    def on_visible(self, e: RawEvent, kept: bool) -> None:
        if tab_key(e) == self.active:
            return None
        self.active = tab_key(e)
        prev = self.last()
        if not kept or (prev and prev.name in ("new_tab", "tab_close")
                        and e.t - prev.t <= CREDIT_MS):
            return None
        self.emit(e, "tab_focus", [self.index(e)], target=False)
        return None


def hover_counts(hover: HumanAction, after: HumanAction | None) -> bool:
    """A hover is kept only when the next click lands in the menu it opened: inside the
    hovered element, or on something that appeared while it was hovered (a portal
    included); a click on a neighbour that was there before makes it stray."""
    return bool(after and after.name in ("click", "dblclick") and after.target
                and hover.target and after.target.bid != hover.target.bid
                and (hover.target.bid in after.ancestors
                     or after.opened_by == hover.target.bid))


def event_order(events: list[RawEvent]) -> Callable[[RawEvent], tuple[float, int, int]]:
    """Time order, except that a tab's opening comes before anything from inside it:
    Python hears of a new tab after its first page has already started loading."""
    opened: dict[int, float] = {}  # seq of a tab_open -> when it really happened
    for o in events:
        if o.kind == "tab_open":
            inside = [e.t for e in events if tab_key(e) == tab_key(o) and e.kind != "tab_open"
                      and o.t - OPEN_LAG_MS <= e.t <= o.t]
            opened[o.seq] = min([o.t, *inside])

    def key(e: RawEvent) -> tuple[float, int, int]:
        if e.kind == "tab_open":
            return (opened.get(e.seq, e.t), 0, e.seq)
        return (e.t, 1, e.seq)
    return key
