"""Browser-scope actions: open a URL, move in history, open, switch and close tabs."""

from __future__ import annotations

from playwright.sync_api import Error as PlaywrightError

from colorbrowser.browser.messages import ActionFailed, StepContext, nav_error, normalize_url
from colorbrowser.types import ActionResult


def checked_target(ctx: StepContext, url: str, action: str) -> str:
    """The URL the model asked for, refused here when it leaves the web or the allowed
    hosts (see browser/policy.py): the refusal is an action error the model reads."""
    target = normalize_url(url)
    reason = ctx.session.policy.refuse_target(target)
    if reason:
        raise ActionFailed(f"{action} refused: {reason}")
    return target


def goto(ctx: StepContext, url: str) -> ActionResult:
    """Open ``url``. The address the tab already shows is reloaded, so the page keeps
    its scroll position as after a reload (a person's reload becomes a goto of that
    address in copilot mode), unless it is a form post's answer: that would post again."""
    target = checked_target(ctx, url, "goto")
    page = ctx.page
    try:
        if target == page.url and not ctx.session.shows_post_result(page):
            response = page.reload(wait_until="domcontentloaded")
        else:
            response = page.goto(target, wait_until="domcontentloaded")
    except PlaywrightError as exc:
        raise ActionFailed(nav_error(target, exc, ctx)) from None
    if response is not None and response.status >= 400:
        return ActionResult(output=f"HTTP {response.status}", info={"status": response.status})
    return ActionResult()


def history(ctx: StepContext, forward: bool) -> ActionResult:
    before = ctx.page.url
    move = ctx.page.go_forward if forward else ctx.page.go_back
    try:
        move(wait_until="domcontentloaded")
    except PlaywrightError as exc:
        raise ActionFailed(nav_error("the page", exc, ctx)) from None
    if ctx.page.url == before:
        which = "next" if forward else "previous"
        raise ActionFailed(f"there is no {which} page in this tab's history")
    return ActionResult()


def go_back(ctx: StepContext) -> ActionResult:
    return history(ctx, forward=False)


def go_forward(ctx: StepContext) -> ActionResult:
    return history(ctx, forward=True)


def new_tab(ctx: StepContext, url: str | None = None) -> ActionResult:
    target = checked_target(ctx, url, "new_tab") if url else None
    page = ctx.session.new_tab()
    ctx.page = page
    if target:
        try:
            page.goto(target, wait_until="domcontentloaded")
        except PlaywrightError as exc:
            raise ActionFailed(nav_error(target, exc, ctx)) from None
    return ActionResult(output=f"opened tab {ctx.session.index_of(page)}")


def tab_focus(ctx: StepContext, index: int) -> ActionResult:
    try:
        ctx.page = ctx.session.focus_tab(index)
    except IndexError as exc:
        raise ActionFailed(f"tab_focus: {exc}") from None
    return ActionResult()


def tab_close(ctx: StepContext, index: int | None = None) -> ActionResult:
    try:
        ctx.page = ctx.session.close_tab(index)
    except IndexError as exc:
        raise ActionFailed(f"tab_close: {exc}") from None
    return ActionResult(output=f"now on tab {ctx.session.index_of(ctx.page)}")
