"""The verifier at the stop: deterministic checks of a claimed "done" against evidence.

It reads only what the episode left behind: the goal, the pages observed (their text),
the evidence the browser recorded for each action (requests, cookies, error texts),
the agent's notes and calculations, and the page it stopped on. It decides what the
goal asks for from the goal's wording *and* from what the episode did (a form posted,
a password typed), then checks each of those:

- an answer to a question must say something, and "cannot be done" needs a reason;
- a question of how many needs a number in its answer;
- an information answer must be grounded: each value in it (numbers, dates, quoted
  strings, names) was seen on a page, given in the goal, or computed by ``calculate``
  from such values (a note counts when its own values were seen);
- a change needs a successful write request after the last change action, no error
  response, and no error text on the page that followed;
- signing in needs a session cookie set for the site;
- opening a page needs an action that left the start page, and the final page not to
  be an error page.

An action's effects may come after its step was recorded (a submit whose navigation
began late): the next step's evidence carries them as ``late``, and the stop brings
what came since the last step (``Proof.tail``); both count as the earlier action's.

A failed check says why in words the decider can act on ("the value 42 appears on no
page you saw"), because the gate returns that reason to it.

Layout: ``goal`` reads what is asked, ``effects`` what the actions did, ``values`` what
an answer states and the episode saw; the checks are one module a goal kind (``answer``,
``change``, ``pages`` for signing in and opening); ``proof`` is what they all read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from colorbrowser.agent.verify.answer import check_answer, check_answer_kind, check_grounded
from colorbrowser.agent.verify.change import check_change
from colorbrowser.agent.verify.effects import with_late
from colorbrowser.agent.verify.goal import goal_kinds
from colorbrowser.agent.verify.pages import check_open, check_sign_in
from colorbrowser.agent.verify.proof import REFUTING, Check, FinalPage, Proof
from colorbrowser.agent.verify.values import Value, values_in
from colorbrowser.evidence import CheckNote, Verification

__all__ = ["REFUTING", "Check", "FinalPage", "Proof", "Value", "goal_kinds", "values_in",
           "verdict_of", "verify"]


def verify(proof: Proof) -> Verification:
    """The deterministic verdict on a stop, with the reasons for it."""
    if not proof.stopped:
        return Verification(verdict="unverified", reasons=[
            f"the episode ended without an answer ({proof.status})"])
    proof = replace(proof, steps=with_late(proof.steps, proof.tail), tail=None)
    kinds = goal_kinds(proof.goal, proof.steps)
    checks: list[CheckNote] = []
    answer = check_answer(proof, kinds)
    if answer is not None:
        checks.append(answer)
    if "information" in kinds and (answer is None or answer.passed):
        for check in (check_answer_kind, check_grounded):
            note = check(proof)
            if note is not None:
                checks.append(note)
    if "change" in kinds:
        checks += check_change(proof)
    if "sign_in" in kinds:
        checks.append(check_sign_in(proof))
    if "open" in kinds:
        checks.append(check_open(proof))
    return verdict_of(checks, kinds)


def verdict_of(checks: Iterable[CheckNote], kinds: list[str]) -> Verification:
    checks = list(checks)
    failed = [c for c in checks if not c.passed]
    if any(c.name in REFUTING for c in failed):
        verdict = "refuted"
    elif failed:
        verdict = "unverified"
    else:
        verdict = "verified"
    return Verification(verdict=verdict, reasons=[c.reason for c in failed], kinds=kinds,
                        checks=checks)
