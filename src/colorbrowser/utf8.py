"""Text that can always be written as UTF-8.

JSON and JavaScript strings may hold lone surrogates (``"\\ud800"``); Python keeps
them in a ``str``, and encoding such a str as UTF-8 raises. Whatever a model or a
page sends passes through here before it reaches a file or a terminal.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """``text`` with surrogate pairs joined and every lone surrogate replaced by U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
