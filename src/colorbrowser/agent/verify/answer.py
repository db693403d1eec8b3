"""Checks of an answer to a question: it says something, a "cannot" gives a reason, a
count is a number, and every value in it was seen or computed from seen values."""

from __future__ import annotations

import json
import re

from colorbrowser.agent.verify.proof import Proof
from colorbrowser.agent.verify.values import contains, flat, numbers_in, observed_text, values_in
from colorbrowser.evidence import CheckNote

_CANNOT = re.compile(
    r"\b(?:cannot|can ?not|can't|unable|impossible|not possible|no way|could not|couldn't|"
    r"not (?:be )?(?:done|found|available|able)|n/?a|infeasible|unknown)\b", re.I)
_BECAUSE = re.compile(r"\b(?:because|since|as|due to|so|but|there is no|there are no|"
                      r"does not exist|doesn't exist|no such|only)\b|[:—–(]", re.I)



def check_answer(proof: Proof, kinds: list[str]) -> CheckNote | None:
    answer = (proof.answer or "").strip()
    if not answer:
        if "information" not in kinds:
            return None
        return CheckNote(name="answer", passed=False,
                         reason="the answer is empty: the goal asks for information, so "
                                "give the value you found")
    if _CANNOT.search(answer) and not _BECAUSE.search(answer) and len(answer.split()) < 12:
        return CheckNote(name="cannot_without_reason", passed=False,
                         reason=f"the answer {answer!r} says the task cannot be done but gives "
                                "no reason; say why, or keep trying")
    return CheckNote(name="answer", passed=True)


_HOW_MANY = re.compile(r"^\s*(?:please\s+)?(?:how\s+(?:many|much)|what\s+is\s+the\s+"
                       r"(?:number|count|total|amount|sum)|count)\b", re.I)
_NUMBER_WORDS = re.compile(r"\b(?:zero|none|no|nothing|one|two|three|four|five|six|seven|"
                           r"eight|nine|ten|eleven|twelve|dozen|hundred|thousand)\b", re.I)


def check_answer_kind(proof: Proof) -> CheckNote | None:
    """A question that asks how many (or how much) is answered by a quantity: "Timeline"
    read off a menu is grounded, yet answers nothing."""
    answer = (proof.answer or "").strip()
    if not answer or not _HOW_MANY.search(" ".join(proof.goal.split())):
        return None
    if numbers_in(answer) or _NUMBER_WORDS.search(answer):
        return CheckNote(name="answer_kind", passed=True)
    return CheckNote(name="answer_kind", passed=False,
                     reason=f"the goal asks how many, but the answer {answer[:80]!r} gives no "
                            "number; count them and answer with the number")


def json_leaves(answer: str) -> str:
    """A typed answer (JSON text, as an answer schema makes it) as its leaf values: the
    schema's keys are no values the page must show, true/false/null say nothing."""
    try:
        data = json.loads(answer)
    except ValueError:
        return answer
    if not isinstance(data, dict | list):
        return answer
    leaves: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
        elif isinstance(node, str) and node.strip():
            leaves.append(json.dumps(node, ensure_ascii=False))  # quoted: found as written
        elif isinstance(node, int | float) and not isinstance(node, bool):
            leaves.append(str(node))
    walk(data)
    return "; ".join(leaves)


def check_grounded(proof: Proof) -> CheckNote | None:
    answer = json_leaves((proof.answer or "").strip())
    if not answer:
        return None
    seen = observed_text(proof.goal, proof.steps, proof.final.text)
    if re.search(r"[^\W\d_]", answer) and contains(seen.text, flat(answer)):
        return CheckNote(name="grounded", passed=True, reason="the answer appears as written")
    missing = [v for v in values_in(answer) if not seen.holds(v)]
    if not missing:
        return CheckNote(name="grounded", passed=True)
    shown = ", ".join(repr(v.text) for v in missing[:3])
    which = "value" if len(missing) == 1 else "values"
    verb = "appears" if len(missing) == 1 else "appear"
    return CheckNote(name="grounded", passed=False,
                     reason=f"the {which} {shown} in your answer {verb} on no page you saw and "
                            "came from no calculation of seen values; look it up on the site "
                            "before answering")

