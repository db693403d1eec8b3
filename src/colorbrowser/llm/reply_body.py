"""Reading a chat completion body from an endpoint that may be broken or hostile.

The openai package trusts the body's shape and fails deep inside with whatever
exception the shape causes. This module trusts nothing: a body becomes a
ReplyBody, or a ValueError whose message says what was wrong with it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from colorbrowser.utf8 import utf8_safe

_SNIPPET = 60


@dataclass(frozen=True)
class ReplyBody:
    """The parts of a chat completion the client uses, all safe to write as UTF-8."""

    text: str
    model: str | None = None
    id: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None  # None: not reported as a count, to be estimated
    completion_tokens: int | None = None


def read_reply(raw: bytes) -> ReplyBody:
    """The first choice's text and the reported usage of a chat completion body."""
    data = _json_object(raw)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or choices[0] is None:
        raise ValueError("returned no choices")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise ValueError("sent a choice without a message object")
    usage = data.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ReplyBody(
        text=_content_text(message.get("content")),
        model=_text_or_none(data.get("model")),
        id=_text_or_none(data.get("id")),
        finish_reason=_text_or_none(choice.get("finish_reason")),
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


def _json_object(raw: bytes) -> dict[str, Any]:
    text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        raise ValueError("sent an empty body")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError(f"sent a body that is not JSON: {text[:_SNIPPET]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"sent JSON that is not a JSON object: {text[:_SNIPPET]!r}")
    return data


def _content_text(content: Any) -> str:
    """A string as it is; a list of parts (as some servers send) joined from its text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return utf8_safe(content)
    if not isinstance(content, list):
        raise ValueError(f"sent content that is neither text nor a list of parts "
                         f"({type(content).__name__})")
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            if not isinstance(part.get("text"), str):
                raise ValueError("sent a text part whose text is not a string")
            texts.append(part["text"])
        elif not isinstance(part, dict):
            raise ValueError(f"sent a content part that is not an object "
                             f"({type(part).__name__})")
    return utf8_safe("".join(texts))


def _text_or_none(value: Any) -> str | None:
    return utf8_safe(value) if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    """A token count only if it is one: a whole, finite, non-negative number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value) if value >= 0 else None


def first_model_id(raw: bytes) -> str | None:
    """The first model a ``/models`` body lists, or None when it lists none."""
    data = _json_object(raw).get("data")
    if not isinstance(data, list):
        raise ValueError("sent a model list without a data list")
    if not data:
        return None
    first = data[0]
    name = first.get("id") if isinstance(first, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise ValueError("sent a model list whose first entry has no id")
    return utf8_safe(name)
