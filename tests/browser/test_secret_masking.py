"""A field whose value holds a known secret is covered in every screenshot of it.

The browser is told the secrets (API keys, passwords the agent typed) by whoever
knows them; a password typed into a plain text field must not be readable in the
step's screenshot, the Set-of-Marks image, or what the model is sent.
"""

from __future__ import annotations

import io

import pytest
from PIL import Image

from colorbrowser.types import BBox, Observation

from .browser_helpers import find

SECRET = "hunter2-Correct-Horse"


@pytest.fixture
def secrets(env):
    """The secrets the browser is told about; the env forgets them after the test."""
    known: set[str] = set()
    env.watch_secrets(lambda: known)
    yield known
    env.watch_secrets(lambda: ())


def colours_inside(png: bytes, box: BBox, viewport: tuple[int, int]) -> set[tuple[int, ...]]:
    """Every colour in the element's box, a few pixels in from its border (SoM outlines)."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    scale = image.width / viewport[0]
    inner = (round((box.x + 4) * scale), round((box.y + 4) * scale),
             round((box.x + box.width - 4) * scale), round((box.y + box.height - 4) * scale))
    return {colour for _, colour in image.crop(inner).getcolors(maxcolors=1 << 24)}


def fill_and_look(env, name: str, text: str) -> tuple[Observation, BBox]:
    bid = find(env.observe(), name, "textbox").bid
    assert env.step(f"fill('{bid}', {text!r})").ok
    obs = env.observe()
    box = find(obs, name, "textbox").bbox
    assert box is not None
    return obs, box


def viewport(env) -> tuple[int, int]:
    size = env.page.viewport_size
    return size["width"], size["height"]


def test_a_secret_in_a_plain_text_field_is_one_solid_block_in_the_screenshot(
        env, page_url, secrets):
    env.reset(page_url("secret.html"))
    unmasked, box = fill_and_look(env, "Note", f"pw {SECRET}")
    assert len(colours_inside(unmasked.screenshot, box, viewport(env))) > 2  # text is legible

    secrets.add(SECRET)
    masked = env.observe()
    assert len(colours_inside(masked.screenshot, box, viewport(env))) == 1
    assert len(colours_inside(masked.som, box, viewport(env))) == 1
    assert masked.screenshot != unmasked.screenshot


def test_only_the_fields_holding_a_secret_are_covered(env, page_url, secrets):
    secrets.add(SECRET)
    env.reset(page_url("secret.html"))
    fill_and_look(env, "Note", SECRET)
    obs, other = fill_and_look(env, "Other", "just a note")
    note = find(obs, "Note", "textbox").bbox
    assert len(colours_inside(obs.screenshot, note, viewport(env))) == 1
    assert len(colours_inside(obs.screenshot, other, viewport(env))) > 2


def test_a_secret_past_what_the_tree_shows_of_a_long_value_is_still_found(
        env, page_url, secrets):
    """The tree cuts long values short; the caret (and the text shown) is at their end."""
    secrets.add(SECRET)
    env.reset(page_url("secret.html"))
    obs, box = fill_and_look(env, "Letter", "x" * 300 + SECRET)
    assert SECRET not in find(obs, "Letter", "textbox").states["value"]
    assert len(colours_inside(obs.screenshot, box, viewport(env))) == 1
