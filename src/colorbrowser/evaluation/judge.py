"""The LLM judge behind WebArena's ``fuzzy_match`` (and its "N/A" reason check).

Prompts are our own templates in ``templates/``. The reply must end with a
``verdict:`` line; a reply without one falls back to WebArena's keyword rule
("incorrect"/"partially correct" beat "correct", "different" beats "same"), and a
reply with neither is reported as unclear rather than guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model

_VERDICT = re.compile(
    r"verdict\W{0,3}(partially correct|incorrect|correct|same|different)", re.IGNORECASE)


@dataclass
class Verdict:
    score: float | None  # 1.0 / 0.0, or None when no verdict could be read
    reply: str = ""
    error: str | None = None


TEMPLATES = Path(__file__).parent / "templates"


class Judge:
    """Asks a chat model to grade one answer; failures come back as data."""

    def __init__(self, model: Model, *, max_tokens: int = 256) -> None:
        self.model = model
        self.roles = {name: Role(model, system="judge_system.j2", user=name, parse=str,
                                 templates=[TEMPLATES], max_tokens=max_tokens, temperature=0.0)
                      for name in ("judge_answer.j2", "judge_unachievable.j2")}

    def answer_matches(self, question: str, reference: str, answer: str) -> Verdict:
        reply = self._ask("judge_answer.j2", question, reference, answer)
        if reply.error:
            return reply
        word = _verdict_word(reply.reply, ("correct", "incorrect", "partially correct"))
        if word is None:
            low = reply.reply.lower()
            if "partially correct" in low or "incorrect" in low:
                word = "incorrect"
            elif "correct" in low:
                word = "correct"
        return _scored(reply.reply, word, good="correct")

    def same_reason(self, question: str, actual: str, reported: str) -> Verdict:
        reply = self._ask("judge_unachievable.j2", question, actual, reported)
        if reply.error:
            return reply
        word = _verdict_word(reply.reply, ("same", "different"))
        if word is None:
            low = reply.reply.lower()
            word = "different" if "different" in low else "same" if "same" in low else None
        return _scored(reply.reply, word, good="same")

    def _ask(self, template: str, question: str, reference: str, answer: str) -> Verdict:
        reply = self.roles[template].ask(question=question, reference=reference, answer=answer)
        if reply.value is None:  # any model failure is data: the episode is unscored
            return Verdict(None, error=f"judge {reply.error}")
        return Verdict(None, reply=reply.value or "")


def _verdict_word(reply: str, allowed: tuple[str, ...]) -> str | None:
    words = [w.lower() for w in _VERDICT.findall(reply) if w.lower() in allowed]
    return words[-1] if words else None


def _scored(reply: str, word: str | None, *, good: str) -> Verdict:
    if word is None:
        return Verdict(None, reply=reply, error="judge reply has no verdict")
    return Verdict(1.0 if word == good else 0.0, reply=reply)
