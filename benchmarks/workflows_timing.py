"""Near the limit: where a workflow episode's time goes, and the same actions as a bare
Playwright script, for ``benchmarks/workflows.py``'s ``time_vs_bare``."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.plan.format import fill

PARTS = ("observe", "decide", "act", "record", "other")


@dataclass
class EpisodeClock:
    """Where one episode's time went: ``seconds`` is ``run()`` whole (the first look
    at the page the task opened, every step, the end: the verifier, the knowledge
    base's and the workflow's bookkeeping, the result file), all that the framework
    adds; the task's setup and scoring are outside, as they are outside the bare
    script's time. ``parts`` splits the steps: observe (read the page), decide (the
    decider, its checks, and the gate), act (the browser action, with its evidence and
    the browser snapshot), record (the step's files and the hooks after it), other
    (the rest of a step); ``end`` is what follows the last step."""

    seconds: float = 0.0
    steps: int = 0
    parts: Counter[str] = field(default_factory=Counter)
    end: float = 0.0


def timed_episode(clock: EpisodeClock):
    from colorbrowser.agent.loop import Episode

    def timed(part: str, method):
        def run(self, *args, **kwargs):
            started = time.perf_counter()
            try:
                return method(self, *args, **kwargs)
            finally:
                clock.parts[part] += time.perf_counter() - started
        return run

    class TimedEpisode(Episode):
        observe = timed("observe", Episode.observe)
        execute = timed("act", Episode.execute)
        record = timed("record", Episode.record)
        finish = timed("end", Episode.finish)

        def step(self):
            started = time.perf_counter()
            try:
                step = super().step()
            finally:
                clock.parts["step"] += time.perf_counter() - started
            clock.steps += 1
            clock.parts["decide"] += step.timings.get("decide", 0.0)
            return step

        def run(self):
            started = time.perf_counter()
            try:
                return super().run()
            finally:
                clock.seconds = time.perf_counter() - started
                clock.end = clock.parts.pop("end", 0.0)
                clock.parts["other"] = clock.parts.pop("step", 0.0) - sum(
                    clock.parts[p] for p in PARTS if p != "other")

    return TimedEpisode


def bare_locator(page, step: PlanStep):
    target = step.target
    assert target is not None
    if target.name is not None:
        found = page.get_by_role(target.role, name=target.name, exact=True)
    elif target.contains is not None:
        found = page.get_by_role(target.role, name=target.contains)
    else:
        found = page.get_by_role(target.role)
    return found.nth(target.nth)


def bare_run(page, steps: list[PlanStep], env) -> None:
    """The actions alone, as a hand-written Playwright script would do them."""
    for step in steps:
        if step.action == "stop":
            continue
        if step.text is not None and step.target is None:
            from colorbrowser.actions import parse_action

            action = parse_action(fill(step.text, env))
            name, args = action.name, list(action.args)
        else:
            name, args = step.action, [fill(a, env) if isinstance(a, str) else a
                                       for a in step.args]
        if name == "scroll":  # a workflow that starts where the episode starts
            continue
        if name == "goto":
            page.goto(args[0])
        elif name == "click":
            bare_locator(page, step).click()
        elif name == "fill":
            bare_locator(page, step).fill(str(args[0]))
        elif name == "press":
            bare_locator(page, step).press(str(args[0]))
        elif name == "select_option":
            bare_locator(page, step).select_option(args[0])
        elif name == "check":
            bare_locator(page, step).check()
        elif name == "uncheck":
            bare_locator(page, step).uncheck()
        elif name == "hover":
            bare_locator(page, step).hover()
        else:
            raise ValueError(f"no bare form for {name}")
        page.wait_for_load_state()


def breakdown_line(rows: list[tuple[EpisodeClock, float]]) -> str:
    """Where the workflow episodes timed against the bare script spent their time,
    per step (ms, mean over all their steps), beside the script's whole time."""
    steps = sum(c.steps for c, _ in rows)
    if not steps:
        return "per step: -"
    parts = ", ".join(f"{p} {1000 * sum(c.parts[p] for c, _ in rows) / steps:.0f}"
                      for p in PARTS)
    end = 1000 * sum(c.end for c, _ in rows) / len(rows)
    episode = sum(c.seconds for c, _ in rows)
    bare = sum(b for _, b in rows)
    return (f"per step (ms, mean of {steps} steps in {len(rows)} episodes): {parts}; "
            f"end of episode {end:.0f} ms; all episodes {episode:.1f} s vs scripts "
            f"{bare:.1f} s ({episode / bare:.2f}x)" if bare else "")
