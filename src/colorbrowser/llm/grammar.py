"""Output constraints for the action reply: a GBNF grammar and a JSON schema.

Both are built from the same ACTIONS table the parser uses, and both list the
page's bids as an enum: a free-form id pattern lets a small model invent ids,
an enum does not. The grammar is written by hand (not converted from a schema)
because the generic converter lets raw newlines into strings, which then fail
to parse; every string this grammar allows is a valid Python literal, so
``parse_action`` accepts whatever a constrained model writes.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from colorbrowser.actions import BUILTIN, ActionSpec, ActionTable, ArgKind, Param, parse_action
from colorbrowser.errors import ActionParseError
from colorbrowser.llm.literal_grammar import gbnf_literal as _gbnf_literal
from colorbrowser.llm.literal_grammar import literal_rules
from colorbrowser.types import Action, Constraint
from colorbrowser.utf8 import utf8_safe_tree

SCHEMA_TITLE = "colorbrowser_action"

# Escapes Python understands and that keep a literal on one line. A "<" may not be
# followed by "/", so no string can contain "</action>" and end the tag early.
_STRING_RULES = r"""
sq-str ::= "'" sq-char{0,%(n)d} "'"
sq-char ::= [^'\\\x00\n\r<] | esc | "<"+ ([^/'\\\x00\n\r<] | esc)
dq-str ::= "\"" dq-char{0,%(n)d} "\""
dq-char ::= [^"\\\x00\n\r<] | esc | "<"+ ([^/"\\\x00\n\r<] | esc)
esc ::= "\\" ["'\\nrt]
str ::= sq-str | dq-str
int ::= "0" | [1-9] [0-9]{0,8}
number ::= "-"? int ("." [0-9]{1,6})?
options ::= str | "[" str (", " str){0,9} "]"
bool ::= "True" | "False"
"""


def _rule_name(action: str) -> str:
    return "act-" + action.replace("_", "-")


def _select(bids: Sequence[str], actions: Sequence[str] | None,
            table: ActionTable) -> list[ActionSpec]:
    names = list(table.specs) if actions is None else list(dict.fromkeys(actions))
    unknown = [n for n in names if n not in table.specs]
    if unknown:
        raise ValueError(f"unknown action(s) for the grammar: {', '.join(unknown)}")
    specs = [table.specs[n] for n in names]
    if not bids:
        specs = [s for s in specs if not any(p.kind == "bid" for p in s.params)]
    if not specs:
        raise ValueError("no action is possible: every allowed action needs an element id")
    return specs


def _clean_bids(bids: Sequence[str]) -> list[str]:
    return [b for b in dict.fromkeys(str(b) for b in bids) if b.strip()]


def _arg_rule(spec: ActionSpec, param: Param) -> str:
    """Rule name for one argument: its kind, or its own rule when it has choices."""
    return f"{_rule_name(spec.name)}-{param.name.replace('_', '-')}" if param.choices \
        else param.kind


def _call_rules(spec: ActionSpec) -> list[str]:
    required = [p for p in spec.params if p.required]
    optional = [p for p in spec.params if not p.required]
    body = f'"{spec.name}("'
    if required:
        body += " " + ' ", " '.join(_arg_rule(spec, p) for p in required)
    # Trailing optional arguments may be left out, from the end only.
    tail = ""
    for i, p in reversed(list(enumerate(optional))):
        sep = '", " ' if (required or i > 0) else ""
        tail = f"({sep}{_arg_rule(spec, p)}{' ' + tail if tail else ''})?"
    if tail:
        body += " " + tail
    rules = [f'{_rule_name(spec.name)} ::= {body} ")"']
    rules += [f"{_arg_rule(spec, p)} ::= " + " | ".join(_gbnf_literal(repr(c)) for c in p.choices)
              for p in spec.params if p.choices]
    return rules


def action_grammar(
    bids: Sequence[str],
    *,
    actions: Sequence[str] | None = None,
    max_thought_chars: int = 300,
    max_string_chars: int = 200,
    table: ActionTable | None = None,
) -> str:
    """GBNF for ``<think>THOUGHT</think>\\n<action>CALL</action>`` with bids as an enum.
    A "json" argument (stop's answer under an output schema) follows the schema, as
    a Python literal the parser reads."""
    if max_thought_chars < 1 or max_string_chars < 1:
        raise ValueError("length bounds must be positive")
    table = table or BUILTIN
    clean = _clean_bids(bids)
    specs = _select(clean, actions, table)
    lines = [
        'root ::= "<think>" thought "</think>\\n<action>" call "</action>"',
        f"thought ::= [^<\\n\\r]{{1,{max_thought_chars}}}",
        "call ::= " + " | ".join(_rule_name(s.name) for s in specs),
    ]
    lines += [rule for s in specs for rule in _call_rules(s)]
    if clean:
        lines.append("bid ::= " + " | ".join(_gbnf_literal(repr(b)) for b in clean))
    lines += _STRING_RULES.strip().replace("%(n)d", str(max_string_chars)).splitlines()
    if any(p.kind == "json" for s in specs for p in s.params):
        lines += literal_rules("json", dict(table.output_schema or {}))
    return "\n".join(lines) + "\n"


def _json_type(param: Param, bids: list[str], table: ActionTable) -> dict[str, Any]:
    kinds: dict[ArgKind, dict[str, Any]] = {
        "bool": {"type": "boolean"},
        "json": {k: v for k, v in (table.output_schema or {}).items()
                 if k not in ("$defs", "definitions")},
        "bid": {"type": "string", "enum": bids},
        "str": {"type": "string"},
        "int": {"type": "integer", "minimum": 0},
        "number": {"type": "number"},
        "options": {"anyOf": [
            {"type": "string"},
            {"type": "array", "items": {"type": "string"}, "minItems": 1},
        ]},
    }
    if param.choices:
        return {"type": "string", "enum": list(param.choices)}
    return kinds[param.kind]


def json_action_schema(
    bids: Sequence[str], *, actions: Sequence[str] | None = None, max_thought_chars: int = 300,
    table: ActionTable | None = None,
) -> dict[str, Any]:
    """JSON schema: ``{"thought": ..., "action": {"name": <enum>, <param>: ...}}``.

    One branch per action so each one only takes its own arguments, and bids are
    an enum like in the grammar.
    """
    table = table or BUILTIN
    clean = _clean_bids(bids)
    branches = []
    for spec in _select(clean, actions, table):
        props: dict[str, Any] = {"name": {"const": spec.name}}
        props.update({p.name: _json_type(p, clean, table) for p in spec.params})
        branches.append({
            "type": "object",
            "properties": props,
            "required": ["name"] + [p.name for p in spec.params if p.required],
            "additionalProperties": False,
        })
    schema: dict[str, Any] = {
        "title": SCHEMA_TITLE,
        "type": "object",
        "properties": {
            "thought": {"type": "string", "minLength": 1, "maxLength": max_thought_chars},
            "action": {"anyOf": branches},
        },
        "required": ["thought", "action"],
        "additionalProperties": False,
    }
    for key in ("$defs", "definitions"):  # "#/$defs/..." (and draft-07) refs resolve here
        if table.output_schema and key in table.output_schema:
            schema[key] = table.output_schema[key]
    return schema


def action_from_json(data: str | dict[str, Any],
                     table: ActionTable | None = None) -> tuple[str, Action]:
    """Turn a reply that follows json_action_schema into (thought, parsed Action)."""
    thought, text = _json_call(data)
    return thought, parse_action(text, table)


def _json_call(data: str | dict[str, Any]) -> tuple[str, str]:
    """(thought, call text) of a JSON action reply: arguments by keyword, so the text
    needs no table; the parser of the episode's table checks it."""
    if isinstance(data, str):
        try:
            # strict=False: some servers let raw control characters into strings.
            data = utf8_safe_tree(json.loads(data, strict=False))
        except json.JSONDecodeError as exc:
            raise ActionParseError(f"reply is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("action"), dict):
        raise ActionParseError('expected {"thought": ..., "action": {"name": ...}}')
    call = data["action"]
    name = str(call.get("name", ""))
    if not name.isidentifier() or any(not str(k).isidentifier() for k in call):
        raise ActionParseError(f"unknown action {call.get('name')!r}")
    args = ", ".join(f"{k}={v!r}" for k, v in call.items() if k != "name")
    return str(data.get("thought", "")), f"{name}({args})"


def json_reply_to_tagged(text: str) -> str:
    """Rewrite a JSON action reply in the tagged form the agent's parser reads.

    Leaves the text unchanged when it does not follow the schema, so the usual
    format-error path reports what went wrong.
    """
    try:
        thought, call = _json_call(text)
    except ActionParseError:
        return text
    with contextlib.suppress(ActionParseError):  # a built-in action in its canonical form;
        call = parse_action(call).raw  # a tool's call or a typed answer stays by keyword
    thought = " ".join(thought.replace("<", "(").split())
    return f"<think>{thought}</think>\n<action>{call}</action>"


def action_constraint(
    bids: Sequence[str], *, actions: Sequence[str] | None = None, max_thought_chars: int = 300,
    table: ActionTable | None = None,
) -> Constraint:
    """Both forms at once; the client sends whichever its endpoint understands."""
    return Constraint(
        grammar=action_grammar(bids, actions=actions, max_thought_chars=max_thought_chars,
                               table=table),
        json_schema=json_action_schema(bids, actions=actions,
                                       max_thought_chars=max_thought_chars, table=table),
    )
