"""ScriptedModel: the canned stand-in used by unit tests of agent logic."""

from __future__ import annotations

import pytest

from colorbrowser.errors import ModelError
from colorbrowser.llm.scripted import ScriptedModel, ScriptExhausted
from colorbrowser.protocols import Model
from colorbrowser.types import Constraint, Message


def test_replies_come_back_in_order_and_calls_are_recorded():
    model = ScriptedModel(["first", "second"])
    assert isinstance(model, Model) and "scripted" in model.name
    constraint = Constraint(grammar="root ::= \"x\"")
    msgs = [Message("user", "hello")]
    assert model.complete(msgs, constraint=constraint, max_tokens=5).text == "first"
    msgs.append(Message("assistant", "first"))  # later changes do not rewrite history
    assert model.complete(msgs, temperature=0.3).text == "second"
    first, second = model.calls
    assert [m.content for m in first.messages] == ["hello"]
    assert first.constraint is constraint and first.max_tokens == 5
    assert second.temperature == 0.3 and len(second.messages) == 2
    assert model.remaining == 0


def test_a_reply_can_be_computed_from_the_messages():
    model = ScriptedModel([lambda msgs: f"echo {msgs[-1].content}"])
    assert model.complete([Message("user", "ping")]).text == "echo ping"


def test_a_scripted_exception_is_raised():
    model = ScriptedModel([ModelError("endpoint down"), "recovered"])
    with pytest.raises(ModelError, match="endpoint down"):
        model.complete([Message("user", "x")])
    assert model.complete([Message("user", "x")]).text == "recovered"


def test_running_out_of_replies_is_a_clear_error():
    model = ScriptedModel(["only"])
    model.complete([Message("user", "a")])
    with pytest.raises(ScriptExhausted, match=r"ran out of replies: call 2 but only 1"):
        model.complete([Message("user", "what now")])


def test_usage_is_deterministic():
    model = ScriptedModel(["x" * 40, "y" * 8])
    first = model.complete([Message("system", "s" * 100), Message("user", "u" * 20)])
    assert (first.usage.prompt_tokens, first.usage.completion_tokens) == (30, 10)
    model.complete([Message("user", "")])
    assert (model.usage.calls, model.usage.completion_tokens, model.usage.cost) == (2, 12, 0.0)
