"""Human in the loop: failure triggers, the LLM critic, asking a person, review.

The loop wiring is ``TriggerHook`` (hook.py), built by run/factory.py from
``settings.hitl``. Anything that can answer a ``HelpRequest`` with a ``HelpAnswer``
is an ``Asker``: the terminal today, the web panel later. Names load on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Asker": "colorbrowser.hitl.asking",
    "HelpAnswer": "colorbrowser.hitl.asking",
    "HelpRequest": "colorbrowser.hitl.asking",
    "propose_scope": "colorbrowser.hitl.asking",
    "Critic": "colorbrowser.hitl.critic",
    "Verdict": "colorbrowser.hitl.critic",
    "parse_verdict": "colorbrowser.hitl.critic",
    "Detector": "colorbrowser.hitl.triggers",
    "Trace": "colorbrowser.hitl.triggers",
    "Trigger": "colorbrowser.hitl.triggers",
    "TriggerHook": "colorbrowser.hitl.hook",
    "build_trigger_hook": "colorbrowser.hitl.hook",
    "TerminalAsker": "colorbrowser.hitl.terminal",
    "review": "colorbrowser.hitl.review",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'colorbrowser.hitl' has no attribute {name!r}")
