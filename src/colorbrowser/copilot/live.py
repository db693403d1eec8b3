"""The loop thread's hands on the browser while it waits for a person.

Sync Playwright delivers page events (captured input, navigations) only while a
Playwright call runs, so every wait is a short ``wait_for_timeout`` slice. Between
slices the live view is refreshed for the panel, and input the panel forwards from
its view (a click, typed text, a key) is played into the page as real input.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from colorbrowser.copilot.channel import Command, Feed
from colorbrowser.types import BBox

SLICE_MS = 25  # one wait: how late a command or an event can be seen
SHOT_EVERY_S = 0.5
OVERLAY_ID = "__colorbrowser_overlay"

_SHOW = """([id, x, y, w, h]) => {
  let box = document.getElementById(id);
  if (!box) {
    box = document.createElement('div');
    box.id = id;
    box.setAttribute('aria-hidden', 'true');
    box.style.cssText = 'position:fixed;z-index:2147483647;pointer-events:none;' +
      'border:3px solid #e0218a;border-radius:4px;box-shadow:0 0 0 4px rgba(224,33,138,.25)';
    document.documentElement.appendChild(box);
  }
  Object.assign(box.style, {left: (x - 3) + 'px', top: (y - 3) + 'px',
                            width: (w + 6) + 'px', height: (h + 6) + 'px'});
}"""
_HIDE = "(id) => { const b = document.getElementById(id); if (b) b.remove(); }"


class Live:
    """Waits, screenshots and forwarded input, on the thread that owns the page."""

    def __init__(self, page: Callable[[], Page], feed: Feed) -> None:
        self._page = page
        self.feed = feed
        self._shot_at = 0.0
        self.shots = 0

    def wait(self, ms: float) -> None:
        """Let the page run (and its events arrive) for ``ms``."""
        try:
            self._page().wait_for_timeout(max(1, int(ms)))
        except PlaywrightError:
            time.sleep(ms / 1000)

    def screenshot(self, force: bool = False) -> None:
        """Push the page to the panel, at most every SHOT_EVERY_S unless forced."""
        now = time.monotonic()
        if not force and now - self._shot_at < SHOT_EVERY_S:
            return
        self._shot_at = now
        try:
            page = self._page()
            data = page.screenshot(type="jpeg", quality=60, timeout=2000)
            size = page.viewport_size or {"width": 0, "height": 0}
        except PlaywrightError:
            return
        self.shots += 1
        self.feed.publish("screen", {"jpeg": base64.b64encode(data).decode(),
                                     "width": size["width"], "height": size["height"]})

    def highlight(self, bbox: BBox | None) -> None:
        """A frame around the target in the real page; input passes through it."""
        if bbox is None:
            return
        with contextlib.suppress(PlaywrightError):
            self._page().evaluate(_SHOW, [OVERLAY_ID, bbox.x, bbox.y, bbox.width, bbox.height])

    def unhighlight(self) -> None:
        with contextlib.suppress(PlaywrightError):
            self._page().evaluate(_HIDE, OVERLAY_ID)

    def forward(self, command: Command) -> None:
        """Input on the panel's view, played into the page as a person's input."""
        try:
            page = self._page()
            if command.kind == "click":
                page.mouse.click(command.x, command.y)
            elif command.kind == "type":
                page.keyboard.type(command.text)
            elif command.kind == "press" and command.key:
                page.keyboard.press(command.key)
        except PlaywrightError as exc:
            self.feed.publish("notice", {"text": f"could not forward {command.kind}: "
                                                 f"{str(exc).splitlines()[0]}"})
        self.screenshot(force=True)
