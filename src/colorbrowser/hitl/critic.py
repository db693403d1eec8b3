"""The LLM critic: does the page after an action fit what the agent meant to do?

It catches what rules cannot see (a button that stays disabled for a missing
field, results about the wrong thing). A failed call or an unreadable verdict is
recorded as an error and the episode goes on: the critic only ever adds a trigger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.prompts import clip_page
from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model
from colorbrowser.steps import CriticNote, HistoryEntry
from colorbrowser.types import Constraint, Message, Observation, Usage

TEMPLATE_DIR = Path(__file__).parent / "templates"
VERDICTS = ("consistent", "inconsistent")
VERDICT_SCHEMA: dict[str, Any] = {
    "title": "critic_verdict",
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": list(VERDICTS)},
        "reason": {"type": "string", "maxLength": 200},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


@dataclass
class Verdict:
    consistent: bool | None  # None: no verdict (the call or the reply failed)
    reason: str = ""
    error: str | None = None
    usage: Usage = field(default_factory=Usage)

    def to_json(self) -> dict[str, Any]:
        if self.error:
            return {"error": self.error}
        return {"verdict": "consistent" if self.consistent else "inconsistent",
                "reason": self.reason}

    def note(self) -> CriticNote:
        """The verdict as the step record keeps it."""
        return CriticNote.model_validate(self.to_json())


def critic_grammar() -> str:
    return (TEMPLATE_DIR / "critic.gbnf").read_text(encoding="utf-8")


def parse_verdict(text: str) -> tuple[bool, str]:
    """(consistent, reason) from the model's reply; ValueError says what is wrong."""
    data = json_object(text, "the critic's reply")
    verdict = data.get("verdict")
    if isinstance(verdict, str):
        verdict = verdict.strip().lower()
    if verdict not in VERDICTS:
        raise ValueError(f"the critic's verdict must be consistent or inconsistent, "
                         f"got {verdict!r}")
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise ValueError("the critic's reason must be a string")
    return verdict == "consistent", " ".join(reason.split())[:300]


def _outcome(entry: HistoryEntry) -> str:
    if not entry.ok:
        return f"failed: {entry.error}"
    return f"ok: {entry.output}" if entry.output else "ok"


class Critic:
    def __init__(self, model: Model, *, every: int = 1, page_chars: int = 4000,
                 template_dir: Path | None = None) -> None:
        self.model = model
        self.every = max(1, every)
        self.page_chars = page_chars
        self.role: Role[tuple[bool, str]] = Role(
            model, system="critic_system.j2", user="critic_user.j2", parse=parse_verdict,
            templates=[template_dir, TEMPLATE_DIR],
            constraint=Constraint(grammar=critic_grammar(), json_schema=VERDICT_SCHEMA),
            max_tokens=160)

    def due(self, actions_done: int) -> bool:
        """After every ``every``-th action (never before the first one)."""
        return actions_done > 0 and actions_done % self.every == 0

    def context(self, goal: str, entry: HistoryEntry, obs: Observation) -> dict[str, object]:
        return {"goal": goal, "step": entry.step, "thought": entry.thought,
                "action": entry.action, "outcome": _outcome(entry), "url": obs.url,
                "title": obs.title, "page": clip_page(obs.axtree, self.page_chars)}

    def messages(self, goal: str, entry: HistoryEntry, obs: Observation) -> list[Message]:
        return self.role.messages(images=[obs.screenshot] if obs.screenshot else [],
                                  **self.context(goal, entry, obs))

    def check(self, goal: str, entry: HistoryEntry, obs: Observation) -> Verdict:
        reply = self.role.ask(images=[obs.screenshot] if obs.screenshot else [],
                              **self.context(goal, entry, obs))
        if reply.value is None:
            error = f"critic {reply.error}" if reply.failure is not None else reply.error
            return Verdict(None, error=error, usage=reply.usage)
        consistent, reason = reply.value
        return Verdict(consistent, reason, usage=reply.usage)
