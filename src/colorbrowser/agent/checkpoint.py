"""Checkpoints so that a run killed at any moment resumes at the right step.

Order of writes for step N: ``pending.json`` (the action about to run), then after
it ran ``checkpoints/N.json`` (state, memory, browser), then the step's line in
``steps.jsonl``. The line is the commit marker: a step counts as done only when its
line is complete, and its checkpoint is then guaranteed to be on disk. If a run dies
after the action ran but before the line was written, resume tells the Operator
that the action may already have taken effect instead of silently repeating it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.state import EpisodeState
from colorbrowser.agent.trajectory import (
    Trajectory,
    check_own_files,
    load_steps,
    step_lines,
    write_bytes_atomic,
)
from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.errors import UserError
from colorbrowser.protocols import Restorable
from colorbrowser.steps import Step

KEEP = 2  # checkpoint files kept; older ones are pruned


def checkpoint_path(run_dir: Path, step: int) -> Path:
    return Path(run_dir) / "checkpoints" / f"{step:04d}.json"


def save(trajectory: Trajectory, step: int, data: dict[str, Any]) -> None:
    trajectory.write_json(f"checkpoints/{step:04d}.json", data)
    for old in sorted((trajectory.dir / "checkpoints").glob("*.json"))[:-KEEP]:
        old.unlink(missing_ok=True)


def snapshot(state: EpisodeState, memory: object, env: object) -> dict[str, Any]:
    """Everything a resumed process needs besides the run's settings."""
    return {
        "step": state.step,
        "state": state.to_json(),
        "memory": memory.snapshot() if isinstance(memory, Restorable) else None,
        "browser": env.snapshot() if isinstance(env, Restorable) else None,
    }


def write_pending(trajectory: Trajectory, step: int, action: str | None) -> None:
    trajectory.write_json("pending.json", {"step": step, "action": action})


def clear_pending(trajectory: Trajectory) -> None:
    (trajectory.dir / "pending.json").unlink(missing_ok=True)


@dataclass
class ResumePoint:
    meta: dict[str, Any]
    state: EpisodeState
    memory: dict[str, Any] | None = None
    browser: dict[str, Any] | None = None
    interrupted_action: str | None = None
    steps: list[Step] = field(default_factory=list)


def _read_json(path: Path, what: str) -> dict[str, Any]:
    if path.exists() and not path.is_file():  # a folder, or a pipe that never ends
        raise UserError(f"{path} is damaged: not a file")
    try:
        data = parse_json(path.read_bytes(), str(path))
    except FileNotFoundError:
        raise UserError(f"{path.parent} has no {what} ({path.name} is missing)") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    except DataFileError as exc:
        raise UserError(f"{path} is damaged: {exc.problem}") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} is damaged: expected a JSON object")
    return data


def _check_browser(browser: dict[str, Any] | None, path: Path) -> None:
    """Tabs as a list of addresses, the active one as a number, storage as an object."""
    if browser is None:
        return
    tabs, active = browser.get("tabs") or [], browser.get("active") or 0
    if not isinstance(tabs, list) or not all(isinstance(t, str) for t in tabs):
        raise UserError(f"{path} is damaged: the browser's tabs are not a list of addresses")
    if not isinstance(active, int) or isinstance(active, bool) or active < 0:
        raise UserError(f"{path} is damaged: the browser's active tab is not a number")
    if not isinstance(browser.get("storage", {}), dict | None):
        raise UserError(f"{path} is damaged: the browser's storage is not a JSON object")


def _state(data: dict[str, Any], path: Path, step: int) -> EpisodeState:
    """The saved episode state, checked well enough that a hand-edited or damaged
    file is reported as one line instead of failing somewhere inside the loop."""
    try:
        state = EpisodeState.from_json(data["state"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(f"{path} is damaged: no valid episode state ({exc})") from None
    if not isinstance(state.goal, str) or not state.goal.strip():
        raise UserError(f"{path} is damaged: the goal is missing")
    if state.step != step:
        raise UserError(f"{path} is damaged: it holds step {state.step!r}, expected {step}")
    if not isinstance(state.notes, list) or not isinstance(state.summary, str):
        raise UserError(f"{path} is damaged: notes or summary have the wrong type")
    return state


def load(run_dir: Path) -> ResumePoint:
    """Read the last committed step of a run folder, and trim anything after it."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"run folder {run_dir} does not exist")
    check_own_files(run_dir)
    meta = _read_json(run_dir / "meta.json", "run metadata")
    if (run_dir / "result.json").exists():
        raise UserError(f"the run in {run_dir} already finished; nothing to resume")
    if (run_dir / "steps.jsonl").exists() and not (run_dir / "steps.jsonl").is_file():
        raise UserError(f"{run_dir / 'steps.jsonl'} is damaged: not a file")
    steps = load_steps(run_dir)
    committed = len(steps)
    pending = run_dir / "pending.json"
    interrupted = None
    if pending.exists():
        info = _read_json(pending, "pending action")
        if info.get("step") == committed + 1:
            interrupted = info.get("action")
    if committed == 0:
        goal = meta.get("goal")
        if not isinstance(goal, str) or not goal.strip():
            raise UserError(f"{run_dir / 'meta.json'} is damaged: the goal is missing")
        state = EpisodeState(goal=goal, start_url=meta.get("start_url"))
        _trim_steps(run_dir, committed)  # only once the folder proved resumable
        return ResumePoint(meta, state, interrupted_action=interrupted)
    path = checkpoint_path(run_dir, committed)
    data = _read_json(path, f"checkpoint for step {committed}")
    for key in ("memory", "browser"):
        if not isinstance(data.get(key), dict | None):
            raise UserError(f"{path} is damaged: {key} is not a JSON object")
    _check_browser(data.get("browser"), path)
    state = _state(data, path, committed)
    _trim_steps(run_dir, committed)  # only once the folder proved resumable
    return ResumePoint(
        meta=meta,
        state=state,
        memory=data.get("memory"),
        browser=data.get("browser"),
        interrupted_action=interrupted,
        steps=steps,
    )


def _trim_steps(run_dir: Path, keep: int) -> None:
    """Drop a torn last line so the next append starts on a clean line: keep exactly
    the ``keep`` lines ``load_steps`` read (never a committed step, whatever else the
    file holds), written whole before the old file is replaced."""
    path = run_dir / "steps.jsonl"
    if not path.exists():
        return
    good = step_lines(run_dir)[:keep]
    data = b"".join(line if line.endswith(b"\n") else line + b"\n" for line in good)
    if data != path.read_bytes():
        write_bytes_atomic(path, data)
