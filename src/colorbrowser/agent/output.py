"""A typed answer: ``stop``'s answer checked against a pydantic model or a JSON schema.

The Operator is shown the schema; under constrained decoding the grammar writes
only literals of it; whatever the model writes is then validated while the reply is
parsed, so a wrong answer is a format error the model reads and may correct, not a
finished run with an answer nobody can use. The answer is kept as JSON text (what the
run folder holds) and turned back into the typed value at the end: nested models
come back as models, and JSON keeps an integer an integer.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from colorbrowser.datafile import MAX_DEPTH, DataFileError, check_depth, load_json, one_line
from colorbrowser.errors import ActionParseError, UserError
from colorbrowser.linear_regex import RegexRefused, compile_linear, nested_quantifier

MAX_SHOWN_ERRORS = 3
SCHEMA_BYTES = 1024 * 1024  # a schema is a page of JSON, not a data dump


@dataclass(frozen=True)
class OutputSpec:
    """The schema an answer must fit, and the pydantic model to build, if any."""

    schema: Mapping[str, Any]
    model: type[BaseModel] | None = None

    @classmethod
    def of(cls, output: type[BaseModel] | Mapping[str, Any]) -> OutputSpec:
        if isinstance(output, type) and issubclass(output, BaseModel):
            return cls(output.model_json_schema(), output)
        if isinstance(output, Mapping):
            from jsonschema import SchemaError, validators

            check_depth(output, "output schema", "JSON")
            try:
                validators.validator_for(output).check_schema(output)
            except SchemaError as exc:
                raise UserError(f"output schema is not a valid JSON schema: {exc.message}"
                                ) from None
            _check_refs(output, output)
            _check_patterns(output)
            return cls(dict(output))
        raise UserError("output= takes a pydantic model class or a JSON schema dict")

    @classmethod
    def from_file(cls, path: Path | str) -> OutputSpec:
        """A JSON schema file (``run --output-schema``): data, so only a schema."""
        data = load_json(path, "output schema", limit=SCHEMA_BYTES,
                         source=f"--output-schema: {path}")
        if not isinstance(data, dict):
            raise UserError(f"--output-schema: {path} must hold a JSON object (a schema)")
        return cls.of(data)

    def prompt_text(self) -> str:
        """The schema as the Operator reads it."""
        return json.dumps(self.schema, indent=1, ensure_ascii=False)

    def check(self, value: Any) -> str:
        """The answer as JSON text when it fits; ActionParseError saying what does not.

        A string that is itself JSON (``stop('{"a": 1}')``) is read as that JSON."""
        try:
            if isinstance(value, str):
                with contextlib.suppress(ValueError):
                    value = json.loads(value)
            check_depth(value, "answer", "JSON")
        except (RecursionError, DataFileError):
            raise ActionParseError(f"stop(): the answer is nested deeper than {MAX_DEPTH} "
                                   "levels") from None
        problems = [one_line(p) for p in self._problems(value)]
        if problems:
            more = len(problems) - MAX_SHOWN_ERRORS
            shown = "; ".join(problems[:MAX_SHOWN_ERRORS]) + (f"; and {more} more"
                                                              if more > 0 else "")
            raise ActionParseError(f"stop(): the answer does not fit the answer schema: {shown}")
        return json.dumps(value, ensure_ascii=False)

    def _problems(self, value: Any) -> list[str]:
        if self.model is not None:
            try:
                self.model.model_validate(value)
            except ValidationError as exc:
                return [f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
                        for e in exc.errors()]
            return []
        validator = _linear_validator(self.schema)
        return [f"{'.'.join(str(p) for p in e.absolute_path) or 'answer'}: {e.message}"
                for e in validator.iter_errors(value)]

    def typed(self, answer: str | None) -> Any:
        """The finished run's answer as the typed value; None when it has none or the
        run ended without a checked answer."""
        if answer is None:
            return None
        try:
            value = json.loads(answer)
        except (ValueError, RecursionError):
            return None
        if self.model is not None:
            try:
                return self.model.model_validate(value)
            except ValidationError:
                return None
        return value if not self._problems(value) else None


def _check_refs(node: Any, root: Mapping[str, Any]) -> None:
    """Every ``$ref`` points inside the schema: a dangling one would only fail at the stop,
    after all the work, and a schema is data, so it never names another document."""
    if isinstance(node, Mapping):
        ref = node.get("$ref")
        if isinstance(ref, str):
            if not ref.startswith("#"):
                raise UserError(f"output schema: $ref {ref[:80]!r} must point inside the "
                                "schema (#/...)")
            target: Any = root
            for part in filter(None, ref[1:].split("/")):
                key = part.replace("~1", "/").replace("~0", "~")
                if isinstance(target, Mapping) and key in target:
                    target = target[key]
                elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
                    target = target[int(key)]
                else:
                    raise UserError(f"output schema: $ref {ref[:80]!r} points nowhere")
        for value in node.values():
            _check_refs(value, root)
    elif isinstance(node, list):
        for value in node:
            _check_refs(value, root)


# -- patterns: a schema is data and the answer comes from pages, so a schema's regexes
# run on RE2, in time linear in the answer (Python's engine takes for ever on
# ``^(a+)+$`` against "aaaa…b").
@functools.lru_cache(maxsize=256)
def _regex(pattern: str) -> Any:
    return compile_linear(pattern, name="output schema pattern")


def _check_patterns(node: Any) -> None:
    """Every ``pattern`` and ``patternProperties`` key compiles on RE2; a key that would
    also be searched by jsonschema's own code (``unevaluatedProperties``) may not repeat
    a group that repeats itself. UserError otherwise."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            found = [item["pattern"]] if isinstance(item.get("pattern"), str) else []
            keyed = item.get("patternProperties")
            keys = list(keyed) if isinstance(keyed, Mapping) else []
            for pattern in found + keys:
                try:
                    _regex(pattern)
                except RegexRefused as exc:
                    raise UserError(f"output schema: {exc}") from None
            for key in keys:
                if nested := nested_quantifier(key):
                    raise UserError(f"output schema: patternProperties {key[:60]!r} repeats "
                                    f"a repeating group ({nested[:40]!r})")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _matches(pattern: str, text: str) -> bool:
    return _regex(pattern).search(text) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _matches(pattern, instance):
        yield ValidationError(f"{one_line(repr(instance), 80)} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Any:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _matches(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Any:
    from jsonschema import ValidationError

    if not validator.is_type(instance, "object"):
        return
    known, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = [k for k in instance if k not in known and
              not any(_matches(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        names = ", ".join(repr(k) for k in extras)
        yield ValidationError(f"Additional properties are not allowed ({names} "
                              f"{'was' if len(extras) == 1 else 'were'} unexpected)")


def _linear_validator(schema: Mapping[str, Any]) -> Any:
    """jsonschema's validator for ``schema`` with its regex keywords on RE2."""
    from jsonschema import validators

    return _linear_class(validators.validator_for(schema))(schema, format_checker=None)


@functools.lru_cache(maxsize=8)
def _linear_class(base: Any) -> Any:
    """The RE2 variant of one draft's validator class, made once per draft, not per
    answer checked."""
    from jsonschema import validators

    return validators.extend(base, {"pattern": _pattern,
                                    "patternProperties": _pattern_properties,
                                    "additionalProperties": _additional_properties})
