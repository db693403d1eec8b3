"""ColorBrowser: web agents that finish long tasks on real websites.

The public face for Python: ``Agent`` and its ``AgentResult``, ``StopRun`` for step
callbacks, ``tool`` and ``Secret``, and the types the protocols speak. The agent's
names are loaded on first use, so ``import colorbrowser`` stays cheap and this core
module imports nothing from the layers above it.
"""

from importlib import import_module
from typing import Any

from colorbrowser.errors import ColorBrowserError, UserError
from colorbrowser.protocols import Environment, Model
from colorbrowser.types import Action, ActionResult, Completion, Message, Observation, Usage

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "colorbrowser.api",
    "AgentResult": "colorbrowser.api",
    "StopRun": "colorbrowser.api",
    "Secret": "colorbrowser.agent.secrets",
    "tool": "colorbrowser.agent.tools",
    "Settings": "colorbrowser.config",
}

__all__ = [
    "Action",
    "ActionResult",
    "Agent",
    "AgentResult",
    "ColorBrowserError",
    "Completion",
    "Environment",
    "Message",
    "Model",
    "Observation",
    "Secret",
    "Settings",
    "StopRun",
    "Usage",
    "UserError",
    "__version__",
    "tool",
]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'colorbrowser' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
