"""Exception types. Control flow of an episode goes through a few of them.

``UserError`` and its children are the mistakes a person can fix (bad flag, broken
config or tip file, unreachable endpoint); the CLI prints them as one line and
exits non-zero, never as a traceback.
"""

from __future__ import annotations


class ColorBrowserError(Exception):
    """Base of every error this package raises on purpose."""


class UserError(ColorBrowserError):
    """A mistake in input the person controls; shown as one line."""


class ConfigError(UserError):
    pass


class ModelError(ColorBrowserError):
    """The model endpoint failed after retries, or returned nothing usable."""


class ModelUnavailable(ModelError, UserError):
    """The endpoint cannot be reached or refused the credentials."""


class ActionParseError(ColorBrowserError):
    """The model wrote something that is not one valid action call."""


class BrowserError(ColorBrowserError):
    """The browser could not be launched or has died."""


class StartPageFailed(BrowserError):
    """The start page did not load (a server that refuses or never answers); the
    browser itself is fine, so an episode can begin elsewhere and try again."""


class EpisodeEnd(ColorBrowserError):
    """Raised inside the loop to end an episode; ``reason`` goes to the trajectory."""

    reason = "ended"


class StepLimitReached(EpisodeEnd):
    reason = "step_limit"


class CostLimitReached(EpisodeEnd):
    reason = "cost_limit"


class Aborted(EpisodeEnd):
    reason = "aborted"
