"""Model clients for OpenAI-compatible endpoints, and the offline default server.

Other parts should need only these names: ``make_model`` (settings -> Model),
``action_constraint`` (bids -> Constraint for the Operator's reply),
``count_tokens`` and, in tests, ``ScriptedModel``. Imports are lazy so that
``import colorbrowser.llm`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "OpenAIChatModel": "colorbrowser.llm.client",
    "OfflineServer": "colorbrowser.llm.offline",
    "ensure_model": "colorbrowser.llm.offline",
    "make_model": "colorbrowser.llm.factory",
    "action_grammar": "colorbrowser.llm.grammar",
    "json_action_schema": "colorbrowser.llm.grammar",
    "action_from_json": "colorbrowser.llm.grammar",
    "action_constraint": "colorbrowser.llm.grammar",
    "ScriptedModel": "colorbrowser.llm.scripted",
    "ScriptExhausted": "colorbrowser.llm.scripted",
    "count_tokens": "colorbrowser.llm.tokens",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'colorbrowser.llm' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
