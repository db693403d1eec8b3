"""Target names that carry a count: "like (2)", "Comments [14]".

A control's name that ends in a number in brackets shows how many of something there
are (likes, replies, items); that number is the learned run's and a sibling's page
shows its own ("like (0)"). When the number is no value of the goal, learning names
the target by the rest of its name ("like (") and counts among the elements that
share it (``nth``), as it does for any target named by part of its name.
"""

from __future__ import annotations

import re
from typing import Any

_COUNT = re.compile(r"^(?P<head>.*\S\s*[(\[])\s*\d[\d,.]*\s*[)\]]$")
MIN_HEAD = 3  # letters the rest of the name keeps, so it still says what the control is


def without_count(target: dict[str, Any]) -> dict[str, Any]:
    """The target by the part of its name before a trailing count in brackets; any
    other target as it is."""
    name = target.get("name")
    if not isinstance(name, str) or "{{" in name:
        return target
    found = _COUNT.match(" ".join(name.split()))
    if found is None or len(re.sub(r"[^A-Za-z]", "", found.group("head"))) < MIN_HEAD:
        return target
    return {"role": target["role"], "contains": found.group("head")}
