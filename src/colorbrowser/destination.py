"""Where a command writes what the person asked for: ``--out`` folders, export folders,
pages and files. Every such option checks its path here before any work starts, so a
path through a file, into ``/proc``, ``/sys`` or ``/dev``, onto something that is not
a plain folder or file, or with a name the file system cannot hold is one ``error:``
line, never a traceback halfway through a run. ``Source`` does the last check for
paths a command reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import click

from colorbrowser.errors import UserError

# Kernel file systems: writing there is never what a person meant, and some of their
# files act on write (/proc/sys, /sys/power) or never end (/dev/zero).
SYSTEM_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
SCRATCH = (Path("/dev/shm"),)  # memory-backed folders for files, fine to write
NAME_MAX = 255  # bytes in one path component (Linux and macOS file systems)
PATH_MAX = 4000  # bytes in a whole path, a little under Linux's 4096


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def path_problem(path: str | os.PathLike[str]) -> str | None:
    """Why no file system can hold ``path`` at all (read or written), or None."""
    try:
        raw = os.fsencode(path)
    except (TypeError, ValueError):
        return "the path cannot be encoded"
    if not raw or b"\0" in raw:
        return "the path is empty or holds a NUL character"
    if len(raw) > PATH_MAX:
        return f"the path is longer than {PATH_MAX} bytes"
    if any(len(os.fsencode(part)) > NAME_MAX for part in Path(os.path.abspath(path)).parts):
        return f"a name in the path is longer than {NAME_MAX} bytes"
    return None


def destination_problem(path: str | os.PathLike[str], *, folder: bool) -> str | None:
    """Why ``path`` cannot be written as a folder (or a file), or None when it can be
    tried. Only the file system decides the rest (permissions, a full disk)."""
    if (problem := path_problem(path)) is not None:
        return problem
    full = Path(os.path.abspath(path))  # ".." resolved by name, links not followed
    try:
        real = full.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return "the path runs through a symbolic link loop"
    for root in SYSTEM_ROOTS:
        if (_inside(full, root) or _inside(real, root)) and not any(
                _inside(real, scratch) and real != scratch for scratch in SCRATCH):
            return f"it is inside {root}, a system folder, not a place for files"
    ancestor = full.parent
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return "part of the path is a file, not a folder"
    if not os.path.lexists(full):
        return None
    try:
        mode = os.stat(full).st_mode
    except OSError as exc:  # a dangling link, or no permission to look
        return exc.strerror or str(exc)
    if folder and not stat.S_ISDIR(mode):
        return "it is a file, not a folder"
    if not folder and stat.S_ISDIR(mode):
        return "it is a folder, not a file"
    if not folder and not stat.S_ISREG(mode):
        return "it is a special file (a device, pipe or socket), not a plain file"
    return None


def check_destination(path: str | os.PathLike[str], what: str, *, folder: bool,
                      option: str | None = None) -> None:
    """Raise one UserError line when ``path`` cannot be a destination (see above);
    ``option`` (``--out``) ends the line, so the person knows which to change."""
    problem = destination_problem(path, folder=folder)
    if problem is not None:
        given = f" (given as {option})" if option else ""
        raise UserError(f"cannot write {what} {os.fsdecode(path)[:300]}: {problem}{given}")


class Destination(click.Path):
    """``click.Path`` for a place a command writes (``what`` names it in the error line,
    "the run folder"): the value converts as click's own (str or ``path_type``) after
    ``check_destination`` found nothing, so the line reads as when the write fails."""

    def __init__(self, what: str, *, folder: bool, path_type: Any = None) -> None:
        super().__init__(file_okay=not folder, dir_okay=folder, path_type=path_type)
        self.what, self.folder = what, folder

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        option = max(param.opts, key=len) if isinstance(param, click.Option) else None
        check_destination(value, self.what, folder=self.folder, option=option)
        return super().convert(value, param, ctx)


class Source(click.Path):
    """``click.Path`` for a file or folder a command reads: a path no file system can
    hold (a 300-character name) is one line here, not an OSError deep in the command."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        value = super().convert(value, param, ctx)
        if (problem := path_problem(value)) is not None:
            self.fail(f"{os.fsdecode(value)[:200]}: {problem}", param, ctx)
        return value
