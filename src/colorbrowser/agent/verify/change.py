"""Checks of a change goal: a write was submitted and succeeded, nothing typed was left
unsent, the database changed, and the pages after it show what the goal asked to write."""

from __future__ import annotations

import re
from collections.abc import Sequence

from colorbrowser.agent.verify.effects import documents, writes
from colorbrowser.agent.verify.proof import Proof
from colorbrowser.agent.verify.values import Observed, Value, flat, values_in
from colorbrowser.evidence import CheckNote, RequestNote
from colorbrowser.steps import Step


def _acting(step: Step) -> bool:
    """A step that may have started a change (typed, chose, clicked, submitted)."""
    name = (step.action or "").split("(", 1)[0]
    return step.executed and name in ("fill", "select_option", "check", "uncheck", "click",
                                      "press", "dblclick")



def _cut_off_by_the_next_page(request: RequestNote, requests: Sequence[RequestNote]) -> bool:
    """A background call the browser cancelled (``net::ERR_ABORTED``, no answer) because
    the page it came from was left for a page that loaded: the server never refused it
    (a wiki's edit-stash call cut off by the save's own page load)."""
    return (request.kind != "document" and request.status is None
            and "ERR_ABORTED" in (request.failure or "")
            and any(r.kind == "document" and r.status is not None and not r.error
                    for r in requests))


def check_change(proof: Proof) -> list[CheckNote]:
    steps = [s for s in proof.steps if s.executed]
    last_write = max((i for i, s in enumerate(steps) if writes(s, sign_in=False)), default=None)
    if last_write is None:
        return [CheckNote(name="write_never_made", passed=False,
                          reason="nothing was saved: no form was submitted and no request "
                                 "changed anything on the server; submit the change")]
    notes: list[CheckNote] = []
    step = steps[last_write]
    requests = step.evidence.requests if step.evidence else []
    failed = [r for r in requests if r.error and (r.writes or r.kind == "document")
              and not _cut_off_by_the_next_page(r, requests)]
    if failed:
        r = failed[0]
        answered = f"answered {r.status}" if r.status is not None else f"failed ({r.failure})"
        notes.append(CheckNote(name="write_failed", passed=False,
                               reason=f"the server {answered} to {r.method} {r.url} at "
                                      f"step {step.step}: the change was not saved"))
    after = step.evidence
    if after is not None and after.page_errors and not notes:
        notes.append(CheckNote(name="write_failed", passed=False,
                               reason=f"the page after the change at step "
                                      f"{steps[last_write].step} shows an error: "
                                      f"{after.page_errors[0]!r}"))
    later = steps[last_write + 1:]
    typed = [i for i, s in enumerate(later) if _acting(s) and (s.action or "").startswith(
        ("fill", "select_option", "check", "uncheck"))]
    if typed:
        first = typed[0]
        submitted = any(documents(s) for s in later[first:])
        if not submitted:
            notes.append(CheckNote(
                name="write_never_made", passed=False,
                reason=f"what was entered at step {later[first].step} was never submitted "
                       "(no request followed it); submit the form"))
    if proof.state_changed is None and proof.state_probe is not None and not notes:
        proof.state_changed = proof.state_probe()
    if proof.state_changed is False and not notes:
        notes.append(CheckNote(name="nothing_stored", passed=False,
                               reason="the server said the change was saved, but nothing "
                                      "changed in its database"))
    if not notes:
        unseen = not_shown_after(proof, steps, last_write)
        if unseen:
            notes.append(CheckNote(
                name="change_not_shown", passed=False,
                reason=f"no page after the change at step {step.step} shows {unseen!r}, "
                       "which the goal asks for; check what was saved (open the page that "
                       "shows it) and correct it if needed"))
    if not notes:
        last = writes(steps[last_write], sign_in=False)[-1]
        notes.append(CheckNote(name="change", passed=True,
                               reason=f"{last.method} {last.url} answered {last.status}"))
    return notes


_SET_TO = re.compile(r"\b(?:set|change|update|rename|switch|move)\b.*\bto\s+([\w.+-]+)\s*[.!]?\s*$",
                     re.I)
_SAYS = re.compile(r"\b(?:says|saying|reads|reading|with the text|with text)\s*:\s*(.+?)\s*$",
                   re.I)


def written_values(goal: str) -> list[Value]:
    """What the goal asks to be written, as it must read afterwards: its quoted strings,
    the value a "set X to Y" goal ends with, and the text after "that says:"."""
    text = " ".join(goal.split())
    found = [v for v in values_in(text) if v.kind == "quoted"]
    for pattern in (_SET_TO, _SAYS):
        m = pattern.search(text)
        value = m.group(1).rstrip(".!") if m else ""
        if value and not any(v.text in value for v in found):
            found.append(Value("quoted", value, flat(value)))
    return found


def not_shown_after(proof: Proof, steps: Sequence[Step], last_write: int) -> str | None:
    """The first quoted value of the goal that no page seen after the last write shows
    (a comment posted with other words, a resolution other than the one asked for);
    None when each one is shown. Secrets are never shown back, so a goal about a
    password asks for nothing here."""
    if re.search(r"pass(?:word|phrase|code)|\bpin\b|secret", proof.goal, re.I):
        return None
    quoted = written_values(proof.goal)
    if not quoted:
        return None
    after = Observed()
    for later in steps[last_write + 1:]:
        after.add(later.title + "\n" + later.observation)
    after.add(proof.final.title + "\n" + proof.final.text)
    return next((v.text for v in quoted if not after.holds(v)), None)

