"""The SQLite file under the knowledge base: waiting for other processes, and
turning damage SQLite finds mid-use into one line that names the file."""

from __future__ import annotations

import functools
import sqlite3
import time

from colorbrowser.errors import UserError

BUSY_TIMEOUT_MS = 30_000


def enter_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL, retrying: SQLite answers "locked" at once, without the busy
    handler, when two processes switch a brand-new file at the same moment."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


class StoreBroken(UserError):
    """SQLite found the file damaged while reading or writing it (not just at open)."""


def report_damage(cls: type) -> type:
    """Wrap the public methods so that a damaged file (a bad page SQLite only meets
    while reading or writing) is one line naming the file, never a traceback.
    Constraint errors are bugs or races handled where they happen, so they pass."""

    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise UserError(f"knowledge base {self.path} is busy: {exc}") from None
                raise StoreBroken(f"knowledge base {self.path} is damaged: {exc} "
                                  "(restore a copy or export what still reads)") from None
        return guarded

    for name, value in list(vars(cls).items()):
        if callable(value) and not name.startswith("_") and not isinstance(
                value, (classmethod, staticmethod)):
            setattr(cls, name, wrap(value))
    return cls
