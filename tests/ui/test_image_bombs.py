"""A run folder may come from someone else: a screenshot whose header claims more pixels
than any viewport (a few bytes of PNG that decode to gigabytes) is never embedded in a
page nor thumbnailed; a real screenshot still is."""

from __future__ import annotations

from PIL import Image

from colorbrowser.browser.som import encode_png
from colorbrowser.ui.images import MAX_PIXELS, data_uri, image_pixels, thumbnail_jpeg
from tests.copilot.test_hostile_exports import png_claiming


def test_a_png_bomb_is_neither_embedded_nor_thumbnailed(tmp_path):
    for width, height in [(30_000, 30_000), (8_000, 8_000)]:
        bomb = tmp_path / f"bomb-{width}.png"
        bomb.write_bytes(png_claiming(width, height))
        assert bomb.stat().st_size < 200
        assert image_pixels(bomb.read_bytes()) > MAX_PIXELS  # read from the header alone
        assert data_uri(bomb) is None
        assert thumbnail_jpeg(bomb) is None
    shot = tmp_path / "shot.png"
    shot.write_bytes(encode_png(Image.new("RGB", (1280, 720), (20, 40, 60))))
    assert image_pixels(shot.read_bytes()) == 1280 * 720
    assert data_uri(shot).startswith("data:image/png;base64,")
    assert thumbnail_jpeg(shot) is not None
