"""Code both sides of the observation benchmark run: page setup and element fingerprints.

Imported by observation.py (our venv) and by browsergym_driver.py (the reference
venv), so it may only use the standard library and Playwright.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FINGERPRINT_JS = (Path(__file__).parent / "fingerprint.js").read_text(encoding="utf-8")


def run_setup(page: Any, steps: list[list[Any]], timeout_ms: int = 10_000) -> None:
    """Open a benchmark page: ``goto`` a URL, ``wait`` for a JS condition, ``eval`` JS."""
    for op, *args in steps:
        if op == "goto":
            page.goto(args[0], wait_until="load", timeout=timeout_ms)
        elif op == "wait":
            page.wait_for_function(args[0], timeout=timeout_ms)
        elif op == "eval":
            page.evaluate(args[0], args[1] if len(args) > 1 else None)
        else:
            raise ValueError(f"unknown setup step {op!r}")


def _frame_prefix(frame: Any, cache: dict[Any, str]) -> str:
    """Path of the iframe element chain above ``frame``, e.g. ``html[0]/body[1]/iframe[2] > ``."""
    if frame.parent_frame is None:
        return ""
    if frame not in cache:
        own = frame.frame_element().evaluate(FINGERPRINT_JS)
        cache[frame] = _frame_prefix(frame.parent_frame, cache) + own + " > "
    return cache[frame]


def bid_paths(page: Any) -> dict[str, str]:
    """{bid: DOM path} over every frame of the page; frames that vanish are skipped."""
    out: dict[str, str] = {}
    cache: dict[Any, str] = {}
    for frame in page.frames:
        try:
            prefix = _frame_prefix(frame, cache)
            found = frame.evaluate(FINGERPRINT_JS)
        except Exception:  # a detached or navigating frame has nothing to match
            continue
        for bid, path in found.items():
            out.setdefault(bid, prefix + path)
    return out
