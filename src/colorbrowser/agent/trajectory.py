"""The run folder: written after every step so a killed run loses nothing.

Layout::

    RUN_DIR/meta.json          goal, start URL, models, settings (secrets removed)
    RUN_DIR/steps.jsonl        one JSON object per finished step
    RUN_DIR/screenshots/       NNNN.png and NNNN-som.png per step
    RUN_DIR/result.json        answer, status, usage; written when the episode ends
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.errors import UserError, writing_where_told
from colorbrowser.steps import Step
from colorbrowser.utf8 import json_text

MASK = "***"


def spellings(value: str) -> list[str]:
    """A secret as it is written, and as it shows in an address (``p@ss word`` is
    ``p%40ss+word`` in a form's query, ``p%40ss%20word`` in a path): a page that puts
    it in a link, or a form sent by GET, must not carry it into a file encoded."""
    return list(dict.fromkeys([value, quote(value, safe=""), quote_plus(value, safe=""),
                               quote(value)]))


@dataclass
class Redactor:
    """Replaces known secrets everywhere before anything is written.

    In any letter case: graders and reports lower-case answers, and a lower-cased
    password is still the password."""

    secrets: set[str] = field(default_factory=set)
    _compiled: tuple[frozenset[str], re.Pattern[str] | None] = field(
        default=(frozenset(), None), repr=False, compare=False)

    def add(self, value: str | None) -> None:
        if value and len(value) >= 3:
            self.secrets.add(value)

    def _pattern(self) -> re.Pattern[str] | None:
        known = frozenset(s for s in self.secrets if s)
        if known != self._compiled[0]:
            every = {form for value in known for form in spellings(value)}
            longest_first = sorted(every, key=len, reverse=True)
            self._compiled = (known, re.compile("|".join(map(re.escape, longest_first)), re.I)
                              if known else None)
        return self._compiled[1]

    def text(self, value: str) -> str:
        pattern = self._pattern()
        return pattern.sub(MASK, value) if pattern is not None else value

    def obj(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.obj(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.obj(v) for v in value]
        return value


def _private(path: str, flags: int) -> int:
    """``open`` opener: new files 0600, like the JSON files ``mkstemp`` makes (pages
    and screenshots of a run are nobody else's to read)."""
    return os.open(path, flags, 0o600)


def write_json_atomic(path: Path, data: Any, *, indent: int | None = 2) -> None:
    """Write then rename, so readers never see half a file even if we are killed.
    ``indent=None`` for large state no person reads: indenting disables json's C encoder."""
    write_bytes_atomic(path, json_text(data, indent=indent).encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write then rename (a file of 0600, as ``mkstemp`` makes it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def lock_run_dir(run_dir: Path, stack: contextlib.ExitStack) -> None:
    """Hold ``RUN_DIR/.lock`` while ``stack`` is open, so two live processes (a run and
    a resume, or two resumes) never write one run folder. The kernel drops the lock
    when its process dies, even by SIGKILL, so a killed run can always be resumed."""
    import fcntl

    run_dir = Path(run_dir)
    with writing_where_told("the run folder", run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        check_own_files(run_dir)
        fh = open(run_dir / ".lock", "a")  # noqa: SIM115 - held open until the stack closes
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise UserError(f"{run_dir} is in use by another running colorbrowser process; "
                        "wait for it to end or stop it first") from None
    stack.callback(fh.close)


RUN_SUBFOLDERS = ("screenshots", "checkpoints")
RUN_FILE_ENDINGS = (".json", ".jsonl", ".html", ".lock")  # what a run reads and writes


def check_own_files(run_dir: Path) -> None:
    """A run folder may come from someone else, and a run appends to its files and
    rewrites them: each of its own entries (its subfolders and everything in them,
    its JSON files, its lock) must be a plain file or folder of the folder's own, never
    a symbolic link (``steps.jsonl -> ~/.bashrc`` would be trimmed or appended to,
    ``screenshots -> ~`` filled) nor a pipe or device (opening one blocks). Other
    entries of a folder given with ``--out`` are not the run's and are left alone."""
    run_dir = Path(run_dir)
    folders = [run_dir, *(run_dir / name for name in RUN_SUBFOLDERS)]
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise UserError(f"cannot read the run folder {folder}: {exc.strerror or exc}"
                            ) from None
        for entry in entries:
            if folder == run_dir and entry.name not in RUN_SUBFOLDERS and \
                    not entry.name.endswith(RUN_FILE_ENDINGS):
                continue
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue  # removed meanwhile
            if stat.S_ISLNK(mode):
                raise UserError(f"{entry.path} is a symbolic link: a run folder holds its "
                                "own files (copy the folder with cp -rL to keep what the "
                                "link points to)")
            if not (stat.S_ISREG(mode) or (stat.S_ISDIR(mode) and folder == run_dir)):
                raise UserError(f"{entry.path} is not a file (a pipe or a device): a run "
                                "folder holds only its own files and folders")


def slugify(text: str, limit: int = 40) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].rstrip("-") or "run"


class Trajectory:
    """Append-only writer for one episode's run folder."""

    def __init__(self, run_dir: Path, redactor: Redactor | None = None):
        self.dir = Path(run_dir)
        self.redactor = redactor or Redactor()
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "screenshots").mkdir(exist_ok=True)
        self.steps_path = self.dir / "steps.jsonl"

    def write_meta(self, meta: dict[str, Any]) -> None:
        write_json_atomic(self.dir / "meta.json", self.redactor.obj(meta))

    def save_image(self, name: str, png: bytes | None) -> str | None:
        if not png:
            return None
        path = self.dir / "screenshots" / name
        with open(path, "wb", opener=_private) as fh:
            fh.write(png)
        return f"screenshots/{name}"

    def append_step(self, step: Step) -> None:
        line = json_text(self.redactor.obj(step.to_json()))
        with open(self.steps_path, "a", encoding="utf-8", opener=_private) as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def write_result(self, result: dict[str, Any]) -> None:
        write_json_atomic(self.dir / "result.json", self.redactor.obj(result))

    def write_json(self, name: str, data: Any) -> None:
        write_json_atomic(self.dir / name, self.redactor.obj(data))


def read_jsonl(path: Path) -> list[Any]:
    """Every line that parses, in order: a torn last line (a process killed mid-write)
    is skipped, so a run or a study stays readable after any crash; so is a line that
    is not UTF-8 (a file someone sent)."""
    return [item for _, item in _parsed_lines(Path(path))]


def _parsed_lines(path: Path) -> list[tuple[bytes, Any]]:
    """(raw line, data) for every line of ``path`` that is UTF-8 JSON."""
    if not path.exists():
        return []
    items = []
    with path.open("rb") as fh:
        for raw in fh:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if line.strip():
                try:
                    items.append((raw, parse_json(line, str(path))))
                except DataFileError:  # torn, or hostile (nested without end)
                    continue
    return items


def step_lines(run_dir: Path) -> list[bytes]:
    """The raw lines of ``steps.jsonl`` that ``read_steps`` counts, as they are in the file."""
    return [raw for raw, data in _parsed_lines(Path(run_dir) / "steps.jsonl")
            if isinstance(data, dict)]


def read_steps(run_dir: Path) -> list[dict[str, Any]]:
    """The committed lines of ``steps.jsonl`` as written: the file format, for tools."""
    return [step for step in read_jsonl(Path(run_dir) / "steps.jsonl") if isinstance(step, dict)]


def load_steps(run_dir: Path) -> list[Step]:
    """Every committed step of a run folder, typed, of any schema version (``Step.read``)."""
    return [Step.read(data, number) for number, data in enumerate(read_steps(run_dir), 1)]
