"""Near the limit: the actions a workflow resolved for a task it solved alone, run
again as a bare Playwright script on a fresh reset, against the episode's time."""

from __future__ import annotations

import os
import statistics
import time

from workflows_bench import Bench, Family, resolved_steps
from workflows_timing import EpisodeClock, bare_run, breakdown_line


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


def bare_report(bench: Bench, say) -> float | None:
    """The bare script's lines; returns the median ratio of episode to script time."""
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
    return ratio
