"""Copilot study: a scripted person who knows each arena task's oracle plan works with
three agents in copilot mode, and CowPilot's collaboration figures come out.

    PYTHONPATH=src python benchmarks/copilot_study.py [--tasks 'trac-*'] [--max-steps 8]
        [--agents oracle,random,model] [--model-tasks 2] [--instance 6]

Each task runs in the real copilot machinery in-process: the Operator's decision goes
through ``CopilotGate`` (mode copilot, countdown 0: every step waits for an answer), the
answer comes through the ``Channel`` as the panel's run and reject buttons send it, and
the step is recorded by ``Episode``. The scripted person reads the proposal the gate
publishes and compares it with the plan's next step resolved on the page the agent saw
(the same action on the same element with the same value): a match is approved, anything
else is rejected with the plan step as the reason, and the person then takes that step
(``Episode.apply`` with actor ``person``). While the plan's target has not appeared yet,
or the last step's expected change has not shown, the person approves the agent's no-op
wait (``scroll(0, 0)``), and a proposal to open the page already shown (a workflow's
first step, where its run started). A rejection followed by the person's own step is
CowPilot's intervention: the person stops the agent and acts.

The figures per task come from ``copilot.metrics.measure`` over the recorded steps (the
outcome is the task's own evaluator, set as the person's verdict), aggregated by
``evaluation.collaboration.collaboration`` as ``colorbrowser report`` does. Then the
corrections that ``CorrectionTips`` queued are accepted as tips (the review machinery,
with the scope it proposes) and a second pass runs with knowledge on: the tips reach the
Operator's prompt; the oracle and random agents do not read them, the model may.

With ``--workflows`` a third pass runs: after the first pass, every task the person
corrected and that then succeeded is kept as a workflow, as the panel's "Keep as
workflow" button keeps it (``copilot.keep.keep_run``: the person's approval at the end,
then ``learn`` with ``learned_by="person"``); the third pass runs with workflows on (and
the tips): a goal that fits a kept workflow's pattern is run by the workflow runner,
with the agent as its fallback for a step that misses. The last lines compare the
person's interventions on the corrected tasks: first pass, second pass with tips,
second pass with workflows.

These are mechanism figures, not comparable to CowPilot's human study.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.actions import parse_action
from colorbrowser.copilot.channel import Channel, Command, Feed
from colorbrowser.copilot.episode import CopilotEpisode
from colorbrowser.copilot.gate import CopilotGate
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.metrics import measure
from colorbrowser.copilot.turn import PersonTurn
from colorbrowser.plan.format import OracleMiss, Plan, parse_step
from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.protocols import Hook
from colorbrowser.steps import Step

WAIT = "scroll(0, 0)"  # the replay agent's no-op while a target loads
LOOKS = 3  # how often the person looks again for a target that has not appeared
NOTE = ("mechanism figures, not comparable to CowPilot's human study: the person is a "
        "script that knows the answer, the tasks are the arena's")


def _canon(text: str) -> str:
    try:
        return str(parse_action(text))
    except Exception:  # an unparsable proposal matches nothing
        return text


def _reopens(proposed: str, url: str) -> bool:
    """Whether the proposal opens the page already shown (a workflow starts where its
    run started, which is where a task's start page already is): a no-op."""
    try:
        action = parse_action(proposed)
    except Exception:  # an unparsable proposal is no no-op
        return False
    if action.name != "goto" or not action.args:
        return False

    def norm(text: str) -> str:
        return str(text).split("#", 1)[0].rstrip("/")

    return norm(action.args[0]) == norm(url)


# -- the scripted person ------------------------------------------------------------------
@dataclass
class ScriptedPerson:
    """Knows the plan; answers proposals through the channel; owes a step after a reject."""

    plan: list[PlanStep]
    channel: Channel | None = None
    episode: CopilotEpisode | None = None
    position: int = 0
    expect: Any = None  # the target the last step should make appear
    owes: bool = False  # rejected: the person takes the plan's step now
    log: list[str] = field(default_factory=list)

    @classmethod
    def knowing(cls, plan: Plan) -> ScriptedPerson:
        steps = list(plan.steps)
        if not steps or steps[-1].action != "stop":
            steps.append(parse_step("stop()"))  # the plan ends: the person says done
        return cls(steps)

    def next_action(self, obs) -> str | None:
        """The plan's next step on this page, or None while its target is not there."""
        if self.position >= len(self.plan):
            return "stop()"
        try:
            return _canon(self.plan[self.position].action_text(obs, os.environ))
        except OracleMiss:
            return None

    def waiting(self, obs) -> bool:
        if self.expect is None:
            return False
        try:
            self.expect.find(obs)
        except OracleMiss:
            return True
        self.expect = None
        return False

    def on_proposal(self, data: dict[str, Any]) -> None:
        assert self.channel is not None and self.episode is not None
        obs = self.episode.obs
        proposed = _canon(str(data.get("action") or ""))
        wanted = self.next_action(obs) if obs is not None else None
        if wanted is not None and proposed == wanted and not self.waiting(obs):
            self._advance()
            self.channel.send(Command(kind="run", proposal=data["id"]))
            return
        if proposed == _canon(WAIT) and (wanted is None or self.waiting(obs)):
            self.channel.send(Command(kind="run", proposal=data["id"]))
            return
        if obs is not None and _reopens(proposed, obs.url):
            self.channel.send(Command(kind="run", proposal=data["id"]))  # changes nothing
            return
        step = self.plan[min(self.position, len(self.plan) - 1)]
        self.owes = True
        self.channel.send(Command(kind="reject", proposal=data["id"],
                                  reason=f"the next step is: {step.describe()}"))

    def _advance(self) -> None:
        step = self.plan[self.position]
        self.position += 1
        self.expect = step.expect

    def take_step(self, episode: CopilotEpisode) -> Step | None:
        """The plan's step, done by the person on the page as it is now."""
        self.owes = False
        if self.position >= len(self.plan):
            return None
        obs = episode.current()
        for look in range(LOOKS + 1):
            if not self.waiting(obs):
                text = self.next_action(obs)
                if text is not None:
                    self._advance()
                    return episode.apply(parse_action(text), "person",
                                         thought="the person's own step")
            if look < LOOKS:
                episode.env.page.wait_for_timeout(400)
                obs = episode.observe()
        self.log.append(f"plan step {self.position + 1} not on {obs.url}")
        self.position = len(self.plan)  # the plan does not fit; the person gives up
        return None


class PersonFeed(Feed):
    """The panel's feed, read by the scripted person instead of a browser tab."""

    def __init__(self, person: ScriptedPerson) -> None:
        super().__init__()
        self.person = person

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        super().publish(kind, data)
        if kind == "proposal" and not data.get("done"):
            self.person.on_proposal(data)


class QuietLive(Live):
    """No panel watches: no screenshots or overlays, only the gate's waits."""

    def screenshot(self, force: bool = False) -> None:
        return None

    def highlight(self, bbox) -> None:
        return None

    def unhighlight(self) -> None:
        return None


class StudyEpisode(CopilotEpisode):
    person: ScriptedPerson
    taken: list[Step]

    def step(self) -> Step:
        step = super().step()
        if self.person.owes and self.state.status == "running":
            self.person.take_step(self)
        return step

    def record(self, *args, **kwargs) -> Step:
        step = super().record(*args, **kwargs)
        self.taken.append(step)
        return step


def episode_type(person: ScriptedPerson) -> type[StudyEpisode]:
    """An episode class whose instances answer to ``person`` through a real gate."""

    class Bound(StudyEpisode):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.person, self.taken = person, []
            channel = Channel()
            channel.feed = PersonFeed(person)
            env = self.env
            live = QuietLive(lambda: env.page, channel.feed)
            gate = CopilotGate(channel, live, mode="copilot", countdown=0.0,
                               observation=lambda: self.obs)
            self.attach(gate, PersonTurn(channel, live, None, lambda command: None))
            person.channel, person.episode = channel, self

    return Bound


# -- agents -------------------------------------------------------------------------------
Deciders = Callable[[str, Plan, int], Any]


def oracle_decider(task: str, plan: Plan, max_steps: int):
    from colorbrowser.evaluation.replay import ReplayOperator

    return ReplayOperator(plan.encode())


def random_decider(task: str, plan: Plan, max_steps: int):
    from colorbrowser.plan.random_agent import RandomDecider

    return RandomDecider(seed=sum(map(ord, task)), steps=max(1, max_steps - 2))


AGENTS: dict[str, Deciders | None] = {"oracle": oracle_decider, "random": random_decider,
                                       "model": None}  # None: the Operator on the model


class WorkflowFirst(Hook):
    """The agent's decider, unless a workflow in the knowledge base fits the goal: then
    the workflow runner, with the agent as its fallback for a step that misses. Chosen at
    the first decision, when the goal and the start page are known (the oracle and random
    agents decide themselves, so the run factory does not choose for them)."""

    def __init__(self, kb, fallback) -> None:
        self.kb, self.fallback = kb, fallback
        self.runner = None
        self.chosen = False

    def decide(self, view):
        if not self.chosen:
            from colorbrowser.workflows.match import choose
            from colorbrowser.workflows.runner import WorkflowRunner

            self.chosen = True
            choice = choose(self.kb, view.obs.url, view.goal)
            if choice is not None and choice.kind == "run":
                self.runner = WorkflowRunner(choice.workflow, choice.params, self.fallback,
                                             kb=self.kb)
        return (self.runner or self.fallback).decide(view)

    def after_step(self, episode, ctx, step) -> None:
        if self.runner is not None:
            self.runner.after_step(episode, ctx, step)

    def on_end(self, episode, result) -> None:
        if self.runner is not None:
            self.runner.on_end(episode, result)


# -- the study ----------------------------------------------------------------------------
@dataclass
class Outcome:
    agent: str
    knowledge: str
    task: str
    metrics: dict[str, Any]
    seconds: float
    notes: list[str]


def settings_for(kb_path: Path, max_steps: int, knowledge: str):
    """``knowledge``: off (first pass), on (tips), workflows (tips and workflows)."""
    from colorbrowser.config import Settings

    settings = Settings()
    agent = settings.agent.model_copy(update={
        "max_steps": max_steps, "knowledge": "off" if knowledge == "off" else "on",
        "tips_embeddings": False, "memory": "full", "send_screenshot": False,
        "workflows": "on" if knowledge == "workflows" else "off"})
    paths = settings.paths.model_copy(update={"knowledge": kb_path})
    hitl = settings.hitl.model_copy(update={"interactive": False})
    return settings.model_copy(update={"agent": agent, "paths": paths, "hitl": hitl})


def run_one(suite, env, settings, task_id: str, plan: Plan, agent: str, model, kb,
            collect: bool, max_steps: int, knowledge: str = "",
            run_dir: Path | None = None, keep_corrected: bool = False) -> Outcome:
    """One task in copilot mode, recorded in ``run_dir`` when given. With
    ``keep_corrected`` (the first pass of ``--workflows``) a run the person corrected
    and that then succeeded is kept as a workflow, as the panel's button keeps it."""
    from colorbrowser.copilot.corrections import CorrectionTips
    from colorbrowser.evaluation.episode import run_task_episode
    from colorbrowser.evaluation.replay import NoModel

    person = ScriptedPerson.knowing(plan)
    short = task_id.split(":", 1)[1]
    make = AGENTS[agent]
    decider = make(short, plan, max_steps) if make is not None else None
    hooks: list[Any] = [CorrectionTips(kb)] if collect else []
    if decider is not None and knowledge == "workflows":
        decider = WorkflowFirst(kb, decider)
        hooks.append(decider)
    t0 = time.monotonic()
    run = run_task_episode(suite.task(task_id), settings, env=env,
                           model=model if make is None else NoModel(), decider=decider,
                           run_dir=run_dir, kb=kb, hooks=hooks, keep_episode=True,
                           episode_type=episode_type(person))
    taken = run.episode.taken if run.episode is not None else []
    verdict = "success" if run.success else "failure"
    metrics = measure(taken, run.status, override=verdict).model_dump()
    # CowPilot's intervention is the person stopping the agent and acting; here that is
    # a rejection followed by the person's step (a pause would be the same with a click).
    metrics["interventions"] += metrics["rejections"]
    notes = list(person.log) + ([run.error] if run.error_class else [])
    workflow = getattr(decider, "runner", None) or getattr(
        getattr(run.episode, "workflow", None), "runner", None)
    if workflow is not None:
        metrics["workflow"] = workflow.flow.id
    if keep_corrected and run_dir is not None and run.success and metrics["interventions"]:
        kept, note = keep(run_dir, kb)
        metrics["kept"] = kept
        notes.append(note)
    return Outcome(agent, knowledge or settings.agent.knowledge, short, metrics,
                   time.monotonic() - t0, [n for n in notes if n])


def keep(run_dir: Path, kb) -> tuple[str | None, str]:
    """The person approves the corrected run at the end and keeps it as a workflow: its
    id (None when it could not teach) and a note when something is worth saying."""
    from colorbrowser.copilot.keep import keep_run
    from colorbrowser.errors import ColorBrowserError

    try:
        flow = keep_run(run_dir, kb)
    except (ColorBrowserError, ValueError) as exc:
        return None, f"not kept as a workflow: {(str(exc).splitlines() or [repr(exc)])[0]}"
    note = "" if flow.provenance.learned_by == "person" else f"{flow.id}: no correction seen"
    return flow.id, note


def accept_tips(kb) -> int:
    """Every queued correction accepted as a tip, with the scope the review proposes."""
    from colorbrowser.hitl.asking import HelpAnswer
    from colorbrowser.hitl.review import review

    class Accepts:
        def ask(self, request) -> HelpAnswer:
            text = request.reason.removeprefix("copilot correction: ")
            return HelpAnswer("tip", text=text, site=request.site,
                              patterns=[request.pattern] if request.pattern else [])

    return len(review(kb, Accepts()).resolved)


def rows(outcomes: list[Outcome]):
    from colorbrowser.evaluation.collaboration import collaboration
    from colorbrowser.evaluation.records import EpisodeRecord

    records = [EpisodeRecord(task=o.task, variant=f"{o.agent} knowledge={o.knowledge}",
                             config_hash="copilot-study", success=o.metrics["outcome"] == "success",
                             info={"copilot": o.metrics}) for o in outcomes]
    return collaboration(Path("."), records)


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [f"{'agent':<8} {'knowledge':<9} {'tasks':>5} {'success':>8} {'agent st':>8} "
             f"{'human st':>8} {'human share':>11} {'interv.':>7} {'agent-driven':>12}"]
    order = {name: i for i, name in enumerate(AGENTS)}
    found = sorted(rows(outcomes), key=lambda r: (order.get(r.variant.split()[0], 9),
                                                  r.variant.split()[1]))
    for r in found:
        agent, knowledge = r.variant.split()
        lines.append(f"{agent:<8} {knowledge.split('=')[1]:<9} {r.episodes:>5} "
                     f"{r.success:>8.0%} {r.agent_steps:>8.1f} {r.human_steps:>8.1f} "
                     f"{r.human_share:>11.0%} {r.interventions:>7.2f} {r.agent_driven:>12.0%}")
    return lines


SECOND = {"on": "tips", "workflows": "workflows"}  # second passes and what they add


def change_lines(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for agent in AGENTS:
        before = [o for o in outcomes if o.agent == agent and o.knowledge == "off"]
        for second, label in SECOND.items():
            after = {o.task: o for o in outcomes if o.agent == agent and o.knowledge == second}
            pairs = [(b, after[b.task]) for b in before if b.task in after]
            if not pairs:
                continue
            a = sum(b.metrics["interventions"] for b, _ in pairs)
            z = sum(n.metrics["interventions"] for _, n in pairs)
            fewer = sum(n.metrics["interventions"] < b.metrics["interventions"]
                        for b, n in pairs)
            more = sum(n.metrics["interventions"] > b.metrics["interventions"]
                       for b, n in pairs)
            ran = sum(1 for _, n in pairs if n.metrics.get("workflow"))
            by = f", {ran} run by a workflow" if second == "workflows" else ""
            lines.append(f"{agent} with {label}: interventions {a} -> {z} over {len(pairs)} "
                         f"tasks ({fewer} tasks fewer, {more} more{by})")
    return lines


def corrected_line(outcomes: list[Outcome]) -> str | None:
    """Interventions on the tasks the person corrected in the first pass (and that then
    succeeded, so a workflow could be kept): first pass, then each second pass."""
    first = {(o.agent, o.task): o for o in outcomes if o.knowledge == "off"
             and o.metrics["interventions"] and o.metrics["outcome"] == "success"}
    if not first:
        return None
    parts = [f"first pass {sum(o.metrics['interventions'] for o in first.values())}"]
    for second, label in SECOND.items():
        again = [o for o in outcomes if o.knowledge == second and (o.agent, o.task) in first]
        if len(again) == len(first):
            parts.append(f"second pass with {label} "
                         f"{sum(o.metrics['interventions'] for o in again)}")
    return (f"corrected tasks ({len(first)}, all agents): interventions " + ", ".join(parts))


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default="trac-*",
                   help="task id patterns, comma-separated (default trac-*)")
    p.add_argument("--max-steps", type=int, default=8, help="decisions per episode")
    p.add_argument("--agents", default="oracle,random,model")
    p.add_argument("--model-tasks", type=int, default=2,
                   help="the offline model runs only on the first N tasks (it is slow)")
    p.add_argument("--instance", type=int, default=6, help="arena instance to use")
    p.add_argument("--cache", type=Path, default=None, help="arena cache (default the user's)")
    p.add_argument("--no-second-pass", action="store_true")
    p.add_argument("--work", type=Path, default=None,
                   help="keep the knowledge bases (and with --workflows the run folders) "
                        "here instead of a temporary folder; it must not exist yet")
    p.add_argument("--workflows", action="store_true",
                   help="keep each corrected, then successful first-pass run as a workflow "
                        "and add a second pass with workflows on")
    p.add_argument("--show", action="store_true",
                   help="print each task's figures (failed tasks are always printed)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    unknown = [a for a in agents if a not in AGENTS]
    if unknown:
        print(f"unknown agent {unknown[0]!r} (choose from {', '.join(AGENTS)})", file=sys.stderr)
        return 2
    if args.work is not None and args.work.exists():
        print(f"--work {args.work} exists already: give a new folder", file=sys.stderr)
        return 2
    from colorbrowser.arena.instances import INSTANCE_VAR

    os.environ[INSTANCE_VAR] = str(args.instance)  # another process on it is an error

    from colorbrowser.arena.plans import load_plans
    from colorbrowser.arena.suite import ArenaSuite, plan_files
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.knowledge.store import open_knowledge
    from colorbrowser.run.factory import open_model

    patterns = [p.strip() for p in args.tasks.split(",") if p.strip()]
    plans = load_plans(plan_files())
    outcomes: list[Outcome] = []
    accepted: dict[str, int] = {}
    with contextlib.ExitStack() as stack:
        work = args.work or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="copilot-study-")))
        work.mkdir(parents=True, exist_ok=True)
        suite = ArenaSuite(cache=args.cache)
        stack.callback(suite.close)
        ids = [e.id for e in suite.entries()
               if any(fnmatch.fnmatch(e.id.split(":", 1)[1], p) for p in patterns)
               and e.id.split(":", 1)[1] in plans]
        ids = [i for i in ids if not suite.tasks[i].definition.unsupported]
        if not ids:
            print(f"no runnable arena task matches {args.tasks!r}", file=sys.stderr)
            return 2
        base = settings_for(work / "kb.sqlite", args.max_steps, "off")
        env = BrowserEnv(base.browser)
        stack.callback(env.close)
        model = open_model(base.model, stack, base.paths.cache) if "model" in agents else None
        passes = ["off"] if args.no_second_pass else ["off", "on"]
        if args.workflows and not args.no_second_pass:
            passes.append("workflows")
        for knowledge in passes:
            for agent in agents:
                # One knowledge base per agent: its corrections, then its tips.
                settings = settings_for(work / f"kb-{agent}.sqlite", args.max_steps, knowledge)
                with contextlib.ExitStack() as kb_stack:
                    kb = open_knowledge(settings.model_copy(update={"agent": settings.agent
                                        .model_copy(update={"knowledge": "on"})}), kb_stack)
                    if knowledge == "on":
                        accepted[agent] = accept_tips(kb)
                    chosen = ids[:args.model_tasks] if agent == "model" else ids
                    for task_id in chosen:
                        short = task_id.split(":", 1)[1]
                        record = "workflows" in passes
                        out = run_one(suite, env, settings, task_id, plans[short], agent,
                                      model, kb, collect=knowledge == "off",
                                      max_steps=args.max_steps, knowledge=knowledge,
                                      run_dir=work / "runs" / knowledge / agent / short
                                      if record else None,
                                      keep_corrected=record and knowledge == "off")
                        outcomes.append(out)
                        m = out.metrics
                        if args.show or m["outcome"] != "success":  # a failure is always said
                            print(f"{agent:<7} {knowledge:<3} {out.task:<34} {m['outcome']:<8} "
                                  f"agent {m['agent_steps']} person {m['human_steps']} "
                                  f"interventions {m['interventions']} "
                                  f"{out.seconds:.1f}s {'; '.join(out.notes)}", flush=True)
    print(f"copilot study: {len(ids)} arena tasks matching {args.tasks!r}, "
          f"max {args.max_steps} decisions")
    for line in table(outcomes):
        print(line)
    if accepted:
        print("tips accepted from the first pass's corrections: " +
              ", ".join(f"{a} {n}" for a, n in accepted.items()))
    if "workflows" in passes:
        tried = [o for o in outcomes if "kept" in o.metrics]
        kept = sum(1 for o in tried if o.metrics["kept"])
        print(f"workflows kept from the first pass's corrected runs: {kept} of {len(tried)}")
    for line in change_lines(outcomes):
        print(line)
    if (line := corrected_line(outcomes)) is not None:
        print(line)
    print(f"note: {NOTE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
