"""Fixtures for the evaluation harness tests: a scripted judge model (canned replies,
for the fuzzy_match plumbing only). The real Chromium comes from tests/conftest.py."""

from __future__ import annotations

import pytest

from colorbrowser.types import Completion, Constraint, Message


class ScriptedModel:
    """Satisfies the Model protocol with canned replies, recording what it was sent."""

    name = "scripted-judge"
    vision = False

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.calls: list[list[Message]] = []

    def complete(self, messages: list[Message], *, constraint: Constraint | None = None,
                 max_tokens: int | None = None, temperature: float | None = None,
                 ) -> Completion:
        self.calls.append(list(messages))
        if not self.replies:
            raise AssertionError("the scripted model ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, model=self.name)


@pytest.fixture
def bench_url(pages_url):
    return f"{pages_url}/evaluation"


@pytest.fixture
def scripted():
    """The ScriptedModel class, to build judges with canned replies."""
    return ScriptedModel
