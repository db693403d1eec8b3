"""ScriptedModel: canned replies for unit tests of agent logic (never a real model)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from colorbrowser.types import Completion, Constraint, Message, Usage

Reply = str | Callable[[list[Message]], str] | BaseException


class ScriptExhausted(RuntimeError):
    """The test asked the scripted model for more replies than it was given."""


@dataclass
class ScriptedCall:
    messages: list[Message]
    constraint: Constraint | None = None
    max_tokens: int | None = None
    temperature: float | None = None


@dataclass
class ScriptedModel:
    """A scripted stand-in for a chat model: returns the given replies in order.

    A reply may be text, a function of the messages (to answer from what the
    agent actually sent), or an exception to raise. Every call is recorded in
    ``calls``. Usage is deterministic: a token is 4 characters, cost is zero.
    """

    replies: Sequence[Reply]
    name: str = "scripted"
    vision: bool = False
    calls: list[ScriptedCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def remaining(self) -> int:
        return len(self.replies) - len(self.calls)

    def complete(
        self,
        messages: list[Message],
        *,
        constraint: Constraint | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        index = len(self.calls)
        self.calls.append(ScriptedCall(list(messages), constraint, max_tokens, temperature))
        if index >= len(self.replies):
            raise ScriptExhausted(
                f"ScriptedModel ran out of replies: call {index + 1} but only "
                f"{len(self.replies)} scripted; last message: "
                f"{(messages[-1].content if messages else '')[:80]!r}")
        reply = self.replies[index]
        if isinstance(reply, BaseException):
            raise reply
        text = reply(list(messages)) if callable(reply) else reply
        usage = Usage(prompt_tokens=sum(len(m.content) for m in messages) // 4,
                      completion_tokens=len(text) // 4, calls=1)
        self.usage.add(usage)
        return Completion(text=text, usage=usage, model=self.name, raw={"scripted": True})
