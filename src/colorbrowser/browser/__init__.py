"""Browser environment: launch, observe (axtree with bids, Set-of-Marks), act.

Names are loaded on first use so that importing the package (e.g. for the CLI's
help) does not import Playwright.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BrowserEnv": "colorbrowser.browser.env",
    "BrowserSession": "colorbrowser.browser.session",
    "observe": "colorbrowser.browser.observe",
    "observation_text": "colorbrowser.browser.observe",
    "format_axtree": "colorbrowser.browser.observe",
    "execute": "colorbrowser.browser.execute",
    "draw_som": "colorbrowser.browser.som",
    "find_chromium": "colorbrowser.browser.launch",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'colorbrowser.browser' has no attribute {name!r}")
