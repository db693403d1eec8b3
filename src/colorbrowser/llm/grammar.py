"""Output constraints for the action reply: a GBNF grammar and a JSON schema.

Both are built from the same ACTIONS table the parser uses, and both list the
page's bids as an enum: a free-form id pattern lets a small model invent ids,
an enum does not. The grammar is written by hand (not converted from a schema)
because the generic converter lets raw newlines into strings, which then fail
to parse; every string this grammar allows is a valid Python literal, so
``parse_action`` accepts whatever a constrained model writes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from colorbrowser.actions import ACTIONS, ActionSpec, ArgKind, Param, parse_action
from colorbrowser.errors import ActionParseError
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
"""


def _gbnf_literal(text: str) -> str:
    """Quote text as a GBNF string literal (only ASCII-safe escapes are emitted)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _rule_name(action: str) -> str:
    return "act-" + action.replace("_", "-")


def _select(bids: Sequence[str], actions: Sequence[str] | None) -> list[ActionSpec]:
    names = list(ACTIONS) if actions is None else list(dict.fromkeys(actions))
    unknown = [n for n in names if n not in ACTIONS]
    if unknown:
        raise ValueError(f"unknown action(s) for the grammar: {', '.join(unknown)}")
    specs = [ACTIONS[n] for n in names]
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
) -> str:
    """GBNF for ``<think>THOUGHT</think>\\n<action>CALL</action>`` with bids as an enum."""
    if max_thought_chars < 1 or max_string_chars < 1:
        raise ValueError("length bounds must be positive")
    clean = _clean_bids(bids)
    specs = _select(clean, actions)
    lines = [
        'root ::= "<think>" thought "</think>\\n<action>" call "</action>"',
        f"thought ::= [^<\\n\\r]{{1,{max_thought_chars}}}",
        "call ::= " + " | ".join(_rule_name(s.name) for s in specs),
    ]
    lines += [rule for s in specs for rule in _call_rules(s)]
    if clean:
        lines.append("bid ::= " + " | ".join(_gbnf_literal(repr(b)) for b in clean))
    lines += _STRING_RULES.strip().replace("%(n)d", str(max_string_chars)).splitlines()
    return "\n".join(lines) + "\n"


def _json_type(param: Param, bids: list[str]) -> dict[str, Any]:
    kinds: dict[ArgKind, dict[str, Any]] = {
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
    bids: Sequence[str], *, actions: Sequence[str] | None = None, max_thought_chars: int = 300
) -> dict[str, Any]:
    """JSON schema: ``{"thought": ..., "action": {"name": <enum>, <param>: ...}}``.

    One branch per action so each one only takes its own arguments, and bids are
    an enum like in the grammar.
    """
    clean = _clean_bids(bids)
    branches = []
    for spec in _select(clean, actions):
        props: dict[str, Any] = {"name": {"const": spec.name}}
        props.update({p.name: _json_type(p, clean) for p in spec.params})
        branches.append({
            "type": "object",
            "properties": props,
            "required": ["name"] + [p.name for p in spec.params if p.required],
            "additionalProperties": False,
        })
    return {
        "title": SCHEMA_TITLE,
        "type": "object",
        "properties": {
            "thought": {"type": "string", "minLength": 1, "maxLength": max_thought_chars},
            "action": {"anyOf": branches},
        },
        "required": ["thought", "action"],
        "additionalProperties": False,
    }


def action_from_json(data: str | dict[str, Any]) -> tuple[str, Action]:
    """Turn a reply that follows json_action_schema into (thought, parsed Action)."""
    if isinstance(data, str):
        try:
            # strict=False: some servers let raw control characters into strings.
            data = utf8_safe_tree(json.loads(data, strict=False))
        except json.JSONDecodeError as exc:
            raise ActionParseError(f"reply is not valid JSON: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("action"), dict):
        raise ActionParseError('expected {"thought": ..., "action": {"name": ...}}')
    call = data["action"]
    spec = ACTIONS.get(str(call.get("name", "")))
    if spec is None:
        raise ActionParseError(f"unknown action {call.get('name')!r}")
    extra = set(call) - {"name"} - {p.name for p in spec.params}
    if extra:
        raise ActionParseError(f"{spec.name}(): unknown argument(s) {', '.join(sorted(extra))}")
    args = ", ".join(f"{p.name}={call[p.name]!r}" for p in spec.params if p.name in call)
    thought = str(data.get("thought", ""))
    return thought, parse_action(f"{spec.name}({args})")


def json_reply_to_tagged(text: str) -> str:
    """Rewrite a JSON action reply in the tagged form the agent's parser reads.

    Leaves the text unchanged when it does not follow the schema, so the usual
    format-error path reports what went wrong.
    """
    try:
        thought, action = action_from_json(text)
    except ActionParseError:
        return text
    thought = " ".join(thought.replace("<", "(").split())
    return f"<think>{thought}</think>\n<action>{action.raw}</action>"


def action_constraint(
    bids: Sequence[str], *, actions: Sequence[str] | None = None, max_thought_chars: int = 300
) -> Constraint:
    """Both forms at once; the client sends whichever its endpoint understands."""
    return Constraint(
        grammar=action_grammar(bids, actions=actions, max_thought_chars=max_thought_chars),
        json_schema=json_action_schema(bids, actions=actions,
                                       max_thought_chars=max_thought_chars),
    )
