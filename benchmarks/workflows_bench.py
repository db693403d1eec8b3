"""The workflows benchmark's shared parts: the arena's task families, what one episode
gave, the benchmark's settings and state, and running one episode (``workflows.py``
runs the measurements, one module each)."""

from __future__ import annotations

import argparse
import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from colorbrowser.arena.pagechanges import ChangedPages, ChangedTask
from colorbrowser.plan.format import Step as PlanStep
from workflows_timing import EpisodeClock, timed_episode


@dataclass
class Family:
    """The same question about other things: one intent template of one task file."""

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


@dataclass
class Outcome:
    """What one episode gave, saved in ``outcomes.json``."""

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


@dataclass
class Bench:
    """The run's options, output folder and what the measurements gathered."""

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
        # loaded machine (--model-timeout; the offline client gives it one attempt of
        # timeout x (max_retries + 1), since its server finishes what it was given).
        model = base.model.model_copy(update={"timeout": self.args.model_timeout})
        return base.model_copy(update={"agent": agent, "browser": browser, "paths": paths,
                                       "hitl": hitl, "model": model})


def family_key(family: Family) -> str:
    return f"{family.group}:{family.template_id}"


def run_episode(bench: Bench, suite, env, settings, task_id: str, *, model, decider=None,
                kb=None, run_dir: Path | None = None, hooks=(),
                pages: ChangedPages | None = None, clock: EpisodeClock | None = None):
    """One arena task as an episode (its pages changed when ``pages`` is given); returns
    the run and the episode's seconds (``EpisodeClock``)."""
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


def resolved_steps(bench: Bench, family: Family, task: str, suite) -> list[PlanStep] | None:
    """The family's workflow's steps with this task's values (None: its goal does not
    fit the pattern)."""
    from colorbrowser.workflows.instantiate import instantiate
    from colorbrowser.workflows.match import match_goal

    flow = bench.learned[family_key(family)]
    goal = suite.tasks["arena:" + task].definition.goal
    params = match_goal(flow, goal)
    if params is None:
        return None
    return [step for step, _ in instantiate(flow, params)]


def pct(a: float, b: float) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def per_task(outcomes: list[Outcome]) -> dict[str, float]:
    n = len(outcomes)
    return {"n": n, "success": sum(o.success for o in outcomes),
            "calls": sum(o.calls for o in outcomes) / n if n else 0,
            "tokens": sum(o.prompt_tokens for o in outcomes) / n if n else 0,
            "seconds": sum(o.seconds for o in outcomes) / n if n else 0}
