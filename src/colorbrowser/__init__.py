"""ColorBrowser: web agents that finish long tasks on real websites."""

from colorbrowser.errors import ColorBrowserError, UserError
from colorbrowser.protocols import Environment, Model
from colorbrowser.types import Action, ActionResult, Completion, Message, Observation, Usage

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionResult",
    "ColorBrowserError",
    "Completion",
    "Environment",
    "Message",
    "Model",
    "Observation",
    "Usage",
    "UserError",
    "__version__",
]
