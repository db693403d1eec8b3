"""Text that can always be written as UTF-8.

JSON and JavaScript strings may hold lone surrogates (``"\\ud800"``); Python keeps
them in a ``str``, and encoding such a str as UTF-8 raises. Whatever a model or a
page sends passes through here before it reaches a file or a terminal.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_safe(text: str) -> str:
    """``text`` with surrogate pairs joined and every lone surrogate replaced by U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def json_text(data: Any, *, indent: int | None = None) -> str:
    """JSON as our files hold it: readable UTF-8 (not \\u escapes), never a surrogate."""
    return utf8_safe(json.dumps(data, ensure_ascii=False, default=str, indent=indent))


def utf8_safe_tree(value: Any) -> Any:
    """Parsed data (dicts, lists, tuples, strings, numbers), every string made utf8_safe."""
    if isinstance(value, str):
        return utf8_safe(value)
    if isinstance(value, dict):
        return {utf8_safe_tree(k): utf8_safe_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(utf8_safe_tree(v) for v in value)
    return value
