"""The Operator: one model call that turns the current view into one action.

It sees the goal, the current page, the memory text, tips, notes and the last few
actions; never the raw history, so its prompt stays flat as an episode grows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from colorbrowser.actions import describe_actions, extract_action_text, parse_action
from colorbrowser.errors import ActionParseError
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.prompts import render
from colorbrowser.protocols import Model
from colorbrowser.types import Action, Constraint, Message, Observation, Usage

TEMPLATES = Path(__file__).parent / "templates"

_THINK = re.compile(r"<think>(.*?)(?:</think>|<action>|$)", re.S | re.I)


@dataclass
class OperatorView:
    """Everything the Operator's prompt is built from."""

    goal: str
    obs: Observation
    step: int
    max_steps: int
    memory: str = ""
    memory_title: str = "Progress so far"
    recent: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tips: list[str] = field(default_factory=list)
    shortcuts: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    last_result: str = ""
    browser_notice: str = ""  # what a watchdog did since the last step (reload, restart...)


@dataclass
class Decision:
    thought: str
    action: Action | None
    reply: str
    usage: Usage = field(default_factory=Usage)
    format_errors: list[str] = field(default_factory=list)
    prompt: list[Message] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        return None if self.action else (self.format_errors[-1] if self.format_errors else None)


def split_reply(reply: str) -> tuple[str, Action]:
    """Thought and parsed action from a reply; raises ActionParseError with a fixable reason."""
    m = _THINK.search(reply)
    thought = (m.group(1) if m else reply.split("<action>")[0]).strip()
    action = parse_action(extract_action_text(reply))
    return thought[:2000], action


class Operator:
    def __init__(
        self,
        model: Model,
        *,
        format_retries: int = 2,
        send_screenshot: bool = True,
        template_dir: Path | None = None,
    ):
        self.model = model
        self.format_retries = format_retries
        self.send_screenshot = send_screenshot
        self.template_dir = template_dir
        self._system = self.render("operator_system.j2", actions=describe_actions())

    def render(self, name: str, **context: object) -> str:
        return render(name, [self.template_dir, TEMPLATES], **context)

    def messages(self, view: OperatorView) -> list[Message]:
        tabs = ""
        if len(view.obs.tabs) > 1:
            tabs = "; ".join(
                f"{t.index}: {t.title or t.url}{' (current)' if t.active else ''}"
                for t in view.obs.tabs
            )
        user = self.render(
            "operator_user.j2",
            goal=view.goal,
            obs=view.obs,
            step=view.step,
            max_steps=view.max_steps,
            memory=view.memory,
            memory_title=view.memory_title,
            recent=view.recent,
            notes=view.notes,
            tips=view.tips,
            shortcuts=view.shortcuts,
            hints=view.hints,
            last_result=view.last_result,
            browser_notice=view.browser_notice,
            tabs=tabs,
        )
        image = view.obs.som or view.obs.screenshot
        images = [image] if (self.send_screenshot and image and self.model.vision) else []
        return [Message("system", self._system), Message("user", user, images=images)]

    def retry_messages(self, messages: list[Message], reply: str,
                       error: ActionParseError) -> list[Message]:
        """The same prompt with the unusable reply and why, fenced: a reply may quote a
        page, so it is shown as data in the prompt, not replayed as the model's turn."""
        note = self.render("format_error.j2", error=str(error), reply=reply)
        *head, user = messages
        return [*head, Message("user", f"{user.content}\n{note}", images=user.images)]

    def constraint(self, obs: Observation) -> Constraint:
        """Output grammar and schema whose element ids are exactly the page's ids."""
        return action_constraint(obs.bids)

    def decide(self, view: OperatorView) -> Decision:
        messages = self.messages(view)
        constraint = self.constraint(view.obs)
        usage = Usage()
        errors: list[str] = []
        reply = ""
        convo = list(messages)
        for _attempt in range(self.format_retries + 1):
            completion = self.model.complete(convo, constraint=constraint)
            usage.add(completion.usage)
            reply = completion.text
            try:
                thought, action = split_reply(reply)
            except ActionParseError as exc:
                errors.append(str(exc))
                convo = self.retry_messages(messages, reply, exc)
                continue
            return Decision(thought, action, reply, usage, errors, messages)
        thought = _THINK.search(reply)
        return Decision(thought.group(1).strip() if thought else "", None, reply, usage, errors,
                        messages)
