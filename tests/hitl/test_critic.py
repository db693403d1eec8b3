"""The LLM critic: verdict parsing, its grammar, and the grammar on the real llama.cpp server."""

from __future__ import annotations

import contextlib
import random

import pytest

from colorbrowser.config import ModelSettings
from colorbrowser.errors import ModelError
from colorbrowser.hitl.critic import Critic, critic_grammar, parse_verdict
from colorbrowser.llm.prompts import fenced_spans, outside_fences
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.steps import HistoryEntry
from colorbrowser.types import Observation

from ..llm.llm_gbnf import Grammar

OBS = Observation(url="http://127.0.0.1/checkout", title="Checkout",
                  axtree="[4] checkbox 'I agree to the terms'\n[5] button 'Place order'")
CLICK = HistoryEntry(3, "http://127.0.0.1/checkout", "click('5')", True,
                     thought="Place the order to finish.")


@pytest.mark.parametrize("text,expected", [
    ('{"verdict": "consistent", "reason": "the order page opened"}',
     (True, "the order page opened")),
    ('{"verdict":"inconsistent","reason":"the button did nothing"}',
     (False, "the button did nothing")),
    ('Sure:\n```json\n{"verdict": "Inconsistent", "reason": "wrong\\nproduct"}\n```',
     (False, "wrong product")),
    ('{"verdict": "consistent"}', (True, "")),
])
def test_verdicts_parse_with_their_reason(text, expected):
    assert parse_verdict(text) == expected


@pytest.mark.parametrize("text,message", [
    ("The page looks fine to me.", "not a JSON object"),
    ('{"verdict": "consistent", "reason": }', "not valid JSON"),
    ('{"verdict": "maybe", "reason": "unsure"}', "must be consistent or inconsistent"),
    ('{"verdict": true}', "must be consistent or inconsistent"),
    ('{"verdict": "consistent", "reason": ["a", "b"]}', "reason must be a string"),
    ("[1, 2]", "not a JSON object"),
])
def test_bad_critic_output_is_a_readable_error(text, message):
    with pytest.raises(ValueError, match=message):
        parse_verdict(text)


def test_everything_the_grammar_allows_parses_as_a_verdict():
    grammar = Grammar(critic_grammar())
    rng = random.Random(7)
    seen = set()
    for _ in range(300):
        text = grammar.sample(rng)
        consistent, reason = parse_verdict(text)
        seen.add(consistent)
        assert reason
    assert seen == {True, False}
    assert not grammar.accepts('{"verdict": "maybe", "reason": "x"}')
    assert not grammar.accepts('{"verdict": "consistent", "reason": "two\nlines"}')


def test_the_critic_prompt_fences_the_page_and_states_the_intent():
    model = ScriptedModel(['{"verdict": "inconsistent", "reason": "still on checkout"}'])
    verdict = Critic(model).check("Buy green tea", CLICK, OBS)
    assert verdict.consistent is False and verdict.reason == "still on checkout"
    system, user = model.calls[0].messages
    assert "website content" in system.content
    assert "Place the order to finish." in user.content and "click('5')" in user.content
    page_line = user.content.index("[5] button 'Place order'")
    assert any(start < page_line < end for start, end in fenced_spans(user.content))
    assert "Place order" not in outside_fences(user.content)
    assert model.calls[0].constraint.grammar == critic_grammar()


def test_a_failing_or_rambling_critic_is_recorded_not_raised():
    broken = Critic(ScriptedModel([ModelError("endpoint down")])).check("g", CLICK, OBS)
    assert broken.consistent is None and "endpoint down" in broken.error
    rambling = Critic(ScriptedModel(["I think it is fine."])).check("g", CLICK, OBS)
    assert rambling.consistent is None and "not a JSON object" in rambling.error
    assert rambling.to_json() == {"error": rambling.error}


def test_the_critic_runs_after_every_kth_action_only():
    critic = Critic(ScriptedModel([]), every=3)
    assert [n for n in range(0, 10) if critic.due(n)] == [3, 6, 9]


@pytest.mark.model
def test_the_grammar_is_accepted_by_the_real_llama_cpp_server_and_constrains_it(
        tmp_path_factory):
    from colorbrowser.llm.factory import make_model

    cache = tmp_path_factory.mktemp("critic-llm")
    with contextlib.ExitStack() as stack:
        model = make_model(ModelSettings(), stack=stack, cache_dir=cache)
        verdict = Critic(model).check("Buy one box of green tea", CLICK, OBS)
    # A server that rejects the grammar dies and the call fails: that would be an error here.
    assert verdict.error is None, verdict.error
    assert verdict.consistent in (True, False) and verdict.reason
    assert verdict.usage.completion_tokens > 0
