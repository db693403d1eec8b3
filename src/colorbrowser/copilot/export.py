"""A copilot session as portable files, and back.

``export`` writes a folder:

- ``steps.jsonl``: every step record exactly as the run folder holds it, with its
  screenshot and Set-of-Marks image inlined (base64 PNG under ``images``);
- ``turns.jsonl``: one line per turn for data collection: who acted, what they saw
  (goal, URL, page text, memory), what they did and what came of it, the gate's say;
- ``meta.json`` and ``result.json`` as the run wrote them.

``import_session`` rebuilds the run folder from it; the round trip is exact (the
same bytes). Everything was redacted when the run wrote it, so no key or typed
password is in an export.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import read_steps
from colorbrowser.errors import UserError
from colorbrowser.utf8 import json_text

IMAGES = ("screenshot", "som")
COPIED = ("meta.json", "result.json")


def _turn(step: dict[str, Any], goal: str) -> dict[str, Any]:
    result = step.get("result") or {}
    return {"turn": step.get("step"), "actor": step.get("actor", "agent"), "goal": goal,
            "url": step.get("url", ""), "observation": step.get("observation", ""),
            "memory": step.get("memory", ""), "thought": step.get("thought", ""),
            "action": step.get("action"), "executed": step.get("executed", True),
            "ok": result.get("ok", True), "error": result.get("error"),
            "gate": step.get("gate", []), "screenshot": step.get("screenshot")}


def export_session(run_dir: Path, out: Path) -> int:
    """Write the export folder; the number of steps."""
    run_dir, out = Path(run_dir), Path(out)
    if not (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} holds no run (no steps.jsonl)")
    if out.exists() and any(out.iterdir()):
        raise UserError(f"{out} is not empty; choose a new folder for the export")
    out.mkdir(parents=True, exist_ok=True)
    meta = json.loads((run_dir / "meta.json").read_text("utf-8")) \
        if (run_dir / "meta.json").exists() else {}
    goal = str(meta.get("goal", ""))
    steps = read_steps(run_dir)
    with open(out / "steps.jsonl", "w", encoding="utf-8") as lines, \
            open(out / "turns.jsonl", "w", encoding="utf-8") as turns:
        for step in steps:
            images = {}
            for key in IMAGES:
                name = step.get(key)
                path = run_dir / name if isinstance(name, str) else None
                if path is not None and path.is_file() and path.resolve().is_relative_to(
                        run_dir.resolve()):
                    images[key] = base64.b64encode(path.read_bytes()).decode()
            lines.write(json_text({**step, "images": images}) + "\n")
            turns.write(json_text(_turn(step, goal)) + "\n")
    for name in COPIED:
        if (run_dir / name).exists():
            shutil.copyfile(run_dir / name, out / name)
    return len(steps)


def import_session(export: Path, run_dir: Path) -> int:
    """Rebuild a run folder from an export; the number of steps."""
    export, run_dir = Path(export), Path(run_dir)
    if not (export / "steps.jsonl").exists():
        raise UserError(f"{export} is not a session export (no steps.jsonl)")
    if (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} already holds a run")
    (run_dir / "screenshots").mkdir(parents=True, exist_ok=True)
    count = 0
    with open(run_dir / "steps.jsonl", "w", encoding="utf-8") as lines:
        for number, text in enumerate(
                (export / "steps.jsonl").read_text("utf-8").splitlines(), 1):
            if not text.strip():
                continue
            try:
                step = json.loads(text)
                images = step.pop("images", {}) or {}
                for key, data in images.items():
                    name = Path(str(step.get(key) or ""))
                    if key not in IMAGES or name.parts[:1] != ("screenshots",) or \
                            len(name.parts) != 2:
                        raise ValueError(f"image {name} is not a screenshot of the run")
                    (run_dir / name).write_bytes(base64.b64decode(data, validate=True))
            except (ValueError, TypeError, AttributeError) as exc:
                raise UserError(f"{export / 'steps.jsonl'} line {number}: {exc}") from None
            lines.write(json_text(step) + "\n")
            count += 1
    for name in COPIED:
        if (export / name).exists():
            shutil.copyfile(export / name, run_dir / name)
    return count
