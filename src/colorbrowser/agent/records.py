"""Turning one acted (or held) decision into its ``Step`` record.

Secrets never reach the record: a value typed into a password field is masked in
the action text, and registered with the redactor before anything is written.
"""

from __future__ import annotations

from colorbrowser.agent.secrets import PLACEHOLDER
from colorbrowser.agent.state import now_iso
from colorbrowser.agent.trajectory import MASK, Redactor
from colorbrowser.steps import (
    Actor,
    Decision,
    GateNote,
    Step,
    StepContext,
    StepResult,
    StepUsage,
    TabNote,
    Target,
)
from colorbrowser.types import Action, ActionResult, Observation, Usage


def describe_result(result: ActionResult | None) -> str:
    """The last action's outcome as the decider reads it next."""
    if result is None:
        return ""
    if not result.ok:
        return f"FAILED: {result.error}"
    return f"ok, returned: {result.output}" if result.output else ""


def mask_password(redactor: Redactor, obs: Observation, action: Action | None) -> None:
    """A value for a password field is a secret before it is typed: pending.json,
    written first, outlives a process killed in the middle of the step."""
    if action is None or action.name != "fill" or len(action.args) < 2:
        return
    info = obs.elements.get(str(action.args[0]))
    value = str(action.args[-1])
    if info is not None and info.states.get("password") and not PLACEHOLDER.search(value):
        redactor.add(value)  # a {{secret:NAME}} is no secret: its value is known already


def action_text(action: Action | None, result: ActionResult) -> str | None:
    if action is None:
        return None
    if result.info.get("secret") and not PLACEHOLDER.fullmatch(str(action.args[-1])):
        return f"{action.name}({action.args[0]!r}, {MASK!r})"
    return str(action)


def target(obs: Observation, action: Action | None) -> Target | None:
    """The element the action aimed at, named as the page named it then."""
    if action is None or not action.args or not isinstance(action.args[0], str):
        return None
    info = obs.elements.get(action.args[0])
    return Target(bid=info.bid, role=info.role, name=info.name) if info is not None else None


def build(*, number: int, actor: Actor, executed: bool, obs: Observation, ctx: StepContext,
          decision: Decision, action_text: str | None, result: ActionResult,
          gate: list[GateNote], timings: dict[str, float], memory: str, notes: list[str],
          episode_usage: Usage) -> Step:
    step_usage = Usage().add(decision.usage).add(ctx.usage)
    return Step(
        step=number, time=now_iso(), actor=actor, executed=executed,
        url=obs.url, title=obs.title, tabs=[TabNote(**t.__dict__) for t in obs.tabs],
        focused=obs.focused, last_error=obs.last_error, dialog=obs.dialog,
        changes=obs.changes, observation=obs.axtree, memory=memory,
        tips=list(ctx.tips), tip_ids=list(ctx.tip_ids), tips_why=list(ctx.tips_why),
        hints=list(ctx.hints), notes=list(notes), thought=decision.thought,
        action=action_text, target=target(obs, decision.action),
        reply=decision.reply if decision.action is None else None,
        format_errors=list(decision.format_errors),
        result=StepResult(ok=result.ok, error=result.error, output=result.output,
                          done=result.done, answer=result.answer, info=dict(result.info)),
        gate=gate, usage=StepUsage.of(step_usage), episode_usage=StepUsage.of(episode_usage),
        timings={k: round(v, 4) for k, v in timings.items()},
        triggers=list(ctx.triggers), critic=ctx.critic, help=ctx.help, shortcut=ctx.shortcut,
        summarizer_error=ctx.summarizer_error, summary_guidance=ctx.summary_guidance,
        knowledge_error=ctx.knowledge_error, knowledge_note=ctx.knowledge_note,
        evidence=result.evidence if result.evidence is not None and not result.evidence.empty
        else None,
        verification=ctx.verification,
        workflow=decision.workflow,
    )
