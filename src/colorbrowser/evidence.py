"""What an action left behind that no model reported, and what was concluded from it.

The browser room fills an ``Evidence`` for every action from the browser's own events
(requests and their statuses, cookies, dialogs, downloads, error texts on the page);
the agent adds its notes and calculations. The verifier at the stop reads only these
and the pages observed, so "done" is accepted on evidence, not on the model's word.
Values typed into forms never appear here: a form post keeps its field names only,
a cookie its name.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_REQUESTS = 40  # per step: enough for a page load's documents and XHRs


class _Data(BaseModel):
    model_config = ConfigDict(extra="ignore")


class RequestNote(_Data):
    """One request the page made after the action (no images, styles, fonts or scripts)."""

    method: str
    url: str
    status: int | None = None  # None: no answer (failed, or still waiting at the look)
    kind: str = ""  # document, xhr, fetch, ...
    fields: list[str] = Field(default_factory=list)  # form field names, never values
    failure: str | None = None

    @property
    def writes(self) -> bool:
        return self.method.upper() not in ("GET", "HEAD", "OPTIONS")

    @property
    def succeeded(self) -> bool:
        return self.status is not None and self.status < 400 and self.failure is None

    @property
    def error(self) -> bool:
        return self.failure is not None or (self.status is not None and self.status >= 400)

    def line(self) -> str:
        status = str(self.status) if self.status is not None else (self.failure or "no answer")
        names = f" fields {', '.join(self.fields)}" if self.fields else ""
        return f"{self.method} {self.url} -> {status}{names}"


class CookieChange(_Data):
    """Cookie names set (or given a new value) and removed on one site in one step."""

    site: str
    set: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class Late(_Data):
    """What the previous browser action caused after its own step was recorded: a
    request started (or answered) after that step's window closed, cookies changed
    since, dialogs shown since, and the error texts the page showed then. It belongs to
    that action (the verifier reads it so), and is saved with the step that saw it."""

    requests: list[RequestNote] = Field(default_factory=list)
    cookies: list[CookieChange] = Field(default_factory=list)
    page_errors: list[str] = Field(default_factory=list)
    dialogs: list[str] = Field(default_factory=list)


class Evidence(_Data):
    """One step's evidence, saved with the step record (``Step.evidence``)."""

    requests: list[RequestNote] = Field(default_factory=list)
    page_errors: list[str] = Field(default_factory=list)  # error texts shown after the action
    dialogs: list[str] = Field(default_factory=list)
    cookies: list[CookieChange] = Field(default_factory=list)
    downloads: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    calculations: list[str] = Field(default_factory=list)  # "expression = result"
    more_requests: int = 0  # requests beyond MAX_REQUESTS, counted only
    late: Late | None = None  # the previous action's, seen after its window closed

    @property
    def error_responses(self) -> list[RequestNote]:
        return [r for r in self.requests if r.error]

    @property
    def empty(self) -> bool:
        return not (self.requests or self.page_errors or self.dialogs or self.cookies
                    or self.downloads or self.notes or self.calculations or self.late)

    def lines(self) -> list[str]:
        """The evidence as short lines, for trace pages and a judge's prompt."""
        late = self.late or Late()
        out = [f"late, from the previous action: request: {r.line()}" for r in late.requests]
        out += [f"late, from the previous action: {line}" for line in _cookie_lines(late.cookies)]
        out += [f"late, from the previous action: error text on the page: {t}"
                for t in late.page_errors]
        out += [f"late, from the previous action: dialog: {t}" for t in late.dialogs]
        out += [f"request: {r.line()}" for r in self.requests]
        if self.more_requests:
            out.append(f"request: … and {self.more_requests} more")
        out += [f"error text on the page: {t}" for t in self.page_errors]
        out += [f"dialog: {t}" for t in self.dialogs]
        out += _cookie_lines(self.cookies)
        out += [f"download: {d}" for d in self.downloads]
        out += [f"note: {n}" for n in self.notes]
        out += [f"calculation: {c}" for c in self.calculations]
        return out


def _cookie_lines(changes: list[CookieChange]) -> list[str]:
    out = []
    for change in changes:
        if change.set:
            out.append(f"cookies set on {change.site}: {', '.join(change.set)}")
        if change.removed:
            out.append(f"cookies removed on {change.site}: {', '.join(change.removed)}")
    return out


VerdictName = Literal["verified", "unverified", "refuted"]


class CheckNote(_Data):
    """One check the verifier ran and what it found."""

    name: str
    passed: bool
    reason: str = ""


class Verification(_Data):
    """The verifier's word on a finished episode, beside its status.

    ``verified``: the evidence backs the claim; ``refuted``: the evidence contradicts
    it (an error answer, a failed write, a value seen nowhere); ``unverified``: the
    claim could not be checked or the episode made none (it did not stop)."""

    verdict: VerdictName
    reasons: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)  # what the goal was taken to be
    checks: list[CheckNote] = Field(default_factory=list)
    judge: str | None = None  # the model judge's verdict and reason, when one ran
    retries: int = 0  # stops sent back to the decider before this one

    @property
    def verified(self) -> bool:
        return self.verdict == "verified"

    def reason_text(self) -> str:
        return "; ".join(self.reasons)
