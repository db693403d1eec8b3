"""What an action did, measured rather than guessed: the address, the requests the
browser sent (Playwright events), the elements that appeared or went, the target's
states, the kind of state reached, and on an app with a database the rows changed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Request

from colorbrowser.types import Observation

# Tables an app writes on every page view (caches, sessions, logs): not findings.
NOISE_TABLES = re.compile(r"cache|session|l10n|job|searchindex|updatelog|log_|_log|"
                          r"sqlite_|watchlist_expiry|module_deps|objectcache", re.I)
HASHED_ROWS = 20_000


@dataclass
class Outcome:
    url: str
    navigated: bool = False
    new_tab: bool = False
    method: str | None = None  # of the main-frame navigation request, if one was sent
    requests: list[list[str]] = field(default_factory=list)  # [method, type, url]
    appeared: list[str] = field(default_factory=list)  # "role 'name'" of new elements
    disappeared: list[str] = field(default_factory=list)
    states: dict[str, Any] = field(default_factory=dict)  # the target's states after
    key_before: str = ""
    key_after: str = ""
    db: dict[str, str] = field(default_factory=dict)  # table -> "12 -> 13 rows" / "changed"
    error: str | None = None

    @property
    def kind_changed(self) -> bool:
        return self.key_before != self.key_after

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def _label(role: str, name: str) -> str:
    return f"{role} {' '.join(name.split())[:60]!r}" if name else role


_SHOWN = frozenset({"dialog", "alert", "alertdialog", "status", "listbox", "menu", "region",
                    "table", "list", "row", "heading"})


def _shown(obs: Observation) -> Counter[str]:
    return Counter(_label(e.role, e.name) for e in obs.elements.values()
                   if e.visible and (e.interactive or e.role in _SHOWN))


def element_diff(before: Observation, after: Observation, same_doc: bool
                 ) -> tuple[list[str], list[str]]:
    """Controls and landmarks that appeared or went on one document, compared by role
    and name (a script that re-renders a list gives its rows new ids, not new rows)."""
    if not same_doc:
        return [], []
    old, new = _shown(before), _shown(after)
    appeared = sorted((new - old).elements())
    gone = sorted((old - new).elements())
    return appeared[:40], gone[:40]


class NetworkLog:
    """Every request the browser sends (documents and scripts' calls), by Playwright event."""

    KEEP = ("document", "xhr", "fetch", "eventsource", "websocket")

    def __init__(self, context: BrowserContext) -> None:
        self.window: list[list[str]] = []
        self.main_method: str | None = None
        self.total = 0
        context.on("request", self._on_request)

    def _on_request(self, request: Request) -> None:
        with contextlib.suppress(Exception):
            self.total += 1
            url = request.url
            if request.resource_type in self.KEEP:
                self.window.append([request.method, request.resource_type, url[:300]])
            if request.is_navigation_request() and request.frame.parent_frame is None \
                    and self.main_method is None:
                self.main_method = request.method

    def start(self) -> None:
        self.window, self.main_method = [], None

    def take(self) -> tuple[list[list[str]], str | None]:
        out = (self.window, self.main_method)
        self.start()
        return out


class DbProbe:
    """Row counts and row hashes per table of an app's SQLite files, recomputed only
    when a file changed on disk (so a read-only step costs two ``stat`` calls)."""

    def __init__(self, paths: list[Path]) -> None:
        self.paths = [Path(p) for p in paths]
        self._stamp = self._stat()
        self._tables = self._read() if self.paths else {}

    def _stat(self) -> tuple[tuple[int, int], ...]:
        out = []
        for path in self.paths:
            for p in (path, Path(f"{path}-wal")):
                with contextlib.suppress(OSError):
                    st = os.stat(p)
                    out.append((st.st_mtime_ns, st.st_size))
        return tuple(out)

    def _read(self) -> dict[str, tuple[int, str]]:
        tables: dict[str, tuple[int, str]] = {}
        for path in self.paths:
            try:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            except sqlite3.Error:
                continue
            try:
                names = [r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type='table'")]
                for name in names:
                    if NOISE_TABLES.search(name):
                        continue
                    tables[f"{path.stem}.{name}"] = _table_print(conn, name)
            except sqlite3.Error:
                pass
            finally:
                conn.close()
        return tables

    def diff(self) -> dict[str, str]:
        """Tables changed since the last call."""
        if not self.paths:
            return {}
        stamp = self._stat()
        if stamp == self._stamp:
            return {}
        self._stamp = stamp
        now = self._read()
        changed = {}
        for table, (rows, digest) in now.items():
            old = self._tables.get(table)
            if old is None:
                changed[table] = f"new table, {rows} rows"
            elif old[0] != rows:
                changed[table] = f"{old[0]} -> {rows} rows"
            elif old[1] != digest:
                changed[table] = "rows changed"
        self._tables = now
        return changed

    def rebase(self) -> None:
        """After a snapshot restore: the restored state is the new baseline."""
        self._stamp = self._stat()
        self._tables = self._read() if self.paths else {}


def _table_print(conn: sqlite3.Connection, name: str) -> tuple[int, str]:
    quoted = '"' + name.replace('"', '""') + '"'
    rows = conn.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
    if rows > HASHED_ROWS:
        return rows, str(conn.execute(f"SELECT max(rowid) FROM {quoted}").fetchone()[0])
    digest = hashlib.blake2b(digest_size=8)
    try:
        cursor = conn.execute(f"SELECT * FROM {quoted} ORDER BY rowid")
    except sqlite3.Error:  # WITHOUT ROWID tables
        cursor = conn.execute(f"SELECT * FROM {quoted}")
    for row in cursor:
        digest.update(repr(row).encode())
    return rows, digest.hexdigest()
