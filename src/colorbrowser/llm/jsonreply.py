"""Reading one JSON object out of a model reply (roles that answer in JSON)."""

from __future__ import annotations

import json
from typing import Any

from colorbrowser.utf8 import utf8_safe_tree


def json_object(text: str, what: str) -> dict[str, Any]:
    """The outermost ``{...}`` of a reply, tolerating prose or code fences around it.

    ``what`` names the reply in the ValueError ("the summary", "the critic's reply"),
    so the caller can record a reason a person can read.
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError(f"{what} is not a JSON object")
    try:
        data = utf8_safe_tree(json.loads(text[start : end + 1], strict=False))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} is not a JSON object")
    return data
