"""Scripted replies for episodes that involve the Operator, the Summarizer and the critic.

One ScriptedModel serves all three roles; each reply is computed from the prompt
the role actually received, so a test fails when the agent did not show it what
the test expects it to have seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from colorbrowser.config import AgentSettings, HitlSettings, PathSettings, Settings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act
from colorbrowser.types import Message

TERMS_TIP = "Tick the 'I agree to the terms' box before pressing Place order."

Reply = Callable[[str], str]


def role_of(messages: list[Message]) -> str:
    system = messages[0].content if messages else ""
    if system.startswith("You keep the running memory"):
        return "summarizer"
    if system.startswith("You review one step"):
        return "critic"
    return "operator"


def summary(progress="working on it", **more) -> str:
    reply = {"progress": [progress], "facts": [], "state": "as expected", "on_track": True,
             "tip_violations": [], "guidance": ""}
    reply.update(more)
    return json.dumps(reply)


def scripted(operator: Reply, summarizer: Reply | None = None, critic: Reply | None = None,
             calls: int = 200) -> ScriptedModel:
    """A ScriptedModel whose replies depend on the role asked and on its prompt."""
    handlers = {"operator": operator, "summarizer": summarizer or (lambda p: summary()),
                "critic": critic or (lambda p: '{"verdict": "consistent", "reason": "fine"}')}

    def reply(messages: list[Message]) -> str:
        return handlers[role_of(messages)](messages[-1].content)

    return ScriptedModel([reply] * calls)


def prompts(model: ScriptedModel, role: str = "operator") -> list[str]:
    return [c.messages[-1].content for c in model.calls if role_of(c.messages) == role]


def bid(prompt: str, role: str, name: str) -> str:
    m = re.search(rf"\[(\w+)\] {role} '{re.escape(name)}'", prompt)
    assert m, f"{role} {name!r} not in the prompt"
    return m.group(1)


def checkout_operator(tip: str = TERMS_TIP) -> Reply:
    """Presses Place order until the tip about the terms box is in its prompt."""
    def reply(prompt: str) -> str:
        if "Thank you" in prompt:
            return act("The order went through.", "stop('order placed')")
        box = bid(prompt, "checkbox", "I agree to the terms")
        if tip in prompt and f"[{box}] checkbox 'I agree to the terms' unchecked" in prompt:
            return act("The tip says to tick the terms first.", f"check('{box}')")
        return act("Place the order.", f"click('{bid(prompt, 'button', 'Place order')}')")
    return reply


def settings(tmp_path: Path, kb: Path | None, *, knowledge: str = "on", memory: str = "none",
             max_steps: int = 8, embeddings: bool = False, **hitl) -> Settings:
    return Settings(
        # The checkout page is static (no order is ever posted): these tests are about
        # triggers and help, so the verifier, which would refuse its "order placed", is off.
        agent=AgentSettings(knowledge=knowledge, memory=memory, max_steps=max_steps,
                            tips_embeddings=embeddings, verify="off"),
        hitl=HitlSettings(**hitl),
        paths=PathSettings(runs=tmp_path / "runs", knowledge=kb, cache=tmp_path / "cache"),
    )
