"""Set-of-Marks drawing and the fast PNG encoder, on synthetic images."""

from __future__ import annotations

import io

from PIL import Image

from colorbrowser.browser.som import PALETTE, draw_som, encode_png
from colorbrowser.types import BBox, ElementInfo


def _png(size=(200, 100), color=(255, 255, 255)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def _open(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_encoder_is_lossless():
    image = Image.effect_noise((64, 48), 80).convert("RGB")
    assert _open(encode_png(image)).tobytes() == image.tobytes()


def test_boxes_are_drawn_at_element_positions_with_their_bid_colour():
    el = ElementInfo(bid="12", role="button", bbox=BBox(50, 40, 60, 30), interactive=True)
    out = _open(draw_som(_png(), [el], viewport=(200, 100)))
    colour = PALETTE[sum(map(ord, "12")) % len(PALETTE)]
    assert out.getpixel((50, 55)) == colour  # left edge
    assert out.getpixel((109, 55)) == colour  # right edge
    assert out.getpixel((80, 55)) == (255, 255, 255)  # inside stays clear
    assert out.getpixel((52, 30)) == colour or out.getpixel((52, 35)) == colour  # the label
    assert out.getpixel((150, 90)) == (255, 255, 255)


def test_scale_follows_the_screenshot_size():
    el = ElementInfo(bid="3", role="link", bbox=BBox(10, 10, 20, 10), interactive=True)
    out = _open(draw_som(_png((400, 200)), [el], viewport=(200, 100)))  # device scale 2
    colour = PALETTE[sum(map(ord, "3")) % len(PALETTE)]
    assert out.getpixel((20, 30)) == colour and out.getpixel((21, 30)) == colour


def test_boxes_outside_the_image_are_skipped_or_clipped():
    gone = ElementInfo(bid="1", role="button", bbox=BBox(500, 500, 10, 10))
    partial = ElementInfo(bid="2", role="button", bbox=BBox(-20, 20, 60, 20))
    none = ElementInfo(bid="4", role="option", bbox=None)
    out = _open(draw_som(_png(), [gone, partial, none], viewport=(200, 100)))
    colour = PALETTE[sum(map(ord, "2")) % len(PALETTE)]
    assert out.getpixel((0, 30)) == colour  # clipped left edge
    assert out.size == (200, 100)
