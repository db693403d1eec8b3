"""``colorbrowser arena prove``: a task is kept only when its evaluator is proven.

Four runs per task, each a study of the replay agent through the usual runner, its
workers and the arena suite (so every task starts on a freshly reset instance):

- ``oracle``: the oracle plan must score 1;
- ``null``: doing nothing (stop at once) must score 0;
- ``wrong``: the plan with its marked wrong value must score 0;
- ``truncated``: the plan without its last step must score 0.

An episode that errored (timeout, crash, unscorable) proves nothing either way.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from colorbrowser.arena.plans import VARIANT, load_plans, write_script
from colorbrowser.errors import UserError
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.evaluation.task import short_id
from colorbrowser.plan.format import Plan

KINDS = ("oracle", "null", "wrong", "truncated")
WANT = {"oracle": 1.0, "null": 0.0, "wrong": 0.0, "truncated": 0.0}


@dataclass
class Proof:
    task: str
    group: str  # the task file's group: trac, shop, multi, ...
    eval_types: list[str]
    rewards: dict[str, float | None] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return not self.problems and all(self.rewards.get(k) == WANT[k] for k in KINDS)

    def why(self) -> str:
        if self.problems:
            return "; ".join(self.problems)
        bad = [f"{k} scored {self.rewards.get(k)}" for k in KINDS
               if self.rewards.get(k) != WANT[k]]
        return ", ".join(bad)


def write_variant(kind: str, plans: dict[str, Plan], path: Path) -> None:
    write_script({task: VARIANT[kind](plan) for task, plan in plans.items()}, path)


def prove(suite: str, tasks: str | None, out: Path, *, workers: int = 1,
          timeout: float = 180, kinds: tuple[str, ...] = KINDS,
          say: Callable[[str], None] | None = None, console=None,
          plans_from: list[Path] | None = None) -> list[Proof]:
    """Prove the suite's tasks (narrowed by ``tasks`` patterns); results in ``out``.

    ``kinds`` runs only some of the four runs (the rest stay unknown: not proven).
    ``plans_from``: the oracle plan files (default: the shipped tasks' plans), e.g. a
    user's own beside ``suite`` = ``arena:mine.json``.
    """
    from rich.console import Console

    from colorbrowser.arena.suite import plan_files
    from colorbrowser.config import load_settings
    from colorbrowser.evaluation.coordinator import StudyOptions, run_study
    from colorbrowser.evaluation.suites import open_suite

    console = console or Console(stderr=True)
    say = say or console.print
    choice = open_suite(suite)
    with choice.suite as opened:
        entries = choice.select(tasks)
        definitions = {t: opened.tasks[t] for t in (e.id for e in entries)}
    plans = load_plans(plans_from if plans_from is not None else plan_files())
    proofs: dict[str, Proof] = {}
    runnable: dict[str, Plan] = {}
    for entry in entries:
        task = definitions[entry.id]
        proof = Proof(entry.id, Path(task.definition.source.split("#")[0]).stem,
                      evaluator_kinds(task.written))
        proofs[entry.id] = proof
        plan = plans.get(short_id(entry.id))
        if not entry.runnable:
            proof.problems.append(f"cannot run: {entry.unsupported}")
        elif plan is None:
            proof.problems.append("no oracle plan")
        elif not plan.mutable:
            proof.problems.append("the oracle plan names no wrong value")
        else:
            runnable[short_id(entry.id)] = plan
    if not runnable:
        raise UserError("no task here can be proven (see `colorbrowser eval "
                        f"{suite} --list`)")
    settings = load_settings(overrides={("browser", "screenshots"): False})
    ids = ",".join(sorted(runnable))
    for kind in kinds:
        say(f"[bold]{kind}[/] run of {len(runnable)} task(s)")
        study = out / kind
        if study.exists():
            shutil.rmtree(study)  # a proof always runs anew, never resumes
        script = out / "plans" / f"{kind}.yaml"
        write_variant(kind, runnable, script)
        options = StudyOptions(suite=suite, study_dir=study, tasks=ids, workers=workers,
                               replay=script, timeout=timeout,
                               command=["colorbrowser", "arena", "prove", suite])
        outcome = run_study(options, settings, console)
        for record in outcome.records:
            proof = proofs[record.task]
            if record.errored:
                proof.problems.append(f"{kind}: {record.error_class}: {record.error}")
            proof.rewards[kind] = None if record.errored else record.reward
    result = list(proofs.values())
    (out / "proofs.json").write_text(json.dumps([asdict(p) | {"proven": p.proven}
                                                 for p in result], indent=1), "utf-8")
    return result


def counts(proofs: list[Proof], key: Callable[[Proof], list[str]]) -> dict[str, Counter]:
    """{row: Counter(proven=, total=)} with a proof counted under each of its keys."""
    out: dict[str, Counter] = {}
    for proof in proofs:
        for row in key(proof):
            out.setdefault(row, Counter())
            out[row]["total"] += 1
            out[row]["proven"] += proof.proven
    return out


def evaluator_kinds(spec: EvalSpec) -> list[str]:
    """The task's evaluators, string_match split by how it compares."""
    out = []
    for kind in spec.eval_types:
        refs = spec.reference_answers
        if kind == "string_match" and refs is not None:
            out += [f"string_match/{name}" for name in ("exact_match", "must_include",
                                                         "fuzzy_match")
                    if getattr(refs, name) is not None]
        else:
            out.append(kind)
    return out


def read_proofs(path: Path) -> list[Proof]:
    items = json.loads(path.read_text("utf-8"))
    return [Proof(i["task"], i["group"], i["eval_types"], i["rewards"], i["problems"])
            for i in items]
