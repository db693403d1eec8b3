"""Changed pages: a held-out task's pages rewritten at one of its workflow's targets,
run by workflows with the Operator fallback and by blind replay; who hit a decoy."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from colorbrowser.arena.pagechanges import KINDS, ChangedPages, PageChange
from colorbrowser.plan.format import Plan
from colorbrowser.protocols import Hook
from workflows_bench import (
    Bench,
    Family,
    Outcome,
    family_key,
    fill_from_runner,
    fresh_kb,
    pct,
    resolved_steps,
    run_episode,
)

ELEMENT_ACTIONS = {"click", "dblclick", "fill", "select_option", "check", "uncheck", "press",
                   "hover"}


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
                            target.contains else (), nth=target.nth,
                            ends=target.ends)
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


def changed_report(bench: Bench, say) -> tuple[int, int]:
    """The table per kind of change; returns the workflow steps' actions on a decoy and
    the steps healed."""
    outcomes = bench.outcomes
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
    return wrong_wf, healed
