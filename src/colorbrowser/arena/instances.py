"""Which arena instance a process uses, and the lock that keeps it that process's own.

A process that runs tasks on an instance (an eval worker, ``arena prove``'s workers)
holds ``inst/<N>/lock`` with ``flock`` while it does, and writes its pid into it. The
kernel drops the lock when the process ends, however it ends, so a crashed worker
never keeps its instance. The rule for choosing, as the README states it:

- ``eval --instance N`` (``COLORBROWSER_ARENA_INSTANCE=N``, or ``N-M`` for a study's
  workers: each takes the first of N..M nobody holds): the study uses those instances.
  One another process holds is an error naming its pid, unless sharing was asked for
  (``--share-instance``): then the process uses it without the lock.
- no instance named: the lowest instance whose apps run (``arena up --instance N``
  started them) and that nobody holds; failing that, the lowest that runs nothing and
  that nobody holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from colorbrowser.arena.layout import Layout
from colorbrowser.arena.process import group_alive
from colorbrowser.arena.state import read_state
from colorbrowser.errors import UserError

INSTANCE_VAR = "COLORBROWSER_ARENA_INSTANCE"  # "N" or "N-M": set by eval/prove --instance
SHARE_VAR = "COLORBROWSER_ARENA_SHARE"  # "1": use a held instance anyway (--share-instance)
LAST = 50  # instances are 0..LAST (ports shift by 100 each)


@dataclass(frozen=True)
class Holder:
    """The process that holds an instance's lock."""

    pid: int | None  # None when the file names no pid (a holder that just started)

    def describe(self) -> str:
        return f"pid {self.pid}" if self.pid else "another process"


def lock_path(layout: Layout, number: int) -> Path:
    return layout.instance(number) / "lock"


class InstanceLock:
    """An instance number this process uses; ``shared`` when another holds the lock."""

    def __init__(self, instance: int, fh: IO[str] | None, shared: bool = False) -> None:
        self.instance = instance
        self.shared = shared
        self._fh = fh

    def release(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.seek(0)
                fh.truncate()
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()


def try_lock(layout: Layout, number: int) -> InstanceLock | None:
    """Take instance ``number``'s lock now, or None when another process holds it."""
    path = lock_path(layout, number)
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until release
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return None
    fh.seek(0)
    fh.truncate()
    fh.write(json.dumps({"pid": os.getpid()}))
    fh.flush()
    return InstanceLock(number, fh)


def holder(layout: Layout, number: int) -> Holder | None:
    """Who holds instance ``number`` now, or None when nobody does."""
    path = lock_path(layout, number)
    if not path.exists():
        return None
    with open(path, encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        else:
            fcntl.flock(fh, fcntl.LOCK_UN)
            return None
        try:
            pid = json.loads(fh.read() or "{}").get("pid")
        except (ValueError, AttributeError):
            pid = None
    return Holder(pid if isinstance(pid, int) else None)


def running_instances(layout: Layout) -> list[int]:
    """Instances with at least one live server, in order."""
    found = []
    for number in range(LAST + 1):
        path = layout.state_file(number)
        if not path.exists():
            continue
        state = read_state(path, number)
        if any(group_alive(record.pgid) for record in state.servers.values()):
            found.append(number)
    return found


def parse_range(text: str) -> tuple[int, int]:
    """``"6"`` -> (6, 6), ``"6-7"`` -> (6, 7); one-line errors."""
    first, _, last = text.strip().partition("-")
    try:
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise UserError(f"bad arena instance {text!r}: expected N or N-M") from None
    if not 0 <= lo <= hi <= LAST:
        raise UserError(f"arena instances must lie between 0 and {LAST}, not {text!r}")
    return lo, hi


def in_use_error(number: int, who: Holder) -> UserError:
    return UserError(f"arena instance {number} is in use by {who.describe()}; pass "
                     "--share-instance to use it too, or choose another --instance")


def check_free(layout: Layout, first: int, last: int) -> None:
    """Raise the one-line error for the first of ``first..last`` another process holds."""
    for number in range(first, last + 1):
        who = holder(layout, number)
        if who is not None:
            raise in_use_error(number, who)


def claim(layout: Layout, env: Mapping[str, str]) -> InstanceLock:
    """The instance this process uses, by the rule in the module's docstring."""
    wanted = env.get(INSTANCE_VAR, "").strip()
    if wanted:
        first, last = parse_range(wanted)
        for attempt in range(3):  # `arena status` peeks at a lock for a moment
            for number in range(first, last + 1):
                lock = try_lock(layout, number)
                if lock is not None:
                    return lock
            if attempt < 2:
                time.sleep(0.05)
        if env.get(SHARE_VAR) == "1":
            return InstanceLock(first, None, shared=True)
        if first == last:
            raise in_use_error(first, holder(layout, first) or Holder(None))
        held = ", ".join(f"{n} by {(holder(layout, n) or Holder(None)).describe()}"
                         for n in range(first, last + 1))
        raise UserError(f"arena instances {first} to {last} are all in use ({held}); "
                        "choose another --instance")
    for number in running_instances(layout):
        lock = try_lock(layout, number)
        if lock is not None:
            return lock
    running = set(running_instances(layout))
    for number in range(LAST + 1):
        if number in running:
            continue
        lock = try_lock(layout, number)
        if lock is not None:
            return lock
    raise UserError(f"every arena instance from 0 to {LAST} is in use")


def study_env(layout: Layout, instance: int | None, workers: int, *, share: bool = False,
              listing: bool = False) -> dict[str, str]:
    """The variables that tell a study's processes which instances to use
    (``--instance``/``--share-instance``), after checking nobody else holds them.
    A listing only reads, so it never fails on a held instance."""
    if instance is None:
        if share:
            raise UserError("--share-instance needs --instance N")
        return {}
    last = instance + workers - 1
    if last > LAST:
        raise UserError(f"--instance {instance} with {workers} workers needs instances up to "
                        f"{last}; the last one is {LAST}")
    if share and workers > 1:
        raise UserError("--share-instance runs one worker: drop --workers")
    env = {INSTANCE_VAR: f"{instance}-{last}" if last > instance else str(instance)}
    if share or listing:
        env[SHARE_VAR] = "1"
    else:
        check_free(layout, instance, last)
    return env
