"""Paths as oracle plans: each step names its element by role and name (and which of
several matches), so a path recorded today replays on a fresh page whose element ids
differ. The file form is the arena's oracle plan format (plan/format.py)."""

from __future__ import annotations

from typing import Any

from colorbrowser.actions import format_action, parse_action
from colorbrowser.explore.candidates import Candidate
from colorbrowser.types import ElementInfo, Observation

PlanStep = str | dict[str, Any]


def _matches(el: ElementInfo, role: str, name: str) -> bool:
    return el.role.lower() == role.lower() and " ".join(el.name.split()) == " ".join(name.split())


def target_of(obs: Observation, bid: str) -> dict[str, Any]:
    """The target of ``bid`` as role, name and its place among the same-named ones."""
    el = obs.elements[bid]
    found = [e for e in obs.elements.values() if _matches(e, el.role, el.name)]
    pool = [e for e in found if e.visible] or found
    target: dict[str, Any] = {"role": el.role, "name": " ".join(el.name.split())}
    nth = next((i for i, e in enumerate(pool) if e.bid == bid), 0)
    if nth:
        target["nth"] = nth
    return target


def step_of(cand: Candidate, obs: Observation) -> PlanStep:
    """The candidate's action as a plan step."""
    action = parse_action(cand.action)
    target = target_of(obs, cand.target.bid)
    step: dict[str, Any] = {action.name: target}
    if action.name == "fill":
        step["value"] = action.args[1]
    elif action.name == "select_option":
        step["options"] = action.args[1]
    elif action.name == "press":
        step["key"] = action.args[1]
    return step


def by_hand(plan: list[PlanStep]) -> bool:
    """Whether a path is made of clicks and fills only (no address typed in)."""
    return all(isinstance(step, dict) for step in plan)


def better_path(new: list[PlanStep], old: list[PlanStep]) -> bool:
    """A path made by hand beats one that types an address; then the shorter wins."""
    if by_hand(new) != by_hand(old):
        return by_hand(new)
    return len(new) < len(old)


def goto_step(url: str) -> PlanStep:
    return format_action("goto", [url])


def stop_step(answer: str) -> PlanStep:
    return format_action("stop", [answer])


class Unresolved(Exception):
    """A plan step's element is not on the page."""


def resolve(step: PlanStep, obs: Observation) -> str:
    """The concrete action for this page: the target's current bid filled in."""
    if isinstance(step, str):
        return step
    name = next(k for k in step if k not in ("value", "options", "key", "wrong", "expect"))
    target = step[name]
    found = [e for e in obs.elements.values() if _matches(e, target["role"], target["name"])]
    pool = [e for e in found if e.visible] or found
    nth = target.get("nth", 0)
    if len(pool) <= nth:
        raise Unresolved(f"the {target['role']} {target['name']!r} is not on {obs.url}")
    args: list[Any] = [pool[nth].bid]
    for key in ("value", "options", "key"):
        if key in step:
            args.append(step[key])
    return format_action(name, args)


def describe(step: PlanStep) -> str:
    if isinstance(step, str):
        return step
    name = next(k for k in step if k not in ("value", "options", "key", "wrong", "expect"))
    target = step[name]
    return f"{name} the {target['role']} {target['name']!r}"
