"""Exception types. Control flow of an episode goes through a few of them.

``UserError`` and its children are the mistakes a person can fix (bad flag, broken
config or tip file, unreachable endpoint); the CLI prints them as one line and
exits non-zero, never as a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class ColorBrowserError(Exception):
    """Base of every error this package raises on purpose."""


class UserError(ColorBrowserError):
    """A mistake in input the person controls; shown as one line."""


class ConfigError(UserError):
    pass


@contextmanager
def writing_where_told(what: str, path: object) -> Iterator[None]:
    """Creating or writing a place the person named (``--out``): a read-only place or a
    path through a file is theirs to fix, so an OSError becomes one UserError line."""
    try:
        yield
    except OSError as exc:
        reason = ("part of the path is a file, not a folder"
                  if isinstance(exc, FileExistsError | NotADirectoryError)
                  else exc.strerror or str(exc))
        raise UserError(f"cannot write {what} {path}: {reason}") from None


class ModelError(ColorBrowserError):
    """The model endpoint failed after retries, or returned nothing usable."""


class ModelUnavailable(ModelError, UserError):
    """The endpoint cannot be reached or refused the credentials."""


class ActionParseError(ColorBrowserError, ValueError):
    """The model wrote something that is not one valid action call."""


class BrowserError(ColorBrowserError):
    """The browser could not be launched or has died."""


class StartPageFailed(BrowserError):
    """The start page did not load (a server that refuses or never answers); the
    browser itself is fine, so an episode can begin elsewhere and try again."""


class BrowserUnavailable(BrowserError, UserError):
    """The configured browser (CHROMIUM_PATH, settings) is missing or is not a browser."""


class EpisodeEnd(ColorBrowserError):
    """Raised inside the loop to end an episode; ``reason`` goes to the trajectory."""

    reason = "ended"


class StepLimitReached(EpisodeEnd):
    reason = "step_limit"


class CostLimitReached(EpisodeEnd):
    reason = "cost_limit"


class Aborted(EpisodeEnd):
    reason = "aborted"
