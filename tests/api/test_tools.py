"""``@tool``: a Python function is an action in the prompt, the parser and the grammar.

Scripted model replies (unit tests of the loop's logic) on a real browser: a scripted
model calls every registered tool, one without arguments included, and a tool that
raises is a failed step the model reads, not a crash."""

from __future__ import annotations

import random
from typing import Literal

import pytest

from colorbrowser import Agent, UserError, tool
from colorbrowser.actions import BUILTIN, extract_action_text, parse_action
from colorbrowser.agent.tools import as_tool, with_tools
from colorbrowser.llm.grammar import action_grammar, json_action_schema
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act

from ..llm.llm_gbnf import Grammar

QUIET = {"knowledge": "off", "memory": "none"}
calls: list[tuple] = []


@tool
def add(a: int, b: float = 0.5) -> float:
    """Add two numbers exactly."""
    calls.append(("add", a, b))
    return a + b


@tool
def today() -> str:
    """Today's date in the shop's calendar."""
    calls.append(("today",))
    return "2026-11-26"


@tool(name="pick_size", description="Choose a size for the order.")
def choose(size: Literal["S", "M", "L"], gift: bool = False) -> dict:
    calls.append(("pick_size", size, gift))
    return {"size": size, "gift": gift}


@tool
def fail(reason: str) -> None:
    """Always fails."""
    raise RuntimeError(f"cannot: {reason}")


TOOLS = [add, today, choose, fail]


def test_a_scripted_model_can_call_every_registered_tool(pages_url, tmp_path):
    calls.clear()
    _, by_name = with_tools(BUILTIN, TOOLS)
    # One reply per tool, written from its example call as the prompt shows it.
    replies = [act(f"use {t.name}", t.spec.example) for t in by_name.values()]
    model = ScriptedModel([*replies, act("done", "stop('ok')")])
    result = Agent("Use every tool", url=f"{pages_url}/agent/login.html", model=model,
                   tools=TOOLS, run_dir=tmp_path / "run", **QUIET).run()
    assert result.status == "done" and len(result.steps) == len(TOOLS) + 1
    names = [s.action.split("(")[0] for s in result.steps[:-1]]
    assert names == ["add", "today", "pick_size", "fail"]
    assert [c[0] for c in calls] == ["add", "today", "pick_size"]
    assert calls[0] == ("add", 1, 0.5) and calls[2] == ("pick_size", "S", False)
    ok = [s.result for s in result.steps[:3]]
    assert all(r.ok for r in ok) and ok[1].output == "2026-11-26"
    assert ok[2].output == '{"size": "S", "gift": false}'
    failed = result.steps[3].result
    assert not failed.ok and failed.error == "fail() failed: RuntimeError: cannot: text"
    # the next prompt showed the model what went wrong
    assert "cannot: text" in model.calls[4].messages[-1].content
    system = model.calls[0].messages[0].content
    for t in by_name.values():
        assert f"- {t.name}(" in system and t.spec.doc in system


def test_tools_are_in_the_grammar_and_the_json_schema():
    table, by_name = with_tools(BUILTIN, TOOLS)
    grammar = Grammar(action_grammar(["1"], table=table))
    seen = set()
    rng = random.Random(3)
    for _ in range(3000):
        action = parse_action(extract_action_text(grammar.sample(rng)), table)
        seen.add(action.name)
    assert set(by_name) <= seen
    assert grammar.accepts("<think>t</think>\n<action>today()</action>")
    assert grammar.accepts("<think>t</think>\n<action>pick_size('M', True)</action>")
    assert not grammar.accepts("<think>t</think>\n<action>pick_size('XL')</action>")
    assert not grammar.accepts("<think>t</think>\n<action>add('one')</action>")
    branches = json_action_schema(["1"], table=table)["properties"]["action"]["anyOf"]
    today_branch = next(b for b in branches if b["properties"]["name"] == {"const": "today"})
    assert today_branch["required"] == ["name"]
    size = next(b for b in branches if b["properties"]["name"] == {"const": "pick_size"})
    assert size["properties"]["size"]["enum"] == ["S", "M", "L"]
    assert size["properties"]["gift"] == {"type": "boolean"}


def test_the_parser_checks_tool_arguments_by_type():
    table, _ = with_tools(BUILTIN, TOOLS)
    assert parse_action("add(2, 3.5)", table).args == [2, 3.5]
    assert parse_action("today()", table).args == []
    with pytest.raises(ValueError, match="must be a whole number"):
        parse_action("add('2')", table)
    with pytest.raises(ValueError, match="must be True or False"):
        parse_action("pick_size('S', 'yes')", table)
    with pytest.raises(ValueError, match="unknown action 'today'"):
        parse_action("today()")  # the built-in table does not know it


def test_tools_that_cannot_be_actions_are_refused_when_registered():
    def untyped(x):
        return x

    def star(*names: str) -> None:
        pass

    def click(bid: str) -> None:
        pass

    with pytest.raises(UserError, match="needs a type"):
        as_tool(untyped)
    with pytest.raises(UserError, match="ordinary"):
        as_tool(star)
    with pytest.raises(UserError, match="'click' exists already"):
        Agent("x", tools=[click])
