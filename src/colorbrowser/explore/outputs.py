"""Everything an exploration leaves in its folder once the loop ends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import write_json_atomic
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.explore.dataset import write_goal_dataset, write_pages_dataset
from colorbrowser.explore.graph_html import render
from colorbrowser.explore.proved import PROVED
from colorbrowser.explore.sandbox import Sandbox
from colorbrowser.explore.state import ExploreState


def write_outputs(state: ExploreState, out: Path, *, env: BrowserEnv | None = None,
                  sandbox: Sandbox | None = None, tasks: bool = True,
                  kb_path: Path | None = None, cookies: list[dict[str, Any]] | None = None,
                  writer: Callable[[Any], str | None] | None = None,
                  say: Callable[[str], None] = print, max_tasks: int | None = None,
                  workflows_kb: Path | None = None, embeddings: bool = False) -> list[str]:
    """graph.json, graph.html, the training sets, findings queued, tasks; what was
    written. ``dataset.jsonl`` (goal-conditioned) comes from the tasks' proofs, so it is
    written after them (empty without tasks)."""
    written = []
    write_json_atomic(out / "graph.json", {**state.graph.to_json(), "tally": state.tally.__dict__,
                                           "hops": state.hops, "used": state.used})
    (out / "graph.html").write_text(render(state, out), "utf-8")
    written.append("graph.json, graph.html")
    written.append(f"{write_pages_dataset(out)} exploration steps in dataset.pages.jsonl")
    if kb_path is not None:
        from colorbrowser.explore.findings import queue_findings

        written.append(f"{queue_findings(kb_path, state.graph.findings, out)} findings queued "
                       "for review")
    if tasks and env is not None:
        from colorbrowser.explore.synth import MAX_TASKS, synthesise_and_validate

        report = synthesise_and_validate(state, out, env, sandbox, cookies=cookies,
                                         writer=writer, say=say,
                                         limit=MAX_TASKS if max_tasks is None else max_tasks)
        over = f", {report.over} over --max-tasks" if report.over else ""
        written.append(f"{report.kept} tasks kept of {report.proposed} "
                       f"({report.duplicates} near-duplicates{over}, {report.failed} failed "
                       "proof)")
        runs = report.runs
        if workflows_kb is not None:
            from colorbrowser.explore.synth import prover_for
            from colorbrowser.explore.validate import load_tasks
            from colorbrowser.explore.workflows import learn_workflows

            kept, _ = load_tasks(out)
            learned = learn_workflows(runs, {t["task_id"]: t for t in kept}, workflows_kb,
                                      prover_for(env, sandbox, cookies),
                                      embeddings=embeddings)
            written.append(f"{learned.line()} in {workflows_kb}")
    else:  # a pass without tasks keeps the proofs of an earlier one
        found = out / PROVED
        runs = sorted(p for p in found.iterdir() if p.is_dir()) if found.is_dir() else []
    written.append(f"{write_goal_dataset(out, runs)} goal-conditioned dataset lines")
    return written
