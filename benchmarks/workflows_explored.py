"""From exploration alone: ``explore APP --workflows`` on each single-site app, then
the arena's own tasks of those apps run with the workflows it learned."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from workflows_bench import Bench, Family, Outcome, fill_from_runner, fresh_kb, run_episode, short

ARENA_TASKS = 165


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


def exploration_report(explored: Explored, say) -> None:
    say("")
    say(f"from exploration alone: {explored.line()}")
    for app, summary in explored.apps.items():
        say(f"  {app}: {summary}")
    if explored.solved:
        say(f"  solved: {', '.join(explored.solved)}")
