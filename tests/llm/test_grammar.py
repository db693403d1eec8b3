"""The action grammar and JSON schema: everything they allow parses, bids stay on the page."""

from __future__ import annotations

import json
import random
import re

import pytest

from colorbrowser.actions import ACTIONS, extract_action_text, parse_action
from colorbrowser.errors import ActionParseError
from colorbrowser.llm.grammar import (
    action_constraint,
    action_from_json,
    action_grammar,
    json_action_schema,
    json_reply_to_tagged,
)

from .llm_gbnf import Grammar

BIDS = ["12", "13", "7", "a1", "x'y"]
SHAPE = re.compile(r"\A<think>(.*)</think>\n<action>(.*)</action>\Z", re.S)


def _samples(grammar_text: str, n: int, seed: int = 0) -> list[str]:
    g = Grammar(grammar_text)
    rng = random.Random(seed)
    return [g.sample(rng) for _ in range(n)]


def test_every_sampled_reply_has_the_tagged_shape_and_parses():
    seen = set()
    for text in _samples(action_grammar(BIDS), 3000):
        m = SHAPE.match(text)
        assert m, text
        thought, call = m.groups()
        assert 1 <= len(thought) <= 300
        assert "<" not in thought and "\n" not in thought and "\r" not in thought
        action = parse_action(extract_action_text(text))
        assert extract_action_text(text) == call
        seen.add(action.name)
        spec = ACTIONS[action.name]
        for param, value in zip(spec.params, action.args, strict=True):
            if param.kind == "bid":
                assert value in BIDS
    assert seen == set(ACTIONS), f"never produced: {set(ACTIONS) - seen}"


def test_optional_arguments_are_sometimes_given_and_sometimes_left_out():
    shapes = {(parse_action(extract_action_text(t)).name, SHAPE.match(t).group(2).count(","))
              for t in _samples(action_grammar(["1"]), 2000, seed=3)}
    assert ("click", 0) in shapes and ("click", 1) in shapes
    assert ("stop", 0) in shapes
    assert any(name == "stop" and commas == 0 for name, commas in shapes)


def test_strings_with_quotes_backslashes_and_unicode_round_trip_through_the_parser():
    g = Grammar(action_grammar(["1"], actions=["fill"]))
    rng = random.Random(5)
    tricky = 0
    for _ in range(2000):
        text = g.sample(rng)
        value = parse_action(extract_action_text(text)).args[1]
        tricky += any(c in value for c in "'\"\\<")
    assert tricky > 200  # the sampler really exercised escapes and quotes


def test_grammar_accepts_well_formed_calls_and_rejects_invented_ids():
    g = Grammar(action_grammar(["12", "13"]))
    ok = "<think>press the button</think>\n<action>click('12')</action>"
    assert g.accepts(ok)
    assert g.accepts("<think>t</think>\n<action>fill('13', \"it's 5 < 6\")</action>")
    assert g.accepts("<think>t</think>\n<action>scroll(0, -400.5)</action>")
    assert g.accepts("<think>t</think>\n<action>select_option('12', ['S', 'M'])</action>")
    assert not g.accepts(ok.replace("'12'", "'99'"))  # not on the page
    assert not g.accepts(ok.replace("'12'", "12"))  # bids are quoted literals
    assert not g.accepts("<think>a\nb</think>\n<action>click('12')</action>")
    assert not g.accepts("<think></think>\n<action>click('12')</action>")
    assert not g.accepts("<think>" + "x" * 301 + "</think>\n<action>click('12')</action>")
    assert not g.accepts("<think>t</think>\n<action>fill('12', 'a\nb')</action>")
    assert not g.accepts("<think>t</think>\n<action>fill('12', 'a</action>')</action>")
    assert not g.accepts("<think>t</think>\n<action>tab_focus(007)</action>")
    assert not g.accepts("<think>t</think>\n<action>click('12') click('13')</action>")


def test_without_bids_only_actions_that_need_no_element_remain():
    text = action_grammar([])
    for spec in ACTIONS.values():
        needs_bid = any(p.kind == "bid" for p in spec.params)
        rule = "act-" + spec.name.replace("_", "-") + " ::="
        assert (rule in text) != needs_bid, spec.name
    for sample in _samples(text, 300):
        action = parse_action(extract_action_text(sample))
        assert not any(p.kind == "bid" for p in ACTIONS[action.name].params)


def test_action_subset_and_thought_bound_are_respected():
    text = action_grammar(["4"], actions=["click", "stop"], max_thought_chars=20)
    for sample in _samples(text, 500):
        thought, call = SHAPE.match(sample).groups()
        assert len(thought) <= 20
        assert parse_action(call).name in {"click", "stop"}


def test_bad_grammar_requests_fail_loudly():
    with pytest.raises(ValueError, match="unknown action"):
        action_grammar(["1"], actions=["clik"])
    with pytest.raises(ValueError, match="needs an element id"):
        action_grammar([], actions=["click", "fill"])


def test_json_schema_lists_bids_as_an_enum_and_one_branch_per_action():
    schema = json_action_schema(["3", "4"], actions=["click", "fill", "stop"])
    branches = schema["properties"]["action"]["anyOf"]
    assert [b["properties"]["name"]["const"] for b in branches] == ["click", "fill", "stop"]
    assert branches[0]["properties"]["bid"]["enum"] == ["3", "4"]
    assert branches[1]["required"] == ["name", "bid", "value"]
    assert json.loads(json.dumps(schema)) == schema  # plain JSON


def test_json_replies_turn_into_actions_the_parser_accepts():
    thought, action = action_from_json(
        '{"thought": "type it", "action": {"name": "fill", "bid": "3", "value": "a\nb"}}')
    assert thought == "type it"
    assert action.name == "fill" and action.args == ["3", "a\nb"]
    tagged = json_reply_to_tagged(
        '{"thought": "go <now>", "action": {"name": "click", "bid": "4"}}')
    assert parse_action(extract_action_text(tagged)).args[0] == "4"
    assert "<now>" not in tagged.split("</think>")[0]
    with pytest.raises(ActionParseError):
        action_from_json('{"thought": "x", "action": {"name": "click", "bid": "4", "evil": 1}}')
    with pytest.raises(ActionParseError):
        action_from_json("not json")
    assert json_reply_to_tagged("not json") == "not json"


def test_action_constraint_carries_both_forms():
    c = action_constraint(["1"])
    assert c.grammar and "'1'" in c.grammar
    assert c.json_schema and c.json_schema["title"] == "colorbrowser_action"


def test_arguments_with_a_fixed_set_of_values_are_an_enum_everywhere():
    # click's button: the grammar, the JSON schema and the parser all allow only the
    # values the executor accepts, so a constrained model cannot write click('4', 'large').
    g = Grammar(action_grammar(["4"]))
    assert g.accepts("<think>t</think>\n<action>click('4', 'right')</action>")
    assert not g.accepts("<think>t</think>\n<action>click('4', 'large')</action>")
    assert not g.accepts("<think>t</think>\n<action>click('4', 'Submit')</action>")
    buttons = {parse_action(extract_action_text(t)).args[1]
               for t in _samples(action_grammar(["4"], actions=["click"]), 400, seed=5)}
    assert buttons == {"left", "right", "middle"}
    schema = json_action_schema(["4"], actions=["click"])
    button = schema["properties"]["action"]["anyOf"][0]["properties"]["button"]
    assert button == {"type": "string", "enum": ["left", "right", "middle"]}
    assert parse_action("click('4', button='middle')").args == ["4", "middle"]
    with pytest.raises(ActionParseError, match="button must be one of"):
        parse_action("click('4', 'large')")
    with pytest.raises(ActionParseError):
        action_from_json('{"thought": "x", "action": {"name": "click", "bid": "4", '
                         '"button": "large"}}')
