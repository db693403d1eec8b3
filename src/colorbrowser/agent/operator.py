"""The Operator: one model call that turns the current view into one action.

It sees the goal, the current page, the memory text, tips, notes and the last few
actions; never the raw history, so its prompt stays flat as an episode grows. It is
one ``Role`` (llm/role.py): its templates, ``split_reply`` as the parser, the page's
element ids as the output grammar, and format retries that show the bad reply.
"""

from __future__ import annotations

import re
from pathlib import Path

from colorbrowser.actions import describe_actions, extract_action_text, parse_action
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.role import Role
from colorbrowser.protocols import Model
from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import Action, Constraint, Message, Observation

TEMPLATES = Path(__file__).parent / "templates"

_THINK = re.compile(r"<think>(.*?)(?:</think>|<action>|$)", re.S | re.I)


def split_reply(reply: str) -> tuple[str, Action]:
    """Thought and parsed action from a reply; raises ActionParseError with a fixable reason."""
    m = _THINK.search(reply)
    thought = (m.group(1) if m else reply.split("<action>")[0]).strip()
    action = parse_action(extract_action_text(reply))
    return thought[:2000], action


class Operator:
    """The model-backed Decider."""

    def __init__(self, model: Model, *, format_retries: int = 2, send_screenshot: bool = True,
                 template_dir: Path | None = None):
        self.model = model
        self.send_screenshot = send_screenshot
        self.role: Role[tuple[str, Action]] = Role(
            model, system="operator_system.j2", user="operator_user.j2", parse=split_reply,
            templates=[template_dir, TEMPLATES], retries=format_retries,
            retry="format_error.j2", system_context={"actions": describe_actions()})

    def context(self, view: DecisionView) -> dict[str, object]:
        tabs = ""
        if len(view.obs.tabs) > 1:
            tabs = "; ".join(
                f"{t.index}: {t.title or t.url}{' (current)' if t.active else ''}"
                for t in view.obs.tabs
            )
        return {**view.__dict__, "tabs": tabs}

    def images(self, view: DecisionView) -> list[bytes]:
        image = view.obs.som or view.obs.screenshot
        return [image] if self.send_screenshot and image else []

    def messages(self, view: DecisionView) -> list[Message]:
        return self.role.messages(images=self.images(view), **self.context(view))

    def constraint(self, obs: Observation) -> Constraint:
        """Output grammar and schema whose element ids are exactly the page's ids."""
        return action_constraint(obs.bids)

    def decide(self, view: DecisionView) -> Decision:
        reply = self.role.ask(images=self.images(view), constraint=self.constraint(view.obs),
                              **self.context(view))
        if reply.failure is not None:
            raise reply.failure  # the endpoint is down: the episode ends with the reason
        if reply.value is not None:
            thought, action = reply.value
            return Decision(thought, action, reply.text, reply.usage, reply.attempts,
                            reply.messages)
        thought = _THINK.search(reply.text)
        return Decision(thought.group(1).strip() if thought else "", None, reply.text,
                        reply.usage, reply.attempts, reply.messages)
