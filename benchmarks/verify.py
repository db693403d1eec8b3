"""The verifier at the stop, measured on the arena's tasks against their evaluators.

    COLORBROWSER_CACHE=~/.cache/colorbrowser python benchmarks/verify.py --instance 22
    python benchmarks/verify.py --apps trac --tasks 'trac-comment-*' --out studies/verify

Trajectories, each judged by the verifier at its stop and scored by the task's evaluator:

- the oracle plan of every task (true successes);
- its mutants: doing nothing (empty answer), the wrong value, the plan without its last
  step (a write never made, an answer never given), and the random agent (false);
- for every task whose evaluator scores the final page (``url_match``, or a page check on
  ``last``), the oracle plan followed by a goto to a page of the same site that does not
  exist (``arena/plans.py`` MISSING_PAGES), then the oracle's stop: an error page;
- every trap task (``arena/traps.py``) played by an agent that stops as soon as the page
  looks right, behind the fault proxy (false), and the same plan without the fault (true).

For each: was the stop ``verified``? Precision and recall of "verified" against the
evaluator, per kind of false "done", deterministic checks alone and with a scripted
judge (replies drawn to agree with the evaluator 87% of the time, the best agreement
reported for LLM judges; seeded, and named as scripted). A grounded but wrong value is
what deterministic checks cannot see: it is counted apart, not hidden in one number.

Then the second chance: an agent that first stops early with a wrong answer and goes on
with the oracle plan when the verifier refuses; how many tasks it recovers (without
verification every one of them fails).

Runs on one arena instance (``--instance N``; by default a free one, by eval's rule),
resetting the task's app before each trajectory (a random agent that signed out is
signed in again by the reset: ``tests/arena/test_trac_arena.py``). The last line is the summary
the README quotes:
``verify: trajectories N, precision P, recall R, traps_caught K/M, false_alarms F``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from colorbrowser.actions import parse_action
from colorbrowser.agent.verify import FinalPage, Proof
from colorbrowser.agent.verifying import Judge
from colorbrowser.arena.instances import INSTANCE_VAR
from colorbrowser.arena.plans import error_page_plans, plans, random_plan
from colorbrowser.arena.traps import arena_traps, run_trap
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import load_settings
from colorbrowser.evaluation.episode import run_task_episode
from colorbrowser.evaluation.replay import NoModel, ReplayOperator
from colorbrowser.evaluation.suites import open_suite
from colorbrowser.evaluation.task import short_id
from colorbrowser.evidence import Verification
from colorbrowser.plan.format import Plan
from colorbrowser.steps import Decision, DecisionView
from colorbrowser.types import Usage

JUDGE_AGREEMENT = 0.87


@dataclass
class Trajectory:
    source: str  # oracle, null, wrong, truncated, error-page, random, trap, trap-control
    task: str
    kind: str  # information, change, open (from the evaluator)
    truth: bool  # the evaluator's verdict
    verdict: str
    reasons: list[str]
    judged: str = ""  # the verdict with the scripted judge

    @property
    def category(self) -> str:
        """The kind of false "done" it is (or "true" for a real success)."""
        if self.truth:
            return "true"
        if self.source.startswith("trap"):
            return self.source.split(":", 1)[1]
        if self.source == "null" or (self.source == "truncated" and self.kind == "information"):
            return "empty answer"
        if self.source == "truncated":
            return "write never made" if self.kind == "change" else "page never reached"
        if self.source == "wrong":
            if self.kind == "information":
                caught = any("on no page you saw" in r for r in self.reasons)
                return "ungrounded value" if caught else "grounded but wrong value"
            return "wrong value written" if self.kind == "change" else "wrong page opened"
        if self.source == "error-page":
            return "error page"
        return "random agent"


class ScriptedJudge(Judge):
    """Scripted judge replies for the benchmark: the evaluator's truth, flipped with a seeded
    probability of 1 - JUDGE_AGREEMENT. Not a model: a stand-in of known accuracy."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.truth = False

    def judge(self, proof: Proof, checks: Verification) -> Verification:
        says = self.truth if self.rng.random() < JUDGE_AGREEMENT else not self.truth
        out = checks.model_copy(deep=True)
        if not says:
            out.verdict = "refuted"
            out.reasons.append("the judge: the goal was not achieved")
        return out


class EarlyWrongThenPlan(ReplayOperator):
    """Stops at once with a wrong answer; told it is refused, it follows the oracle plan."""

    takes_second_chance = True

    def __init__(self, actions: list[str], wrong: str) -> None:
        super().__init__(actions)
        self.wrong = wrong
        self.stopped = False

    def decide(self, view: DecisionView) -> Decision:
        if not self.stopped:
            self.stopped = True
            text = f"stop({self.wrong!r})"
            return Decision("the page looks right", parse_action(text), text, Usage())
        return super().decide(view)


def task_kind(definition) -> str:
    types = set(definition.written.eval_types)
    if "string_match" in types:
        return "information"
    if types & {"db_match", "program_html"}:
        return "change"
    return "open"


def scores_final_page(definition) -> bool:
    """Whether the evaluator looks at the page the agent ended on: only then can ending on
    an error page make a success false."""
    spec = definition.written
    return "url_match" in spec.eval_types or any(c.url == "last" for c in spec.program_html)


def early_answer(kind: str) -> str:
    """What the early stopper claims: a made-up value for a question (the hallucination
    of the issue: "the value 42 appears on no page you saw"), "Done" otherwise."""
    return "42" if kind == "information" else "Done"


def verdict_of(run) -> tuple[str, list[str]]:
    v = run.verification
    return (v.verdict, list(v.reasons)) if v is not None else ("none", [])


def rate(a: int, b: int) -> float:
    return a / b if b else 1.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instance", type=int, default=None,
                        help="the arena instance to use (default: a free one, as eval does)")
    parser.add_argument("--apps", default="trac")
    parser.add_argument("--tasks", default="*", help="glob over short task ids")
    parser.add_argument("--random-seeds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--judge-seed", type=int, default=7)
    args = parser.parse_args()
    if args.instance is not None:
        os.environ[INSTANCE_VAR] = str(args.instance)
    out = args.out or Path(tempfile.mkdtemp(prefix="verify-bench-"))
    settings = load_settings(overrides={("browser", "screenshots"): False,
                                        ("agent", "knowledge"): "off",
                                        ("agent", "memory"): "none"})
    started = time.monotonic()
    oracle = plans("oracle")
    trajectories: list[Trajectory] = []
    recovered: list[tuple[str, bool, str]] = []  # task, recovered, kind of task
    judge = ScriptedJudge(args.judge_seed)
    choice = open_suite(f"arena:{args.apps}")
    with choice.suite as suite, BrowserEnv(settings.browser) as env:
        tasks = [t for t in suite.tasks if t.split(":", 1)[-1] in oracle
                 and fnmatch.fnmatch(short_id(t), args.tasks)]
        variants = {kind: plans(kind) for kind in ("oracle", "null", "wrong", "truncated")}
        runs = [(kind, task, variants[kind][short_id(task)]) for kind in variants
                for task in tasks]
        errors = error_page_plans()
        runs += [("error-page", task, errors[short_id(task)]) for task in tasks
                 if short_id(task) in errors and scores_final_page(suite.tasks[task])]
        runs += [("random", task, random_plan(seed, 10)) for seed in range(args.random_seeds)
                 for task in tasks]

        def play(kind: str, task_id: str, plan: Plan, n: int, total: int) -> None:
            run = run_task_episode(suite.task(task_id), settings, env=env, model=NoModel(),
                                   decider=ReplayOperator(plan.encode()),
                                   run_dir=out / kind / short_id(task_id))
            verdict, reasons = verdict_of(run)
            t = Trajectory(kind, short_id(task_id), task_kind(suite.tasks[task_id]),
                           bool(run.success), verdict, reasons)
            judge.truth = t.truth
            t.judged = verdict if verdict == "refuted" else judge.judge(
                Proof(goal=run.goal, answer=run.answer, steps=[], final=FinalPage()),
                run.verification or Verification(verdict="unverified")).verdict
            trajectories.append(t)
            print(f"[{n}/{total}] {kind:10} {t.task:32} truth={t.truth!s:5} "
                  f"verdict={verdict}", file=sys.stderr)

        for n, (kind, task_id, plan) in enumerate(runs, 1):
            play(kind, task_id, plan, n, len(runs))
        for task_id in tasks:
            plan, kind = oracle[short_id(task_id)], task_kind(suite.tasks[task_id])
            second = agent_settings(settings, retries=1)
            run = run_task_episode(suite.task(task_id), second, env=env, model=NoModel(),
                                   decider=EarlyWrongThenPlan(plan.encode(), early_answer(kind)),
                                   run_dir=out / "second-chance" / short_id(task_id))
            recovered.append((short_id(task_id), bool(run.success), kind))
        for trap in arena_traps(suite.arena):
            if not fnmatch.fnmatch(trap.id, args.tasks) and args.tasks != "*":
                continue
            for faulty in (True, False):
                played = run_trap(trap, suite.arena, env, faulty=faulty,
                                  run_dir=out / "traps" / f"{trap.id}-{faulty}")
                source = f"trap:{trap.kind}" if faulty else "trap-control"
                t = Trajectory(source, trap.id, "change", played.done, played.verdict,
                               played.reasons)
                judge.truth = t.truth
                t.judged = t.verdict if t.verdict == "refuted" else judge.judge(
                    Proof(goal=trap.goal, answer="", steps=[]),
                    Verification(verdict=t.verdict)).verdict  # type: ignore[arg-type]
                trajectories.append(t)
    (out / "trajectories.json").write_text(json.dumps([asdict(t) for t in trajectories],
                                                      indent=1), "utf-8")
    report(trajectories, recovered, time.monotonic() - started, out)
    return 0


def agent_settings(settings, *, retries: int):
    agent = settings.agent.model_copy(update={"verify_retries": retries})
    return settings.model_copy(update={"agent": agent})


def scores(trajectories: list[Trajectory], field: str) -> tuple[float, float, int, int]:
    tp = sum(t.truth and getattr(t, field) == "verified" for t in trajectories)
    fp = sum(not t.truth and getattr(t, field) == "verified" for t in trajectories)
    fn = sum(t.truth and getattr(t, field) != "verified" for t in trajectories)
    return rate(tp, tp + fp), rate(tp, tp + fn), fp, fn


def report(trajectories: list[Trajectory], recovered, elapsed: float, out: Path) -> None:
    by_cat: dict[str, Counter] = defaultdict(Counter)
    for t in trajectories:
        row = by_cat[t.category]
        row["total"] += 1
        row["verified"] += t.verdict == "verified"
        row["judged_verified"] += t.judged == "verified"
    print(f"{'kind of trajectory':28} {'n':>4} {'verified':>9} {'+judge':>7}")
    for name in sorted(by_cat, key=lambda c: (c != "true", c)):
        row = by_cat[name]
        print(f"{name:28} {row['total']:>4} {row['verified']:>9} {row['judged_verified']:>7}")
    p, r, fp, fn = scores(trajectories, "verdict")
    jp, jr, jfp, jfn = scores(trajectories, "judged")
    print(f"deterministic checks: precision {p:.3f}, recall {r:.3f} "
          f"({fp} false 'done' verified, {fn} true successes not verified)")
    print(f"with the scripted judge ({JUDGE_AGREEMENT:.0%} agreement): precision {jp:.3f}, "
          f"recall {jr:.3f} ({jfp} false verified, {jfn} true not verified)")
    grounded_wrong = by_cat["grounded but wrong value"]["total"]
    print(f"grounded but wrong values (invisible to the checks): {grounded_wrong}, "
          f"{by_cat['grounded but wrong value']['verified']} of them verified")
    oracle = [t for t in trajectories if t.source == "oracle"]
    alarms = sum(t.truth and t.verdict != "verified" for t in oracle)
    print(f"false alarms on oracle trajectories: {alarms}/{len(oracle)} "
          f"({rate(alarms, len(oracle)):.1%})")
    won = sum(ok for _, ok, _ in recovered)
    per_kind = Counter(kind for _, _, kind in recovered)
    won_kind = Counter(kind for _, ok, kind in recovered if ok)
    print("second chance: " + ", ".join(f"{kind} {won_kind[kind]}/{n}"
                                        for kind, n in sorted(per_kind.items())))
    print(f"second chance: {won}/{len(recovered)} tasks recovered by an agent that first "
          f"stopped early with a wrong answer (0/{len(recovered)} without verification)")
    traps = [t for t in trajectories if t.source.startswith("trap:")]
    caught = sum(t.verdict != "verified" for t in traps)
    print(f"trajectories and run folders: {out} ({elapsed:.0f} s)")
    print(f"verify: trajectories {len(trajectories)}, precision {p:.3f}, recall {r:.3f}, "
          f"traps_caught {caught}/{len(traps)}, false_alarms {alarms}")


if __name__ == "__main__":
    sys.exit(main())
