"""The training sets an exploration leaves, one JSONL line per step in the chat format
common fine-tuning tools read (OpenAI-style ``messages``):

- ``dataset.jsonl``: the proved tasks' paths as goal-conditioned examples. Each line is
  the prompt the Operator itself would be sent at that step (its own templates: the
  task's intent as the goal, the page fenced, the last actions) and, as the assistant
  turn, the step's action in the Operator's reply shape. The last line of a task is its
  stop, with the answer when the task asks a question. A model trained on it learns to
  reach a goal, not only to click something.
- ``dataset.pages.jsonl``: every step of the exploration itself, with no goal (the page
  and the action, the outcome and the screenshot beside it), as earlier versions wrote
  ``dataset.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from colorbrowser.agent.operator import operator_prompt, operator_reply
from colorbrowser.agent.records import describe_result
from colorbrowser.agent.trajectory import read_steps
from colorbrowser.config import AgentSettings
from colorbrowser.llm.prompts import render
from colorbrowser.steps import DecisionView, HistoryEntry
from colorbrowser.types import ActionResult, Observation, Tab

TEMPLATES = Path(__file__).parent / "templates"
GOAL_FILE = "dataset.jsonl"
PAGES_FILE = "dataset.pages.jsonl"
FORMAT = "operator-goal-v1"  # what a line of GOAL_FILE holds, for readers to check


def lines(folder: Path) -> list[dict[str, Any]]:
    """The exploration's own steps, with no goal (``dataset.pages.jsonl``)."""
    out = []
    system = render("dataset_system.j2", [TEMPLATES])
    for step in read_steps(folder):
        if not step.get("action") or not step.get("observation"):
            continue
        result = step.get("result") or {}
        info = result.get("info") or {}
        out.append({
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": render(
                             "dataset_user.j2", [TEMPLATES], observation=step["observation"])},
                         {"role": "assistant", "content": step["action"]}],
            "step": step.get("step"),
            "action": step["action"],
            "outcome": {"ok": result.get("ok", True), "error": result.get("error"),
                        "url": result.get("output"), "changes": step.get("changes"),
                        "verdict": (info.get("verdict") or {}).get("text")},
            "screenshot": step.get("screenshot"),
        })
    return out


def _observation(rec: dict[str, Any]) -> Observation:
    """The page as the step's record keeps it: what the Operator's prompt shows."""
    tabs = [Tab(**{k: t[k] for k in ("index", "url", "title", "active") if k in t})
            for t in rec.get("tabs") or [] if isinstance(t, dict)]
    return Observation(url=rec.get("url", ""), title=rec.get("title", ""),
                       axtree=rec.get("observation", ""), tabs=tabs,
                       focused=rec.get("focused"), dialog=rec.get("dialog"),
                       changes=rec.get("changes"))


def _result(rec: dict[str, Any]) -> ActionResult:
    result = rec.get("result") or {}
    return ActionResult(ok=result.get("ok", True), error=result.get("error"),
                        output=result.get("output"))


def goal_lines(run_dir: Path, *, recent: int | None = None,
               max_steps: int | None = None) -> list[dict[str, Any]]:
    """One goal-conditioned example per step of a run folder: the Operator's prompt at
    that step and the step's action as its reply. The history is shown as the agent's
    own (the last ``recent`` actions, as with ``memory = "none"`` plus recent lines:
    no summary, since none was written)."""
    defaults = AgentSettings()
    recent = defaults.recent_actions if recent is None else recent
    max_steps = max_steps or defaults.max_steps
    meta = _json_dict(Path(run_dir) / "meta.json")
    goal = str(meta.get("goal") or "")
    records = [r for r in read_steps(run_dir) if r.get("action") and r.get("observation")]
    out: list[dict[str, Any]] = []
    history: list[HistoryEntry] = []
    last: ActionResult | None = None
    for number, rec in enumerate(records, 1):
        view = DecisionView(goal=goal, obs=_observation(rec), step=number, max_steps=max_steps,
                            recent=[h.line() for h in history[-recent:]] if recent else [],
                            last_result=describe_result(last))
        reply = operator_reply(rec.get("thought") or "", rec["action"])
        out.append({
            "format": FORMAT,
            "messages": [{"role": m.role, "content": m.content} for m in operator_prompt(view)]
            + [{"role": "assistant", "content": reply}],
            "goal": goal, "task_id": meta.get("task_id"), "step": number,
            "steps": len(records), "action": rec["action"], "url": rec.get("url", ""),
        })
        last = _result(rec)
        history.append(HistoryEntry(number, rec.get("url", ""), rec["action"], last.ok,
                                    last.error, last.output))
    return out


def _json_dict(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, rows: list[dict[str, Any]]) -> int:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def write_pages_dataset(folder: Path) -> int:
    return _write(Path(folder) / PAGES_FILE, lines(folder))


def write_goal_dataset(folder: Path, runs: list[Path]) -> int:
    """``dataset.jsonl`` from the proof runs of the kept tasks, in the tasks' order."""
    rows = [row for run in runs for row in goal_lines(run)]
    return _write(Path(folder) / GOAL_FILE, rows)

