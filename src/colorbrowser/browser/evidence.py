"""The evidence log: what one action made the browser do, from the browser's own events.

The session feeds it every request, response, failure, download and dialog of every
tab; ``EvidenceLog.begin`` marks the start of an action and ``collect`` turns what came
after into an ``Evidence``: requests (method, URL, status; form posts with their field
names only), cookies set or removed per site (names only, values are compared here and
never kept), downloads, dialogs, and the error texts the page shows afterwards.
No model is involved, and nothing typed into a form is kept.

An action's effects do not all fit in its window: a submit whose navigation starts
after the window closed (a loaded machine), a request still waiting for its answer.
Those are not dropped: the next action's evidence carries them as ``late`` (with the
cookies changed in between), and ``late`` hands them to the verifier when the agent
stops before acting again.

Events reach the log only while a call into the browser waits, and any such call
may bring some: reading the page's error texts waits until a navigation under way
commits, so a post's request and its answer can both arrive during that read. So
the log reads the page before it lists what happened, and a request counts as told
only with what its note said; whatever arrives while the evidence is written stays
news for the next look.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from playwright.sync_api import Download, Page, Request, Response
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.browser.reads import evaluate_settled
from colorbrowser.evidence import MAX_REQUESTS, CookieChange, Evidence, Late, RequestNote

# Resources that say nothing about what an action did.
_QUIET = {"image", "stylesheet", "font", "script", "media", "manifest", "texttrack", "ping"}
ANSWER_WAIT_S = 2.0  # how long a look waits for requests the action started to be answered
MAX_TEXTS = 5
TEXT_CHARS = 200

# Error texts a page shows: alerts, and elements whose id or class names an error,
# plus a heading or title that reads like an error page. Run in the page's main frame.
_ERROR_TEXTS_JS = r"""(limit) => {
  const out = [];
  const seen = new Set();
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const add = (t) => {
    t = (t || '').replace(/\s+/g, ' ').trim();
    if (t && !seen.has(t) && out.length < limit) { seen.add(t); out.push(t); }
  };
  const named = new RegExp('(^|[\\s_-])(error|errors|errorlist|alert-danger|danger|invalid|'
    + 'failure|failed|warning|flash-error|flash-alert)($|[\\s_-])', 'i');
  const calm = new RegExp('(^|[\\s_-])(success|alert-success|info|alert-info|notice|'
    + 'flash-notice|flash-success|confirmation|confirm)($|[\\s_-])', 'i');
  for (const e of document.querySelectorAll('[role=alert], [id], [class]')) {
    if (out.length >= limit) break;
    const name = (e.id || '') + ' ' + (typeof e.className === 'string' ? e.className : '');
    if (e.getAttribute('role') !== 'alert' && !named.test(name)) continue;
    // A live region announcing success ("Your order has been placed") is no error.
    if (!named.test(name) && calm.test(name)) continue;
    if (['INPUT', 'TEXTAREA', 'SELECT', 'BODY', 'HTML', 'FORM'].includes(e.tagName)) continue;
    if (!visible(e)) continue;
    add(e.innerText);
  }
  const heading = document.querySelector('h1');
  const looks = new RegExp('\\b(error|exception|not found|forbidden|unauthori[sz]ed|'
    + 'internal server|bad request|service unavailable|[45]\\d\\d)\\b', 'i');
  if (heading && looks.test(heading.innerText || '')) add(heading.innerText);
  if (looks.test(document.title || '')) add(document.title);
  return out;
}"""


def form_fields(request: Request) -> list[str]:
    """The names of the fields a request sent, never their values."""
    try:
        body = request.post_data_buffer
        kind = (request.header_value("content-type") or "").lower()
    except (PlaywrightError, UnicodeDecodeError, ValueError):
        return []
    if not body:
        return []
    text = body.decode("utf-8", "replace")
    names: list[str] = []
    if "multipart/form-data" in kind:
        names = re.findall(r'content-disposition:[^\r\n]*?\bname="([^"]*)"', text, re.I)
    elif "json" in kind:
        with contextlib.suppress(ValueError):
            data = json.loads(text)
            names = [str(k) for k in data] if isinstance(data, dict) else []
    elif "x-www-form-urlencoded" in kind or not kind:
        names = [k for k, _ in parse_qsl(text, keep_blank_values=True)]
    unique = list(dict.fromkeys(n[:80] for n in names))
    return unique[:50]


def site_of(domain: str) -> str:
    return domain.lstrip(".").lower()


@dataclass
class _Seen:
    request: Request
    status: int | None = None
    failure: str | None = None
    answered: bool = False
    reported: bool = False  # in a step's evidence already
    final: bool = False  # reported with its answer: nothing more to tell

    @property
    def news(self) -> bool:
        """Something a step's evidence has not told yet: the request, or its answer."""
        return not self.final and (not self.reported or self.answered)


def _awaited(seen: _Seen) -> bool:
    """A page load or a write: what a step's outcome hangs on. A long poll or an event
    stream may stay open for minutes, so a look never waits for reads in the page."""
    try:
        kind, method = seen.request.resource_type, seen.request.method
    except PlaywrightError:
        return False
    return kind != "eventsource" and (kind == "document" or method.upper() != "GET")


@dataclass
class EvidenceLog:
    """Events of every tab since the last ``begin``; fed by BrowserSession."""

    seen: list[_Seen] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)
    cookies: dict[tuple[str, str, str], str] | None = None  # as the last step left them
    carried: list[_Seen] = field(default_factory=list)  # the previous action's, late
    late_cookies: list[CookieChange] = field(default_factory=list)
    late_errors: list[str] = field(default_factory=list)
    late_dialogs: list[str] = field(default_factory=list)
    told_dialogs: int = 0  # dialogs in the last step's evidence; later ones are late
    acted: bool = False  # an action was collected since ``forget``: late news is its
    _index: dict[Request, _Seen] = field(default_factory=dict)

    # -- fed by the session's listeners --------------------------------------------------
    def on_request(self, request: Request) -> None:
        with contextlib.suppress(PlaywrightError):
            if request.resource_type in _QUIET or not request.url.startswith("http") \
                    or request.service_worker is not None:  # its page's request is told
                return
            item = _Seen(request)
            self.seen.append(item)
            self._index[request] = item

    def on_response(self, response: Response) -> None:
        item = self._index.get(response.request)
        if item is not None:
            with contextlib.suppress(PlaywrightError):
                item.status = response.status
            item.answered = True

    def on_failed(self, request: Request) -> None:
        item = self._index.get(request)
        if item is not None:
            with contextlib.suppress(PlaywrightError):
                item.failure = request.failure or "failed"
            item.answered = True

    def on_dialog(self, text: str) -> None:
        self.dialogs.append(text)

    def on_download(self, download: Download) -> None:
        with contextlib.suppress(PlaywrightError):
            self.downloads.append(f"{download.suggested_filename} from {download.url}")

    # -- one action ----------------------------------------------------------------------
    def forget(self) -> None:
        """A new start (a fresh tab for an episode or a task): nothing before it is
        any action's doing, neither the start page's requests nor the task's cookies."""
        self.seen.clear()
        self.carried.clear()
        self._index.clear()
        self.dialogs.clear()
        self.downloads.clear()
        self.late_cookies, self.late_errors, self.late_dialogs = [], [], []
        self.told_dialogs = 0
        self.cookies = None
        self.acted = False

    def begin(self, cookies: list[dict[str, Any]], page: Page | None = None) -> None:
        """An action starts. What the previous action caused after its window closed
        is carried into this one's evidence as late; the rest is forgotten."""
        now = _cookie_map(cookies)
        late_errors: list[str] = []
        if self.acted and page is not None and (self.dialogs[self.told_dialogs:] or any(
                s.news for s in (*self.carried, *self.seen))):
            late_errors = error_texts(page)  # first: what it delivers is carried too
        pending = [s for s in (*self.carried, *self.seen) if not s.final]
        late_dialogs = self.dialogs[self.told_dialogs:]
        self.carried, self.late_cookies, self.late_errors, self.late_dialogs = [], [], [], []
        if self.acted:
            self.carried = pending[-MAX_REQUESTS:]
            self.late_cookies = _cookie_changes(self.cookies or {}, now)
            self.late_dialogs = late_dialogs
            self.late_errors = late_errors
        self.seen.clear()
        self._index = {s.request: s for s in self.carried}
        self.dialogs.clear()
        self.told_dialogs = 0
        self.downloads.clear()
        self.cookies = now

    def wait_for_answers(self, page: Page, seconds: float = ANSWER_WAIT_S, *,
                         late: bool = False) -> None:
        """Let requests the action started get their answers (driver-side waits only);
        ``late``: those of the last action's whose answer is not told yet. A request
        that starts during the wait (a post a loaded machine sent late) is waited for too."""
        deadline = time.monotonic() + seconds

        def waiting() -> bool:
            items = [s for s in (*self.carried, *self.seen) if not s.final] if late \
                else self.seen
            return any(not s.answered and _awaited(s) for s in items)

        with contextlib.suppress(PlaywrightError):
            while waiting() and time.monotonic() < deadline and not page.is_closed():
                page.wait_for_timeout(20)

    def _news(self) -> list[_Seen]:
        return [s for s in (*self.carried, *self.seen) if s.news]

    def collect(self, page: Page | None, cookies: list[dict[str, Any]]) -> Evidence:
        """What happened since ``begin``, as the step's evidence.

        The page is read first: the read may deliver requests and answers (see the
        module's docstring), which are then listed with the rest."""
        page_errors = error_texts(page) if page is not None else []
        requests = _tell(list(self.seen))
        late = _tell([s for s in self.carried if s.news])
        after = _cookie_map(cookies)
        dialogs = list(self.dialogs)
        evidence = Evidence(
            requests=requests[:MAX_REQUESTS], more_requests=max(0, len(requests) - MAX_REQUESTS),
            dialogs=dialogs, downloads=list(self.downloads),
            cookies=_cookie_changes(after if self.cookies is None else self.cookies, after),
            page_errors=page_errors,
            late=Late(requests=late, cookies=list(self.late_cookies),
                      page_errors=list(self.late_errors), dialogs=list(self.late_dialogs))
            if late or self.late_cookies or self.late_dialogs else None)
        self.told_dialogs = len(dialogs)
        self.cookies = after
        self.acted = True
        return evidence

    def late(self, page: Page | None, cookies: list[dict[str, Any]]) -> Late | None:
        """What the last action caused since its window closed (requests started or
        answered later, cookies changed since), for a stop that comes before the next
        action; None when there is nothing. Nothing is marked as told: if the agent
        acts again instead, that action's evidence carries the same news."""
        if not self.acted:
            return None
        if page is not None:
            self.wait_for_answers(page, late=True)
        changed = _cookie_changes(self.cookies or {}, _cookie_map(cookies))
        if not self._news() and not changed and not self.dialogs[self.told_dialogs:]:
            return None
        page_errors = error_texts(page) if page is not None else []  # before the lists
        news = self._news()
        return Late(requests=[_note(s)[0] for s in news[:MAX_REQUESTS]], cookies=changed,
                    page_errors=page_errors, dialogs=self.dialogs[self.told_dialogs:])


def _tell(items: list[_Seen]) -> list[RequestNote]:
    """Notes of ``items``, each marked as told with what its own note says: an answer
    that arrives while the notes are written (reading a post's headers waits on the
    browser) is still news."""
    notes = []
    for item in items:
        note, answered = _note(item)
        notes.append(note)
        item.reported = True
        item.final = answered
    return notes


def _note(item: _Seen) -> tuple[RequestNote, bool]:
    """The note of one request, and whether it tells the answer: the answer is taken
    before the form's field names are read, which waits on the browser."""
    answered, status, failure = item.answered, item.status, item.failure
    request = item.request
    try:
        method, url, kind = request.method, request.url, request.resource_type
    except PlaywrightError:
        method, url, kind = "GET", "", ""
    fields = form_fields(request) if method.upper() not in ("GET", "HEAD") else []
    return RequestNote(method=method, url=url[:500], status=status if answered else None,
                       kind=kind, fields=fields,
                       failure=failure if answered else None), answered


def _cookie_map(cookies: list[dict[str, Any]]) -> dict[tuple[str, str, str], str]:
    return {(site_of(str(c.get("domain", ""))), str(c.get("name", "")), str(c.get("path", "/"))):
            str(c.get("value", "")) for c in cookies}


def _cookie_changes(before: dict[tuple[str, str, str], str],
                    after: dict[tuple[str, str, str], str]) -> list[CookieChange]:
    changes: dict[str, CookieChange] = {}

    def of(site: str) -> CookieChange:
        return changes.setdefault(site, CookieChange(site=site))

    for key, value in after.items():
        if before.get(key) != value and key[1] not in of(key[0]).set:
            of(key[0]).set.append(key[1])
    for key in before:
        if key not in after and key[1] not in of(key[0]).removed:
            of(key[0]).removed.append(key[1])
    return [c for c in changes.values() if c.set or c.removed]


def error_texts(page: Page) -> list[str]:
    """Error texts the page shows now; none when the page cannot be read. A read sent
    while a navigation is under way (a post the step did not see start) reads the page
    the navigation brought, not nothing."""
    try:
        if page.is_closed():
            return []
        texts = evaluate_settled(page, _ERROR_TEXTS_JS, MAX_TEXTS)
    except PlaywrightError:
        return []
    return [str(t)[:TEXT_CHARS] for t in texts if isinstance(t, str)] if isinstance(
        texts, list) else []
