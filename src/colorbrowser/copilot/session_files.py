"""The files of a session export, read as data from someone else and written as a run
writes its own.

Reading is strict: plain files only (no symbolic link, hard link to elsewhere,
device, pipe or folder where a file belongs), size-capped, UTF-8, JSON without NaN,
infinities, duplicate keys, huge numbers or deep nesting, and every step valid
against the typed ``Step`` record with its screenshots named as a run names them.
Writing goes into a hidden folder beside the destination, files 0600 and folders as
a run makes them, renamed into place only when everything was written: a failed
export or import leaves nothing behind and never touches an existing folder.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import secrets
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from colorbrowser.destination import check_destination
from colorbrowser.errors import UserError, writing_where_told
from colorbrowser.steps import Step

IMAGES = ("screenshot", "som")  # step fields that name a file under screenshots/
JSON_BYTES = 16 * 1024 * 1024  # meta.json, result.json
LINE_BYTES = 64 * 1024 * 1024  # one step with its two images inlined
IMAGE_BYTES = 20_000_000  # as ui.images embeds at most
MAX_DEPTH = 64  # a real step nests 4 deep
MAX_INT = 2**63 - 1  # 64-bit integers, as SQLite and numpy hold them
_IMAGE_NAME = re.compile(r"screenshots/[A-Za-z0-9][A-Za-z0-9_-]{0,95}\.(?:png|jpe?g)")


class SessionFileError(UserError):
    """One file of an export or a run folder that cannot be taken as it is."""


class NotJSON(SessionFileError):
    """A line or file that is no JSON at all (a run killed mid-write tears its last line)."""


# -- reading ------------------------------------------------------------------------------
@contextlib.contextmanager
def open_plain(path: Path, what: str) -> Iterator[BinaryIO]:
    """``path`` opened for reading when it is a plain file of its own; never follows
    a symbolic link nor blocks on a pipe."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SessionFileError(f"{path} is a symbolic link; {what} must be a plain "
                                   "file") from None
        if exc.errno == errno.ENOENT:
            raise SessionFileError(f"{path} is missing") from None
        raise SessionFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SessionFileError(f"{path} is not a plain file; {what} must be one")
        if info.st_nlink > 1:
            raise SessionFileError(f"{path} is hard-linked to another name; {what} must "
                                   "be a file of its own (copy the folder with cp -r)")
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def read_plain(path: Path, what: str, limit: int) -> bytes:
    with open_plain(path, what) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise SessionFileError(f"{path} is bigger than {limit:,} bytes")
    return data


def lines_of(fh: BinaryIO, path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number, line) for each line, none longer than ``LINE_BYTES``."""
    number = 0
    while True:
        line = fh.readline(LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > LINE_BYTES and not line.endswith(b"\n"):
            raise SessionFileError(f"{path} line {number} is longer than {LINE_BYTES:,} bytes")
        yield number, line


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {_quote(key)} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON files may hold")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {_quote(text)} is too large")
    return value


def _integer(text: str) -> int:
    if len(text) > 20 or abs(value := int(text)) > MAX_INT:
        raise ValueError(f"the integer {_quote(text)} is too large")
    return value


def _quote(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse_json(raw: bytes, where: str) -> Any:
    """Strict JSON from bytes; any problem is one ``SessionFileError`` naming ``where``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # also a line torn inside a character
        raise NotJSON(f"{where}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant,
                          parse_float=_finite, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise NotJSON(f"{where}: not valid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise SessionFileError(f"{where}: nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise SessionFileError(f"{where}: {exc}") from None
    _check_depth(data, where)
    return data


def _check_depth(data: Any, where: str) -> None:
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SessionFileError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _validation(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where + ': ' if where else ''}{err['msg']}"


def check_step(data: Any, where: str) -> Step:
    """The record as the typed ``Step``, with the types a run writes (no "3" for 3, no
    string where an object belongs) and screenshots named as a run names them."""
    if not isinstance(data, dict):
        raise SessionFileError(f"{where}: a step must be a JSON object")
    try:
        step = Step.model_validate(data, strict=True)
    except ValidationError as exc:
        raise SessionFileError(f"{where}: {_validation(exc)}") from None
    for key in IMAGES:
        name = getattr(step, key)
        if name is not None and not _IMAGE_NAME.fullmatch(name):
            raise SessionFileError(f"{where}: {key} {_quote(name)} is not a screenshot of "
                                   "the run (screenshots/NAME.png)")
    return step


class _Result(BaseModel):
    """``result.json`` as ``EpisodeResult.to_json`` (and copilot runs) write it."""

    model_config = ConfigDict(extra="allow", strict=True)

    status: str = ""
    answer: str | None = None
    steps: int = 0
    usage: dict[str, Any] = Field(default_factory=dict)
    elapsed: float = 0.0
    run_dir: str | None = None
    error: str | None = None
    copilot: dict[str, Any] | None = None


class _Meta(BaseModel):
    """What readers of ``meta.json`` take as given (the goal, the start page)."""

    model_config = ConfigDict(extra="allow", strict=True)

    goal: str = ""
    start_url: str | None = None


_SHAPES: dict[str, type[BaseModel]] = {"meta.json": _Meta, "result.json": _Result}


def read_run_json(path: Path, what: str) -> tuple[bytes, dict[str, Any]]:
    """``meta.json`` or ``result.json``: the bytes as found, and the object they hold."""
    raw = read_plain(path, what, JSON_BYTES)
    data = parse_json(raw, str(path))
    if not isinstance(data, dict):
        raise SessionFileError(f"{path}: expected a JSON object")
    try:
        _SHAPES[path.name].model_validate(data)
    except ValidationError as exc:
        raise SessionFileError(f"{path}: {_validation(exc)}") from None
    return raw, data


# -- writing ------------------------------------------------------------------------------
def write_private(path: Path, data: bytes) -> None:
    """A new file, 0600 like the JSON files a run writes; never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def open_private(path: Path) -> BinaryIO:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    return os.fdopen(os.open(path, flags, 0o600), "wb")


def check_new_folder(dest: Path, what: str, *, taken: str | None = None) -> None:
    """``dest`` may become the folder: it does not exist, or is an empty folder."""
    check_destination(dest, what, folder=True)
    if dest.is_symlink():  # renaming onto it would replace the link, not fill its folder
        raise UserError(f"{dest} is a symbolic link; name a new folder for {what}")
    try:
        taken_already = dest.is_dir() and any(dest.iterdir())
    except OSError as exc:
        raise UserError(f"cannot write {what} {dest}: {exc.strerror or exc}") from None
    if taken_already:
        raise UserError(taken or f"{dest} is not empty; choose a new folder for {what}")


@contextlib.contextmanager
def new_folder(dest: Path, what: str) -> Iterator[Path]:
    """A hidden folder beside ``dest`` to fill; renamed to ``dest`` when the block ends
    without an error, removed when it does not. An existing ``dest`` is never
    written: an empty folder is replaced, anything else is an error."""
    dest = Path(os.path.abspath(dest))
    with writing_where_told(what, dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        while True:
            tmp = dest.parent / f".{dest.name[:200]}.{secrets.token_hex(4)}.partial"
            try:
                tmp.mkdir()  # the mode a run's folders get (0777 less the umask)
                break
            except FileExistsError:
                continue
    try:
        try:
            yield tmp
        except OSError as exc:  # a full disk, a quota: the half-written folder goes
            raise UserError(f"cannot write {what} {dest}: {exc.strerror or exc}") from None
        try:
            os.rename(tmp, dest)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise UserError(f"{dest} exists and is not an empty folder (now); nothing "
                                "was written there") from None
            raise UserError(f"cannot write {what} {dest}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
