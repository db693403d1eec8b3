"""The Operator: one model call that turns the current view into one action.

It sees the goal, the current page, the memory text, tips, notes and the last few
actions; never the raw history, so its prompt stays flat as an episode grows. It is
one ``Role`` (llm/role.py): its templates, ``split_reply`` as the parser, the page's
element ids as the output grammar, and format retries that show the bad reply.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from colorbrowser.actions import (
    BUILTIN,
    ActionTable,
    describe_actions,
    extract_action_text,
    parse_action,
)
from colorbrowser.agent.output import OutputSpec
from colorbrowser.errors import ModelError
from colorbrowser.llm.grammar import action_constraint
from colorbrowser.llm.prompts import clip_page, render
from colorbrowser.llm.role import Role
from colorbrowser.llm.tokens import count_tokens
from colorbrowser.protocols import Model
from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import Action, Completion, Constraint, Message, Observation

TEMPLATES = Path(__file__).parent / "templates"

CHAT_MARKS = 64  # tokens the chat template adds around the messages, and some slack
MIN_PAGE_TOKENS = 200  # never cut the page below this: a prompt without it is no use

_THINK = re.compile(r"<think>(.*?)(?:</think>|<action>|$)", re.S | re.I)


def split_reply(reply: str, table: ActionTable | None = None,
                output: OutputSpec | None = None) -> tuple[str, Action]:
    """Thought and parsed action from a reply; raises ActionParseError with a fixable reason.

    Under an output schema, ``stop``'s answer is checked here, so an answer that does
    not fit is a format error the model is shown, like any other unusable reply."""
    m = _THINK.search(reply)
    thought = (m.group(1) if m else reply.split("<action>")[0]).strip()
    action = parse_action(extract_action_text(reply, table), table)
    if output is not None and action.name == "stop":
        answer = output.check(action.args[0] if action.args else "")
        action = Action("stop", [answer], raw=f"stop({answer!r})")
    return thought[:2000], action


class Operator:
    """The model-backed Decider. ``table`` holds the actions it may use (tools added);
    ``output`` the schema its final answer must fit; ``secrets`` the placeholders it
    may type (names and hosts only)."""

    def __init__(self, model: Model, *, format_retries: int = 2, send_screenshot: bool = True,
                 template_dir: Path | None = None, table: ActionTable | None = None,
                 output: OutputSpec | None = None, secrets: Sequence[str] = ()):
        self.model = model
        self.send_screenshot = send_screenshot
        self.output = output
        if output is not None:
            table = (table or BUILTIN).with_output(output.schema)
        self.table = table

        def parse(reply: str) -> tuple[str, Action]:
            return split_reply(reply, self.table, output)

        self.role: Role[tuple[str, Action]] = Role(
            model, system="operator_system.j2", user="operator_user.j2", parse=parse,
            templates=[template_dir, TEMPLATES], retries=format_retries,
            retry="format_error.j2", system_context={
                "actions": describe_actions(table=table),
                "answer_schema": output.prompt_text() if output else "",
                "secrets": list(secrets)})

    def context(self, view: DecisionView) -> dict[str, object]:
        tabs = ""
        if len(view.obs.tabs) > 1:
            tabs = "; ".join(
                f"{t.index}: {t.title or t.url}{' (current)' if t.active else ''}"
                for t in view.obs.tabs
            )
        return self._fit({**view.__dict__, "tabs": tabs})

    def _fit(self, context: dict[str, object]) -> dict[str, object]:
        """The context with the page text cut so that the prompt and the reply fit the
        model's window, when the model says how large it is (the offline model's is
        4096 tokens, and a shop's category page alone can fill it). The rest of the
        prompt (goal, tips, memory) is kept whole: it is small and bounded."""
        limit = getattr(self.model, "context_tokens", None)
        obs = context["obs"]
        if not limit or not isinstance(obs, Observation):
            return context
        reply = getattr(self.model, "reply_tokens", 512)
        for _ in range(3):
            used = sum(count_tokens(m.content) for m in self.role.messages(**context))
            over = used + reply + CHAT_MARKS - limit
            page = obs.axtree
            if over <= 0 or not page:
                return context
            page_tokens = count_tokens(page)
            keep = max(MIN_PAGE_TOKENS, page_tokens - over)
            if keep >= page_tokens:
                return context
            obs = dataclasses.replace(obs, axtree=clip_page(
                page, int(len(page) * keep / page_tokens * 0.95)))
            context = {**context, "obs": obs}
        return context

    def images(self, view: DecisionView) -> list[bytes]:
        image = view.obs.som or view.obs.screenshot
        return [image] if self.send_screenshot and image else []

    def messages(self, view: DecisionView) -> list[Message]:
        return self.role.messages(images=self.images(view), **self.context(view))

    def constraint(self, obs: Observation) -> Constraint:
        """Output grammar and schema whose element ids are exactly the page's ids."""
        return action_constraint(obs.bids, table=self.table)

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


class _PromptOnly:
    """Stands in for the model when only the Operator's prompt is wanted (a training
    example): it has no window, so the page is kept whole, and it takes no images."""

    name = "prompt-only"
    vision = False

    def complete(self, messages: list[Message], **_: object) -> Completion:
        raise ModelError("this Operator only renders prompts")


def operator_prompt(view: DecisionView, table: ActionTable | None = None) -> list[Message]:
    """The messages the Operator sends for ``view``, rendered by its own templates."""
    return Operator(_PromptOnly(), table=table, send_screenshot=False).messages(view)


def operator_reply(thought: str, action: str) -> str:
    """A reply in the shape the Operator asks for and ``split_reply`` reads."""
    return render("operator_reply.j2", [TEMPLATES], thought=thought, action=action).strip()
