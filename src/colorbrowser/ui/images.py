"""Screenshots as ``data:`` URIs, so a page written from them needs no other file.

Only files inside the folder they belong to, and only real PNG/JPEG bytes, are
embedded: a path in ``steps.jsonl`` is data, and data must not pull arbitrary
files of this machine into a page someone may share.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

_KINDS = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}
MAX_EMBED_BYTES = 20_000_000  # a bigger "screenshot" is not one; show the placeholder
# A screenshot is one viewport: far fewer pixels. A few kilobytes of PNG can claim
# 30,000 x 30,000 (2.7 GB once decoded), so the size is read from the header first.
MAX_PIXELS = 40_000_000


def inside(root: Path, relative: str | None) -> Path | None:
    """``root/relative``, resolved, when it lies under ``root``; else None. Paths in
    trajectories and study records are data: they must not lead out of their folder."""
    if not relative or not isinstance(relative, str):
        return None
    root = root.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) else None


def image_kind(data: bytes) -> str | None:
    for magic, kind in _KINDS.items():
        if data.startswith(magic):
            return kind
    return None


def image_pixels(data: bytes) -> int | None:
    """Width times height from a PNG's or JPEG's header, nothing decoded; None when
    the header cannot be read (or without Pillow)."""
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:
        return None
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except Image.DecompressionBombError:  # past Pillow's own bound: at least that many
        return 2 * (Image.MAX_IMAGE_PIXELS or MAX_PIXELS) + 1
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    return width * height


def data_uri(path: Path | None) -> str | None:
    """The file as a data URI; None when it is missing, too big or not an image."""
    if path is None or not path.is_file():
        return None
    try:
        if path.stat().st_size > MAX_EMBED_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    kind = image_kind(data)
    if kind is None or (image_pixels(data) or 0) > MAX_PIXELS:
        return None
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def thumbnail_jpeg(path: Path | None, width: int = 160, height: int | None = None
                   ) -> bytes | None:
    """A small JPEG of the image, at most ``width`` wide; with ``height``, only its top
    left part in that shape, as wide as the page's content (a page drawn in its left
    third is not shrunk to an empty strip). None without Pillow."""
    if path is None:
        return None
    try:
        from PIL import Image, ImageChops, UnidentifiedImageError
    except ImportError:
        return None
    try:
        with Image.open(path) as image:
            if image.format not in ("PNG", "JPEG") or \
                    image.width * image.height > MAX_PIXELS:
                return None
            if height is not None:
                image = image.convert("RGB")
                blank = Image.new("RGB", image.size, image.getpixel((image.width - 1, 0)))
                box = ImageChops.difference(image, blank).getbbox()
                wide = max(image.width // 3, box[2] if box else image.width)
                image = image.crop((0, 0, wide, min(image.height, wide * height // width)))
            image.thumbnail((width, width * 4))
            out = io.BytesIO()
            image.convert("RGB").save(out, format="JPEG", quality=70)
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    return out.getvalue()


def jpeg_uri(data: bytes) -> str:
    return f"data:image/jpeg;base64,{base64.b64encode(data).decode('ascii')}"


def thumbnail_uri(path: Path | None, width: int = 160) -> str | None:
    """A small JPEG of the image, for tables of many episodes; None without Pillow."""
    data = thumbnail_jpeg(path, width)
    return jpeg_uri(data) if data is not None else None
