"""Learning a workflow from a run folder, without a model.

Only a run that proved itself may teach: the verifier's verdict ``verified``, the
task's own evaluator (``validation.json`` of an evaluation or oracle run), a person's
approval (``approval.json``, written by the copilot panel with ``approve``), or a proof
the caller holds (the explorer's proved tasks). From that run it keeps the steps that
took effect (element steps name their target by role and name, with the label,
section heading and row it sat in), turns the goal's values that the steps used into
parameters and the goal into a pattern over them, and records where the answer was
read, so that a sibling task reads its own value there. The stop itself is not a step:
the runner ends with ``stop(read_answer(...))``.

The parts: reading the run folder (``run_folder.py``), the goal's parameters
(``goal_params.py``), the steps (``step_builder.py``) and the answer's place
(``answer_place.py``); this module puts them together.

A run folder is data someone may send: every file is read through the capped readers,
and the workflow built from it goes through the same checks as an imported one.
"""

from __future__ import annotations

import json
from pathlib import Path

from colorbrowser.actions import parse_action
from colorbrowser.agent.trajectory import check_own_files, load_steps
from colorbrowser.errors import UserError
from colorbrowser.knowledge.patterns import hide_userinfo, url_host
from colorbrowser.knowledge.workflow import (
    PARAM,
    SECRET_MARK,
    LearnedBy,
    Workflow,
    WorkflowStep,
)
from colorbrowser.knowledge.workflow_store import check
from colorbrowser.steps import Step
from colorbrowser.workflows import addresses, edits, forms, reads, run_folder
from colorbrowser.workflows.answer_place import place, source_at
from colorbrowser.workflows.goal_params import goal_parameters
from colorbrowser.workflows.run_folder import approve, recorded_answer, took_effect
from colorbrowser.workflows.step_builder import StepBuilder

__all__ = ["approve", "learn", "recorded_answer", "took_effect"]


def learn(run_dir: str | Path, *, learned_by: LearnedBy | None = None,
          author: str | None = None, goal: str | None = None,
          proof: str | None = None, with_secrets: bool = False) -> Workflow:
    """A workflow from a finished, proved run folder (not stored: ``kb.add_workflow``).

    ``goal`` overrides the recorded goal; ``proof`` is the caller's own reason to trust
    an otherwise unproved run (e.g. "explorer": the explorer proved this task), and
    ``learned_by`` says who did the run (inferred when None). A run that typed a secret
    teaches only with ``with_secrets`` (a run of this process, or a person's own folder),
    as a workflows file imports one. Raises UserError."""
    run_dir = Path(run_dir)
    if not (run_dir / "steps.jsonl").is_file():
        raise UserError(f"{run_dir} is not a run folder (no steps.jsonl)")
    check_own_files(run_dir)
    meta, result = run_folder.read(run_dir, "meta.json"), run_folder.read(run_dir, "result.json")
    if not result:
        raise UserError(f"run {run_dir} has not finished (no result.json)")
    if result.get("status") != "done":
        raise UserError(f"run {run_dir} did not finish its task (status "
                        f"{result.get('status')!r})")
    evidence = run_folder.evidence(run_dir, result, proof)
    steps = load_steps(run_dir)
    goal = goal if goal is not None else meta.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        raise UserError(f"run {run_dir} records no goal (give one with --goal)")
    goal = " ".join(goal.split())
    if PARAM.search(goal):  # it would be a parameter of the pattern: a wildcard
        raise UserError(f"run {run_dir}: its goal holds {PARAM.search(goal).group()}, "
                        "which a workflow's pattern reads as a parameter (any text); "
                        "give the goal without it (--goal)")
    start = str(meta.get("start_url") or "")
    if not run_folder.web(start):  # started on about:blank: the first web page the run saw
        start = next((s.url for s in steps if run_folder.web(s.url)), start)
    site = url_host(start)
    if not run_folder.web(start):
        raise UserError(f"run {run_dir} never reached a web page "
                        f"({hide_userinfo(start)[:80]!r})")
    answer = result.get("answer")
    answer = answer if isinstance(answer, str) else ""
    kept = [s for s in steps if took_effect(s)]
    _check_kept(kept, site, run_dir)
    found = goal_parameters(goal, steps, kept, start, answer)
    params = found.params
    builder = StepBuilder(steps, params, site, found.spelled)
    flow_steps = _flow_steps(builder, kept, start)
    flow_steps, source = place(answer, steps, kept, flow_steps, params, run_dir)
    text = str([s.model_dump() for s in flow_steps] + [source])
    first = flow_steps[0].step
    used_spellings, used_names = found.used_in(
        text, steps, isinstance(first, dict) and "goto" in first)
    task_id = meta.get("task_id") or run_folder.task_of(run_dir)
    data = {
        "site": site,
        "goal_pattern": found.pattern(goal, used_names),
        "params": {n: v for n, v in params.items() if n in used_names},
        "steps": [s.model_dump(exclude_defaults=True) for s in flow_steps],
        "answer": source.model_dump(exclude_defaults=True) if source else None,
        "spellings": {n: s.model_dump() for n, s in used_spellings.items()},
        # as data, so that a forged task id or author is one checked line, like the rest
        "provenance": {"run": str(run_dir), "task_id": task_id,
                       "learned_by": learned_by or run_folder.learned_by(meta, steps, evidence),
                       "author": author or run_folder.author(run_dir)},
    }
    if not with_secrets and SECRET_MARK.search(json.dumps(data, default=str)):
        raise UserError(f"run {run_dir} types one of your secrets ({{{{secret:NAME}}}}): a "
                        "run folder may come from someone else and may not choose what of "
                        "yours a workflow types (learn from your own run with --with-secrets)")
    return check(data, f"workflow learned from {run_dir}")


def _check_kept(kept: list[Step], site: str, run_dir: Path) -> None:
    """UserError for a kept step a workflow may not hold: a secret, a page off the site,
    or a field rewritten after it was typed."""
    for s in kept:
        run_folder.on_site(s, site, run_dir)
        action = parse_action(s.action or "")
        if action.name == "fill" and len(action.args) == 2:
            edits.refuse_rewrites(s.step, s.observation, str(action.args[0]),
                                  str(action.args[1]), run_dir)


def _flow_steps(builder: StepBuilder, kept: list[Step], start: str) -> list[WorkflowStep]:
    """The workflow's steps, reads of values on the way included, opening the start page
    first when the run read there or did not open a page itself."""
    flow_steps = [builder.step(s) for s in kept]
    flow_steps = reads.learn_reads(kept, flow_steps, builder.params, source_at)
    flow_steps = forms.by_row(flow_steps)
    first = flow_steps[0].step if flow_steps else None
    if flow_steps and flow_steps[0].reads:  # on the start page
        flow_steps.insert(0, WorkflowStep(step={"goto": builder.url(start)},
                                          expect_url=builder.expect(start)))
    elif not (isinstance(first, dict) and "goto" in first):
        begin = addresses.start_step(builder.url(start), builder.expect(start))
        flow_steps[:0] = [begin] if begin else []
    return flow_steps
