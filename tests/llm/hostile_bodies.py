"""The reply shapes that once ended a run in a traceback (issue 11, item 3), as raw
HTTP 200 bodies for llm_fake_server. Two carry no reply at all and must become model
errors; three carry a reply the client must read."""

from __future__ import annotations

import json

from colorbrowser.testing import act

from .llm_fake_server import Reply, chat_reply

MODEL_ERRORS = ("not JSON", "empty body")
HANDLED = ("content as a list of parts", "usage that is not numbers", "a lone surrogate")


def hostile_stop(shape: str, answer: str = "finished") -> Reply:
    """A scripted Operator reply, ``stop(answer)``, sent in the given shape."""
    if shape == "not JSON":
        return (200, b"<html><body>502 Bad Gateway</body></html>", {}, 0.0)
    if shape == "empty body":
        return (200, b"", {}, 0.0)
    if shape == "a lone surrogate":
        answer += "\ud800"  # json.dumps sends it as the escape \ud800
    body = chat_reply(act("scripted reply", f"stop('{answer}')"))
    if shape == "content as a list of parts":
        text = body["choices"][0]["message"]["content"]
        body["choices"][0]["message"]["content"] = [
            {"type": "text", "text": text[:10]}, {"type": "text", "text": text[10:]}]
    elif shape == "usage that is not numbers":
        body["usage"] = {"prompt_tokens": "lots", "completion_tokens": -3, "total_tokens": None}
    elif shape != "a lone surrogate":
        raise ValueError(f"unknown shape {shape!r}")
    return (200, json.dumps(body).encode(), {}, 0.0)


def answer_read(shape: str, answer: str = "finished") -> str:
    """The answer the agent reads from hostile_stop(shape, answer)."""
    return answer + "\ufffd" if shape == "a lone surrogate" else answer
