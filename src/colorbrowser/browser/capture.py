"""The Python half of capture: install capture.js in every page and frame of a browser
context, check what it posts, and keep it as typed raw events in arrival order.

Records reach Python only while the thread that owns the browser is inside a
Playwright call, so the copilot's waits are ``wait_for_timeout`` slices. A record
without the session's nonce (a page calling Playwright's binding itself) is dropped.
A sensitive value's real text is handed to ``on_secret`` (the run's redactor) and
never kept in the event; a value that looks like a card number is masked here again
even when the page did not flag its field.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
import weakref
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, Literal
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from colorbrowser.browser.observe import walker_source
from colorbrowser.browser.session import BrowserSession

BINDING = "__colorbrowserCapture"
MASK = "********"
MAX_EVENTS = 20_000
MAX_TEXT = 2_000

Kind = Literal["click", "dblclick", "input", "change", "key", "hover", "wheel", "scroll",
               "history", "visible", "doc", "leave", "tab_open", "tab_close"]


class RawEvent(BaseModel):
    """One thing a person did (or the browser did for them), as the page saw it."""

    model_config = ConfigDict(extra="ignore")

    kind: Kind
    t: float  # wall-clock milliseconds (the page's Date.now(); the same clock as Python's)
    seq: int = 0
    tab: int = 0  # the tab's index when the record arrived (it shifts as tabs close)
    tab_id: int = -1  # the tab's identity for the whole session (-1: not known)
    url: str = ""
    top: bool = True
    bid: str = ""
    role: str = ""
    name: str = ""
    tag: str = ""
    itype: str = ""
    value: str | list[str] | None = None
    checked: bool | None = None
    sensitive: bool = False
    key: str = ""
    button: int = 0
    detail: int = 0
    via_label: bool = False
    opened_by: str = ""  # a click in a menu: the bid of the hovered element that opened it
    popup: bool = False
    opens_tab: bool = False  # a click on a link the browser opens in another tab
    group: str = ""  # a radio's group (its form and name): arrow keys move within it
    ancestors: list[str] = Field(default_factory=list)
    bbox: list[float] = Field(default_factory=list)
    x: float = 0.0
    y: float = 0.0
    dx: float = 0.0
    dy: float = 0.0
    nav: str = ""
    opener: int = -1  # a tab_open: the identity of the tab whose page opened it, else -1

    @field_validator("url", "bid", "role", "name", "tag", "itype", "key", "nav", "opened_by",
                     "group")
    @classmethod
    def _short(cls, text: str) -> str:
        return text[:MAX_TEXT]

    @field_validator("value")
    @classmethod
    def _short_value(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value[:MAX_TEXT * 10]
        if isinstance(value, list):
            return [str(v)[:MAX_TEXT] for v in value[:50]]
        return value


def _origin(url: str) -> tuple[str, str]:
    """Scheme and host with port (an opaque ``about:``/``data:`` address: itself)."""
    parts = urlsplit(url)
    if not parts.netloc:
        return parts.scheme, url
    return parts.scheme, parts.netloc.rsplit("@", 1)[-1].lower()


_DIGITS = re.compile(r"^[\d\s-]{13,25}$")


def looks_like_card(value: str) -> bool:
    """13 to 19 digits (spaces and dashes allowed) that pass the Luhn check."""
    if not _DIGITS.match(value):
        return False
    digits = [int(c) for c in value if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


@cache
def _template() -> str:
    here = resources.files("colorbrowser.browser")
    aria = here.joinpath("aria.js").read_text("utf-8").strip()
    text = here.joinpath("capture.js").read_text("utf-8")
    return (text.replace("__ARIA__", aria).replace("__WALKER__", walker_source().strip())
            .replace("__BINDING__", BINDING))


def capture_script(nonce: str) -> str:
    return _template().replace("__NONCE__", nonce)


_INSTALLED: weakref.WeakKeyDictionary[BrowserContext, Capture] = weakref.WeakKeyDictionary()


def capture_for(session: BrowserSession, on_secret: Callable[[str], None] | None) -> Capture:
    """The capture of the session's context (a context takes one binding for good);
    installed now if it has none yet, else handing secrets to ``on_secret`` from now on."""
    found = _INSTALLED.get(session.context)
    if found is not None:
        found.on_secret = on_secret
        return found
    return Capture(on_secret=on_secret).install(session)


class Capture:
    """Raw events of one browser context, kept in order, read by time."""

    def __init__(self, on_secret: Callable[[str], None] | None = None) -> None:
        self.nonce = secrets.token_hex(16)
        self.on_secret = on_secret
        self.events: list[RawEvent] = []
        self.dropped = 0  # records that failed the nonce or the schema
        self._lock = threading.Lock()
        self._tabs: list[Page] = []
        self._ids: dict[Page, int] = {}  # each tab's identity, never reused
        self.session: BrowserSession | None = None
        self.listeners: list[Callable[[RawEvent], None]] = []
        self._secrets: dict[tuple[int, str], str] = {}  # (tab, bid) -> latest real value
        self._seq = 1_000_000_000

    # -- installing --------------------------------------------------------------
    def install(self, session: BrowserSession) -> Capture:
        """Capture in every page of the session's context from now on (call it before
        the first page loads: documents already open are not covered)."""
        self.session = session
        context: BrowserContext = session.context
        context.expose_binding(BINDING, self._receive)  # before the script that takes it
        _INSTALLED[context] = self
        context.add_init_script(script=capture_script(self.nonce))
        self._tabs = list(session.pages)
        context.on("page", self._opened)
        for page in self._tabs:
            self._id(page)
            page.on("close", self._closed)
        return self

    def _opened(self, page: Page) -> None:
        opener = page.opener()  # a pop-up's page (noopener links too); None for a new tab
        self._tabs.append(page)
        page.on("close", self._closed)
        self._add(RawEvent(kind="tab_open", t=time.time() * 1000, tab=len(self._tabs) - 1,
                           tab_id=self._id(page), url=page.url, seq=self._next_seq(),
                           opener=self._ids.get(opener, -1) if opener else -1))

    def _closed(self, page: Page) -> None:
        if page not in self._tabs:
            return
        index = self._tabs.index(page)
        self._tabs.remove(page)
        self._add(RawEvent(kind="tab_close", t=time.time() * 1000, tab=index, url=page.url,
                           tab_id=self._ids.get(page, -1), seq=self._next_seq()))

    def _id(self, page: Page) -> int:
        """The tab's identity: given the first time it is heard of, kept after it closes."""
        with self._lock:
            return self._ids.setdefault(page, len(self._ids))

    def _next_seq(self) -> int:
        """Numbers for events Python itself notes, apart from any page's own count."""
        self._seq += 1
        return self._seq

    # -- receiving ---------------------------------------------------------------
    def _receive(self, source: dict[str, Any], data: Any) -> None:
        if not isinstance(data, dict) or data.get("nonce") != self.nonce:
            self.dropped += 1
            return
        if not self._from_its_frame(source, data):
            self.dropped += 1
            return
        secret = data.pop("secret", None)
        page = source.get("page")
        data["tab"] = self._tabs.index(page) if page in self._tabs else 0
        data["tab_id"] = self._id(page) if page is not None else -1
        try:
            event = RawEvent.model_validate(data)
        except ValidationError:
            self.dropped += 1
            return
        if isinstance(event.value, str) and looks_like_card(event.value):
            secret, event.value, event.sensitive = event.value, MASK, True
        if isinstance(secret, str) and secret:
            # Only the field's last value is a secret: every prefix typed on the way
            # ("h", "hu", ...) would otherwise mask those letters everywhere.
            with self._lock:
                self._secrets[(event.tab, event.bid or event.name)] = secret[:MAX_TEXT]
            if event.kind == "change":
                self.flush_secrets()
        self._add(event)

    @staticmethod
    def _from_its_frame(source: dict[str, Any], data: dict[str, Any]) -> bool:
        """Whether the record's address is on the origin of the frame that sent it.

        The nonce keeps out a page that merely calls the binding, but Playwright's
        binding runs through globals a page may replace (``JSON.stringify``), so a
        page can learn it: a record it forges must at least stay on its own origin,
        never a person's goto to ``file:`` or another site. A ``leave`` is exempt (the
        old document may report it after the frame has moved on)."""
        frame = source.get("frame")
        claimed = data.get("url")
        if frame is None or data.get("kind") == "leave":
            return True
        return isinstance(claimed, str) and _origin(claimed) == _origin(frame.url)

    def flush_secrets(self) -> None:
        """Hand the final values of sensitive fields to ``on_secret``, once each."""
        with self._lock:
            values, self._secrets = list(self._secrets.values()), {}
        if self.on_secret is not None:
            for value in values:
                self.on_secret(value)

    def _add(self, event: RawEvent) -> None:
        with self._lock:
            if len(self.events) >= MAX_EVENTS:
                self.dropped += 1
                return
            self.events.append(event)
        for listener in self.listeners:
            listener(event)

    # -- reading -----------------------------------------------------------------
    def since(self, t_ms: float) -> list[RawEvent]:
        with self._lock:
            return [e for e in self.events if e.t >= t_ms]

    def all(self) -> list[RawEvent]:
        with self._lock:
            return list(self.events)

    def clear(self) -> None:
        with self._lock:
            self.events.clear()
