"""Running a learned workflow as the episode's Decider, one checked step at a time.

Blind replay clicks whatever a recorded selector resolves to today. Here every step
is resolved on the live page just before it runs, and it runs only when the page
agrees with the record: the last step's effect shows (its expected address or title,
its ``expect`` target) and the target is there with the recorded role, name and
surroundings (its label, section heading and row). Otherwise, after a short wait for
a page still loading, the step *misses*: the Operator is asked for one action with
the workflow as guidance (self-healing), and again, until the page is back on the
workflow's path (the next step's target passes the check), where the workflow takes
over again. A step that cannot be healed in a few tries ends the workflow: with
``--workflows on`` the Operator finishes the episode with the workflow as guidance;
with ``only`` the episode ends.

Nothing is acted on without the check: an element that fails it is never the
workflow's target, so a swapped row or a renamed control costs a model call, not a
wrong click. The answer is read from the page where the workflow says, then the stop
passes the gate like any other (the verifier may send it back; the Operator then
reads the answer itself). A run that healed a step and was verified becomes the
workflow's next version, with the Operator's actions in place of the step that missed.

The runner is a Hook as well as a Decider: it learns from each step's record whether
its action ran (the gate may refuse it) and, at the end, records the run's outcome.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from colorbrowser.actions import ACTIONS, Param, format_action, parse_action
from colorbrowser.errors import Aborted, ColorBrowserError
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.workflow import (
    NAVIGATING,
    Provenance,
    Workflow,
    WorkflowStep,
)
from colorbrowser.plan.format import OracleMiss, fill
from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.protocols import Decider, EpisodeView, Hook
from colorbrowser.steps import (
    Decision,
    DecisionView,
    EpisodeResult,
    Step,
    StepContext,
    WorkflowNote,
)
from colorbrowser.types import ElementInfo, Observation, Usage
from colorbrowser.workflows import forms, lookalikes, page, reads, slots, spelling, values
from colorbrowser.workflows import instantiate as inst
from colorbrowser.workflows.match import guidance_text

if TYPE_CHECKING:
    from colorbrowser.knowledge.store import KnowledgeBase

log = logging.getLogger(__name__)

Mode = Literal["on", "only"]
WAIT = "scroll(0, 0)"  # a no-op that makes the loop look at the page again


@dataclass
class Miss:
    """Why the workflow's next step cannot run as recorded; ``absent`` misses may be a
    page still loading and are looked at again before the Operator is asked."""

    reason: str
    absent: bool = True
    wrong: bool = False  # an element is there but fails the check (refused, never acted on)


@dataclass
class RunReport:
    """What the runner did in one episode (also what the benchmark counts)."""

    workflow_actions: int = 0  # workflow steps that ran after passing the check
    waits: int = 0
    operator_calls: int = 0  # decisions handed to the Operator (healing or after giving up)
    healed_steps: int = 0  # workflow steps the Operator did instead, or found renamed
    renamed: int = 0  # of those, steps whose renamed target was found in its slot (no model)
    refused: int = 0  # checks that failed on a present element (wrong role/name/surroundings)
    gave_up: str | None = None  # why the workflow stopped running, if it did
    new_version: str | None = None  # id of the version this run made


@dataclass
class _Pending:
    """The decision the runner gave last, until its step record says whether it ran."""

    kind: Literal["step", "wait", "stop", "heal"]
    index: int
    element: ElementInfo | None = None
    obs: Observation | None = None
    decision: Decision | None = None


@dataclass
class _Heal:
    index: int  # the workflow step being healed (len(steps): the answer)
    reason: str
    retry: bool = True  # the step may run itself once it fits (False: it ran and failed,
    # or the gate refused it: never the same again)
    tries: int = 0
    done: list[WorkflowStep] = field(default_factory=list)  # the Operator's actions that ran


class WorkflowRunner(Hook):
    """A Decider that runs ``flow`` with ``params``; ``operator`` heals misses. Register
    it as a hook of the same episode (``hooks()``)."""

    WAITS = 3  # looks at a page before an absent target counts as a miss
    HEAL_TRIES = 3  # Operator actions per missed step before the workflow gives up

    def __init__(self, flow: Workflow, params: Mapping[str, str], operator: Decider, *,
                 kb: KnowledgeBase | None = None, mode: Mode = "on",
                 aliases: SiteAliases = NO_ALIASES,
                 env: Mapping[str, str] | None = None) -> None:
        self.flow = flow
        self.params = spelling.with_spellings(flow, params)
        self.operator = operator
        self.kb = kb
        self.mode = mode
        self.aliases = aliases
        self.env = os.environ if env is None else env  # __SITE__ placeholders
        self.steps: list[tuple[PlanStep, WorkflowStep]] = inst.instantiate(
            flow, self.params, self.env)
        self.read_names = set(reads.examples(flow))  # values read on pages as it runs
        self.read_at: set[int] = set()  # steps whose readings were read
        self.added = False  # a total answer was added up with ``calculate``
        self.index = 0
        self.waited = 0
        self.heal: _Heal | None = None
        self.healed: dict[int, list[WorkflowStep]] = {}
        self.pending: _Pending | None = None
        self.miss: Miss | None = None  # the last step's action failed or was refused
        self.given_up = False
        self.report = RunReport()

    def wants_model(self) -> bool:
        """Whether the Operator is deciding now (healing a step, or after giving up)."""
        return self.heal is not None or self.given_up

    # -- the Decider ------------------------------------------------------------------
    def decide(self, view: DecisionView) -> Decision:
        self.pending = None
        if self.given_up:
            return self._ask(view, kind="heal", index=self.index, healed=False)
        if self.heal is not None:
            decision = self._resume(view)
            if decision is not None:
                return decision
        if self.index >= len(self.steps):
            return self._answer(view)
        miss = self.miss or self.check(self.index, view.obs) or self._read(view.obs)
        self.miss = None
        if miss is None:
            return self._act(view, self.index)
        if miss.absent and (why := self._renamed(self.index, view.obs)) is not None:
            return self._act(view, self.index, reason=why)
        if miss.absent and self.waited < self.WAITS:
            return self._wait(view, miss)
        if miss.wrong:
            self.report.refused += 1
        self.heal = _Heal(self.index, miss.reason, retry=miss.absent or miss.wrong)
        return self._heal(view)

    def check(self, index: int, obs: Observation) -> Miss | None:
        """Whether workflow step ``index`` may run on this page: the step before it took
        effect, and its target is there with the recorded role, name and surroundings."""
        if index > 0:
            miss = self._effect(index - 1, obs)
            if miss is not None:
                return miss
        if index >= len(self.steps):
            return None
        step, ws = self.steps[index]
        if step.target is None:
            return None
        if ws.by_row and ws.surroundings is not None:
            step = self._by_row(index, obs)
            if step is None:
                return Miss(f"no row holds {ws.surroundings.row!r}")
        try:
            element = step.target.find(obs)
        except OracleMiss as exc:
            return Miss(str(exc))
        reason = inst.check_surroundings(ws, element, obs, self.params) or \
            lookalikes.check(ws, step.target, element.bid, obs.axtree)
        if reason:
            return Miss(f"{step.target.describe()} is not where it was: {reason}",
                        absent=False, wrong=True)
        return None

    def _by_row(self, index: int, obs: Observation) -> PlanStep | None:
        """Step ``index`` aimed at the first element of its role in the row that holds
        this goal's value (``forms.by_row``); the steps keep it for the action."""
        step, ws = self.steps[index]
        assert step.target is not None and ws.surroundings is not None
        head = forms.row_head(page.parse(obs.axtree), step.target.role,
                              inst.fill_text(ws.surroundings.row, self.params))
        if head is None:
            return None
        target = dataclasses.replace(step.target, name=head[0], contains=None, nth=head[1])
        self.steps[index] = (dataclasses.replace(step, target=target), ws)
        return self.steps[index][0]

    def _effect(self, index: int, obs: Observation) -> Miss | None:
        """The expected effect of workflow step ``index`` on the page now."""
        step, ws = self.steps[index]
        if ws.expect_url:  # site placeholders and aliases as this run serves the site
            ws = ws.model_copy(update={"expect_url": self._live(ws.expect_url)})
        reason = inst.check_effect(ws, obs, self.params)
        if reason:
            return Miss(f"step {index + 1} did not lead where it should: {reason}")
        if step.expect is not None:
            try:
                step.expect.find(obs)
            except OracleMiss as exc:
                return Miss(f"step {index + 1} did not take effect: {exc}")
        return None

    def _read(self, obs: Observation) -> Miss | None:
        """The values this step reads on the page before it acts (``workflows/
        reads.py``); the steps are filled again with them. A step that would type a
        value no step has read (its reading step was healed) misses."""
        if self.index >= len(self.steps):
            return None
        ws = self.flow.steps[self.index]
        if ws.reads and self.index not in self.read_at:
            got = reads.read_on(ws, obs, self.params, inst.read_source)
            if isinstance(got, str):
                return Miss(got)
            try:  # a value read may not fill a step (a secret's placeholder, an address)
                steps = inst.instantiate(self.flow, {**self.params, **got}, self.env)
            except ColorBrowserError as exc:
                return Miss(f"step {self.index + 1}: {exc}", absent=False, wrong=True)
            self.params.update(got)
            self.read_at.add(self.index)
            self.steps = steps
        unread = reads.uses(ws.step) & (self.read_names - set(self.params))
        if unread:
            return Miss(f"step {self.index + 1} types {{{{{sorted(unread)[0]}}}}}, which "
                        "was to be read on a page this run did not pass", absent=False)
        return None

    def _live(self, address: str) -> str:
        return self.aliases.live(fill(address, self.env))

    # -- what the runner decides ------------------------------------------------------
    def _note(self, index: int, *, healed: bool = False, reason: str | None = None
              ) -> WorkflowNote:
        step = index + 1 if index < len(self.steps) else 0
        return WorkflowNote(id=self.flow.id, version=self.flow.version, step=step,
                            healed=healed, reason=reason)

    def _renamed(self, index: int, obs: Observation) -> str | None:
        """A target renamed in its place (``slots.py``): the step runs on it, and a
        verified run keeps the new name. Returns why, or None (the miss stands)."""
        if index > 0 and self._effect(index - 1, obs) is not None:
            return None
        found = slots.renamed(*self.steps[index], obs, self.params)
        if found is None:
            return None
        self.steps[index] = (found.step, self.steps[index][1])
        self.healed[index] = [found.kept]
        self.report.healed_steps += 1
        self.report.renamed += 1
        return found.reason

    def _act(self, view: DecisionView, index: int, reason: str | None = None) -> Decision:
        step, _ = self.steps[index]
        element = step.target.find(view.obs) if step.target is not None else None
        text = step.action_text(view.obs, self.env)
        if step.target is None and step.action in ("goto", "new_tab"):
            text = self.aliases.live(text)
        self.waited = 0
        self.pending = _Pending("step", index, element, view.obs)
        if step.action == "stop":
            return self._answer(view, step)
        return Decision(f"workflow step {index + 1} of {len(self.steps)}: {step.describe()}"
                        + (f" ({reason})" if reason else ""),
                        parse_action(text), text, Usage(),
                        workflow=self._note(index, reason=reason))

    def _wait(self, view: DecisionView, miss: Miss) -> Decision:
        self.waited += 1
        self.report.waits += 1
        self.pending = _Pending("wait", self.index)
        return Decision(f"waiting for the page: {miss.reason}", parse_action(WAIT), WAIT,
                        Usage(), workflow=self._note(self.index, reason=miss.reason))

    def _answer_text(self, obs: Observation, step: PlanStep | None) -> str | None:
        if self.flow.answer is not None:
            if reads.uses(self.flow.answer.template or "") - set(self.params):
                return None  # an answer read on a page this run did not pass
            return inst.read_answer(self.flow, obs, self.params)
        if step is not None and step.args:
            return fill(str(step.args[0]), self.env)
        return ""

    def _answer(self, view: DecisionView, step: PlanStep | None = None) -> Decision:
        """All steps ran (or the next is the workflow's stop): read the answer where the
        workflow says, and stop."""
        index = self.index if step is not None else len(self.steps)
        miss = None
        if step is None:
            miss = self.miss or (self.check(index, view.obs) if self.steps else None)
            self.miss = None
        answer = self._answer_text(view.obs, step) if miss is None else None
        if answer is None:
            reason = miss.reason if miss else (
                f"no answer under {self.flow.answer.label or 'the recorded element'!r}"
                if self.flow.answer is not None else "no answer")
            if self.waited < self.WAITS:
                return self._wait(view, Miss(reason))
            self.heal = _Heal(index, reason, retry=False)
            return self._heal(view)
        self.waited = 0
        source = self.flow.answer
        if source is not None and (source.total or source.gather == "count") and \
                not self.added:
            # Added up (or counted) in the open, so the verifier sees where it came from.
            self.added = True
            text = format_action("calculate", [inst.total_expression(
                source, view.obs, self.params)])
            self.pending = _Pending("wait", index)
            return Decision("the answer is a total: adding up the column it is read from"
                            if source.total else "the answer is a count: one for each "
                            "place it counts", parse_action(text), text, Usage(),
                            workflow=self._note(index))
        self.pending = _Pending("stop", index)
        return self._stop(view, answer)

    def _stop(self, view: DecisionView, answer: str | None) -> Decision:
        text = format_action("stop", [answer or ""])
        return Decision("the workflow is done; the answer is read from the page",
                        parse_action(text), text, Usage(),
                        workflow=self._note(self.pending.index if self.pending else 0))

    def _heal(self, view: DecisionView) -> Decision:
        heal = self.heal
        assert heal is not None
        heal.tries += 1
        return self._ask(view, kind="heal", index=heal.index, healed=True, reason=heal.reason)

    def _ask(self, view: DecisionView, *, kind: Literal["heal"], index: int, healed: bool,
             reason: str | None = None) -> Decision:
        """One decision of the Operator, with the workflow as guidance."""
        guidance = guidance_text(self.flow, self.params, current=index if healed else None,
                                 done=index, reason=reason or "")
        self.report.operator_calls += 1  # handed over, even if the Operator then fails
        decision = self.operator.decide(dataclasses.replace(view, guidance=guidance))
        element = None
        if decision.action is not None and decision.action.args:
            element = view.obs.elements.get(str(decision.action.args[0]))
        self.pending = _Pending(kind, index, element, view.obs, decision)
        if healed:
            decision.workflow = self._note(index, healed=True, reason=reason)
        return decision

    def _resume(self, view: DecisionView) -> Decision | None:
        """While a step is healed: hand back to the workflow once the page is on its
        path again, else ask the Operator again (or give up)."""
        heal = self.heal
        assert heal is not None
        after = heal.index + 1
        if heal.done and after <= len(self.steps) and self._on_path(after, view.obs):
            self._healed(heal)
            self.index = after
            return None
        if heal.retry and heal.index < len(self.steps) and \
                self.check(heal.index, view.obs) is None:
            self.heal = None  # the step itself fits now: the Operator's action was a detour
            self.index = heal.index
            return None
        if heal.tries >= self.HEAL_TRIES:
            return self._give_up(view, heal)
        return self._heal(view)

    def _on_path(self, index: int, obs: Observation) -> bool:
        if index >= len(self.steps):
            return self.check(index, obs) is None and self._answer_text(obs, None) is not None
        return self.check(index, obs) is None

    def _healed(self, heal: _Heal) -> None:
        self.healed[heal.index] = heal.done
        self.report.healed_steps += 1
        self.heal = None
        self.waited = 0

    def _give_up(self, view: DecisionView, heal: _Heal) -> Decision:
        self.report.gave_up = (f"step {heal.index + 1} missed ({heal.reason}) and "
                               f"{heal.tries} Operator actions did not bring the page back")
        self.heal = None
        if self.mode == "only":
            raise Aborted(f"workflow {self.flow.id}: {self.report.gave_up}; "
                          "--workflows only never falls back to the Operator")
        self.given_up = True
        return self._ask(view, kind="heal", index=heal.index, healed=False)

    # -- the Hook ------------------------------------------------------------------------
    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        pending, self.pending = self.pending, None
        if pending is None or (step.workflow is None and pending.kind != "heal"):
            return
        ran = step.executed and step.result.ok
        if pending.kind == "step":
            if ran:
                self.index = pending.index + 1
                self.report.workflow_actions += 1
            else:
                self.miss = Miss(step.result.error or "the step did not run", absent=False)
        elif pending.kind == "stop" and not step.executed:
            # The verifier (or a person) refused the answer: the Operator reads it.
            self.heal = _Heal(pending.index, step.result.error or "the answer was refused",
                              retry=False)
        elif pending.kind == "heal" and ran and self.heal is not None and \
                pending.decision is not None:
            recorded = self._record(pending)
            if recorded is not None:
                self.heal.done.append(recorded)

    def _record(self, pending: _Pending) -> WorkflowStep | None:
        """The Operator's action as a workflow step: its target by role and name, the
        goal's values turned back into parameters."""
        decision = pending.decision
        assert decision is not None
        action = decision.action
        if action is None or action.name in ("stop", "take_note", "calculate") or \
                action.name == "scroll":
            return None
        args = [values.substitute(a, self.params) if isinstance(a, str) else a
                for a in action.args]
        element = pending.element
        if element is not None and args:
            name = values.substitute(" ".join(element.name.split()), self.params)
            raw: Any = {action.name: {"role": element.role, "name": name}}
            for param, value in zip(_params(action.name), args[1:], strict=False):
                if param.required or value != param.default:  # defaults stay implicit
                    raw[param.name] = value
            surroundings = slots.surroundings_of(element, pending.obs) if pending.obs \
                else None
            try:
                return WorkflowStep(step=raw, surroundings=surroundings, healed=True)
            except ValueError:
                return None
        if action.name in NAVIGATING and action.args:  # the address as the site is known
            address = self.aliases.stable(str(action.args[0]))
            raw = {action.name: values.substitute_url(address, self.params)}
        else:
            raw = {action.name: args[0] if len(args) == 1 else args or None}
        try:
            return WorkflowStep(step=raw, healed=True)
        except ValueError:
            return None

    def on_end(self, episode: EpisodeView, result: EpisodeResult) -> None:
        verdict = result.verdict
        success = verdict == "verified" if verdict is not None else result.done
        if self.kb is None or self.kb.readonly:
            return
        _quietly(lambda: self.kb.record_workflow_run(self.flow.id, success,
                                                     self.report.healed_steps))
        if success and self.healed and not self.given_up:
            run = str(episode.run_dir or "")
            made = _quietly(lambda: self.kb.new_workflow_version(self.flow.id,
                                                                 self.next_version(run)))
            if made is not None:
                self.report.new_version = made.id

    def next_version(self, run: str) -> Workflow:
        """The workflow with each healed step replaced by what the Operator did."""
        steps: list[WorkflowStep] = []
        for index in range(len(self.steps)):
            steps.extend(self.healed.get(index, [self.flow.steps[index]]))
        data = self.flow.model_dump(exclude={"id", "created", "updated", "stats", "version",
                                             "previous", "active", "proved", "steps",
                                             "provenance"})
        return Workflow(**data, steps=steps, provenance=Provenance(
            run=run, task_id=self.flow.provenance.task_id, learned_by="agent",
            author=self.flow.provenance.author))

    def hooks(self) -> list[Hook]:
        return [self]


def _params(action: str) -> list[Param]:
    """The parameters of an element action after its target."""
    spec = ACTIONS.get(action)
    return list(spec.params[1:]) if spec is not None else []


def _quietly(write: Callable[[], Any]) -> Any:
    """Statistics and versions are a by-product: a busy store must not fail the run."""
    try:
        return write()
    except (ColorBrowserError, sqlite3.Error, ValueError) as exc:
        log.warning("could not update the workflow: %s", exc)
        return None
