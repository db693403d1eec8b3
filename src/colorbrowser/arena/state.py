"""The small JSON file that remembers which servers an instance started.

``down`` and ``reset`` read it to find process groups and ports again from another
process. Writes go through a temporary file and a rename, under a lock, so two
commands on the same instance never leave a half-written file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ValidationError

from colorbrowser.errors import UserError


class ServerRecord(BaseModel):
    pgid: int
    port: int
    url: str
    started_at: float
    log: str


class InstanceState(BaseModel):
    instance: int
    servers: dict[str, ServerRecord] = {}


def read_state(path: Path, instance: int) -> InstanceState:
    if not path.exists():
        return InstanceState(instance=instance)
    try:
        return InstanceState.model_validate_json(path.read_text("utf-8"))
    except (ValidationError, ValueError) as exc:
        raise UserError(f"broken arena state file {path}: {str(exc).splitlines()[0]}; "
                        "stop its servers by hand and delete it") from None


def write_state(path: Path, state: InstanceState) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state.model_dump(), indent=2), "utf-8")
    os.replace(tmp, path)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock beside ``path`` for a read-modify-write of the state."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)

