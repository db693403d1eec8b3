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
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from colorbrowser.datafile import MAX_DEPTH, DataFileError, check_depth, load_json, one_line
from colorbrowser.errors import ActionParseError, UserError

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
        from jsonschema import validators

        validator = validators.validator_for(self.schema)(self.schema)
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
