"""Turn the active tab into an Observation: bid tree text, element table, screenshots.

One injected walker (observe.js) reads each document in a single ``evaluate``;
only cross-origin frames need a call of their own. This is several times faster
than the CDP accessibility tree and gives ids that live in the DOM, so the same
element keeps its id while it lives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Frame, Page

from colorbrowser.browser.changes import describe_changes, marked_new
from colorbrowser.browser.masking import cover, secret_boxes
from colorbrowser.browser.navguard import leave_unread
from colorbrowser.browser.reads import evaluate_settled
from colorbrowser.browser.session import BrowserSession, first_line
from colorbrowser.browser.som import draw_som
from colorbrowser.browser.tree import format_axtree, has_long_option_list
from colorbrowser.types import BBox, ElementInfo, Observation
from colorbrowser.utf8 import utf8_safe_tree

MAX_FRAME_DEPTH = 4
PENDING_FRAME_MS = 2000
PARSE_WAIT_MS = 3000
_MARK = re.compile(r"^( *)\*\[", re.M)
_DOC_ATTR = "_colorbrowser_doc"


@cache
def walker_source() -> str:
    """observe.js with aria.js spliced in: one expression, one evaluate per document."""
    here = resources.files("colorbrowser.browser")
    aria = here.joinpath("aria.js").read_text("utf-8")
    return here.joinpath("observe.js").read_text("utf-8").replace("__ARIA__", aria.strip())


@dataclass
class PageScan:
    """Everything one walk of a tab returned, with cross-origin frames merged in."""

    url: str
    title: str
    doc: str
    focused: str | None
    rows: list[list[Any]] = field(default_factory=list)
    frames: list[tuple[int, str]] = field(default_factory=lambda: [(-1, "")])

    def frame_chain(self, index: int) -> list[str]:
        chain: list[str] = []
        while index > 0:
            parent, bid = self.frames[index]
            chain.append(bid)
            index = parent
        return chain[::-1]


def _walk(target: Page | Frame, options: dict[str, Any]) -> dict[str, Any]:
    """One walker call; made again while a navigation swaps the document under it."""
    return utf8_safe_tree(json.loads(evaluate_settled(target, walker_source(), options)))


def _child_frames_by_bid(frame: Frame) -> dict[str, Frame]:
    found: dict[str, Frame] = {}
    stack = list(frame.child_frames)
    while stack:
        child = stack.pop()
        try:
            bid = child.frame_element().get_attribute("bid")
        except PlaywrightError:
            continue
        if bid:
            found[bid] = child
        stack.extend(child.child_frames)
    return found


def scan_page(page: Page, *, offscreen: bool = True, max_name: int = 150) -> PageScan:
    """Walk the main document, then each cross-origin frame, into one PageScan."""
    vp = page.viewport_size or {"width": 1280, "height": 720}
    base = {"offscreen": offscreen, "maxName": max_name, "vw": vp["width"], "vh": vp["height"]}
    raw = _walk(page, base)
    if raw.get("parsing"):
        # Half a document is a page that never exists for a person: its scripts have
        # not run. Wait for the parser (bounded: a stalled stream is read as it is).
        with contextlib.suppress(PlaywrightError):
            page.wait_for_function("document.readyState !== 'loading'",
                                   timeout=PARSE_WAIT_MS, polling=50)
        raw = _walk(page, base)
    if raw.get("pending"):
        # A same-origin frame between two documents would otherwise be read from
        # outside, with bids that change once it is readable from its parent.
        deadline = time.monotonic() + PENDING_FRAME_MS / 1000
        for frame in page.frames[1:]:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            with contextlib.suppress(PlaywrightError):
                frame.wait_for_load_state("domcontentloaded", timeout=left * 1000)
        raw = _walk(page, base)
    scan = PageScan(url=raw["url"], title=raw["title"], doc=raw["doc"], focused=raw["focused"])
    _merge(scan, raw, parent_row=-1, parent_frame=-1, frame_bid="")
    todo = [(page.main_frame, raw, 0, 0, 1)]  # (frame, result, row offset, frame offset, depth)
    while todo:
        frame, result, row_off, frame_off, depth = todo.pop()
        if not result["xframes"] or depth > MAX_FRAME_DEPTH:
            continue
        children = _child_frames_by_bid(frame)
        for x in result["xframes"]:
            child = children.get(x["bid"])
            if child is None:
                continue
            options = dict(base, prefix=f"{x['bid']}_", ox=x["ox"], oy=x["oy"])
            try:
                sub = _walk(child, options)
            except PlaywrightError:
                continue  # a frame that went away mid-scan is just not shown
            row_start, frame_start = len(scan.rows), len(scan.frames)
            _merge(scan, sub, parent_row=x["row"] + row_off, parent_frame=x["frame"] + frame_off,
                   frame_bid=x["bid"])
            if scan.focused == x["bid"] and sub["focused"]:
                scan.focused = sub["focused"]
            todo.append((child, sub, row_start, frame_start, depth + 1))
    return scan


def _merge(scan: PageScan, raw: dict[str, Any], *, parent_row: int, parent_frame: int,
           frame_bid: str) -> None:
    """Append one walker result, re-basing its row and frame indices."""
    row_off, frame_off = len(scan.rows), len(scan.frames)
    if parent_frame < 0:  # the main document: its frame 0 is the scan's frame 0
        frame_off = 0
        for parent, bid in raw["frames"][1:]:
            scan.frames.append((parent, bid))
    else:
        for i, (parent, bid) in enumerate(raw["frames"]):
            scan.frames.append((parent_frame, frame_bid) if i == 0 else (parent + frame_off, bid))
    for row in raw["nodes"]:
        row[3] = parent_row if row[3] < 0 else row[3] + row_off
        row[10] = row[10] + frame_off
        scan.rows.append(row)


def _clean_rows(rows: list[list[Any]]) -> list[list[Any]]:
    """Trim text runs, drop empty ones, and put rows in tree order.

    Rows of cross-origin frames arrive after the main document; the depth-first
    pass moves them under their iframe.
    """
    kids: dict[int, list[int]] = {}
    roots: list[int] = []
    for i, row in enumerate(rows):
        if row[0] == "":
            row[2] = " ".join(row[2].split())
            if not row[2]:
                continue
        (roots if row[3] < 0 else kids.setdefault(row[3], [])).append(i)
    order: list[int] = []
    stack = roots[::-1]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(reversed(kids.get(i, ())))
    new_index = {old: new for new, old in enumerate(order)}
    out = []
    for old in order:
        row = rows[old]
        row[3] = new_index.get(row[3], -1) if row[3] >= 0 else -1
        out.append(row)
    return out


def _elements(scan: PageScan, rows: list[list[Any]], previous: Observation | None,
              same_doc: bool) -> dict[str, ElementInfo]:
    """ElementInfo per bid. ``visible``: has a box, is not transparent, and (for controls
    on screen) is not covered by another element at its middle."""
    old = previous.elements if previous is not None and same_doc else None
    out: dict[str, ElementInfo] = {}
    for row in rows:
        bid = row[0]
        if not bid:
            continue
        flags = row[4]
        bbox = BBox(row[6], row[7], row[8], row[9]) if row[8] or row[9] else None
        out[bid] = ElementInfo(
            bid=bid, role=row[1], name=row[2], tag=row[11], bbox=bbox,
            visible=bool(flags & 2) and not flags & 4, interactive=bool(flags & 1),
            states=dict(row[5] or {}), frame=scan.frame_chain(row[10]),
            is_new=old is not None and bid not in old,
        )
    return out


def _top_new(rows: list[list[Any]], elements: dict[str, ElementInfo]) -> list[str]:
    """New bids whose parent element is not new: a new dialog rather than its buttons."""
    out = []
    for row in rows:
        bid = row[0]
        if bid and elements[bid].is_new:
            parent = rows[row[3]][0] if row[3] >= 0 else ""
            if not (parent and elements[parent].is_new):
                out.append(bid)
    return out


def in_viewport(el: ElementInfo, vp: tuple[int, int]) -> bool:
    b = el.bbox
    return b is not None and b.x < vp[0] and b.y < vp[1] and b.x + b.width > 0 \
        and b.y + b.height > 0


def som_marks(elements: dict[str, ElementInfo], vp: tuple[int, int]) -> list[ElementInfo]:
    """Elements that get a numbered box: interactive, visible, in the viewport."""
    return [e for e in elements.values() if e.interactive and e.visible and in_viewport(e, vp)]


def observe(session: BrowserSession, previous: Observation | None = None, *,
            interactive_only: bool = False, screenshots: bool = True,
            offscreen: bool = True, secrets: Collection[str] = (),
            every_option: bool = False) -> Observation:
    """Observe the active tab. A tab that crashed or vanished is replaced and reported.

    Fields whose value holds one of ``secrets`` are covered in the screenshots. With
    ``every_option``, a tree listing every option of a long select is kept beside the
    usual one (``every_option_tree``), for a reader with room for it (the MCP server)."""
    errors: list[str] = []
    scan: PageScan | None = None
    page = session.page
    for _ in range(3):
        if note := session.finish_navigation(page):
            errors.append(note)
        try:
            scan = scan_page(page, offscreen=offscreen)
        except PlaywrightError as exc:
            low = str(exc).lower()
            if page.is_closed() or session.is_crashed(page) or "crash" in low or "closed" in low:
                session.mark_broken(page)
                scan = None
                page = session.page
                continue
            errors.append(f"could not read the page: {first_line(exc)}")
            break
        if refused := leave_unread(session, page, scan.url):
            session.notice(refused)  # read a page the agent may not see: read again
            scan = None
            page = session.page
            continue
        if session.page is page:
            break
        page = session.page  # a pop-up took over while we were reading: read it instead
    page = session.page
    if notices := session.pop_notices():
        errors.insert(0, notices)
    vp_size = page.viewport_size or {"width": 1280, "height": 720}
    vp = (vp_size["width"], vp_size["height"])
    if scan is None:
        scan = PageScan(url=page.url, title="", doc="", focused=None)
    rows = _clean_rows(scan.rows)
    same_doc = previous is not None and getattr(previous, _DOC_ATTR, None) == scan.doc
    elements = _elements(scan, rows, previous, same_doc)
    marks = marked_new(elements)
    axtree = format_axtree(rows, interactive_only=interactive_only, new=marks)
    every = format_axtree(rows, interactive_only=interactive_only, new=marks, max_options=None) \
        if every_option and has_long_option_list(rows) else None
    # The hash ignores the new-element marks: they say when, not what, the page shows.
    plain = _MARK.sub(r"\1[", axtree) if marks else axtree
    obs = Observation(
        url=scan.url, title=scan.title, axtree=axtree,
        tabs=session.tabs(page, scan.title if scan.doc else None),
        focused=scan.focused, last_error="; ".join(errors) or None,
        notice="; ".join(errors) or None,
        dialog=session.pop_dialogs(), elements=elements,
        dom_hash=hashlib.blake2b(f"{scan.url}\n{plain}".encode(), digest_size=8).hexdigest(),
        every_option_tree=every,
    )
    setattr(obs, _DOC_ATTR, scan.doc)
    if screenshots:
        try:
            obs.screenshot = session.screenshot(page)
            if boxes := secret_boxes(page, elements.values(), secrets):
                obs.screenshot = cover(obs.screenshot, boxes, vp)
            obs.som = draw_som(obs.screenshot, som_marks(elements, vp), viewport=vp)
        except PlaywrightError as exc:
            obs.last_error = obs.notice = "; ".join(
                [*errors, f"screenshot failed: {first_line(exc)}"])
    obs.changes = describe_changes(previous, obs, same_doc, _top_new(rows, elements))
    return obs


def observation_text(obs: Observation) -> str:
    """Header (URL, title, tabs, focus, errors) and the tree, as the CLI prints it."""
    lines = [f"URL: {obs.url}", f"Title: {obs.title}"]
    if obs.tabs:
        lines.append("Tabs: " + " | ".join(
            f"{'*' if t.active else ''}[{t.index}] {t.title or t.url}" for t in obs.tabs))
    if obs.focused:
        lines.append(f"Focused: [{obs.focused}]")
    if obs.dialog:
        lines.append(f"Dialog: {obs.dialog}")
    if obs.last_error:
        lines.append(f"Last error: {obs.last_error}")
    if obs.changes:
        lines.append(f"Changes: {obs.changes}")
    lines.append("")
    lines.append(obs.axtree)
    return "\n".join(lines)
