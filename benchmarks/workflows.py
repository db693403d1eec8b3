"""Learned workflows on the arena: held-out siblings, the bare-script limit, changed
pages, exploration and the copilot's second pass.

    COLORBROWSER_CACHE=/work/arena-cache PYTHONPATH=src \\
        python benchmarks/workflows.py --instance 23 [--quick] [--operator-sample 1]

1. **Families.** The arena's tasks are grouped by task file and ``intent_template_id``
   (the same question about another ticket, product, topic or article); a family has two
   or more instances. The first instance of each family teaches: its oracle plan is
   played by the replay agent through the usual episode runner on a freshly reset app,
   and the workflow is learned from that **recorded run folder** (``workflows/learn.py``),
   never from the plan file.
2. **Held-out siblings.** Every other instance runs on a fresh reset, in the same run:
   (a) the offline Operator alone (SmolLM2 through the offline server, workflows off) and
   (b) workflows on, with the same offline Operator as the fallback that heals a missed
   step. Success is the task's own evaluator; model calls and prompt tokens are the
   episode's usage; wall time is the episode's. The Operator-alone arm is slow on two
   cores: ``--operator-sample N`` runs it on the first N held-out instances of each
   family (the table says how many ran). ``heldout_success`` is over all held-out
   tasks: those of a family that taught no workflow count as failed (not run).
3. **Near the limit.** For each task the workflow solved without the Operator, the same
   resolved actions (its steps with the task's values) run again as a bare Playwright
   script on a fresh reset: ``get_by_role`` and the action, ``wait_for_load_state()``
   after each, no observation, no checks, no record. Both start on the page the task's
   setup opened, with the clock started after the setup: the episode's time is its
   whole ``run()`` (``EpisodeClock``), the script's its actions. ``time_vs_bare`` is the
   median ratio of the episode's time to the script's; the line after it splits the
   episodes' steps into observe, decide, act, record and other (mean ms per step).
4. **Changed pages.** Each held-out task whose workflow has element steps runs again with
   its pages rewritten (``arena/pagechanges.py``: a label renamed, its row or menu item
   swapped, an extra element of the same role and name before it, the element removed;
   the target is one of the workflow's step targets, drawn by the seed), by workflows
   with the Operator fallback and by blind replay (the same steps, first match, no
   checks). Counted: steps healed, decisions handed to the Operator, and actions on a
   decoy, split by who took them (a workflow step, the Operator, blind replay).
5. **From exploration alone.** ``explore APP --workflows`` runs on every single-site app
   of the chosen task files (``--explore-budget`` actions, at most ``--explore-tasks``
   proved tasks per app; the explorer never sees the arena's tasks or plans), into a
   knowledge base of its own. Then every hand-written arena task of those apps is
   matched against the workflows it learned: a task whose goal fits one runs as an
   episode on a fresh reset (workflows on; no model with ``--no-model``) and is scored by
   its own evaluator; a task none fits is not solved (no workflow answers it, and
   without a model nothing does). ``from_exploration E/N``: solved of the N tasks.
   The **copilot second pass** is ``benchmarks/copilot_study.py``'s, not run here.

The last line is the summary the README quotes:
``workflows: families N, heldout_success S%, model_calls_saved C%, wrong_element W,
healed H, from_exploration E/165, time_vs_bare X``.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from colorbrowser.arena.pagechanges import KINDS, ChangedPages, ChangedTask, PageChange
from colorbrowser.plan.format import Plan
from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.protocols import Hook
from workflows_timing import EpisodeClock, bare_run, breakdown_line, timed_episode

ARENA_TASKS = 165
QUICK_GROUPS = ("trac",)
ELEMENT_ACTIONS = {"click", "dblclick", "fill", "select_option", "check", "uncheck", "press",
                   "hover"}


# -- families -----------------------------------------------------------------------------
@dataclass
class Family:
    group: str  # the task file: trac, shop, ...
    template_id: int
    template: str
    tasks: list[str]  # short ids in file order; the first one teaches

    @property
    def teacher(self) -> str:
        return self.tasks[0]

    @property
    def heldout(self) -> list[str]:
        return self.tasks[1:]


def families(files: list[Path] | None = None) -> list[Family]:
    """Tasks sharing an intent template in one task file, two or more of them."""
    from colorbrowser.arena.suite import task_files

    found: dict[tuple[str, int], Family] = {}
    for path in files or task_files():
        for task in json.loads(path.read_text("utf-8")):
            key = (path.stem, int(task["intent_template_id"]))
            family = found.setdefault(key, Family(path.stem, key[1], task["intent_template"], []))
            family.tasks.append(str(task["task_id"]))
    return [f for f in found.values() if len(f.tasks) > 1]


# -- what one episode gave ---------------------------------------------------------------
@dataclass
class Outcome:
    task: str
    family: str
    arm: str  # operator, workflow, blind, bare; changed arms: "<arm>/<kind>"
    success: bool
    calls: int = 0
    prompt_tokens: int = 0
    seconds: float = 0.0  # the episode (setup and scoring left out)
    workflow_ran: bool = False
    workflow_actions: int = 0
    handed: int = 0  # decisions the Operator took for the workflow
    healed: int = 0
    refused: int = 0  # checks that refused an element that was there
    wrong_workflow: int = 0  # actions on a decoy by a workflow step
    wrong_operator: int = 0  # ... by the Operator
    wrong_blind: int = 0  # ... by blind replay
    changed_pages: int = 0
    change: str = ""  # the page change: kind and the target it hit
    note: str = ""




class Blame(Hook):
    """Whose action hit a decoy: a new hit belongs to the step that ran just before."""

    def __init__(self, pages: ChangedPages, blind: bool) -> None:
        self.pages, self.blind = pages, blind
        self.seen = 0
        self.last = ""
        self.counts: Counter[str] = Counter()

    def _settle(self) -> None:
        new = self.pages.wrong.count - self.seen
        if new > 0 and self.last:
            self.counts[self.last] += new
        self.seen = self.pages.wrong.count

    def before_decide(self, episode, ctx, obs) -> None:
        self._settle()

    def after_step(self, episode, ctx, step) -> None:
        self._settle()
        note = _workflow_note(step)
        self.last = ("blind" if self.blind else
                     "operator" if note is None or note.healed else "workflow")

    def on_end(self, episode, result) -> None:
        self._settle()


def _workflow_note(step) -> Any:
    return step.workflow  # set when a learned workflow chose the step


# -- the benchmark ------------------------------------------------------------------------
@dataclass
class Bench:
    args: argparse.Namespace
    out: Path
    console: Console
    outcomes: list[Outcome] = field(default_factory=list)
    learned: dict[str, Any] = field(default_factory=dict)  # family key -> Workflow
    not_learned: dict[str, str] = field(default_factory=dict)
    # task, episode seconds, bare seconds, whether the bare script's end state scored
    bare: list[tuple[str, float, float, bool]] = field(default_factory=list)
    breakdown: list[tuple[EpisodeClock, float]] = field(default_factory=list)  # same tasks
    model: Any = None  # the offline model (None with --no-model)

    def settings(self, *, workflows: str, knowledge: str = "on", max_steps: int = 30):
        """``max_steps``: the framework's default, except for the Operator-alone arm
        (``--max-steps``), whose every decision is a slow model call."""
        from colorbrowser.config import Settings

        base = Settings()
        agent = base.agent.model_copy(update={
            "max_steps": max_steps, "knowledge": knowledge, "memory": "full",
            "tips_embeddings": False, "send_screenshot": False, "workflows": workflows})
        browser = base.browser.model_copy(update={"screenshots": False})
        paths = base.paths.model_copy(update={"knowledge": self.out / "kb.sqlite"})
        hitl = base.hitl.model_copy(update={"interactive": False})
        # One call of the offline model can outlast the client's default timeout on a
        # loaded machine; every retry then starts the call again (--model-timeout).
        model = base.model.model_copy(update={"timeout": self.args.model_timeout})
        return base.model_copy(update={"agent": agent, "browser": browser, "paths": paths,
                                       "hitl": hitl, "model": model})


def family_key(family: Family) -> str:
    return f"{family.group}:{family.template_id}"


def run_episode(bench: Bench, suite, env, settings, task_id: str, *, model, decider=None,
                kb=None, run_dir: Path | None = None, hooks=(),
                pages: ChangedPages | None = None, clock: EpisodeClock | None = None):
    from colorbrowser.evaluation.episode import run_task_episode
    from colorbrowser.evaluation.replay import NoModel

    clock = clock if clock is not None else EpisodeClock()
    task = suite.task(task_id)
    if pages is not None:
        task = ChangedTask(task, pages)
    run = run_task_episode(task, settings, env=env, model=model if decider is None else
                           NoModel(), decider=decider, run_dir=run_dir, kb=kb,
                           hooks=list(hooks), keep_episode=True,
                           timeout=bench.args.timeout,
                           episode_type=timed_episode(clock))
    return run, clock.seconds


def runner_of(run) -> Any:
    plan = getattr(run.episode, "workflow", None) if run.episode is not None else None
    return getattr(plan, "runner", None)


def fill_from_runner(outcome: Outcome, run) -> None:
    runner = runner_of(run)
    if runner is None:
        return
    report = runner.report
    outcome.workflow_ran = True
    outcome.workflow_actions = report.workflow_actions
    outcome.handed = report.operator_calls
    outcome.healed = report.healed_steps
    outcome.refused = report.refused
    if report.gave_up:
        outcome.note = f"gave up: {report.gave_up}"


def short(task_id: str) -> str:
    return task_id.split(":", 1)[-1]


def record_teachers(bench: Bench, suite, env, fams: list[Family], progress) -> None:
    """The oracle's run of each family's first instance, recorded, then learned from."""
    from colorbrowser.arena.plans import load_plans
    from colorbrowser.arena.suite import plan_files
    from colorbrowser.evaluation.replay import ReplayOperator
    from colorbrowser.workflows.learn import learn

    plans = load_plans(plan_files())
    settings = bench.settings(workflows="off", knowledge="off")
    job = progress.add_task("record + learn", total=len(fams))
    for family in fams:
        key = family_key(family)
        run_dir = bench.out / "recorded" / family.teacher
        run, _ = run_episode(bench, suite, env, settings, "arena:" + family.teacher, model=None,
                             decider=ReplayOperator(plans[family.teacher].encode()),
                             run_dir=run_dir)
        if not run.success:
            bench.not_learned[key] = f"the oracle's run failed ({run.error or run.status})"
        else:
            try:
                bench.learned[key] = learn(run_dir, learned_by="oracle")
            except Exception as exc:  # a refusal is a figure, not a crash
                bench.not_learned[key] = f"{type(exc).__name__}: {exc}"
        progress.advance(job)


@contextlib.contextmanager
def fresh_kb(bench: Bench, pristine: str = "kb-learned.sqlite"):
    """The learned workflows as they were learned: a run that heals a step makes a new
    version, which must not reach the next task's run."""
    import shutil

    from colorbrowser.knowledge.store import open_knowledge

    work = bench.out / "kb.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(work) + suffix).unlink(missing_ok=True)
    shutil.copyfile(bench.out / pristine, work)
    with contextlib.ExitStack() as stack:
        yield open_knowledge(bench.settings(workflows="on"), stack)


def store_and_prove(bench: Bench, suite, env, fams: list[Family], progress) -> None:
    """Every learned workflow stored, then kept only if it proves itself: run with its own
    values from the start on a fresh reset, without a model, it passes the evaluator."""
    from colorbrowser.evaluation.replay import NoModel
    from colorbrowser.knowledge.store import KnowledgeBase

    pristine = bench.out / "kb-learned.sqlite"
    kb = KnowledgeBase.open(pristine, embeddings=False)
    try:
        for key, flow in list(bench.learned.items()):
            bench.learned[key] = kb.add_workflow(flow)
    finally:
        kb.close()
    job = progress.add_task("prove", total=len(bench.learned))
    on = bench.settings(workflows="on")
    unproved = []
    for family in fams:
        key = family_key(family)
        if key not in bench.learned:
            continue
        with fresh_kb(bench) as kb:
            run, _ = run_episode(bench, suite, env, on, "arena:" + family.teacher, model=NoModel(),
                                 kb=kb, run_dir=bench.out / "proof" / family.teacher)
        if not (run.success and runner_of(run) is not None):
            why = "did not run" if runner_of(run) is None else (run.error or "failed")
            bench.not_learned[key] = f"not proved: replayed on {family.teacher}: {why}"
            unproved.append(bench.learned.pop(key))
        progress.advance(job)
    if unproved:
        kb = KnowledgeBase.open(pristine, embeddings=False)
        try:
            for flow in unproved:
                kb.remove_workflow(flow.id)
        finally:
            kb.close()


def heldout(bench: Bench, suite, env, model, fams: list[Family], progress) -> None:
    jobs = [(f, t) for f in fams if family_key(f) in bench.learned for t in f.heldout]
    sample = {t for f in fams for t in f.heldout[:bench.args.operator_sample]
              if family_key(f) in bench.learned}
    job = progress.add_task("held-out siblings", total=len(jobs) + (
        0 if bench.args.no_model else len(sample)))
    on = bench.settings(workflows="on")
    off = bench.settings(workflows="off", knowledge="off", max_steps=bench.args.max_steps)
    for family, task in jobs:
        clock = EpisodeClock()
        with fresh_kb(bench) as kb:
            run, seconds = run_episode(bench, suite, env, on, "arena:" + task, model=model, kb=kb,
                                       run_dir=bench.out / "workflow" / task, clock=clock)
        out = Outcome(task, family_key(family), "workflow", run.success, run.usage.calls,
                      run.usage.prompt_tokens, seconds)
        fill_from_runner(out, run)
        bench.outcomes.append(out)
        progress.advance(job)
        if out.success and out.workflow_ran and out.handed == 0:
            bare_timing(bench, suite, env, family, task, clock, run.answer)
        if task in sample and not bench.args.no_model:
            run, seconds = run_episode(bench, suite, env, off, "arena:" + task, model=model,
                                       run_dir=bench.out / "operator" / task)
            bench.outcomes.append(Outcome(task, family_key(family), "operator",
                                          run.success, run.usage.calls,
                                          run.usage.prompt_tokens, seconds))
            progress.advance(job)


def resolved_steps(bench: Bench, family: Family, task: str, suite) -> list[PlanStep] | None:
    from colorbrowser.workflows.instantiate import instantiate
    from colorbrowser.workflows.match import match_goal

    flow = bench.learned[family_key(family)]
    goal = suite.tasks["arena:" + task].definition.goal
    params = match_goal(flow, goal)
    if params is None:
        return None
    return [step for step, _ in instantiate(flow, params)]


def bare_timing(bench: Bench, suite, env, family: Family, task: str, clock: EpisodeClock,
                answer: str | None) -> None:
    """The same resolved actions as a bare Playwright script, on a fresh reset."""
    steps = resolved_steps(bench, family, task, suite)
    if not steps:
        return
    arena_task = suite.task("arena:" + task)
    env.reset(None)
    arena_task.setup(env.page)
    try:
        # From the start page the task's setup opened, as the episode starts from it
        # (its clock starts after the setup too): no page load of its own.
        t0 = time.perf_counter()
        bare_run(env.page, steps, os.environ)
        bare_s = time.perf_counter() - t0
        # the same end state? (the script reads no answer: it is given the episode's)
        scored = arena_task.validate(env.page, answer or "done").success
    except Exception as exc:  # the script is the reference; say why it has none
        bench.console.print(f"[yellow]bare script of {task} failed: {exc}")
        return
    finally:
        arena_task.teardown()
    bench.bare.append((task, clock.seconds, bare_s, scored))
    bench.breakdown.append((clock, bare_s))


def changed(bench: Bench, suite, env, model, fams: list[Family], progress) -> None:
    from colorbrowser.evaluation.replay import ReplayOperator

    rng = random.Random(bench.args.seed)
    kinds = [k for k in KINDS if k in bench.args.kinds.split(",")]
    jobs = []
    for family in fams:
        if family_key(family) not in bench.learned:
            continue
        for task in family.heldout:
            steps = resolved_steps(bench, family, task, suite) or []
            targets = [s.target for s in steps if s.target is not None
                       and s.action in ELEMENT_ACTIONS]
            if targets:
                jobs += [(family, task, steps, kind, rng.choice(targets)) for kind in kinds]
    if bench.args.changed_sample and len(jobs) > bench.args.changed_sample:
        jobs = rng.sample(jobs, bench.args.changed_sample)  # seeded: across families
    job = progress.add_task("changed pages", total=2 * len(jobs))
    on = bench.settings(workflows="on")
    blind_settings = bench.settings(workflows="off", knowledge="off")
    for family, task, steps, kind, target in jobs:
        change = PageChange(kind, names=(target.name,) if target.name is not None else (),
                            contains=(target.contains,) if target.name is None and
                            target.contains else ())
        origins = [suite.arena.base_url(app).rstrip("/")
                   for app in suite.tasks["arena:" + task].apps]
        for arm in ("workflow", "blind"):
            pages = ChangedPages(origins, [change], seed=bench.args.seed)
            blame = Blame(pages, blind=arm == "blind")
            if arm == "workflow":
                with fresh_kb(bench) as kb:
                    run, seconds = run_episode(
                        bench, suite, env, on, "arena:" + task, model=model, kb=kb,
                        hooks=[blame], pages=pages,
                        run_dir=bench.out / "changed" / kind / task)
            else:
                plan = Plan(list(steps))
                run, seconds = run_episode(
                    bench, suite, env, blind_settings, "arena:" + task, model=None,
                    decider=ReplayOperator(plan.encode()), hooks=[blame], pages=pages,
                    run_dir=bench.out / "blind" / kind / task)
            out = Outcome(task, family_key(family), f"{arm}/{kind}", run.success,
                          run.usage.calls, run.usage.prompt_tokens, seconds,
                          wrong_workflow=blame.counts["workflow"],
                          wrong_operator=blame.counts["operator"],
                          wrong_blind=blame.counts["blind"], changed_pages=pages.pages,
                          change=f"{kind} {target.describe()}")
            fill_from_runner(out, run)
            bench.outcomes.append(out)
            progress.advance(job)


# -- report -------------------------------------------------------------------------------
def pct(a: float, b: float) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def per_task(outcomes: list[Outcome]) -> dict[str, float]:
    n = len(outcomes)
    return {"n": n, "success": sum(o.success for o in outcomes),
            "calls": sum(o.calls for o in outcomes) / n if n else 0,
            "tokens": sum(o.prompt_tokens for o in outcomes) / n if n else 0,
            "seconds": sum(o.seconds for o in outcomes) / n if n else 0}


def report(bench: Bench, fams: list[Family], explored: Explored, elapsed: float) -> None:
    say = print
    outcomes = bench.outcomes
    heldout_tasks = sum(len(f.heldout) for f in fams)
    say(f"families: {len(fams)} ({sum(len(f.tasks) for f in fams)} tasks, {heldout_tasks} "
        f"held out); workflows learned: {len(bench.learned)}")
    for key, why in sorted(bench.not_learned.items()):
        say(f"  not learned {key}: {why}")
    wf = [o for o in outcomes if o.arm == "workflow"]
    op = [o for o in outcomes if o.arm == "operator"]
    op_tasks = {o.task for o in op}
    wf_same = [o for o in wf if o.task in op_tasks]
    say("")
    say("held-out siblings, per task (mean):")
    say(f"{'arm':<34} {'tasks':>5} {'success':>8} {'calls':>6} {'prompt tok':>10} "
        f"{'seconds':>8}")
    for name, rows in (("offline Operator alone", op),
                       ("workflows + Operator (same tasks)", wf_same),
                       ("workflows + Operator (all held out)", wf)):
        s = per_task(rows)
        say(f"{name:<34} {s['n']:>5} {pct(s['success'], s['n']):>8} {s['calls']:>6.1f} "
            f"{s['tokens']:>10.0f} {s['seconds']:>8.1f}")
    ran = [o for o in wf if o.workflow_ran]
    alone = [o for o in ran if o.handed == 0]
    say(f"workflow ran on {len(ran)}/{len(wf)} held-out tasks; without the Operator on "
        f"{len(alone)}; solved {sum(o.success for o in ran)}")
    success = sum(o.success for o in wf)
    say(f"held-out success over all {heldout_tasks} held-out tasks: {success} "
        f"({pct(success, heldout_tasks)}; a family that taught nothing counts as failed)")
    by_group: dict[str, list[Outcome]] = defaultdict(list)
    for o in wf:
        by_group[o.family.split(":")[0]].append(o)
    say("by site: " + ", ".join(f"{g} {sum(o.success for o in rows)}/{len(rows)}"
                                for g, rows in sorted(by_group.items())))
    op_calls = sum(o.calls for o in op)
    wf_calls = sum(o.calls for o in wf_same)
    saved = (1 - wf_calls / op_calls) if op_calls else None
    say(f"model calls on the tasks both arms ran: Operator {op_calls}, workflows {wf_calls}")
    # near the limit
    ratios = [e / b for _, e, b, _ in bench.bare if b > 0]
    ratio = statistics.median(ratios) if ratios else None
    if bench.bare:
        episode_s = statistics.median(e for _, e, _, _ in bench.bare)
        bare_s = statistics.median(b for _, _, b, _ in bench.bare)
        scored = sum(ok for *_, ok in bench.bare)
        say(f"bare Playwright: {len(bench.bare)} tasks ({scored} of its end states scored), "
            f"episode {episode_s:.2f} s vs script {bare_s:.2f} s (medians); "
            f"ratio median {ratio:.2f}, max {max(ratios):.2f}")
        say(breakdown_line(bench.breakdown))
    # changed pages
    ch = [o for o in outcomes if "/" in o.arm]
    wrong_wf = sum(o.wrong_workflow for o in ch if o.arm.startswith("workflow/"))
    healed = sum(o.healed for o in ch if o.arm.startswith("workflow/"))
    if ch:
        say("")
        say("changed pages (one of the workflow's targets changed, per kind):")
        say(f"{'kind':<8} {'runs':>4} {'wf success':>10} {'healed':>6} {'handed':>6} "
            f"{'refused':>7} {'wrong wf':>8} {'wrong op':>8} {'blind success':>13} "
            f"{'wrong blind':>11}")
        for kind in KINDS:
            w = [o for o in ch if o.arm == f"workflow/{kind}"]
            b = [o for o in ch if o.arm == f"blind/{kind}"]
            if not w:
                continue
            say(f"{kind:<8} {len(w):>4} {pct(sum(o.success for o in w), len(w)):>10} "
                f"{sum(o.healed for o in w):>6} {sum(o.handed for o in w):>6} "
                f"{sum(o.refused for o in w):>7} {sum(o.wrong_workflow for o in w):>8} "
                f"{sum(o.wrong_operator for o in w):>8} "
                f"{pct(sum(o.success for o in b), len(b)):>13} "
                f"{sum(o.wrong_blind for o in b):>11}")
    say("")
    say(f"from exploration alone: {explored.line()}")
    for app, summary in explored.apps.items():
        say(f"  {app}: {summary}")
    if explored.solved:
        say(f"  solved: {', '.join(explored.solved)}")
    say("copilot second pass with workflows: see benchmarks/copilot_study.py "
        "(not run here)")
    say(f"outcomes and run folders: {bench.out} ({elapsed:.0f} s)")
    say(f"workflows: families {len(fams)}, heldout_success {pct(success, heldout_tasks)}, "
        f"model_calls_saved {f'{100 * saved:.0f}%' if saved is not None else '-'}, "
        f"wrong_element {wrong_wf}, healed {healed}, "
        f"from_exploration {exploration_figure(explored)}, "
        f"time_vs_bare {f'{ratio:.2f}' if ratio is not None else '-'}")


def exploration_figure(explored: Explored) -> str:
    """``E/N``: solved of the hand-written tasks of the explored apps (N is 165 when
    every app is chosen); ``-/165`` when the explorer was not run."""
    if explored.skipped:
        return f"-/{ARENA_TASKS}"
    return f"{len(explored.solved)}/{explored.tasks}"


@dataclass
class Explored:
    """What the explorer alone taught and what it solved of the arena's own tasks."""

    apps: dict[str, str] = field(default_factory=dict)  # app -> the explorer's summary
    workflows: int = 0
    tasks: int = 0  # the arena's hand-written tasks of the chosen apps
    fitting: list[str] = field(default_factory=list)  # tasks whose goal fits a pattern
    solved: list[str] = field(default_factory=list)
    calls: int = 0
    skipped: str = ""

    def line(self) -> str:
        if self.skipped:
            return f"- ({self.skipped})"
        return (f"{len(self.solved)} of {self.tasks} arena tasks solved ({self.calls} model "
                f"calls) by {self.workflows} workflows the explorer alone learned; "
                f"{len(self.fitting)} tasks fit one of their goal patterns")


def explored_apps(fams: list[Family], suite) -> list[str]:
    """The single-site apps of the chosen task files (the explorer explores one site)."""
    from colorbrowser.arena.apps import APPS

    return sorted({f.group for f in fams} & set(APPS) & set(suite.apps or APPS))


def explore_apps(bench: Bench, suite, apps: list[str], kb_path: Path, progress,
                 explored: Explored) -> None:
    """``explore APP --workflows`` on each app: the arena's hand-written tasks and plans
    are never shown to it; what it learns goes into a knowledge base of its own."""
    from colorbrowser.explore.cli import ArenaSandbox, allowed_hosts
    from colorbrowser.explore.run import ExploreRequest, explore

    job = progress.add_task("explore --workflows", total=len(apps))
    for app in apps:
        suite.prepare([app])  # running on this instance, reset
        start = suite.arena.base_url(app) + "/"
        request = ExploreRequest(
            start_url=start, budget=bench.args.explore_budget,
            out=bench.out / "explore" / app, seed=bench.args.seed,
            allow_hosts=allowed_hosts(None, start), screenshots="none", tasks=True,
            max_tasks=bench.args.explore_tasks, kb_path=kb_path, workflows=True,
            sandbox=ArenaSandbox(suite.arena, app))
        t0 = time.monotonic()
        try:
            summary = explore(request, say=lambda _: None)
        except Exception as exc:  # one app's failure is a figure, not a crash
            summary = f"failed: {type(exc).__name__}: {exc}"
        explored.apps[app] = f"{summary} ({time.monotonic() - t0:.0f} s)"
        progress.advance(job)


def from_exploration(bench: Bench, suite, env, fams: list[Family], progress) -> Explored:
    """Workflows learned only from the explorer's proved tasks (no person, no oracle),
    run on every hand-written arena task of the explored apps, without a model.

    A task none of their goal patterns fits cannot be answered by them (and, with no
    model, by nothing): it counts as not solved without an episode. Every task whose
    goal fits a pattern runs as an episode (workflows on, the offline Operator as the
    fallback unless ``--no-model``) on a fresh reset and is scored by its own evaluator."""
    from colorbrowser.evaluation.replay import NoModel
    from colorbrowser.knowledge.store import KnowledgeBase
    from colorbrowser.workflows.match import match_goal

    explored = Explored()
    if bench.args.explore_budget <= 0:
        explored.skipped = "--explore-budget 0: the explorer was not run"
        return explored
    apps = explored_apps(fams, suite)
    if not apps:
        explored.skipped = "no single-site app among the chosen task files"
        return explored
    pristine = bench.out / "kb-explored.sqlite"
    explore_apps(bench, suite, apps, pristine, progress, explored)
    with KnowledgeBase.open(pristine, embeddings=False) as kb:
        flows = kb.list_workflows()
    explored.workflows = len(flows)
    tasks = [t for t in suite.tasks.values() if t.apps and set(t.apps) <= set(apps)
             and not t.definition.unsupported]
    explored.tasks = len(tasks)
    explored.fitting = [t.definition.id for t in tasks
                        if any(match_goal(f, t.definition.goal) is not None for f in flows)]
    job = progress.add_task("arena tasks with explored workflows", total=len(explored.fitting))
    on = bench.settings(workflows="on")
    for task_id in explored.fitting:
        with fresh_kb(bench, pristine.name) as kb:
            run, seconds = run_episode(bench, suite, env, on, task_id,
                                       model=bench.model or NoModel(), kb=kb,
                                       run_dir=bench.out / "explored" / short(task_id))
        out = Outcome(short(task_id), "explored", "explored", run.success, run.usage.calls,
                      run.usage.prompt_tokens, seconds)
        fill_from_runner(out, run)
        bench.outcomes.append(out)
        explored.calls += run.usage.calls
        if run.success:
            explored.solved.append(short(task_id))
        progress.advance(job)
    return explored


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instance", type=int, default=23)
    p.add_argument("--quick", action="store_true",
                   help=f"only the families of {', '.join(QUICK_GROUPS)} (a smoke test)")
    p.add_argument("--groups", default="", help="task files to use, e.g. trac,wiki")
    p.add_argument("--tasks", default="",
                   help="only families with a task matching these globs (comma-separated)")
    p.add_argument("--operator-sample", type=int, default=1,
                   help="held-out instances per family the Operator alone runs (0: none)")
    p.add_argument("--kinds", default=",".join(KINDS),
                   help="kinds of page change to run (comma-separated)")
    p.add_argument("--changed-sample", type=int, default=0,
                   help="changed-page runs at most, drawn by the seed (0: all)")
    p.add_argument("--no-model", action="store_true",
                   help="no offline model: the Operator arm is skipped and misses end runs")
    p.add_argument("--max-steps", type=int, default=10,
                   help="decisions of the Operator-alone arm (each one a model call)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per episode")
    p.add_argument("--model-timeout", type=float, default=120.0,
                   help="seconds one call of the offline model may take (the client's "
                        "timeout; a call that outlasts it is retried from the start)")
    p.add_argument("--explore-budget", type=int, default=150,
                   help="browser actions the explorer spends per app for the "
                        "from-exploration figure (0: not run)")
    p.add_argument("--explore-tasks", type=int, default=40,
                   help="tasks the explorer proves per app at most (each one a workflow "
                        "candidate)")
    p.add_argument("--exploration-only", action="store_true",
                   help="measure only the from-exploration figure (no oracle runs, no "
                        "held-out siblings, no changed pages)")
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--cache", type=Path, default=None, help="arena cache")
    return p.parse_args(argv)


def chosen_families(args: argparse.Namespace) -> list[Family]:
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    if args.quick and not groups:
        groups = list(QUICK_GROUPS)
    patterns = [t.strip() for t in args.tasks.split(",") if t.strip()]
    return [f for f in families() if (not groups or f.group in groups) and
            (not patterns or any(fnmatch.fnmatch(t, p) for t in f.tasks for p in patterns))]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    from colorbrowser.arena.instances import INSTANCE_VAR

    os.environ[INSTANCE_VAR] = str(args.instance)
    from colorbrowser.arena.suite import ArenaSuite
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.run.factory import open_model

    console = Console(stderr=True)
    fams = chosen_families(args)
    if not fams:
        print("error: no family of tasks matches the chosen groups", file=sys.stderr)
        return 2
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        out = args.out or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="workflows-bench-")))
        if args.out is not None:
            out.mkdir(parents=True, exist_ok=True)
        bench = Bench(args, out, console)
        apps = sorted({f.group for f in fams} & {"trac", "shop", "forum", "wiki", "tracker"})
        suite = ArenaSuite(None if "multi" in {f.group for f in fams} else apps,
                           cache=args.cache)
        stack.callback(suite.close)
        env = BrowserEnv(bench.settings(workflows="off").browser)
        stack.callback(env.close)
        from colorbrowser.evaluation.replay import NoModel

        model: Any = NoModel()  # --no-model: a step handed to the Operator ends in error
        if not args.no_model:
            base = bench.settings(workflows="off")
            with console.status("Starting the offline model (SmolLM2)…"):
                model = open_model(base.model, stack, base.paths.cache)
            bench.model = model
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            if not args.exploration_only:
                record_teachers(bench, suite, env, fams, progress)
                store_and_prove(bench, suite, env, fams, progress)
                heldout(bench, suite, env, model, fams, progress)
                changed(bench, suite, env, model, fams, progress)
            explored = from_exploration(bench, suite, env, fams, progress)
        (out / "outcomes.json").write_text(json.dumps(
            {"outcomes": [asdict(o) for o in bench.outcomes], "bare": bench.bare,
             "breakdown": [{"seconds": c.seconds, "steps": c.steps, "parts": dict(c.parts),
                            "end": c.end, "bare": b} for c, b in bench.breakdown],
             "not_learned": bench.not_learned}, indent=1), "utf-8")
        report(bench, fams, explored, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
