"""``explore --workflows``: every task the explorer proved is a workflow candidate, so a
site explored overnight answers its users' matching goals the next day without a model.

Each kept task's proof run (proved.py) is learned like any run that may teach
(``learned_by="explorer"``); the workflow is then proved in its learned form: its steps,
filled with its own values, replayed from a fresh start, with the answer read where
its answer source says, must score 1 on the task's evaluator (and doing nothing 0), and
so must every other kept task whose goal fits its pattern, with that task's values: a
pattern wider than its path is not kept. Only then is it stored, marked proved. A
family the knowledge base already serves (an active workflow of the site with the same
goal pattern, from this exploration or an earlier one) is not learned twice: its first
proved task stands for it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.errors import ColorBrowserError
from colorbrowser.explore.validate import Prover
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.knowledge.workflow import Workflow
from colorbrowser.workflows.instantiate import instantiate, read_answer
from colorbrowser.workflows.learn import learn
from colorbrowser.workflows.match import match_goal


@dataclass
class WorkflowReport:
    candidates: int = 0
    stored: int = 0
    covered: int = 0  # the family already had a workflow
    refused: list[str] = field(default_factory=list)  # "task id: why"
    ids: list[str] = field(default_factory=list)

    def line(self) -> str:
        first = f" (first: {self.refused[0]})" if self.refused else ""
        return (f"{self.stored} workflows stored of {self.candidates} proved tasks "
                f"({self.covered} families already served, {len(self.refused)} refused{first})")


def learn_workflows(runs: list[Path], tasks: dict[str, dict[str, Any]], kb_path: Path,
                    prover: Prover, *, embeddings: bool = False) -> WorkflowReport:
    """Learn, prove and store a workflow from each proof run (in the tasks' order)."""
    report = WorkflowReport(candidates=len(runs))
    with KnowledgeBase.open(kb_path, embeddings=embeddings) as kb:
        for run in runs:
            task = tasks.get(run.name)
            if task is None:
                continue
            try:
                flow = learn(run, learned_by="explorer", proof="explorer", with_secrets=True)
            except (ColorBrowserError, ValueError) as exc:
                report.refused.append(f"{run.name}: {_line(exc)}")
                continue
            if any(w.goal_pattern == flow.goal_pattern for w in kb.list_workflows(flow.site)):
                report.covered += 1
                continue
            failed = _prove(flow, task, tasks, prover)
            if failed:
                report.refused.append(f"{run.name}: {failed}")
                continue
            try:
                stored = kb.add_workflow(flow.model_copy(update={"proved": True}))
            except (ColorBrowserError, sqlite3.Error) as exc:
                report.refused.append(f"{run.name}: {_line(exc)}")
                continue
            report.stored += 1
            report.ids.append(stored.id)
    return report


def _prove(flow: Workflow, source: dict[str, Any], tasks: dict[str, dict[str, Any]],
           prover: Prover) -> str | None:
    """Why the workflow may not be kept, or None: it must solve its own task and every
    other kept task whose goal fits its pattern (a sibling the explorer proved), each
    from a fresh start with the task's own values. A pattern wider than its path (the
    same words, another way there) fails on a sibling and is not kept."""
    claimed = [(source, dict(flow.params))]
    for task in tasks.values():
        params = match_goal(flow, task["intent"]) if task is not source else None
        if params is not None:
            claimed.append((task, params))
    for task, params in claimed:
        try:
            plan = [step.to_data() for step, _ in instantiate(flow, params)]
        except ColorBrowserError as exc:
            return f"fits {task['task_id']} but cannot fill its values ({_line(exc)})"
        proof = prover.prove(task, plan,
                             read=lambda obs, p=params: read_answer(flow, obs, p))
        if not proof.ok:
            which = "its own task" if task is source else f"the sibling {task['task_id']}"
            return (f"the learned workflow failed on {which} "
                    f"({proof.error or 'it did not score 1'})")
    return None


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
