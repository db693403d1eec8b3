"""GBNF rules for Python literals that are values of a JSON schema.

Under an output schema, ``stop``'s answer is a literal such as ``{'price': 14.5}``: the
parser reads Python literals (never evaluates them), so the grammar writes Python's
spelling (True, False, None, quoted keys) and reuses the action grammar's ``str``,
``int`` and ``number`` rules. Every property of an object is written, in schema order:
the grammar may be stricter than the schema, never looser, so whatever a constrained
model writes both parses and validates (up to string formats and bounds, which the
validator after parsing still checks and the model is told about).
"""

from __future__ import annotations

import re
from typing import Any


def gbnf_literal(text: str) -> str:
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


_SCALARS = {
    "string": "str",
    "integer": '("-"? int)',
    "number": "number",
    "boolean": '("True" | "False")',
    "null": '"None"',
}


class _Rules:
    def __init__(self, root: str, schema: dict[str, Any]) -> None:
        self.root = root
        self.schema = schema
        self.lines: list[str] = []
        self.made: set[str] = set()
        self.refs: dict[str, str] = {}  # "$ref" text -> its rule, one rule per target

    def name(self, part: str) -> str:
        return f"{self.root}-" + re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-")

    def define(self, name: str, body: str) -> str:
        if name not in self.made:
            self.made.add(name)
            self.lines.append(f"{name} ::= {body}")
        return name

    def any_value(self) -> str:
        name = self.name("any")
        if name not in self.made:
            self.made.add(name)
            pair = f'str ": " {name}'
            self.lines.append(
                f'{name} ::= str | number | "True" | "False" | "None" '
                f'| "[" ({name} (", " {name}){{0,50}})? "]" '
                f'| "{{" ({pair} (", " {pair}){{0,50}})? "}}"')
        return name

    def ref(self, ref: str) -> str:
        if ref in self.refs:
            return self.refs[ref]
        base = self.name(f"def-{ref.rsplit('/', 1)[-1]}")
        name, count = base, 1
        while name in self.made:  # Foo_Bar and foo-bar are two definitions
            count += 1
            name = f"{base}-{count}"
        self.refs[ref] = name
        self.made.add(name)  # first: a model may contain itself
        self.lines.append(f"{name} ::= {self.value(self._target(ref))}")
        return name

    def _target(self, ref: str) -> Any:
        """The schema a local ``#/...`` pointer names ($defs or draft-07 definitions)."""
        node: Any = self.schema
        for part in filter(None, ref.removeprefix("#").split("/")):
            key = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or key not in node:
                raise ValueError(f"output schema: $ref {ref[:80]!r} points nowhere")
            node = node[key]
        return node

    def value(self, schema: Any) -> str:
        if not isinstance(schema, dict) or not schema:
            return self.any_value()
        if "$ref" in schema:
            return self.ref(str(schema["$ref"]))
        if "const" in schema:
            return gbnf_literal(repr(schema["const"]))
        if "enum" in schema:
            return "(" + " | ".join(gbnf_literal(repr(v)) for v in schema["enum"]) + ")"
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return "(" + " | ".join(self.value(s) for s in schema[key]) + ")"
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.value(schema["allOf"][0])
        kind = schema.get("type")
        if isinstance(kind, list):
            return "(" + " | ".join(self.value({**schema, "type": k}) for k in kind) + ")"
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            item = self.value(schema.get("items", {}))
            return f'("[" ({item} (", " {item}){{0,50}})? "]")'
        if kind == "object" or "properties" in schema:
            return self.object(schema)
        return self.any_value()

    def object(self, schema: dict[str, Any]) -> str:
        props = schema.get("properties") or {}
        if not props:
            extra = schema.get("additionalProperties")
            item = self.value(extra if isinstance(extra, dict) else {})
            pair = f'str ": " {item}'
            return f'("{{" ({pair} (", " {pair}){{0,50}})? "}}")'
        parts = [f'{gbnf_literal(repr(key) + ": ")} {self.value(sub)}'
                 for key, sub in props.items()]
        return '("{" ' + ' ", " '.join(parts) + ' "}")'


def literal_rules(root: str, schema: dict[str, Any]) -> list[str]:
    """Rules whose start symbol ``root`` matches the literals of ``schema``'s values."""
    rules = _Rules(root, schema)
    body = rules.value({k: v for k, v in schema.items() if k not in ("$defs", "definitions")})
    return [f"{root} ::= {body}", *rules.lines]
