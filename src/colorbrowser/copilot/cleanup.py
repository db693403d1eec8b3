"""An optional second look at the person's normalised actions, by a model role.

The rules in ``normalize`` are enough for correctness; a model may still drop noise
the rules kept (a stray click, a scroll undone at once) or merge two actions that are
one intention. Its reply is held to what it was given: every action must parse, may
only name element ids from the list, may only drop or merge, and keeps the order.
Anything else (or a failed call) keeps the rules' list unchanged.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colorbrowser.actions import format_action, parse_action
from colorbrowser.copilot.normalize import HumanAction
from colorbrowser.errors import ActionParseError
from colorbrowser.llm.jsonreply import json_object
from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model
from colorbrowser.types import Action, Usage

TEMPLATES = Path(__file__).parent / "templates"


class _Item(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: str = Field(max_length=2000)
    note: str = Field("", max_length=300)


class CleanupReply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    actions: list[_Item] = Field(max_length=200)


def parse_reply(text: str) -> CleanupReply:
    try:
        return CleanupReply.model_validate(json_object(text, "the clean-up reply"))
    except ValidationError as exc:
        raise ValueError(f"the clean-up reply does not fit: {exc.errors()[0]['msg']}") from None


@dataclass
class Cleaned:
    actions: list[HumanAction]
    notes: list[str] = field(default_factory=list)
    used: bool = False  # False: the model's list was refused, the rules' list stands
    why: str = ""
    usage: Usage = field(default_factory=Usage)


def _text(name: str, args: list) -> str:
    return format_action(name, list(args))


def _match(actions: list[HumanAction], start: int, action: Action) -> tuple[int, int] | None:
    """Where ``action`` is in the list from ``start``: itself, or the sum of a run of
    scrolls; (first, past the last) of what it stands for."""
    wanted = _text(action.name, action.args)
    for i in range(start, len(actions)):
        if _text(actions[i].name, actions[i].action.args) == wanted:
            return i, i + 1
        if action.name == "scroll" and actions[i].name == "scroll":
            dx = dy = 0
            for j in range(i, len(actions)):
                if actions[j].name != "scroll":
                    break
                dx += actions[j].action.args[0]
                dy += actions[j].action.args[1]
                if [dx, dy] == list(action.args):
                    return i, j + 1
    return None


class Cleanup:
    def __init__(self, model: Model) -> None:
        self.role: Role[CleanupReply] = Role(
            model, system="cleanup_system.j2", user="cleanup_user.j2", parse=parse_reply,
            templates=[TEMPLATES], retries=1, max_tokens=800, temperature=0.0)

    def __call__(self, goal: str, actions: list[HumanAction]) -> Cleaned:
        if len(actions) < 2:
            return Cleaned(actions, why="nothing to tidy")
        reply = self.role.ask(goal=goal, actions=[a.text() for a in actions])
        if reply.value is None:
            return Cleaned(actions, why=reply.error or "no reply", usage=reply.usage)
        kept, why = self._hold(actions, reply.value)
        if kept is None:
            return Cleaned(actions, why=why, usage=reply.usage)
        return Cleaned(kept, [i.note for i in reply.value.actions], True, usage=reply.usage)

    @staticmethod
    def _hold(actions: list[HumanAction],
              reply: CleanupReply) -> tuple[list[HumanAction] | None, str]:
        """The model's list as actions, if it only drops or merges what it was given,
        in the same order."""
        out: list[HumanAction] = []
        at = 0
        for item in reply.actions:
            try:
                action = parse_action(item.action)
            except ActionParseError as exc:
                return None, f"not an action: {exc}"
            found = _match(actions, at, action)
            if found is None:
                return None, f"{item.action} is not among the recorded actions, in order"
            first, at = found
            source = actions[first]
            out.append(dataclasses.replace(
                source, action=Action(action.name, list(action.args),
                                      raw=_text(action.name, action.args)),
                events=[e for a in actions[first:at] for e in a.events]))
        return out, ""
