"""Which Chromium to start, and with which flags.

Order: an explicit path (settings or ``CHROMIUM_PATH``), then the system Chromium,
then whatever Playwright installed itself (a developer laptop). The Debian wrapper
script prints a shell warning on every start, so its real binary is preferred.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserError

SYSTEM_WRAPPER = Path("/usr/bin/chromium")
SYSTEM_REAL = Path("/usr/lib/chromium/chromium")
OTHER_NAMES = ("chromium", "chromium-browser")

# No update checks or first-run pages: they would reach out to the network (refused
# here) or open windows during an episode. Playwright adds its own automation flags;
# do not pass --disable-features here, it would replace Playwright's list.
LAUNCH_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-smooth-scrolling",  # a wheel scroll lands at once, no animation to wait for
]


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_chromium(settings: BrowserSettings, environ: dict[str, str] | None = None) -> str | None:
    """Path of the Chromium to launch, or None to let Playwright use its own browsers."""
    env = os.environ if environ is None else environ
    explicit = settings.executable or env.get("CHROMIUM_PATH")
    if explicit:
        path = Path(explicit).expanduser()
        if not _executable(path):
            source = "settings" if settings.executable else "CHROMIUM_PATH"
            raise BrowserError(f"Chromium not found at {path} (from {source}); "
                               "fix the path or unset it")
        return str(path)
    if _executable(SYSTEM_WRAPPER):
        return str(SYSTEM_REAL if _executable(SYSTEM_REAL) else SYSTEM_WRAPPER)
    for name in OTHER_NAMES:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    return None


def launch_options(settings: BrowserSettings,
                   environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``playwright.chromium.launch``."""
    options: dict[str, Any] = {"headless": settings.headless, "args": list(LAUNCH_ARGS)}
    path = find_chromium(settings, environ)
    if path:
        options["executable_path"] = path
    return options
