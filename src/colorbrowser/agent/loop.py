"""The episode loop, in the order of the README's "How a step works": observe; gather
tips and triggers (hooks) and fold the page into memory; decide; review (the gate);
act; record.

Whoever acts goes through ``apply``: the Operator's reviewed decision, a person's
action in copilot mode, a replay script's. Failures of the page or of the model's
formatting are data for the next step; only the limits and an explicit abort end an
episode early (as EpisodeEnd exceptions).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from colorbrowser.agent import checkpoint, records
from colorbrowser.agent.memory import NoMemory
from colorbrowser.agent.own_actions import run_agent_action
from colorbrowser.agent.secrets import SecretRefused, Vault
from colorbrowser.agent.state import EpisodeState
from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.agent.view import EpisodeFacade
from colorbrowser.config import AgentSettings
from colorbrowser.errors import (
    Aborted,
    BrowserError,
    CostLimitReached,
    EpisodeEnd,
    ModelError,
    StartPageFailed,
    StepLimitReached,
)
from colorbrowser.gate import Abort, HandOver, Reject, Run, review
from colorbrowser.protocols import Decider, Environment, Hook, Memory, Restorable
from colorbrowser.steps import (
    Actor,
    Decision,
    DecisionView,
    EpisodeResult,
    GateNote,
    HistoryEntry,
    Step,
    StepContext,
)
from colorbrowser.types import Action, ActionResult, Observation

if TYPE_CHECKING:
    from colorbrowser.agent.tools import Tool


class Episode:
    def __init__(self, goal: str, env: Environment, decider: Decider, *,
                 settings: AgentSettings | None = None, start_url: str | None = None,
                 trajectory: Trajectory | None = None, memory: Memory | None = None,
                 hooks: Sequence[Hook] = (), state: EpisodeState | None = None,
                 tools: Mapping[str, Tool] | None = None, vault: Vault | None = None):
        self.settings = settings or AgentSettings()
        self.tools = dict(tools or {})  # Python functions the decider may call as actions
        self.vault = vault or Vault()  # {{secret:NAME}} values, filled in only when typing
        self.env = env
        self.decider = decider
        self.trajectory = trajectory
        self.memory = memory or NoMemory()
        self.hooks = list(hooks)
        self.state = state or EpisodeState(goal=goal, start_url=start_url)
        self.view = EpisodeFacade(self)  # what hooks and memory see: read-only
        self.obs: Observation | None = None  # the page as last seen
        self._fresh = False  # True until something acts on the page seen in ``obs``
        self._opened = False  # has this process looked at the browser yet?
        self.pending_hints: list[str] = []
        self.browser_snapshot: dict[str, Any] | None = None  # set when resuming
        self.failure: Exception | None = None  # the model or browser error that ended it
        self.workflow: Any = None  # what the workflows setting chose (run/factory.py)
        watch = getattr(env, "watch_secrets", None)
        if trajectory is not None and watch is not None:
            redactor = trajectory.redactor
            watch(lambda: redactor.secrets)  # fields holding one are covered in screenshots

    def redact(self, value: Any) -> Any:
        """Known secrets (API keys, password values) masked, for anything shown or saved."""
        return self.trajectory.redactor.obj(value) if self.trajectory else value

    # -- 1. observe ----------------------------------------------------------------------
    def observe(self) -> Observation:
        """The page now: the start page first, or the browser a killed run left."""
        first, self._opened = not self._opened, True
        restorable = isinstance(self.env, Restorable)
        if first and restorable and self.browser_snapshot:
            self.obs = self.env.restore(self.browser_snapshot)
        elif first and (self.state.step == 0 or not restorable):
            self.obs = self._open_start()
        else:
            self.obs = self.env.observe()
        self.obs = self.vault.hide_observation(self.obs)  # the values never reach a reader
        self._fresh = True
        return self.obs

    def current(self) -> Observation:
        """The page as last seen, or as it is now if something acted since."""
        return self.obs if self._fresh and self.obs else self.observe()

    def _open_start(self) -> Observation:
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

    # -- 2. gather: tips, shortcuts, triggers, memory --------------------------------------
    def gather(self, obs: Observation) -> StepContext:
        ctx = StepContext(step=self.state.step + 1, hints=self.pending_hints)
        self.pending_hints = []
        if self.trajectory is not None:  # saved now: a person asked for help sees it
            ctx.screenshot = self.trajectory.save_image(f"{ctx.step:04d}.png", obs.screenshot)
        for hook in self.hooks:
            hook.before_decide(self.view, ctx, obs)
        ctx.usage.add(self.memory.update(self.view, obs, ctx))
        self.state.summary = self.memory.render(self.view)
        self.state.usage.add(ctx.usage)
        return ctx

    def decision_view(self, obs: Observation, ctx: StepContext) -> DecisionView:
        state = self.state
        recent = [] if self.memory.shows_history else [
            h.line() for h in state.recent(self.settings.recent_actions)]
        return DecisionView(
            goal=state.goal, obs=obs, step=ctx.step, max_steps=self.settings.max_steps,
            memory=state.summary, memory_title=self.memory.title, recent=recent,
            notes=list(state.notes), tips=ctx.tips, shortcuts=ctx.shortcuts, hints=ctx.hints,
            last_result=records.describe_result(state.last_result),
            browser_notice=obs.notice or "")

    # -- 3. decide, 4. review -----------------------------------------------------------
    def step(self) -> Step:
        t0 = time.perf_counter()
        obs = self.observe()
        t_obs = time.perf_counter()
        ctx = self.gather(obs)
        decision = self.decider.decide(self.decision_view(obs, ctx))
        self.state.decisions += 1
        self.state.usage.add(decision.usage)
        verdict, gate = review(self.hooks, self.view, ctx, decision)
        timings = {"observe": t_obs - t0, "decide": time.perf_counter() - t_obs}
        if isinstance(verdict, Abort):
            raise Aborted(verdict.reason or f"stopped at step {ctx.step}")
        if isinstance(verdict, Run):
            return self.apply(verdict.decision.action, "agent", decision=verdict.decision,
                              ctx=ctx, gate=gate, timings=timings)
        return self.hold(decision, verdict, ctx, gate, timings)

    def hold(self, decision: Decision, verdict: Reject | HandOver, ctx: StepContext,
             gate: list[GateNote], timings: dict[str, float]) -> Step:
        """The gate stopped the decision: record it unrun; a rejection's reason is the
        error the decider reads next, a hand-over makes the next step look again."""
        step = self.record(ctx.step, "agent", self.current(), ctx, decision,
                           ActionResult.failure(verdict.why()), gate, timings, executed=False)
        if isinstance(verdict, HandOver):
            self._fresh = False  # someone else acts: whoever comes next looks again
        return step

    # -- 5. act -----------------------------------------------------------------------------
    def apply(self, action: Action | None, actor: Actor = "agent", *,
              decision: Decision | None = None, ctx: StepContext | None = None,
              done: ActionResult | None = None, obs: Observation | None = None,
              thought: str = "", gate: Sequence[GateNote] = (),
              timings: dict[str, float] | None = None) -> Step:
        """Run one action for any actor and record it: the same checkpoint, the same
        trajectory. ``done`` records an action that already took effect (a person's
        captured click); ``obs`` is the page it was taken on, when not the last one."""
        obs = obs or self.current()
        ctx = ctx or StepContext(step=self.state.step + 1)
        decision = decision or Decision(thought, action, reply="")
        if self.trajectory is not None:
            records.mask_password(self.trajectory.redactor, obs, decision.action)
            checkpoint.write_pending(self.trajectory, ctx.step, str(decision.action))
        t0 = time.perf_counter()
        result = done if done is not None else self.execute(decision)
        timings = {**(timings or {}), "execute": time.perf_counter() - t0}
        self._fresh = False  # the page has moved on: whoever acts next looks again
        return self.record(ctx.step, actor, obs, ctx, decision, result, list(gate), timings)

    def execute(self, decision: Decision) -> ActionResult:
        if decision.action is None:
            return ActionResult.failure(
                f"no valid action after {len(decision.format_errors)} tries: {decision.error}")
        try:
            action = self.vault.fill_in(decision.action, self._live_url(),
                                        in_frame=self._in_frame(decision.action))
        except SecretRefused as exc:
            return ActionResult.failure(f"{decision.action.name}: {exc}")
        result = run_agent_action(self.state, self.env, action, self.tools)
        if result.info.get("secret") and self.trajectory and action is decision.action:
            self.trajectory.redactor.add(str(decision.action.args[-1]))
        return self.vault.hide_result(result)

    def _live_url(self) -> str:
        """The page's address now, not as last seen: where a secret would really go."""
        page = getattr(self.env, "page", None) if self.vault else None
        url = getattr(page, "url", None)
        return url if isinstance(url, str) else (self.obs.url if self.obs else "")

    def _in_frame(self, action: Action) -> bool:
        if not self.obs or not action.args:
            return False
        info = self.obs.elements.get(str(action.args[0]))
        return bool(info and info.frame)

    # -- 6. record --------------------------------------------------------------------------
    def record(self, number: int, actor: Actor, obs: Observation, ctx: StepContext,
               decision: Decision, result: ActionResult, gate: list[GateNote],
               timings: dict[str, float], *, executed: bool = True) -> Step:
        state = self.state
        action_text = records.action_text(decision.action, result)
        state.step, state.last_result = number, result
        state.history.append(HistoryEntry(number, obs.url, action_text, result.ok, result.error,
                                          result.output, decision.thought, actor))
        if result.done:
            state.answer, state.status = result.answer, "done"
        step = records.build(
            number=number, actor=actor, executed=executed, obs=obs, ctx=ctx, decision=decision,
            action_text=action_text, result=result, gate=gate, timings=timings,
            memory=state.summary, notes=state.notes, episode_usage=state.usage)
        if self.trajectory is not None:
            step.screenshot = ctx.screenshot or self.trajectory.save_image(
                f"{number:04d}.png", obs.screenshot)
            step.som = self.trajectory.save_image(f"{number:04d}-som.png", obs.som)
            checkpoint.save(self.trajectory, number,
                            checkpoint.snapshot(self.state, self.memory, self.env))
            self.trajectory.append_step(step)
            checkpoint.clear_pending(self.trajectory)
        for hook in self.hooks:
            hook.after_step(self.view, ctx, step)
        return step

    # -- the whole episode -----------------------------------------------------------------
    def check_limits(self) -> None:
        if self.state.status == "done":
            return
        max_cost = self.settings.max_cost
        if max_cost is not None and self.state.usage.cost >= max_cost:
            raise CostLimitReached(f"cost {self.state.usage.cost:.4f} reached limit {max_cost}")
        if self.state.decisions >= self.settings.max_steps:
            raise StepLimitReached(f"no answer after {self.state.decisions} steps")

    def run(self) -> EpisodeResult:
        started = time.perf_counter() - self.state.elapsed
        for hook in self.hooks:
            hook.on_start(self.view)
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
        return self.finish(error)

    def finish(self, error: str | None = None) -> EpisodeResult:
        state = self.state
        result = EpisodeResult(
            status=state.status, answer=state.answer, steps=state.step, usage=state.usage,
            elapsed=state.elapsed, error=error,
            run_dir=str(self.trajectory.dir) if self.trajectory else None)
        # The verifier first: the others (knowledge, reports) see its verdict.
        for hook in sorted(self.hooks, key=lambda h: not getattr(h, "gives_verdict", False)):
            hook.on_end(self.view, result)
        if self.trajectory:
            self.trajectory.write_result(result.to_json())
        return result
