"""What a failed action tells the model: one line, the reason, and what to do instead.

Shared by the element actions (execute.py) and the browser actions (navigate.py).
Never a Playwright call log, never a typed password.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from colorbrowser.browser.session import BrowserSession, first_line
from colorbrowser.types import Observation

URL_SCHEMES = {"http", "https", "file", "about", "data"}
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(?!\d)")

# Call-log phrases (Playwright) -> what the model should hear.
HINTS = [
    ("element is not enabled", "is disabled"),
    ("element is disabled", "is disabled"),
    ("element is not visible",
     "is not visible (hidden, collapsed or zero-sized); reveal it first"),
    ("intercepts pointer events", "is covered by another element (a dialog or overlay?)"),
    ("element is not stable", "keeps moving (animation); try again"),
    ("outside of the viewport", "is outside the viewport; scroll to it first"),
    ("element is not editable", "is read-only"),
    ("not an <input>", "is not a text field; fill() works on inputs, textareas and editable areas"),
    ("not a <select>", "is not a <select>; click it and then click the option instead"),
    ("cannot uncheck radio", "is a radio button and cannot be unchecked; check another option"),
    ("did not change its state", "did not change state when clicked"),
    ("unknown key", "got an unknown key name; use names like 'Enter', 'Tab', 'Control+a'"),
]
NET_ERRORS = {
    "ERR_CONNECTION_REFUSED": "connection refused",
    "ERR_NAME_NOT_RESOLVED": "host not found (DNS)",
    "ERR_NAME_RESOLUTION_FAILED": "host not found (DNS)",
    "ERR_ADDRESS_UNREACHABLE": "address unreachable",
    "ERR_CONNECTION_TIMED_OUT": "connection timed out",
    "ERR_CONNECTION_RESET": "connection reset",
    "ERR_CONNECTION_CLOSED": "connection closed",
    "ERR_EMPTY_RESPONSE": "the server sent nothing",
    "ERR_INTERNET_DISCONNECTED": "no network",
    "ERR_ABORTED": "navigation aborted (download, or replaced by another navigation)",
    "ERR_FILE_NOT_FOUND": "file not found",
    "ERR_INVALID_URL": "invalid URL",
    "ERR_TOO_MANY_REDIRECTS": "too many redirects",
}


class ActionFailed(Exception):
    """Raised by handlers for a failure that has its message ready."""


class StaleElement(ActionFailed):
    """The element was observed but is gone when acted on: the page re-rendered it,
    so nothing was done and the same target may be looked up again."""


def normalize_url(url: str) -> str:
    text = url.strip()
    if not text or any(c.isspace() for c in text):
        raise ActionFailed(f"not a URL: {url[:100]!r}")
    explicit = _SCHEME_RE.match(text)  # "localhost:8000/x" is a host and port, not a scheme
    if not explicit:
        text = "http://" + text
    scheme = explicit.group(1).lower() if explicit else "http"
    if scheme not in URL_SCHEMES:
        raise ActionFailed(f"unsupported URL scheme {scheme!r}; use an http(s) address")
    return text


@dataclass
class StepContext:
    """What a handler needs: the session, the tab it acts on, the last observation."""

    session: BrowserSession
    page: Page
    obs: Observation | None
    timeout_ms: int
    nav_timeout_ms: int
    secret: bool = False


def explain(what: str, bid: str | None, exc: PlaywrightError, ctx: StepContext) -> str:
    text = str(exc)
    low = text.lower()
    best, where = None, -1
    for needle, hint in HINTS:
        pos = low.rfind(needle.lower())
        if pos > where:
            best, where = hint, pos
    timed_out = isinstance(exc, PlaywrightTimeout)
    after = f" (gave up after {ctx.timeout_ms} ms)" if timed_out else ""
    if "target crashed" in low or "has been closed" in low:
        return f"{what} failed: the tab crashed or was closed"
    if best and bid:
        return f"{what}: element '{bid}' {best}{after}"
    if timed_out:
        return f"{what} timed out after {ctx.timeout_ms} ms"
    message = re.sub(r"^\w+\.\w+: (Error: )?", "", first_line(exc))
    return f"{what} failed: {message}"


def nav_error(url: str, exc: PlaywrightError, ctx: StepContext) -> str:
    text = str(exc)
    for code, meaning in NET_ERRORS.items():
        if f"net::{code}" in text:
            return f"could not open {url}: {meaning} (net::{code})"
    if isinstance(exc, PlaywrightTimeout):
        ctx.session.stop_loading(ctx.page)
        return f"{url} did not load within {ctx.nav_timeout_ms / 1000:g} s"
    detail = re.sub(r"^\w+\.\w+: ", "", first_line(exc))
    return f"could not open {url}: {detail}"
