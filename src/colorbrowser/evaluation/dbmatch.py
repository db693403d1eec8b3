"""The ``db_match`` evaluator: did the content change land in the site's database?

A task's eval block lists read-only queries and the rows each must return::

    "eval_types": ["db_match"],
    "db_match": [{"site": "trac",
                  "query": "select status, resolution from ticket where id = 5",
                  "expected": [["closed", "fixed"]]}]

``site`` names the database through the ``WA_DB_<SITE>`` variable (``WA_DB_TRAC``), set
by the arena for its running instance (or by hand for any SQLite-backed site). The
file is opened read-only (``mode=ro``), after the episode and before any reset.
Rows compare as a multiset unless ``ordered``; numbers compare by value (3 == 3.0),
everything else as text.

A task file may come from someone else, so its query is held to reading: only the
site's own tables (no ``ATTACH`` of another file, no ``PRAGMA``), a time limit
(SQLite's progress handler ends a recursive query without end), a cap on rows and
on the length of one value, so a query cannot hang or fill the worker's memory.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from colorbrowser.evaluation.evaluators import Outcome
from colorbrowser.evaluation.spec import EvalSpec

MAX_ROWS_SHOWN = 20
QUERY_SECONDS = 10.0  # one query's time limit
MAX_ROWS = 10_000  # rows one query may return
MAX_VALUE_BYTES = 1_000_000  # the longest text or blob one value may be
_PROGRESS_EVERY = 10_000  # SQLite virtual-machine steps between clock checks
# What a reading query needs; everything else (ATTACH, PRAGMA, writes) is refused.
_READING = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                      getattr(sqlite3, "SQLITE_RECURSIVE", 33)})


class QueryLimit(sqlite3.Error):
    """A query went past one of the limits above."""


def db_var(site: str) -> str:
    return f"WA_DB_{site.upper()}"


def databases(spec: EvalSpec, env: Mapping[str, str]) -> tuple[dict[str, Path], list[str]]:
    """The database file of every site the task's db_match names, and what is missing."""
    found: dict[str, Path] = {}
    reasons: list[str] = []
    if "db_match" not in spec.eval_types:
        return found, reasons
    for check in spec.db_match:
        value = env.get(db_var(check.site), "").strip()
        if value:
            found[check.site] = Path(value)
        elif f"{db_var(check.site)} not set" not in reasons:
            reasons.append(f"{db_var(check.site)} not set")
    return found, reasons


def _norm(value: Any) -> tuple[str, str]:
    """A comparable form: numbers by value, the rest as text."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int | float | Decimal):
        try:
            return ("n", format(Decimal(str(value)).normalize(), "f"))
        except InvalidOperation:
            return ("t", str(value))
    if value is None:
        return ("null", "")
    return ("t", str(value))


def _rows(rows: list[list[Any]] | list[tuple[Any, ...]]) -> list[tuple[tuple[str, str], ...]]:
    return [tuple(_norm(v) for v in row) for row in rows]


def _authorize(action: int, *_args: object) -> int:
    return sqlite3.SQLITE_OK if action in _READING else sqlite3.SQLITE_DENY


def query(path: Path, sql: str, *, seconds: float | None = None,
          max_rows: int | None = None) -> list[tuple[Any, ...]]:
    """Run ``sql`` on a read-only connection, within the limits above.

    Raises ``QueryLimit`` past a limit, ``sqlite3.Error`` for anything else."""
    seconds = QUERY_SECONDS if seconds is None else seconds
    max_rows = MAX_ROWS if max_rows is None else max_rows
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path}")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=min(10.0, seconds))
    deadline = time.monotonic() + seconds
    try:
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        con.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        con.set_authorizer(_authorize)
        con.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_EVERY)
        try:
            cursor = con.execute(sql)
            rows = cursor.fetchmany(max_rows + 1)
        except sqlite3.OperationalError as exc:
            if time.monotonic() > deadline:
                raise QueryLimit(f"the query took longer than {seconds:g} s") from exc
            raise
        if len(rows) > max_rows:
            raise QueryLimit(f"the query returned more than {max_rows:,} rows")
        return rows
    finally:
        con.close()


def db_match(spec: EvalSpec, files: Mapping[str, Path]) -> Outcome:
    checks: list[dict[str, Any]] = []
    for check in spec.db_match:
        path = files.get(check.site)
        if path is None:
            return Outcome(0.0, {"checks": checks}, error=f"{db_var(check.site)} not set")
        try:
            got = query(path, check.query)
        except (sqlite3.Error, FileNotFoundError) as exc:
            return Outcome(0.0, {"checks": checks},
                           error=f"{check.site}: {type(exc).__name__}: {exc}")
        have, want = _rows(got), _rows(check.expected)
        ok = have == want if check.ordered else Counter(have) == Counter(want)
        checks.append({"site": check.site, "query": check.query, "ok": ok,
                       "expected": check.expected,
                       "rows": [list(r) for r in got[:MAX_ROWS_SHOWN]],
                       **({"more_rows": len(got) - MAX_ROWS_SHOWN}
                          if len(got) > MAX_ROWS_SHOWN else {})})
        if not ok:
            return Outcome(0.0, {"checks": checks})
    return Outcome(1.0, {"checks": checks})
