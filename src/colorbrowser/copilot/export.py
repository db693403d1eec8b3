"""A copilot session as portable files, and back.

``export`` writes a folder:

- ``steps.jsonl``: every step record exactly as the run folder holds it, with its
  screenshot and Set-of-Marks image inlined (base64 PNG under ``images``);
- ``turns.jsonl``: one line per turn for data collection: who acted, what they saw
  (goal, URL, page text, memory), what they did and what came of it, the gate's say;
- ``meta.json`` and ``result.json`` as the run wrote them.

``import_session`` rebuilds the run folder from it; the round trip is exact (the
same bytes). Everything was redacted when the run wrote it, so no key or typed
password is in an export. An export may come from someone else: both directions
read through ``session_files`` (strict, plain files only) and write a new folder
atomically, so a bad file is one error line and leaves nothing half-written.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

from colorbrowser.copilot.session_files import (
    IMAGE_BYTES,
    IMAGES,
    NotJSON,
    SessionFileError,
    check_new_folder,
    check_step,
    lines_of,
    new_folder,
    open_plain,
    open_private,
    parse_json,
    read_plain,
    read_run_json,
    write_private,
)
from colorbrowser.errors import UserError
from colorbrowser.ui.images import MAX_PIXELS, image_kind, image_pixels
from colorbrowser.utf8 import json_text

COPIED = ("meta.json", "result.json")


def _turn(step: dict[str, Any], goal: str) -> dict[str, Any]:
    result = step.get("result") or {}
    return {"turn": step.get("step"), "actor": step.get("actor", "agent"), "goal": goal,
            "url": step.get("url", ""), "observation": step.get("observation", ""),
            "memory": step.get("memory", ""), "thought": step.get("thought", ""),
            "action": step.get("action"), "executed": step.get("executed", True),
            "ok": result.get("ok", True), "error": result.get("error"),
            "gate": step.get("gate", []), "screenshot": step.get("screenshot")}


def _copied(folder: Path, what: str) -> dict[str, bytes]:
    """meta.json and result.json when present, checked, as their bytes."""
    return {name: read_run_json(folder / name, what)[0]
            for name in COPIED if (folder / name).exists() or (folder / name).is_symlink()}


def _image(run_dir: Path, name: str, where: str) -> str | None:
    """A screenshot of the run as base64, or None when it is missing or no image."""
    path = run_dir / name
    if not path.exists() or not path.resolve().is_relative_to(run_dir.resolve()):
        return None
    try:
        data = read_plain(path, "a screenshot", IMAGE_BYTES)
    except SessionFileError as exc:
        raise SessionFileError(f"{where}: {exc}") from None
    return base64.b64encode(data).decode() if image_kind(data) else None


def export_session(run_dir: Path, out: Path) -> int:
    """Write the export folder; the number of steps."""
    run_dir, out = Path(run_dir), Path(out)
    if not run_dir.is_dir() or not (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} holds no run (no steps.jsonl)")
    check_new_folder(out, "the export", taken=f"{out} is not empty; choose a new folder "
                     "for the export")
    copied = _copied(run_dir, "a run folder's file")
    goal = json.loads(copied["meta.json"]).get("goal", "") if "meta.json" in copied else ""
    source = run_dir / "steps.jsonl"
    count = 0
    with open_plain(source, "a run's steps.jsonl") as fh, new_folder(out, "the export") as tmp, \
            open_private(tmp / "steps.jsonl") as lines, \
            open_private(tmp / "turns.jsonl") as turns:
        torn: NotJSON | None = None
        for number, raw in lines_of(fh, source):
            if not raw.strip():
                continue
            if torn is not None:  # only the last line can be torn; this one was damaged
                raise torn
            where = f"{source} line {number}"
            try:
                step = parse_json(raw, where)
            except NotJSON as exc:
                torn = exc  # a killed run tears its last line: leave it out
                continue
            check_step(step, where)
            images = {}
            for key in IMAGES:
                if isinstance(name := step.get(key), str) and \
                        (data := _image(run_dir, name, where)) is not None:
                    images[key] = data
            lines.write((json_text({**step, "images": images}) + "\n").encode())
            turns.write((json_text(_turn(step, str(goal))) + "\n").encode())
            count += 1
        for name, data in copied.items():
            write_private(tmp / name, data)
    return count


def _images(step: dict[str, Any], where: str, seen: set[str]) -> dict[str, bytes]:
    """The step's inlined images, decoded, each under the name its step gives it."""
    images = step.pop("images", None)
    if images is None:
        return {}
    if not isinstance(images, dict):
        raise SessionFileError(f"{where}: images must be a JSON object")
    out = {}
    for key, data in images.items():
        if key not in IMAGES:
            raise SessionFileError(f"{where}: images holds {key!r}; only "
                                   f"{' and '.join(IMAGES)} are images of a step")
        name = step.get(key)
        if not isinstance(name, str):
            raise SessionFileError(f"{where}: images.{key} is given, but the step names no "
                                   f"{key} file")
        if name in seen:
            raise SessionFileError(f"{where}: {name} is given twice")
        if not isinstance(data, str) or len(data) > IMAGE_BYTES * 4 // 3 + 4:
            raise SessionFileError(f"{where}: images.{key} is not base64 text of at most "
                                   f"{IMAGE_BYTES:,} bytes")
        try:
            decoded = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise SessionFileError(f"{where}: images.{key} is not valid base64") from None
        if image_kind(decoded) is None:
            raise SessionFileError(f"{where}: images.{key} is not a PNG or JPEG image")
        pixels = image_pixels(decoded)
        if pixels is not None and pixels > MAX_PIXELS:
            raise SessionFileError(f"{where}: images.{key} claims more than "
                                   f"{MAX_PIXELS:,} pixels, which no screenshot has")
        seen.add(name)
        out[name] = decoded
    return out


def import_session(export: Path, run_dir: Path) -> int:
    """Rebuild a run folder from an export; the number of steps."""
    export, run_dir = Path(export), Path(run_dir)
    if not export.is_dir() or not (
            (export / "steps.jsonl").exists() or (export / "steps.jsonl").is_symlink()):
        raise UserError(f"{export} is not a session export (no steps.jsonl)")
    if (run_dir / "steps.jsonl").exists():
        raise UserError(f"{run_dir} already holds a run")
    check_new_folder(run_dir, "the run folder", taken=f"{run_dir} already exists and is not "
                     "empty; import into a new folder")
    copied = _copied(export, "a session export's file")
    source = export / "steps.jsonl"
    seen: set[str] = set()
    count = 0
    with open_plain(source, "a session export's steps.jsonl") as fh, \
            new_folder(run_dir, "the run folder") as tmp:
        (tmp / "screenshots").mkdir()
        with open_private(tmp / "steps.jsonl") as lines:
            for number, raw in lines_of(fh, source):
                if not raw.strip():
                    continue
                where = f"{source} line {number}"
                step = parse_json(raw, where)
                if not isinstance(step, dict):
                    raise SessionFileError(f"{where}: a step must be a JSON object")
                images = _images(step, where, seen)
                check_step(step, where)
                for name, data in images.items():
                    write_private(tmp / name, data)
                lines.write((json_text(step) + "\n").encode())
                count += 1
        for name, data in copied.items():
            write_private(tmp / name, data)
    return count
