"""Fields that hold a known secret are covered in screenshots.

A password typed into a field that is not a password field (or an API key a page
tricked the agent into typing) would otherwise be readable in the step's
screenshot, its Set-of-Marks image and what the model is sent. Whoever knows the
secrets (the episode's Redactor) hands them to the browser as strings. They are
compared here, in Python: a page is never given them, since its scripts could read
anything passed into it.
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterable

from PIL import Image, ImageDraw
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Page

from colorbrowser.browser.som import encode_png
from colorbrowser.types import BBox, ElementInfo

MASK_COLOUR = (0, 0, 0)
_CUT = "…"  # how the tree ends a value too long to show whole
_READ_MS = 1000


def _plain(text: str) -> str:
    """Whitespace as the tree writes values: every run one space."""
    return " ".join(text.split())


def holds_secret(value: str, secrets: Collection[str]) -> bool:
    flat = _plain(value)
    return any(s and _plain(s) in flat for s in secrets)


def full_value(page: Page, element: ElementInfo) -> str | None:
    """The whole value of a field the tree showed cut short; None if it cannot be read."""
    scope: Page | FrameLocator = page
    for frame_bid in element.frame:
        scope = scope.frame_locator(f"[bid='{frame_bid}']")
    try:
        return scope.locator(f"[bid='{element.bid}']").first.input_value(timeout=_READ_MS)
    except PlaywrightError:
        return None


def secret_boxes(page: Page, elements: Iterable[ElementInfo],
                 secrets: Collection[str]) -> list[BBox]:
    """Boxes of the elements whose current value contains a known secret."""
    if not secrets:
        return []
    boxes = []
    for el in elements:
        value = el.states.get("value")
        if el.bbox is None or not isinstance(value, str) or not value:
            continue
        if holds_secret(value, secrets) or (
                value.endswith(_CUT) and holds_secret(full_value(page, el) or "", secrets)):
            boxes.append(el.bbox)
    return boxes


def cover(png: bytes, boxes: Iterable[BBox], viewport: tuple[int, int]) -> bytes:
    """The screenshot with each box filled in one colour (boxes are in CSS pixels)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    scale = image.width / viewport[0]
    draw = ImageDraw.Draw(image)
    for b in boxes:
        draw.rectangle((b.x * scale, b.y * scale, (b.x + b.width) * scale - 1,
                        (b.y + b.height) * scale - 1), fill=MASK_COLOUR)
    return encode_png(image)
