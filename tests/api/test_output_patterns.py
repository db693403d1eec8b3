"""A schema is data and the answer it checks comes from pages: its regexes (``pattern``,
``patternProperties``) run on RE2, in time linear in the answer, so a schema cannot
hang a run at its stop (Python's engine takes for ever on ``^(a+)+$`` against
"aaaa…b"); one RE2 cannot run is one error line when the schema is read."""

from __future__ import annotations

import threading

import pytest

from colorbrowser.agent.output import OutputSpec
from colorbrowser.errors import ActionParseError, UserError


def checked_within(spec: OutputSpec, answer, seconds: float = 20.0) -> BaseException | None:
    """What checking ``answer`` raised, or None; fails if it did not end in time."""
    outcome: list[BaseException | None] = []

    def check() -> None:
        try:
            spec.check(answer)
            outcome.append(None)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, "checking the answer did not end: the schema's regex backtracks"
    return outcome[0]


def test_a_catastrophic_pattern_is_checked_in_linear_time():
    spec = OutputSpec.of({"type": "string", "pattern": "^(a+)+$"})
    assert isinstance(checked_within(spec, "a" * 40 + "b"), ActionParseError)
    assert checked_within(spec, "a" * 40) is None


def test_pattern_properties_and_additional_properties_still_hold():
    spec = OutputSpec.of({"type": "object", "properties": {"name": {"type": "string"}},
                          "patternProperties": {"^n[0-9]+$": {"type": "integer"}},
                          "additionalProperties": False})
    assert checked_within(spec, {"name": "x", "n1": 2}) is None
    assert "is not of type 'integer'" in str(checked_within(spec, {"name": "x", "n1": "y"}))
    assert "'zz' was unexpected" in str(checked_within(spec, {"name": "x", "zz": 1}))


@pytest.mark.parametrize("schema, message", [
    ({"type": "string", "pattern": r"(a)\1"}, "backreference"),
    ({"type": "object", "patternProperties": {"(?=x)": {}}}, "not supported"),
    ({"type": "object", "patternProperties": {"^(a+)+$": {}}}, "repeats a repeating group"),
])
def test_a_pattern_re2_cannot_run_is_refused_when_the_schema_is_read(schema, message):
    with pytest.raises(UserError, match=message) as caught:
        OutputSpec.of(schema)
    assert "\n" not in str(caught.value)
