"""The action space: what each action takes, and a parser that never evaluates.

The same table feeds the prompt (the action list the model reads), the parser,
the output grammar of constrained models, and the executor, so they cannot drift.
An episode may extend it (``ActionTable``): Python tools become actions, and an
output schema turns ``stop``'s answer into a typed value; every reader of the table
takes the episode's table, so an added action is in the prompt, the parser and the
grammar at once.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from colorbrowser.errors import ActionParseError
from colorbrowser.types import Action
from colorbrowser.utf8 import utf8_safe_tree

# "bool" is for tools; "json" is stop's answer under an output schema: any literal
# (a dict, a list, a number...), checked against the schema by whoever set it.
ArgKind = Literal["bid", "str", "int", "number", "options", "bool", "json"]

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: ArgKind
    default: Any = _NO_DEFAULT
    # The only values a "str" argument may take; the parser and the output
    # grammar both hold to them, so a constrained model cannot write another.
    choices: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is _NO_DEFAULT


@dataclass(frozen=True)
class ActionSpec:
    name: str
    params: tuple[Param, ...]
    doc: str
    example: str
    scope: Literal["page", "browser", "agent", "tool"] = "page"
    aliases: tuple[str, ...] = field(default=())


def _p(name: str, kind: ArgKind, default: Any = _NO_DEFAULT,
       choices: tuple[str, ...] = ()) -> Param:
    return Param(name, kind, default, choices)


ACTIONS: dict[str, ActionSpec] = {
    s.name: s
    for s in [
        ActionSpec("click", (_p("bid", "bid"),
                              _p("button", "str", "left", ("left", "right", "middle"))),
                   "Click an element.", "click('12')"),
        ActionSpec("dblclick", (_p("bid", "bid"),), "Double-click an element.", "dblclick('12')"),
        ActionSpec("hover", (_p("bid", "bid"),), "Move the mouse over an element.", "hover('12')"),
        ActionSpec("fill", (_p("bid", "bid"), _p("value", "str")),
                   "Clear a text field and type a value into it.", "fill('7', 'blue socks')",
                   aliases=("type",)),
        ActionSpec("press", (_p("bid", "bid"), _p("key", "str")),
                   "Focus an element and press a key or combination.", "press('7', 'Enter')"),
        ActionSpec("select_option", (_p("bid", "bid"), _p("options", "options")),
                   "Choose one option (or a list) in a select box, by label or value.",
                   "select_option('9', 'Large')", aliases=("select",)),
        ActionSpec("check", (_p("bid", "bid"),), "Tick a checkbox or radio button.", "check('4')"),
        ActionSpec("uncheck", (_p("bid", "bid"),), "Untick a checkbox.", "uncheck('4')"),
        ActionSpec("scroll", (_p("delta_x", "number"), _p("delta_y", "number")),
                   "Scroll the page by pixels; positive delta_y goes down.", "scroll(0, 400)"),
        ActionSpec("goto", (_p("url", "str"),), "Open a URL in the current tab.",
                   "goto('http://127.0.0.1:8000/search?q=shoes')", scope="browser"),
        ActionSpec("go_back", (), "Go back one page in history.", "go_back()", scope="browser"),
        ActionSpec("go_forward", (), "Go forward one page in history.", "go_forward()",
                   scope="browser"),
        ActionSpec("new_tab", (_p("url", "str", None),), "Open a new tab, optionally at a URL.",
                   "new_tab('http://127.0.0.1:8000/')", scope="browser"),
        ActionSpec("tab_focus", (_p("index", "int"),), "Switch to the tab with this index.",
                   "tab_focus(0)", scope="browser"),
        ActionSpec("tab_close", (_p("index", "int", None),),
                   "Close a tab (the current one when no index is given).", "tab_close()",
                   scope="browser"),
        ActionSpec("stop", (_p("answer", "str", ""),),
                   "Finish the task; give the answer when the goal asks for one.",
                   "stop('42 orders')", scope="agent", aliases=("answer", "finish")),
        ActionSpec("take_note", (_p("text", "str"),),
                   "Remember a fact for later steps (numbers, names, prices).",
                   "take_note('order #1234 cost $56.10')", scope="agent", aliases=("note",)),
        ActionSpec("calculate", (_p("expression", "str"),),
                   "Do exact arithmetic and get the result back.", "calculate('56.10 + 12.5')",
                   scope="agent"),
    ]
}



@dataclass(frozen=True)
class ActionTable:
    """The actions one episode may use: the built-in ones, plus tools, with ``stop``'s
    answer typed when an output schema is set (``output_schema``, a JSON schema)."""

    specs: Mapping[str, ActionSpec]
    output_schema: Mapping[str, object] | None = None

    @property
    def aliases(self) -> dict[str, str]:
        return {alias: spec.name for spec in self.specs.values() for alias in spec.aliases}

    def spec_for(self, name: str) -> ActionSpec | None:
        return self.specs.get(self.aliases.get(name, name))

    def with_actions(self, extra: list[ActionSpec]) -> ActionTable:
        """The table with more actions; a name that is taken is refused (ValueError)."""
        specs = dict(self.specs)
        for spec in extra:
            if spec.name in specs or spec.name in self.aliases:
                raise ValueError(f"an action named {spec.name!r} exists already")
            specs[spec.name] = spec
        return ActionTable(specs, self.output_schema)

    def with_output(self, schema: Mapping[str, object]) -> ActionTable:
        """``stop`` takes the answer as a value of this JSON schema."""
        stop = self.specs["stop"]
        typed = ActionSpec(stop.name, (Param("answer", "json"),),
                           "Finish the task and give the answer as a value of the answer "
                           "schema below (a dict literal for an object).",
                           "stop({'name': 'socks', 'price': 14.5})", scope=stop.scope,
                           aliases=stop.aliases)
        return ActionTable({**self.specs, "stop": typed}, dict(schema))


BUILTIN = ActionTable(ACTIONS)
_ALIASES = BUILTIN.aliases

_TAGGED = re.compile(r"<action>(.*?)(?:</action>|$)", re.S | re.I)
_THOUGHT = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)  # linear: no rescans
_FENCED = re.compile(r"```(?:python|py)?\s*\n?(.*?)```", re.S)
_CALL_LINE = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*\(.*\)\s*;?\s*$", re.S)


def spec_for(name: str, table: ActionTable | None = None) -> ActionSpec | None:
    if table is not None:
        return table.spec_for(name)
    return ACTIONS.get(_ALIASES.get(name, name))


def extract_action_text(reply: str, table: ActionTable | None = None) -> str:
    """Find the action call in a model reply: a tagged block, a fenced block, or a bare line.

    A reply with two actions (two tagged blocks, or a tagged and a fenced one) is
    refused rather than cut down to one: which of them the model meant is unknown.
    Tags inside the <think> block are the model talking about the format, unless
    there is no action outside it.
    """
    body = _THOUGHT.sub(" ", reply)
    if not _tagged(body):  # the only action may be inside the thought
        body = reply
    tagged = _tagged(body)
    fenced = [f for f in _FENCED.findall(_TAGGED.sub(" ", body)) if _is_call(f, table)]
    if len(tagged) + (len(fenced) if tagged else 0) > 1:
        count = len(tagged) + len(fenced)
        raise ActionParseError(
            f"the reply holds {count} actions; put exactly one call inside one "
            "<action></action> block and leave the next action for the next step")
    if tagged:
        return tagged[0]
    found = _FENCED.findall(reply)
    if found and found[-1].strip():
        return found[-1].strip()
    for line in reversed(reply.strip().splitlines()):
        candidate = line.strip().strip("`")
        if _is_call(candidate, table):
            return candidate
    raise ActionParseError(
        "no action found: put exactly one call such as click('12') inside <action></action>"
    )


def _tagged(text: str) -> list[str]:
    return [t.strip() for t in _TAGGED.findall(text) if t.strip()]


def _is_call(text: str, table: ActionTable | None = None) -> bool:
    m = _CALL_LINE.match(text.strip())
    return bool(m and spec_for(m.group(1), table))


def _literal(node: ast.expr, action: str) -> Any:
    try:
        return utf8_safe_tree(ast.literal_eval(node))  # an escape can make a lone surrogate
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise ActionParseError(
            f"{action}(): arguments must be plain literals such as '12' or \"text\""
        ) from exc


def _coerce(value: Any, param: Param, action: str) -> Any:
    if value is None and not param.required and param.default is None:
        return None
    kind = param.kind
    if kind == "bid":
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise ActionParseError(f"{action}(): {param.name} must be an element id like '12'")
        text = str(value).strip()
        if not text:
            raise ActionParseError(f"{action}(): {param.name} is empty")
        return text
    if kind == "str":
        if not isinstance(value, str):
            raise ActionParseError(f"{action}(): {param.name} must be a quoted string")
        if param.choices and value not in param.choices:
            allowed = ", ".join(repr(c) for c in param.choices)
            raise ActionParseError(f"{action}(): {param.name} must be one of {allowed}")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ActionParseError(f"{action}(): {param.name} must be a whole number")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ActionParseError(f"{action}(): {param.name} must be a number")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ActionParseError(f"{action}(): {param.name} must be True or False")
        return value
    if kind == "json":
        return value
    if kind == "options":
        if isinstance(value, str):
            return value
        if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
            return list(value)
        raise ActionParseError(f"{action}(): {param.name} must be a string or a list of strings")
    raise AssertionError(kind)


def _json_call(src: str, spec: ActionSpec) -> list[ast.expr] | None:
    """``stop({"ok": true})``: JSON where a Python literal was expected, for an action
    that takes a JSON value (models write JSON's true, false and null)."""
    if not any(p.kind == "json" for p in spec.params):
        return None
    inner = src[src.index("(") + 1:src.rindex(")")] if ")" in src else ""
    try:
        value = json.loads(inner)
    except ValueError:
        return None
    return [ast.Constant(value=value)]


def parse_action(text: str, table: ActionTable | None = None) -> Action:
    """Parse one call with ``ast``; literals only, so nothing in it is ever executed."""
    src = text.strip().rstrip(";").strip()
    if not src:
        raise ActionParseError("empty action")
    if len(src) > 20_000:
        raise ActionParseError("action is too long")
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as exc:
        raise ActionParseError(f"not a valid call: {src[:80]!r} ({exc.msg})") from None
    call = tree.body
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ActionParseError(f"expected one call like click('12'), got {src[:80]!r}")
    spec = spec_for(call.func.id, table)
    if spec is None:
        known = ", ".join((table or BUILTIN).specs)
        raise ActionParseError(f"unknown action {call.func.id!r}; known actions: {known}")
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise ActionParseError(f"{spec.name}(): * and ** arguments are not allowed")
    try:
        positional = [_literal(a, spec.name) for a in call.args]
    except ActionParseError:
        as_json = _json_call(src, spec)
        if as_json is None or call.keywords:
            raise
        positional = [node.value for node in as_json]  # type: ignore[attr-defined]
    keywords = {k.arg: _literal(k.value, spec.name) for k in call.keywords}
    if len(positional) > len(spec.params):
        raise ActionParseError(
            f"{spec.name}() takes {len(spec.params)} argument(s), got {len(positional)}"
        )
    values: list[Any] = []
    for i, param in enumerate(spec.params):
        if i < len(positional):
            if param.name in keywords:
                raise ActionParseError(f"{spec.name}(): {param.name} given twice")
            raw = positional[i]
        elif param.name in keywords:
            raw = keywords.pop(param.name)
        elif param.required:
            raise ActionParseError(f"{spec.name}() is missing {param.name}; e.g. {spec.example}")
        else:
            raw = param.default
        values.append(_coerce(raw, param, spec.name))
    extra = set(keywords) - {p.name for p in spec.params}
    if extra:
        raise ActionParseError(f"{spec.name}(): unknown argument(s) {', '.join(sorted(extra))}")
    return Action(spec.name, values, raw=format_action(spec.name, values, table))


def format_action(name: str, args: list[Any], table: ActionTable | None = None) -> str:
    """Canonical text of an action, used in logs, prompts and the trajectory."""
    spec = (table or BUILTIN).specs[name]
    shown = list(args)
    while shown and len(shown) > sum(p.required for p in spec.params):
        param = spec.params[len(shown) - 1]
        if shown[-1] == param.default:
            shown.pop()
        else:
            break
    return f"{name}({', '.join(repr(a) for a in shown)})"


def describe_actions(names: list[str] | None = None, table: ActionTable | None = None) -> str:
    """The action list shown to the model."""
    lines = []
    for spec in (table or BUILTIN).specs.values():
        if names is not None and spec.name not in names:
            continue
        sig = ", ".join(
            p.name if p.required else f"{p.name}={p.default!r}" for p in spec.params
        )
        lines.append(f"- {spec.name}({sig}): {spec.doc} Example: {spec.example}")
    return "\n".join(lines)
