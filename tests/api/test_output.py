"""Typed answers: ``output=`` (pydantic model or JSON schema) and ``run --output-schema``.

The Operator is shown the schema, the grammar writes only literals of it, and an
answer that does not fit is a format error the model reads and corrects (scripted
model replies; real browser and local page)."""

from __future__ import annotations

import json
import random

import pytest
from pydantic import BaseModel

from colorbrowser import Agent
from colorbrowser.actions import BUILTIN, extract_action_text, parse_action
from colorbrowser.agent.operator import split_reply
from colorbrowser.agent.output import OutputSpec
from colorbrowser.cli import main
from colorbrowser.errors import ActionParseError, UserError
from colorbrowser.llm.grammar import action_grammar, json_action_schema, json_reply_to_tagged
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import ScriptedEndpoint, act, run_cli

from ..llm.llm_gbnf import Grammar

# The answers here are about typing, not grounding: the verifier is off (tests/agent has it).
QUIET = {"knowledge": "off", "memory": "none", "verify": "off"}


class Seller(BaseModel):
    city: str
    rating: float


class Product(BaseModel):
    name: str
    price: int
    in_stock: bool
    tags: list[str]
    seller: Seller | None


def test_the_answer_comes_back_as_the_model_after_a_correction(pages_url, tmp_path):
    model = ScriptedModel([
        act("Done.", "stop({'name': 'socks'})"),  # misses fields: told, and corrects it
        act("All fields now.", "stop({'name': 'socks', 'price': 14, 'in_stock': True, "
                               "'tags': ['wool'], 'seller': {'city': 'Oslo', 'rating': 4}})"),
    ])
    result = Agent("Describe the socks", url=f"{pages_url}/agent/login.html", model=model,
                   output=Product, run_dir=tmp_path / "run", **QUIET).run()
    assert result.status == "done"
    product = result.output
    assert isinstance(product, Product) and isinstance(product.seller, Seller)
    assert type(product.price) is int and product.price == 14
    assert product.seller.rating == 4.0 and product.tags == ["wool"]
    assert json.loads(result.answer)["price"] == 14  # the run folder holds JSON text
    system = model.calls[0].messages[0].content
    assert "JSON schema" in system and '"seller"' in system
    retry = model.calls[1].messages[-1].content
    assert "does not fit the answer schema" in retry and "price" in retry
    assert result.steps[0].format_errors


def test_a_json_schema_dict_keeps_integers_and_reads_json_spelling(pages_url, tmp_path):
    schema = {"type": "object", "properties": {"count": {"type": "integer"},
                                               "found": {"type": "boolean"},
                                               "note": {"type": ["string", "null"]}},
              "required": ["count", "found", "note"]}
    model = ScriptedModel([act("ok", 'stop({"count": 3, "found": true, "note": null})')])
    result = Agent("Count", url=f"{pages_url}/agent/login.html", model=model, output=schema,
                   run_dir=tmp_path / "run", **QUIET).run()
    assert result.output == {"count": 3, "found": True, "note": None}
    assert type(result.output["count"]) is int


def test_the_grammar_writes_only_answers_that_parse_and_validate():
    spec = OutputSpec.of(Product)
    table = BUILTIN.with_output(spec.schema)
    grammar = Grammar(action_grammar(["1"], actions=["stop"], table=table))
    rng = random.Random(7)
    nested = 0
    for _ in range(300):
        text = grammar.sample(rng)
        _, action = split_reply(text, table, spec)
        value = spec.typed(action.args[0])
        assert isinstance(value, Product), text
        nested += value.seller is not None
    assert nested > 20  # both branches of the optional model were written
    assert not grammar.accepts("<think>t</think>\n<action>stop('socks')</action>")


def test_definitions_that_differ_only_in_spelling_and_draft_07_refs_keep_their_own_rules():
    schema = {"type": "object",
              "properties": {"a": {"$ref": "#/definitions/Foo_Bar"},
                             "b": {"$ref": "#/definitions/foo-bar"}},
              "required": ["a", "b"],
              "definitions": {"Foo_Bar": {"type": "integer"}, "foo-bar": {"type": "boolean"}}}
    spec = OutputSpec.of(schema)
    table = BUILTIN.with_output(spec.schema)
    grammar = Grammar(action_grammar(["1"], actions=["stop"], table=table))
    rng = random.Random(3)
    for _ in range(50):
        _, action = split_reply(grammar.sample(rng), table, spec)
        value = json.loads(spec.check(action.args[0]))
        assert isinstance(value["a"], int) and not isinstance(value["a"], bool)
        assert isinstance(value["b"], bool)


def test_the_json_schema_constraint_types_the_answer_and_round_trips():
    spec = OutputSpec.of(Product)
    table = BUILTIN.with_output(spec.schema)
    schema = json_action_schema(["1"], table=table)
    stop = next(b for b in schema["properties"]["action"]["anyOf"]
                if b["properties"]["name"] == {"const": "stop"})
    assert stop["properties"]["answer"]["properties"]["seller"]
    assert "Seller" in schema["$defs"]
    reply = json.dumps({"thought": "t", "action": {"name": "stop", "answer": {
        "name": "a", "price": 2, "in_stock": False, "tags": [], "seller": None}}})
    _, action = split_reply(json_reply_to_tagged(reply), table, spec)
    assert spec.typed(action.args[0]).price == 2


def test_a_wrong_answer_is_a_parse_error_naming_the_field():
    spec = OutputSpec.of(Product)
    table = BUILTIN.with_output(spec.schema)
    with pytest.raises(ActionParseError, match="price"):
        split_reply(act("t", "stop({'name': 'a', 'price': 'cheap', 'in_stock': True, "
                             "'tags': [], 'seller': None})"), table, spec)
    # without an output schema stop keeps its plain string answer
    assert parse_action(extract_action_text(act("t", "stop('x')"))).args == ["x"]


def test_bad_output_arguments_are_user_errors(tmp_path):
    with pytest.raises(UserError, match="not a valid JSON schema"):
        OutputSpec.of({"type": "no-such-type"})
    with pytest.raises(UserError, match="pydantic model class or a JSON schema"):
        Agent("x", output=int)  # type: ignore[arg-type]


def _nested(depth: int) -> dict:
    schema: dict = {"type": "object", "properties": {}}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_a_schema_file_nested_past_any_sense_is_one_line_not_a_traceback(tmp_path, capsys,
                                                                        pages_url):
    deep = tmp_path / "deep.json"
    deep.write_text('{"type": "object", "properties": {"a": ' * 3000 + "{}" + "}}" * 3000)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "x", "--url", f"{pages_url}/agent/login.html", "--knowledge", "off",
              "--output-schema", str(deep), "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --output-schema:") and "nested deeper" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(UserError, match="nested deeper"):
        OutputSpec.of(_nested(500))  # the same from Python or an MCP client


def test_an_answer_nested_past_any_sense_is_a_format_error_the_model_reads():
    spec = OutputSpec.of({"type": "object"})
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(ActionParseError, match="nested deeper"):
        spec.check('{"a": ' + deep + "}")
    with pytest.raises(ActionParseError, match="nested deeper"):
        spec.check({"a": json.loads("[" * 150 + "]" * 150)})
    assert spec.typed(deep) is None  # a hostile run folder's answer reads as no answer


@pytest.mark.parametrize("ref, message", [
    ("#/$defs/Missing", "points nowhere"),
    ("https://example.com/schema.json", "must point inside the schema"),
])
def test_a_schema_whose_ref_cannot_resolve_is_refused_before_the_run(ref, message):
    schema = {"type": "object", "properties": {"item": {"$ref": ref}},
              "$defs": {"Item": {"type": "string"}}}
    with pytest.raises(UserError, match=message):
        OutputSpec.of(schema)
    fine = {**schema, "properties": {"item": {"$ref": "#/$defs/Item"}}}
    assert OutputSpec.of(fine).check({"item": "socks"}) == '{"item": "socks"}'


def test_run_output_schema_prints_the_typed_answer(pages_url, tmp_path, capsys):
    schema = tmp_path / "answer.json"
    schema.write_text(json.dumps({"type": "object", "properties": {
        "total": {"type": "number"}}, "required": ["total"]}))
    replies = iter([act("t", "stop({'total': 'many'})"), act("t", "stop({'total': 12.5})")])
    with ScriptedEndpoint(lambda messages: next(replies)) as endpoint:
        code = run_cli("run", "sum it", "--url", f"{pages_url}/agent/login.html",
                       "--base-url", endpoint.url, "--model", "m", "--knowledge", "off",
                       "--memory", "none", "--verify", "off", "--out", str(tmp_path / "run"),
                       "--json",
                       "--output-schema", str(schema))
        sent = endpoint.requests
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "done" and json.loads(out["answer"]) == {"total": 12.5}
    assert '"total"' in sent[0]["messages"][0]["content"]


def test_run_output_schema_that_is_not_json_is_one_line(tmp_path, capsys, pages_url):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "x", "--url", f"{pages_url}/agent/login.html", "--knowledge", "off",
              "--output-schema", str(bad), "--out", str(tmp_path / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --output-schema:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
