"""The episode loop: observe, decide, act, record; until stop, a step limit or a cost limit.

Failures of the page or of the model's formatting are data for the next step; only
the limits and an explicit abort end an episode early (as EpisodeEnd exceptions).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from colorbrowser.agent import checkpoint
from colorbrowser.agent.calculator import CalculationError, calculate
from colorbrowser.agent.hooks import Hook
from colorbrowser.agent.memory import Memory, NoMemory
from colorbrowser.agent.operator import Decision, Operator, OperatorView
from colorbrowser.agent.state import EpisodeState, HistoryEntry, StepContext
from colorbrowser.agent.trajectory import MASK, Trajectory
from colorbrowser.config import AgentSettings
from colorbrowser.errors import (
    BrowserError,
    CostLimitReached,
    EpisodeEnd,
    ModelError,
    StartPageFailed,
    StepLimitReached,
)
from colorbrowser.protocols import Environment
from colorbrowser.types import Action, ActionResult, Observation, Usage


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class EpisodeResult:
    status: str
    answer: str | None
    steps: int
    usage: Usage
    elapsed: float
    run_dir: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status == "done"

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "answer": self.answer,
            "steps": self.steps,
            "usage": self.usage.to_json(),
            "elapsed": round(self.elapsed, 3),
            "run_dir": self.run_dir,
            "error": self.error,
            **self.extra,
        }


class Episode:
    def __init__(
        self,
        goal: str,
        env: Environment,
        operator: Operator,
        *,
        settings: AgentSettings | None = None,
        start_url: str | None = None,
        trajectory: Trajectory | None = None,
        memory: Memory | None = None,
        hooks: Sequence[Hook] = (),
        state: EpisodeState | None = None,
    ):
        self.settings = settings or AgentSettings()
        self.env = env
        self.operator = operator
        self.trajectory = trajectory
        self.memory = memory or NoMemory()
        self.hooks = list(hooks)
        self.state = state or EpisodeState(goal=goal, start_url=start_url)
        self.obs: Observation | None = None
        self.pending_hints: list[str] = []
        self.browser_snapshot: dict[str, Any] | None = None  # set when resuming
        self.failure: Exception | None = None  # the model or browser error that ended it
        watch = getattr(env, "watch_secrets", None)
        if trajectory is not None and watch is not None:
            redactor = trajectory.redactor
            watch(lambda: redactor.secrets)  # fields holding one are covered in screenshots

    def redact(self, value: Any) -> Any:
        """Known secrets (API keys, password values) masked, for anything shown or saved."""
        return self.trajectory.redactor.obj(value) if self.trajectory else value

    # -- agent-scope actions ------------------------------------------------
    def run_agent_action(self, action: Action) -> ActionResult:
        if action.name == "stop":
            answer = str(action.args[0]) if action.args else ""
            return ActionResult(done=True, answer=answer, output="episode finished")
        if action.name == "take_note":
            text = str(action.args[0]).strip()
            if not text:
                return ActionResult.failure("take_note() needs some text to remember")
            self.state.notes.append(text[:1000])
            return ActionResult(output=f"noted ({len(self.state.notes)} notes)")
        if action.name == "calculate":
            try:
                return ActionResult(output=calculate(str(action.args[0])))
            except CalculationError as exc:
                return ActionResult.failure(f"calculate: {exc}")
        return self.env.step(action)

    # -- one step -------------------------------------------------------------
    def observe(self) -> Observation:
        if self.obs is None:
            restore = getattr(self.env, "restore", None)
            if self.browser_snapshot and restore:
                return restore(self.browser_snapshot)
            if self.state.step == 0 or not restore:
                return self._reset()
        return self.env.observe()

    def _reset(self) -> Observation:
        """The start page, or a blank tab saying why the start page is not there: a
        first step the Operator can act on (goto again), and resume can continue."""
        url = self.state.start_url
        try:
            return self.env.reset(url)
        except StartPageFailed as exc:
            error = f"the start page did not open: {exc}; goto('{url}') tries it again"
        obs = self.env.reset(None)
        obs.last_error = "; ".join(e for e in (error, obs.last_error) if e)
        obs.notice = "; ".join(e for e in (error, obs.notice) if e)
        return obs

    def step(self) -> dict[str, Any]:
        t0 = time.perf_counter()
        state = self.state
        number = state.step + 1
        obs = self.obs = self.observe()
        t_obs = time.perf_counter()
        ctx = StepContext(step=number, hints=self.pending_hints)
        self.pending_hints = []
        for hook in self.hooks:
            hook.before_decide(self, ctx, obs)
        memory_usage = self.memory.update(self, obs, ctx)
        state.usage.add(memory_usage)
        view = OperatorView(
            goal=state.goal,
            obs=obs,
            step=number,
            max_steps=self.settings.max_steps,
            memory=self.memory.render(self),
            memory_title=self.memory.title,
            recent=[] if getattr(self.memory, "shows_history", False)
            else [h.line() for h in state.recent(self.settings.recent_actions)],
            notes=list(state.notes),
            tips=ctx.tips,
            shortcuts=ctx.shortcuts,
            hints=ctx.hints,
            last_result=_describe_result(state.last_result),
            browser_notice=obs.notice or "",
        )
        decision = self.operator.decide(view)
        state.usage.add(decision.usage)
        for hook in self.hooks:
            decision = hook.review(self, ctx, decision)
        t_dec = time.perf_counter()
        if self.trajectory:
            self._mask_password(obs, decision.action)
            checkpoint.write_pending(self.trajectory, number, str(decision.action))
        result = self.execute(decision)
        t_exec = time.perf_counter()
        record = self.record(number, obs, ctx, decision, result, memory_usage,
                             {"observe": t_obs - t0, "decide": t_dec - t_obs,
                              "execute": t_exec - t_dec})
        for hook in self.hooks:
            hook.after_step(self, ctx, record)
        return record

    def _mask_password(self, obs: Observation, action: Action | None) -> None:
        """A value for a password field is a secret before it is typed: pending.json,
        written first, outlives a process killed in the middle of the step."""
        if self.trajectory is None or action is None or action.name != "fill" \
                or len(action.args) < 2:
            return
        info = obs.elements.get(str(action.args[0]))
        if info is not None and info.states.get("password"):
            self.trajectory.redactor.add(str(action.args[-1]))

    def execute(self, decision: Decision) -> ActionResult:
        if decision.action is None:
            return ActionResult.failure(
                f"no valid action after {len(decision.format_errors)} tries: {decision.error}"
            )
        result = self.run_agent_action(decision.action)
        if result.info.get("secret") and self.trajectory:
            self.trajectory.redactor.add(str(decision.action.args[-1]))
        return result

    def record(
        self,
        number: int,
        obs: Observation,
        ctx: StepContext,
        decision: Decision,
        result: ActionResult,
        memory_usage: Usage,
        timings: dict[str, float],
    ) -> dict[str, Any]:
        state = self.state
        action_text = str(decision.action) if decision.action else None
        if result.info.get("secret") and decision.action:
            action_text = f"{decision.action.name}({decision.action.args[0]!r}, {MASK!r})"
        state.step = number
        state.last_result = result
        state.history.append(HistoryEntry(number, obs.url, action_text, result.ok, result.error,
                                          result.output, decision.thought))
        if result.done:
            state.answer = result.answer
            state.status = "done"
        step_usage = Usage().add(decision.usage).add(memory_usage)
        record: dict[str, Any] = {
            "step": number,
            "time": now_iso(),
            "url": obs.url,
            "title": obs.title,
            "tabs": [t.__dict__ for t in obs.tabs],
            "focused": obs.focused,
            "last_error": obs.last_error,
            "dialog": obs.dialog,
            "changes": obs.changes,
            "observation": obs.axtree,
            "memory": self.memory.render(self),
            "tips": ctx.tips,
            "tip_ids": ctx.tip_ids,
            "hints": ctx.hints,
            "notes": list(state.notes),
            "thought": decision.thought,
            "action": action_text,
            "reply": decision.reply if decision.action is None else None,
            "format_errors": decision.format_errors,
            "result": {
                "ok": result.ok,
                "error": result.error,
                "output": result.output,
                "done": result.done,
                "answer": result.answer,
                "info": result.info,
            },
            "usage": step_usage.to_json(),
            "episode_usage": state.usage.to_json(),
            "timings": {k: round(v, 4) for k, v in timings.items()},
            "triggers": ctx.triggers,
            **ctx.extra,
        }
        if self.trajectory:
            stem = f"{number:04d}"
            record["screenshot"] = self.trajectory.save_image(f"{stem}.png", obs.screenshot)
            record["som"] = self.trajectory.save_image(f"{stem}-som.png", obs.som)
            checkpoint.save(self.trajectory, number, self.snapshot())
            self.trajectory.append_step(record)
            checkpoint.clear_pending(self.trajectory)
        return record

    def snapshot(self) -> dict[str, Any]:
        """Everything a resumed process needs besides the run's settings."""
        memory = getattr(self.memory, "snapshot", None)
        browser = getattr(self.env, "snapshot", None)
        return {
            "step": self.state.step,
            "state": self.state.to_json(),
            "memory": memory() if memory else None,
            "browser": browser() if browser else None,
        }

    # -- whole episode ----------------------------------------------------------
    def check_limits(self) -> None:
        if self.state.status == "done":
            return
        max_cost = self.settings.max_cost
        if max_cost is not None and self.state.usage.cost >= max_cost:
            raise CostLimitReached(f"cost {self.state.usage.cost:.4f} reached limit {max_cost}")
        if self.state.step >= self.settings.max_steps:
            raise StepLimitReached(f"no answer after {self.state.step} steps")

    def run(self) -> EpisodeResult:
        started = time.perf_counter() - self.state.elapsed
        for hook in self.hooks:
            hook.on_start(self)
        error = None
        try:
            while self.state.status == "running":
                self.check_limits()
                self.step()
                self.state.elapsed = time.perf_counter() - started
        except EpisodeEnd as end:
            self.state.status = end.reason
            error = str(end) or None
        except (ModelError, BrowserError) as exc:
            # Steps so far are already on disk; end cleanly with the reason.
            self.state.status = "error"
            self.failure = exc
            error = f"{type(exc).__name__}: {exc}"
        self.state.elapsed = time.perf_counter() - started
        result = EpisodeResult(
            status=self.state.status,
            answer=self.state.answer,
            steps=self.state.step,
            usage=self.state.usage,
            elapsed=self.state.elapsed,
            run_dir=str(self.trajectory.dir) if self.trajectory else None,
            error=error,
        )
        if self.trajectory:
            self.trajectory.write_result(result.to_json())
        for hook in self.hooks:
            hook.on_end(self, result.to_json())
        return result


def _describe_result(result: ActionResult | None) -> str:
    if result is None:
        return ""
    if not result.ok:
        return f"FAILED: {result.error}"
    return f"ok, returned: {result.output}" if result.output else ""
