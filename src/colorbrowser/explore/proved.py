"""A kept task's proof as a run folder, like any episode's: ``proved/TASK_ID/`` holds
meta.json (the task's intent as the goal), steps.jsonl (the page each step was decided
on, the action, what it did) and result.json (done, the answer, and the proof).

The path was replayed from a fresh start and scored 1 where doing nothing scored 0,
so the folder is a run that may teach: the goal-conditioned training set is written
from it (dataset.py) and, with ``explore --workflows``, a workflow is learned from it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from colorbrowser import __version__
from colorbrowser.actions import parse_action
from colorbrowser.agent.records import target
from colorbrowser.agent.state import now_iso
from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.explore.validate import Proof, Walked
from colorbrowser.steps import SCHEMA_VERSION, Step, StepResult, TabNote

PROVED = "proved"  # the folder, under the exploration's, of the kept tasks' proof runs
PROVED_BY = "explore"


def proved_dir(out: Path, task_id: str) -> Path:
    return Path(out) / PROVED / task_id


def clear_proved(out: Path) -> None:
    """The proof runs of an earlier pass: tasks.json is written anew, so are they."""
    shutil.rmtree(Path(out) / PROVED, ignore_errors=True)


def _thought(walked: Walked) -> str:
    """What a person would say before the step: the plan step in words."""
    if walked.step.action == "stop":
        answer = walked.step.args[0] if walked.step.args else ""
        return (f"The page shows the answer: {answer}." if answer
                else "This is the page the goal asks for.")
    text = walked.step.describe()
    return text[:1].upper() + text[1:] + "."


def _record(number: int, walked: Walked) -> Step:
    obs, result = walked.obs, walked.result
    action = parse_action(walked.action)
    done = result is None  # the stop: nothing ran in the browser
    answer = str(action.args[0]) if done and action.args else None
    return Step(
        step=number, time=now_iso(), actor="script", url=obs.url, title=obs.title,
        tabs=[TabNote(**t.__dict__) for t in obs.tabs], focused=obs.focused,
        last_error=obs.last_error, dialog=obs.dialog, changes=obs.changes,
        observation=obs.axtree, thought=_thought(walked), action=walked.action,
        target=target(obs, action),
        result=StepResult(done=True, answer=answer) if done else StepResult(
            ok=result.ok, error=result.error, output=result.output, done=result.done,
            answer=result.answer, info=dict(result.info)))


def write_proved_run(out: Path, task: dict[str, Any], walked: list[Walked],
                     proof: Proof) -> Path:
    """The run folder of one kept task's proof; its path."""
    folder = proved_dir(out, task["task_id"])
    shutil.rmtree(folder, ignore_errors=True)
    trajectory = Trajectory(folder)
    proved = {"by": PROVED_BY, "task_id": task["task_id"],
              "path": proof.path, "nothing": proof.nothing, "start": proof.start}
    trajectory.write_meta({"schema_version": SCHEMA_VERSION, "goal": task["intent"],
                           "start_url": task["start_url"], "started": now_iso(),
                           "model": None, "colorbrowser": __version__, "task_id": task["task_id"],
                           "proved": proved})
    for number, step in enumerate(walked, 1):
        trajectory.append_step(_record(number, step))
    last = walked[-1] if walked else None
    answer = None
    if last is not None and last.result is None:
        stop = parse_action(last.action)
        answer = str(stop.args[0]) if stop.args else None
    trajectory.write_result({"status": "done", "answer": answer, "steps": len(walked),
                             "usage": {}, "elapsed": 0.0, "run_dir": str(folder),
                             "error": None, "proved": proved})
    return folder
