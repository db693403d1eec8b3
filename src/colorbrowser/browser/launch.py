"""Which Chromium to start, with which flags, and the Playwright driver that starts it.

Order: an explicit path (settings or ``CHROMIUM_PATH``), then the system Chromium,
then whatever Playwright installed itself (a developer laptop). The Debian wrapper
script prints a shell warning on every start, so its real binary is preferred.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from playwright.sync_api import Playwright, sync_playwright

from colorbrowser.config import BrowserSettings
from colorbrowser.errors import BrowserUnavailable

SYSTEM_WRAPPER = Path("/usr/bin/chromium")
SYSTEM_REAL = Path("/usr/lib/chromium/chromium")
OTHER_NAMES = ("chromium", "chromium-browser")
# What --version prints for Chromium, Chrome (also for Testing), Edge, Brave, Opera, ...
_BROWSER_NAMES = re.compile(r"chrom|edge|brave|opera|vivaldi|yandex", re.I)

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


def configured_chromium(settings: BrowserSettings,
                        environ: Mapping[str, str] | None = None) -> tuple[Path, str] | None:
    """The browser the person configured, and where (``CHROMIUM_PATH`` or settings)."""
    env = os.environ if environ is None else environ
    explicit = settings.executable or env.get("CHROMIUM_PATH")
    if not explicit:
        return None
    # load_settings copies CHROMIUM_PATH into settings.executable: name the variable.
    source = ("settings" if settings.executable
              and settings.executable != env.get("CHROMIUM_PATH") else "CHROMIUM_PATH")
    return Path(explicit).expanduser(), source


def find_chromium(settings: BrowserSettings,
                  environ: Mapping[str, str] | None = None) -> str | None:
    """Path of the Chromium to launch, or None to let Playwright use its own browsers."""
    env = os.environ if environ is None else environ
    configured = configured_chromium(settings, env)
    if configured:
        path, source = configured
        if not _executable(path):
            what = ("a folder" if path.is_dir() else "not executable" if path.exists()
                    else None)
            found = f"{path} is {what}, not Chromium" if what else f"Chromium not found at {path}"
            raise BrowserUnavailable(f"{found} (from {source}); fix the path or unset it")
        return str(path)
    if _executable(SYSTEM_WRAPPER):
        return str(SYSTEM_REAL if _executable(SYSTEM_REAL) else SYSTEM_WRAPPER)
    for name in OTHER_NAMES:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    return None


def answers_like_a_browser(path: str) -> bool:
    """Whether ``path --version`` names a Chromium-based browser; asked only after a
    launch failed, to tell a broken browser from a path that never was one."""
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True,
                              errors="replace", timeout=15)
    except (OSError, subprocess.SubprocessError):
        return False
    return bool(_BROWSER_NAMES.search(done.stdout + done.stderr))


def launch_options(settings: BrowserSettings,
                   environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Keyword arguments for ``playwright.chromium.launch``."""
    from colorbrowser.browser.policy import NavigationPolicy

    policy = NavigationPolicy.of(settings.allow_hosts)
    options: dict[str, Any] = {"headless": settings.headless,
                               "args": [*LAUNCH_ARGS, *policy.launch_args()]}
    if settings.remote_debugging_port:  # for scripted persons; loopback only
        options["args"] += [f"--remote-debugging-port={settings.remote_debugging_port}",
                            "--remote-debugging-address=127.0.0.1"]
    path = find_chromium(settings, environ)
    if path:
        options["executable_path"] = path
    return options


_thread = threading.local()


def acquire_driver() -> Playwright:
    """One Playwright driver per thread, shared by every session in it.

    The sync API refuses a second driver in a thread that already runs one, so two
    sessions (say, a CLI command inside a test) would otherwise not coexist.
    """
    held = getattr(_thread, "driver", None)
    if held is None:
        held = _thread.driver = [sync_playwright().start(), 0]
    held[1] += 1
    return held[0]


def release_driver() -> None:
    held = getattr(_thread, "driver", None)
    if held is None:
        return
    held[1] -= 1
    if held[1] <= 0:
        _thread.driver = None
        with contextlib.suppress(Exception):
            held[0].stop()


@contextlib.contextmanager
def shared_playwright() -> Iterator[Playwright]:
    """The thread's driver for code that launches its own browser (tests, benchmarks),
    so it can coexist with sessions in the same thread."""
    driver = acquire_driver()
    try:
        yield driver
    finally:
        release_driver()


@cache
def listener_script() -> str:
    return resources.files("colorbrowser.browser").joinpath("listeners.js").read_text("utf-8")
