"""What the episode's browser actions did: the writes they sent, sign-ins, and the
effects that arrived after their step was recorded (given back to the action)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from colorbrowser.actions import BUILTIN
from colorbrowser.evidence import Evidence, Late, RequestNote
from colorbrowser.steps import Step

_LOGIN_FIELD = re.compile(r"pass|pwd|login|user|email|auth|otp|token", re.I)
_PASSWORD_FIELD = re.compile(r"pass|pwd", re.I)


def is_sign_in_request(request: RequestNote) -> bool:
    """A write that signs in (sends a password, or only login fields to a sign-in path):
    it makes a session, not the change a goal asks for."""
    return any(_PASSWORD_FIELD.search(f) for f in request.fields) or bool(
        re.search(r"log_?in|sign_?in|auth|session", urlsplit(request.url).path, re.I)
        and all(_LOGIN_FIELD.search(f) or f.startswith("_") or "csrf" in f.lower()
                or "token" in f.lower() for f in request.fields))


# Actions that submit: a write caused by typing or choosing (an auto-preview, a draft
# saved as one types) is no commitment, so it never counts as the change being made.
_COMMITS = ("click", "dblclick", "press", "check", "uncheck")


def writes(step: Step, *, sign_in: bool | None = None) -> list[RequestNote]:
    """The write requests a submitting action caused; ``sign_in`` False leaves sign-ins
    out, True keeps only them, None keeps all."""
    if step.evidence is None or (step.action or "").split("(", 1)[0] not in _COMMITS:
        return []
    out = [r for r in step.evidence.requests if r.writes]
    if sign_in is None:
        return out
    return [r for r in out if is_sign_in_request(r) == sign_in]


def in_browser(step: Step) -> bool:
    """A step whose action ran in the browser (not a stop, a note, a calculation, a
    tool, nor one the gate held back)."""
    spec = BUILTIN.spec_for((step.action or "").split("(", 1)[0])
    return step.executed and spec is not None and spec.scope in ("page", "browser")


def with_late(steps: Sequence[Step], tail: Late | None = None) -> list[Step]:
    """The steps with what each browser action caused late given back to it: the late
    part of a later step's evidence, and ``tail`` (what came after the last step)."""
    out = list(steps)
    owner: int | None = None
    for i, step in enumerate(steps):
        late = step.evidence.late if step.evidence is not None else None
        if late is not None and owner is not None:
            out[owner] = _merged(out[owner], late)
        if in_browser(step):
            owner = i
    if tail is not None and owner is not None:
        out[owner] = _merged(out[owner], tail)
    return out


def _merged(step: Step, late: Late) -> Step:
    evidence = (step.evidence or Evidence()).model_copy(deep=True)
    for note in late.requests:
        if note in evidence.requests:
            continue  # told twice (a stop's tail, then its own record)
        waiting = [i for i, r in enumerate(evidence.requests) if r.status is None
                   and r.failure is None and (r.method, r.url, r.kind) == (
                       note.method, note.url, note.kind)]
        if waiting:
            evidence.requests[waiting[0]] = note  # its answer came late
        else:
            evidence.requests.append(note)
    evidence.cookies += late.cookies
    evidence.dialogs += late.dialogs
    if any(r.kind == "document" for r in late.requests):
        evidence.page_errors = list(late.page_errors)  # the page it led to, not the one left
    else:
        evidence.page_errors += [t for t in late.page_errors if t not in evidence.page_errors]
    return step.model_copy(update={"evidence": evidence})



def documents(step: Step) -> list[RequestNote]:
    """The page loads a step caused."""
    return [r for r in (step.evidence.requests if step.evidence else []) if r.kind == "document"]
