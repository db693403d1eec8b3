"""Plans: the actions that solve a task, naming elements by role and name.

Element ids (bids) change with every page load, so a plan that must replay on a fresh
page names its targets the way a person would ("the link Orders") and is resolved
against the current observation just before each step runs. The same plan proves a
task's evaluator, drives a scripted person and grounds a synthesised task, so it is
plain data. A plan is a list of steps; each step is either

- an action string in the usual syntax, for steps without an element:
  ``"goto('__TRAC__/ticket/7')"``, ``"stop('12')"``, ``"go_back()"``; or
- a mapping with one action name as its key. For element actions (click, fill,
  select_option, press, check, uncheck, hover, dblclick) the key's value is the
  target, and the action's other arguments follow under their own names. For other
  actions the key's value is the first argument::

      - goto: __TRAC__/report/1
      - click: {role: link, name: Roadmap}
      - fill: {role: textbox, name: Summary}
        value: Crash on import
      - select_option: {role: combobox, name: Priority}
        options: major
        wrong: minor        # what the "wrong value" mutant uses instead
      - press: {role: searchbox, contains: Search, nth: 0}
        key: Enter
      - click: {role: link, contains: "#17"}
        wrong: {role: link, contains: "#18"}   # a click's wrong value is another target
      - stop: "17"
        wrong: "18"

A target has a ``role`` and either an exact ``name`` (spaces collapsed) or a part of
it (``contains``), with ``ends: true`` when that part ends the name (an issue's link
"Bug #30 (New): <subject>", not a commit's "<subject> (refs #30)"); ``nth`` picks among
several matches in page order (default the first). Visible elements are preferred.
``__SITE__`` placeholders are filled from the environment (``WA_*`` variables), as in
task files. Any mapping step may add ``expect: <target>``: what the page shows once the
step has taken effect (a like counter that changes in place); the replay agent waits
for it before going on, as it waits (up to three observations) for a step's own target.

API: ``parse_plan(items) -> Plan``, ``Plan.encode() -> list[str]`` (one string per
step, what a replay job carries), ``decode_step(text) -> Step``,
``Step.action_text(obs, env) -> str`` (the concrete action, ``OracleMiss`` when the
target is not on the page), ``Step.describe()`` (a sentence for a person),
``Plan.wrong_value()`` and ``Plan.without_last()`` (the mutants).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from colorbrowser.actions import ACTIONS, format_action, parse_action, spec_for
from colorbrowser.errors import ActionParseError, ColorBrowserError
from colorbrowser.plan.placeholders import PLACEHOLDERS
from colorbrowser.plan.random_agent import random_action, random_answer, step_rng
from colorbrowser.types import ElementInfo, Observation

ENCODED = "oracle:"  # prefix of a mapping step carried as a string
RANDOM = "random"  # a step of the random agent (plan/random_agent.py)
TARGET_KEYS = {"role", "name", "contains", "nth", "ends"}
MAX_NTH = 10_000  # no page shows more elements of one role and name
STEP_KEYS = {"wrong", "expect"}  # what a mapping step may hold besides its action
_PLACEHOLDER = re.compile(r"__[A-Z][A-Z_]*__")


class OracleMiss(ColorBrowserError):
    """A step's target is not on the current page."""


def _squash(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Target:
    role: str
    name: str | None = None
    contains: str | None = None
    nth: int = 0
    ends: bool = False  # ``contains`` ends the name

    def matches(self, element: ElementInfo) -> bool:
        if element.role.lower() != self.role.lower():
            return False
        return self.fits(element.name)

    def fits(self, name: str) -> bool:
        """Whether an element's name is this target's name (or holds its part)."""
        name = _squash(name)
        if self.name is not None:
            return name == _squash(self.name)
        if self.contains is None:
            return True
        part = _squash(self.contains).lower()
        return name.lower().endswith(part) if self.ends else part in name.lower()

    def find(self, obs: Observation) -> ElementInfo:
        found = [e for e in obs.elements.values() if self.matches(e)]
        pool = [e for e in found if e.visible] or found
        if len(pool) <= self.nth:
            raise OracleMiss(f"{self.describe()} is not on {obs.url} "
                             f"({len(pool)} match{'es' if len(pool) != 1 else ''})")
        return pool[self.nth]

    def describe(self) -> str:
        label = (repr(self.name) if self.name is not None
                 else f"containing {self.contains!r}" + (" at the end" if self.ends else "")
                 if self.contains else "")
        which = f" (match {self.nth + 1})" if self.nth else ""
        return f"the {self.role} {label}".rstrip() + which

    def to_data(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.name is not None:
            out["name"] = self.name
        if self.contains is not None:
            out["contains"] = self.contains
        if self.nth:
            out["nth"] = self.nth
        if self.ends and self.contains is not None:
            out["ends"] = True
        return out


@dataclass(frozen=True)
class Step:
    """One action of a plan; ``args`` are the action's arguments after the target."""

    action: str
    target: Target | None = None
    args: tuple[Any, ...] = ()
    wrong: Any = None  # replaces the step's value in the "wrong value" mutant
    text: str | None = None  # set for a plain action string
    expect: Target | None = None  # shows once the step has taken effect

    @property
    def has_value(self) -> bool:
        """Whether the step carries a value a mutant can change."""
        return bool(self.args) and self.action not in ("click", "dblclick", "hover")

    @property
    def valueless(self) -> bool:
        """An element step whose only value is its target (click, check, ...)."""
        return self.target is not None and not self.has_value

    def action_text(self, obs: Observation | None = None,
                    env: Mapping[str, str] | None = None) -> str:
        """The concrete action for this page: the target's current bid filled in."""
        if self.action == RANDOM:
            return _random_text(self, obs)
        if self.text is not None:
            return fill(self.text, env)
        args = [fill(a, env) if isinstance(a, str) else a for a in self.args]
        if self.target is not None:
            if obs is None:
                raise OracleMiss(f"{self.describe()}: no page to look at")
            args = [self.target.find(obs).bid, *args]
        return format_action(self.action, args)

    def mutated(self) -> Step:
        """The step with its wrong value (or, for a click, its wrong target) in place."""
        if self.wrong is None:
            raise ValueError("this step has no wrong value")
        if isinstance(self.wrong, Target):
            return replace(self, target=self.wrong, wrong=None)
        return replace(self, args=(self.wrong, *self.args[1:]), wrong=None, text=None)

    def describe(self) -> str:
        """What a person would be told to do."""
        if self.text is not None:
            return self.text
        if self.action == RANDOM:
            return "answer at random" if self.args[2] else "do something at random"
        what = self.target.describe() if self.target else ""
        value = self.args[0] if self.args else None
        phrases = {
            "click": f"click {what}", "dblclick": f"double-click {what}",
            "hover": f"point at {what}", "check": f"tick {what}", "uncheck": f"untick {what}",
            "fill": f"type {value!r} into {what}", "press": f"press {value} in {what}",
            "select_option": f"choose {value!r} in {what}",
            "goto": f"open {value}", "stop": f"answer {value!r}" if value else "finish",
        }
        return phrases.get(self.action, format_action(self.action, list(self.args)))

    def to_data(self) -> str | dict[str, Any]:
        """The step as it is written in a plan file."""
        if self.text is not None:
            return self.text
        if self.action == RANDOM:
            seed, step, answer = self.args
            return {RANDOM: {"seed": seed, "step": step, "answer": answer}}
        spec = ACTIONS[self.action]
        out: dict[str, Any] = {}
        if self.target is not None:
            out[self.action] = self.target.to_data()
            for param, value in zip(spec.params[1:], self.args, strict=False):
                out[param.name] = value
        else:
            out[self.action] = (self.args[0] if len(self.args) == 1 else
                                list(self.args) if self.args else None)
        if self.wrong is not None:
            out["wrong"] = self.wrong.to_data() if isinstance(self.wrong, Target) else self.wrong
        if self.expect is not None:
            out["expect"] = self.expect.to_data()
        return out


@dataclass
class Plan:
    steps: list[Step] = field(default_factory=list)

    def encode(self) -> list[str]:
        return [encode_step(s) for s in self.steps]

    def wrong_value(self) -> Plan:
        """The plan with the last step that has a wrong value using it."""
        for index in range(len(self.steps) - 1, -1, -1):
            if self.steps[index].wrong is not None:
                steps = list(self.steps)
                steps[index] = steps[index].mutated()
                return Plan(steps)
        raise ValueError("no step of this plan names a wrong value")

    def without_last(self) -> Plan:
        return Plan(self.steps[:-1])

    @property
    def mutable(self) -> bool:
        return any(s.wrong is not None for s in self.steps)


def fill(text: str, env: Mapping[str, str] | None) -> str:
    """``__TRAC__`` and the like, filled from ``WA_*`` variables when they are set."""
    if not env or "__" not in text:
        return text

    def value(match: re.Match[str]) -> str:
        var = PLACEHOLDERS.get(match.group(0))
        got = env.get(var, "").strip().rstrip("/") if var else ""
        return got or match.group(0)

    return _PLACEHOLDER.sub(value, text)


def _target(raw: Any, where: str) -> Target:
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: the target must be a mapping like "
                         "{role: link, name: Orders}")
    extra = set(raw) - TARGET_KEYS
    if extra:
        raise ValueError(f"{where}: unknown target key {sorted(extra)[0]!r} "
                         f"(use {', '.join(sorted(TARGET_KEYS))})")
    role, name, contains, nth = (raw.get("role"), raw.get("name"), raw.get("contains"),
                                 raw.get("nth", 0))
    if not isinstance(role, str) or not role.strip():
        raise ValueError(f"{where}: the target needs a role")
    if (name is None) == (contains is None):
        raise ValueError(f"{where}: the target needs exactly one of name or contains")
    if not isinstance(name if name is not None else contains, str):
        raise ValueError(f"{where}: name and contains are text")
    if isinstance(nth, bool) or not isinstance(nth, int) or not 0 <= nth <= MAX_NTH:
        raise ValueError(f"{where}: nth is a whole number from 0 to {MAX_NTH:,}")
    ends = raw.get("ends", False)
    if not isinstance(ends, bool) or (ends and contains is None):
        raise ValueError(f"{where}: ends is true or false, and only beside contains")
    return Target(role.strip(), name, contains, nth, ends)


def parse_step(raw: Any, where: str = "step") -> Step:
    """A step from its file form; raises ValueError with a one-line reason."""
    if isinstance(raw, str):
        if raw.startswith(ENCODED):
            return decode_step(raw)
        try:
            action = parse_action(raw)
        except ActionParseError as exc:
            raise ValueError(f"{where}: {exc}") from None
        return Step(action.name, args=tuple(action.args), text=raw)
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where}: expected an action string or a mapping")
    if RANDOM in raw:
        return _random_step(raw, where)
    names = [k for k in raw if k not in STEP_KEYS and spec_for(str(k)) is not None]
    if len(names) != 1:
        raise ValueError(f"{where}: a step names exactly one action (known: "
                         f"{', '.join(ACTIONS)})")
    key = names[0]
    spec = spec_for(str(key))
    assert spec is not None
    params = spec.params
    wrong = raw.get("wrong")
    expect = _target(raw["expect"], f"{where}: expect") if "expect" in raw else None
    if params and params[0].kind == "bid":
        target = _target(raw[key], f"{where}: {spec.name}")
        rest = {k: v for k, v in raw.items() if k != key and k not in STEP_KEYS}
        values = []
        for param in params[1:]:
            if param.name in rest:
                values.append(rest.pop(param.name))
            elif param.required:
                raise ValueError(f"{where}: {spec.name} needs {param.name}")
            else:
                break
        if rest:
            raise ValueError(f"{where}: {spec.name} takes no {sorted(rest)[0]!r}")
        if isinstance(wrong, Mapping):
            wrong = _target(wrong, f"{where}: {spec.name} wrong")
        step = Step(spec.name, target, tuple(values), wrong, expect=expect)
    else:
        extra = set(raw) - {key, *STEP_KEYS}
        if extra:
            raise ValueError(f"{where}: {spec.name} takes no {sorted(extra)[0]!r}")
        value = raw[key]
        args = tuple(value) if isinstance(value, list) else () if value is None else (value,)
        step = Step(spec.name, None, args, wrong, expect=expect)
    _check(step, where)
    return step


def _check(step: Step, where: str) -> None:
    """The step formats to a valid action (a placeholder bid stands in for the target)."""
    if isinstance(step.wrong, Target) and not step.valueless:
        raise ValueError(f"{where}: only a click-like step takes another target as 'wrong'")
    if step.wrong is not None and not step.has_value and not isinstance(step.wrong, Target):
        raise ValueError(f"{where}: {step.action} has no value for 'wrong' to replace; "
                         "give another target")
    args = (["1"] if step.target else []) + list(step.args)
    try:
        parse_action(format_action(step.action, args))
        if step.wrong is not None:
            mutated = step.mutated()
            parse_action(format_action(step.action, (["1"] if step.target else []) +
                                       list(mutated.args)))
    except (ActionParseError, ValueError, IndexError) as exc:
        raise ValueError(f"{where}: {exc}") from None


def parse_plan(items: Sequence[Any], where: str = "plan") -> Plan:
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise ValueError(f"{where}: expected a list of steps")
    return Plan([parse_step(item, f"{where} step {i + 1}") for i, item in enumerate(items)])


def encode_step(step: Step) -> str:
    data = step.to_data()
    return data if isinstance(data, str) else ENCODED + json.dumps(data, ensure_ascii=False)


def decode_step(text: str) -> Step:
    if text.startswith(ENCODED):
        try:
            data = json.loads(text[len(ENCODED):])
        except json.JSONDecodeError as exc:
            raise ValueError(f"broken oracle step {text[:60]!r}: {exc.msg}") from None
        return parse_step(data)
    return parse_step(text)


def _random_step(raw: Mapping[str, Any], where: str) -> Step:
    """``{random: {seed: 3, step: 1, answer: false}}``: the random agent's choice."""
    spec = raw[RANDOM]
    if set(raw) != {RANDOM} or not isinstance(spec, Mapping) or \
            not isinstance(spec.get("seed"), int) or not isinstance(spec.get("step"), int):
        raise ValueError(f"{where}: a random step is {{random: {{seed: N, step: N}}}}")
    return Step(RANDOM, args=(spec["seed"], spec["step"], bool(spec.get("answer"))))


def _random_text(step: Step, obs: Observation | None) -> str:
    if obs is None:
        raise OracleMiss("a random step needs a page")
    seed, number, answer = step.args
    rng = step_rng(seed, number, obs.url)
    return random_answer(obs, rng) if answer else random_action(obs, rng)
