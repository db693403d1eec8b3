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

These are mechanism figures, not comparable to CowPilot's human study. The person is in
``copilot_person.py``, the agents in ``copilot_agents.py``, the figures in
``copilot_figures.py``; this script runs the passes.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from colorbrowser.copilot.metrics import measure
from colorbrowser.plan.format import Plan
from copilot_agents import AGENTS, WorkflowFirst
from copilot_figures import Outcome, change_lines, corrected_line, table
from copilot_person import ScriptedPerson, episode_type

NOTE = ("mechanism figures, not comparable to CowPilot's human study: the person is a "
        "script that knows the answer, the tasks are the arena's")


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
