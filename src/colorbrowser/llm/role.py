"""One way to call a model role: the Operator, the Summarizer, the critic, the judge,
and any role added later (the explorer's Predictor, the copilot's event clean-up).

A role is two templates (system and user, see llm/prompts.py for the fence around
page text), a parser from reply text to a typed value, and optionally constrained
output. ``ask`` renders, sends, parses, re-asks with the parser's complaint when it
may, counts usage, and returns failures as data: a role never raises for a bad
reply, and the endpoint's own failure is handed back for the caller to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from colorbrowser.errors import ModelError
from colorbrowser.llm.prompts import render
from colorbrowser.protocols import Model
from colorbrowser.types import Constraint, Message, Usage

T = TypeVar("T")

RETRY_TEMPLATE = "retry.j2"  # in llm/templates: the reply, fenced, and what was wrong
TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class RoleReply(Generic[T]):
    value: T | None
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    error: str | None = None  # why there is no value (endpoint failed, reply unusable)
    failure: ModelError | None = None  # the endpoint's failure, for callers that must stop
    attempts: list[str] = field(default_factory=list)  # what was wrong with each reply
    messages: list[Message] = field(default_factory=list)  # the prompt as first sent


class Role(Generic[T]):
    """A template pair, a parser and how to ask. ``parse`` raises ValueError (or a
    subclass) with a message the model can act on when the reply is unusable."""

    def __init__(self, model: Model, *, system: str, user: str, parse: Callable[[str], T],
                 templates: Sequence[Path | None], constraint: Constraint | None = None,
                 retries: int = 0, retry: str = RETRY_TEMPLATE,
                 max_tokens: int | None = None, temperature: float | None = None,
                 system_context: Mapping[str, object] | None = None) -> None:
        self.model = model
        self.system, self.user, self.retry = system, user, retry
        self.parse = parse
        self.dirs = [*templates, TEMPLATES]
        self.constraint = constraint
        self.retries = retries
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.system_context = dict(system_context or {})

    def render(self, name: str, /, **context: object) -> str:
        return render(name, self.dirs, **context)

    def messages(self, *, images: Sequence[bytes] = (), **context: object) -> list[Message]:
        shown = list(images) if getattr(self.model, "vision", False) else []
        return [Message("system", self.render(self.system, **self.system_context)),
                Message("user", self.render(self.user, **context), images=shown)]

    def ask(self, *, images: Sequence[bytes] = (), constraint: Constraint | None = None,
            **context: object) -> RoleReply[T]:
        first = self.messages(images=images, **context)
        reply: RoleReply[T] = RoleReply(None, messages=first)
        convo = first
        for _ in range(self.retries + 1):
            try:
                completion = self.model.complete(
                    convo, constraint=constraint or self.constraint,
                    max_tokens=self.max_tokens, temperature=self.temperature)
            except ModelError as exc:
                line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                reply.error, reply.failure = f"model failed: {line}", exc
                return reply
            reply.usage.add(completion.usage)
            reply.text = completion.text
            try:
                reply.value = self.parse(completion.text)
            except ValueError as exc:
                reply.attempts.append(str(exc))
                reply.error = str(exc)
                convo = self._again(first, completion.text, str(exc))
                continue
            reply.error = None
            return reply
        return reply

    def _again(self, first: list[Message], text: str, error: str) -> list[Message]:
        """The first prompt plus the unusable reply and why, fenced: a reply may quote a
        page, so it is shown as data in the prompt, never replayed as the model's turn."""
        note = self.render(self.retry, error=error, reply=text)
        *head, user = first
        return [*head, Message("user", f"{user.content}\n{note}", images=user.images)]
