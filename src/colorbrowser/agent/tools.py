"""Python functions as actions: ``@tool`` and ``Agent(tools=[...])``.

A tool becomes an ``ActionSpec`` built from its signature, so it is in the action list
the model reads, the parser and the output grammar at once (a model that cannot write
a call of it cannot be constrained into one). Arguments are typed from the
annotations (str, int, float, bool, Literal of strings); the loop runs the function
with the parsed literals, and whatever it raises is the step's error for the model
to read, never the end of the run.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, overload

from colorbrowser.actions import ActionSpec, ActionTable, ArgKind, Param
from colorbrowser.errors import UserError
from colorbrowser.types import ActionResult

F = TypeVar("F", bound=Callable[..., Any])

_ATTR = "__colorbrowser_tool__"
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_KINDS: dict[object, ArgKind] = {str: "str", int: "int", float: "number", bool: "bool"}
_EXAMPLES: dict[ArgKind, str] = {"str": "'text'", "int": "1", "number": "1.5", "bool": "True"}
MAX_OUTPUT_CHARS = 2000


@dataclass(frozen=True)
class Tool:
    """A function and the action that calls it."""

    fn: Callable[..., Any]
    spec: ActionSpec

    @property
    def name(self) -> str:
        return self.spec.name

    def call(self, args: Sequence[Any]) -> ActionResult:
        """Run it; its return value is the step's output, its exception the step's error."""
        try:
            value = self.fn(*args)
        except Exception as exc:  # the tool's own failure: data for the model
            return ActionResult.failure(f"{self.name}() failed: {type(exc).__name__}: {exc}",
                                        action=self.name)
        return ActionResult(output=_shown(value))


def _shown(value: Any) -> str:
    if value is None:
        return "done"
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text[:MAX_OUTPUT_CHARS]


def _param(fn_name: str, p: inspect.Parameter, hint: Any) -> Param:
    if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.KEYWORD_ONLY):
        raise UserError(f"tool {fn_name}(): parameter {p.name} must be an ordinary "
                        "positional one (no *args, **kwargs or keyword-only)")
    choices: tuple[str, ...] = ()
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        if not all(isinstance(c, str) for c in choices):
            raise UserError(f"tool {fn_name}(): {p.name}: a Literal may only hold strings")
        kind: ArgKind | None = "str"
    else:
        kind = _KINDS.get(hint)
    if kind is None:
        raise UserError(f"tool {fn_name}(): parameter {p.name} needs a type the model can "
                        "write: str, int, float, bool or Literal['a', 'b']")
    if p.default is p.empty:
        return Param(p.name, kind, choices=choices)
    return Param(p.name, kind, p.default, choices)


def _example(p: Param) -> str:
    return repr(p.choices[0]) if p.choices else _EXAMPLES[p.kind]


def spec_of(fn: Callable[..., Any], name: str | None = None,
            description: str | None = None) -> ActionSpec:
    """The action a function becomes: its name, typed parameters and docstring."""
    name = name or fn.__name__
    if not _NAME.match(name):
        raise UserError(f"tool name {name!r} must be lower case letters, digits and _")
    hints = typing.get_type_hints(fn)
    params = tuple(_param(name, p, hints.get(p.name))
                   for p in inspect.signature(fn).parameters.values())
    doc = description or inspect.getdoc(fn) or ""
    doc = " ".join(doc.strip().split("\n\n")[0].split()) or f"Call the tool {name}."
    example = f"{name}({', '.join(_example(p) for p in params if p.required)})"
    return ActionSpec(name, params, doc, example, scope="tool")


@overload
def tool(fn: F, /) -> F: ...


@overload
def tool(*, name: str | None = None, description: str | None = None) -> Callable[[F], F]: ...


def tool(fn: Callable[..., Any] | None = None, /, *, name: str | None = None,
         description: str | None = None) -> Any:
    """Mark a function as a tool the agent may call; the function itself is unchanged.

    ``@tool`` or ``@tool(name=..., description=...)``; the docstring's first paragraph
    is what the model reads about it."""
    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        setattr(f, _ATTR, Tool(f, spec_of(f, name, description)))
        return f

    return mark(fn) if fn is not None else mark


def as_tool(obj: Callable[..., Any] | Tool) -> Tool:
    """A ``Tool`` from a decorated function, a plain function or a Tool."""
    if isinstance(obj, Tool):
        return obj
    found = getattr(obj, _ATTR, None)
    if isinstance(found, Tool):
        return found
    if not callable(obj):
        raise UserError(f"tools= takes functions, got {type(obj).__name__}")
    return Tool(obj, spec_of(obj))


def with_tools(table: ActionTable, tools: Sequence[Callable[..., Any] | Tool],
               ) -> tuple[ActionTable, Mapping[str, Tool]]:
    """The table with the tools added, and the tools by action name."""
    found = [as_tool(t) for t in tools]
    try:
        table = table.with_actions([t.spec for t in found])
    except ValueError as exc:
        raise UserError(f"tools=: {exc}; rename the tool with @tool(name=...)") from None
    return table, {t.name: t for t in found}
