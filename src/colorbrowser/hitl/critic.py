"""The LLM critic: does the page after an action fit what the agent meant to do?

It catches what rules cannot see (a button that stays disabled for a missing
field, results about the wrong thing). A failed call or an unreadable verdict is
recorded as an error and the episode goes on: the critic only ever adds a trigger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.state import HistoryEntry
from colorbrowser.errors import ModelError
from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.prompts import render
from colorbrowser.protocols import Model
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
        self.template_dir = template_dir or TEMPLATE_DIR

    def due(self, actions_done: int) -> bool:
        """After every ``every``-th action (never before the first one)."""
        return actions_done > 0 and actions_done % self.every == 0

    def messages(self, goal: str, entry: HistoryEntry, obs: Observation) -> list[Message]:
        page = obs.axtree
        if len(page) > self.page_chars:
            page = page[: self.page_chars] + "\n… (page text cut here for length)"
        dirs = [self.template_dir, TEMPLATE_DIR]
        user = render("critic_user.j2", dirs, goal=goal, step=entry.step,
                      thought=entry.thought, action=entry.action, outcome=_outcome(entry),
                      url=obs.url, title=obs.title, page=page)
        image = obs.screenshot if getattr(self.model, "vision", False) else None
        return [Message("system", render("critic_system.j2", dirs)),
                Message("user", user, images=[image] if image else [])]

    def check(self, goal: str, entry: HistoryEntry, obs: Observation) -> Verdict:
        try:
            completion = self.model.complete(
                self.messages(goal, entry, obs),
                constraint=Constraint(grammar=critic_grammar(), json_schema=VERDICT_SCHEMA),
                max_tokens=160,
            )
        except ModelError as exc:
            return Verdict(None, error=f"critic model failed: {exc}")
        try:
            consistent, reason = parse_verdict(completion.text)
        except ValueError as exc:
            return Verdict(None, error=str(exc), usage=completion.usage)
        return Verdict(consistent, reason, usage=completion.usage)
