"""Run one parsed action on the browser; every failure comes back as an ActionResult.

Element actions live here, browser actions in navigate.py, failure wording in
messages.py. Values typed into password fields never appear in a result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Locator, Page

from colorbrowser.actions import format_action, parse_action, spec_for
from colorbrowser.browser import navigate
from colorbrowser.browser.messages import ActionFailed, StaleElement, StepContext, explain
from colorbrowser.browser.session import BrowserSession, first_line
from colorbrowser.errors import ActionParseError
from colorbrowser.types import Action, ActionResult, ElementInfo, Observation

BID_RE = re.compile(r"^[A-Za-z0-9_]{1,32}$")

# Pause after an action so its handlers, requests and pop-ups get going. Driver-side,
# so it is safe even while a navigation holds the tab's DevTools session.
SETTLE_MS = 25

def _frame_chain_live(page: Page, bid: str) -> list[str] | None:
    """Find a bid the last observation did not list (it may have just appeared)."""
    selector = f'[bid="{bid}"]'
    for frame in page.frames:
        try:
            if not frame.locator(selector).count():
                continue
            chain: list[str] = []
            f = frame
            while f.parent_frame is not None:
                fb = f.frame_element().get_attribute("bid")
                if not fb:
                    return None
                chain.append(fb)
                f = f.parent_frame
            return chain[::-1]
        except PlaywrightError:
            continue
    return None


def _locate(ctx: StepContext, bid: str) -> tuple[Locator, ElementInfo | None]:
    if not BID_RE.match(bid):
        raise ActionFailed(f"{bid[:40]!r} is not an element id; "
                           "use an id like '12' from the observation")
    info = ctx.obs.elements.get(bid) if ctx.obs is not None else None
    chain = info.frame if info is not None else _frame_chain_live(ctx.page, bid)
    if chain is None:
        raise ActionFailed(f"element '{bid}' is not on the page; "
                           "use an id from the current observation")
    scope: Page | FrameLocator = ctx.page
    for fb in chain:
        scope = scope.frame_locator(f'[bid="{fb}"]')
    loc = scope.locator(f'[bid="{bid}"]').first
    try:
        present = loc.count() > 0
    except PlaywrightError:
        present = False
    if not present:
        raise StaleElement(f"element '{bid}' is no longer on the page (it was removed or the page "
                    "changed); use an id from the current observation")
    return loc, info


# -- element actions ---------------------------------------------------------------


def _click(ctx: StepContext, bid: str, button: str = "left") -> ActionResult:
    if button not in ("left", "right", "middle"):
        raise ActionFailed("click(): button must be 'left', 'right' or 'middle'")
    loc, info = _locate(ctx, bid)
    tag = info.tag if info is not None else loc.evaluate("e => e.localName")
    if tag == "option":  # options of a closed <select> have no box: select them instead
        chosen = loc.evaluate("""o => { const s = o.closest('select'); if (!s) return null;
            o.selected = true; s.dispatchEvent(new Event('input', {bubbles: true}));
            s.dispatchEvent(new Event('change', {bubbles: true})); return o.label; }""")
        if chosen is not None:
            return ActionResult(output=f"selected option {chosen!r}")
    loc.click(button=button, no_wait_after=True)  # type: ignore[arg-type]
    return ActionResult()


def _dblclick(ctx: StepContext, bid: str) -> ActionResult:
    _locate(ctx, bid)[0].dblclick(no_wait_after=True)
    return ActionResult()


def _hover(ctx: StepContext, bid: str) -> ActionResult:
    _locate(ctx, bid)[0].hover(no_wait_after=True)
    return ActionResult()


def _fill(ctx: StepContext, bid: str, value: str) -> ActionResult:
    loc, info = _locate(ctx, bid)
    if info is not None and info.tag == "select":
        raise ActionFailed(f"fill: element '{bid}' is a select box; use select_option('{bid}', "
                           "'<option label>') instead")
    if info is not None:
        ctx.secret = bool(info.states.get("password"))
    else:
        ctx.secret = bool(loc.evaluate("e => e.type === 'password'"))
    loc.fill(value, no_wait_after=True)
    return ActionResult(info={"secret": True} if ctx.secret else {})


def _press(ctx: StepContext, bid: str, key: str) -> ActionResult:
    if not key.strip():
        raise ActionFailed("press(): key is empty; use names like 'Enter' or 'Control+a'")
    _locate(ctx, bid)[0].press(key, no_wait_after=True)
    return ActionResult()


_OPTIONS_JS = """e => e.localName === 'select'
    ? Array.from(e.options).map(o => [o.value, o.label, o.disabled]) : null"""


def _select_option(ctx: StepContext, bid: str, options: str | list[str]) -> ActionResult:
    loc, _ = _locate(ctx, bid)
    wanted = [options] if isinstance(options, str) else list(options)
    available = loc.evaluate(_OPTIONS_JS)
    if available is None:
        raise ActionFailed(f"select_option: element '{bid}' is not a <select>; "
                    "click it and then click the option instead")
    values = []
    for want in wanted:
        exact = [v for v, label, _ in available if want in (v, label)]
        loose = [v for v, label, _ in available
                 if want.strip().lower() in (v.strip().lower(), label.strip().lower())]
        match = exact or loose
        if not match:
            shown = ", ".join(repr(label) for _, label, _ in available[:20])
            raise ActionFailed(f"select_option: no option {want!r} in element '{bid}'; "
                        f"options are: {shown}")
        values.append(match[0])
    loc.select_option(value=values, no_wait_after=True)
    return ActionResult()


_ARIA_CHECKED_JS = """e => (e.localName === 'input'
    && (e.type === 'checkbox' || e.type === 'radio'))
    ? e.checked : e.getAttribute('aria-checked') === 'true'"""


def _set_checked(ctx: StepContext, bid: str, state: bool) -> ActionResult:
    loc, _ = _locate(ctx, bid)
    try:
        loc.set_checked(state, no_wait_after=True)
        return ActionResult()
    except PlaywrightError as exc:
        if "not a checkbox or radio" not in str(exc).lower():
            raise
    # Not a checkbox by markup (e.g. a custom toggle): click and verify.
    if loc.evaluate(_ARIA_CHECKED_JS) != state:
        loc.click(no_wait_after=True)
        ctx.page.wait_for_timeout(SETTLE_MS)
        if loc.evaluate(_ARIA_CHECKED_JS) != state:
            name = "check" if state else "uncheck"
            raise ActionFailed(
                f"{name}: clicking element '{bid}' did not change whether it is checked")
    return ActionResult()


def _check(ctx: StepContext, bid: str) -> ActionResult:
    return _set_checked(ctx, bid, True)


def _uncheck(ctx: StepContext, bid: str) -> ActionResult:
    return _set_checked(ctx, bid, False)


def _scroll(ctx: StepContext, delta_x: float, delta_y: float) -> ActionResult:
    vp = ctx.page.viewport_size or {"width": 1280, "height": 720}
    ctx.page.mouse.move(vp["width"] / 2, vp["height"] / 2)
    ctx.page.mouse.wheel(delta_x, delta_y)
    return ActionResult()


_HANDLERS: dict[str, Callable[..., ActionResult]] = {
    "click": _click, "dblclick": _dblclick, "hover": _hover, "fill": _fill, "press": _press,
    "select_option": _select_option, "check": _check, "uncheck": _uncheck, "scroll": _scroll,
    "goto": navigate.goto, "go_back": navigate.go_back, "go_forward": navigate.go_forward,
    "new_tab": navigate.new_tab, "tab_focus": navigate.tab_focus,
    "tab_close": navigate.tab_close,
}


# Actions that wait for their own page (or change no page): nothing of theirs is left
# to get going, so no pause follows them.
_AWAITED = {"goto", "go_back", "go_forward", "new_tab", "tab_focus", "tab_close"}


def _settle(ctx: StepContext, page: Page, mark: int, name: str = "") -> str | None:
    """Give the action's effects a moment (not after ``_AWAITED`` actions), then let a
    started navigation load.

    Uses driver-side waits only (see BrowserSession.finish_navigation). Returns a
    note when a navigation had to be stopped.
    """
    session = ctx.session
    if page.is_closed():
        return None
    note = None
    try:
        if name not in _AWAITED:
            page.wait_for_timeout(SETTLE_MS)
        session.wait_for_new_tabs(ctx.nav_timeout_ms)
        note = session.finish_navigation(page, ctx.nav_timeout_ms)
        if note is None and session.navigation_mark(page) != mark:
            page.wait_for_load_state("domcontentloaded")
        active = session.page
        if active is not page:
            note = session.finish_navigation(active, ctx.nav_timeout_ms) or note
            active.wait_for_load_state("domcontentloaded")
    except PlaywrightError:
        pass  # still loading, or gone: the next observation shows whatever is there
    return note


def _checked_args(action: Action) -> tuple[str, list[Any]]:
    """Re-validate through the canonical parser: an Action may be built by hand."""
    spec = spec_for(action.name)
    if spec is None:
        raise ActionParseError(f"unknown action {action.name!r}")
    if len(action.args) > len(spec.params):
        raise ActionParseError(f"{spec.name}() takes {len(spec.params)} argument(s), "
                               f"got {len(action.args)}")
    try:
        text = format_action(spec.name, list(action.args))
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ActionParseError(f"{spec.name}(): malformed arguments ({exc})") from None
    parsed = parse_action(text)
    return parsed.name, parsed.args


def _describe(name: str, args: list[Any]) -> str:
    """How the action is named in an error: never with the typed text."""
    if name == "fill":
        return f"fill('{args[0]}', …)"
    return format_action(name, args)


def execute(session: BrowserSession, action: Action, last_obs: Observation | None) -> ActionResult:
    """Run one action on the active tab; never raises, whatever the action or the browser did."""
    try:
        return _execute(session, action, last_obs)
    except Exception as exc:  # e.g. the browser died mid-step
        detail = first_line(exc) if isinstance(exc, PlaywrightError) else str(exc)
        return ActionResult.failure(f"{action.name} failed: {type(exc).__name__}: {detail}",
                                    action=action.name)


def _execute(session: BrowserSession, action: Action, last_obs: Observation | None) -> ActionResult:
    spec = spec_for(action.name)
    if spec is not None and spec.scope == "agent":
        return ActionResult.failure(
            f"{spec.name}() is handled by the agent loop, not by the browser", action=spec.name)
    try:
        name, args = _checked_args(action)
    except ActionParseError as exc:
        return ActionResult.failure(str(exc), action=action.name)
    settings = session.settings
    ctx = StepContext(session=session, page=session.page, obs=last_obs,
                      timeout_ms=settings.action_timeout_ms,
                      nav_timeout_ms=settings.navigation_timeout_ms)
    page, mark = ctx.page, session.navigation_mark(ctx.page)
    pending = session.finish_navigation(page)  # an earlier navigation still loading
    what = _describe(name, args)
    bid = args[0] if spec is not None and spec.params and spec.params[0].kind == "bid" else None
    try:
        result = _HANDLERS[name](ctx, *args)
    except ActionFailed as exc:
        result = ActionResult.failure(str(exc), action=name)
        if isinstance(exc, StaleElement):
            result.info["stale"] = True
    except PlaywrightError as exc:
        if page.is_closed() or "crash" in str(exc).lower():
            session.mark_broken(page)
        result = ActionResult.failure(explain(what, bid, exc, ctx), action=name)
    except Exception as exc:
        result = ActionResult.failure(f"{what} failed: {type(exc).__name__}: {exc}", action=name)
    if ctx.secret:
        result.info["secret"] = True
        if result.error and len(args) > 1 and args[1]:
            result.error = result.error.replace(args[1], "***")
    note = _settle(ctx, page, mark, name)
    if result.ok and note:
        result = ActionResult.failure(f"{what} was done, but {note}", action=name)
    if pending and not result.ok:
        result.error = f"{pending}; {result.error}"
    return result
