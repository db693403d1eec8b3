"""Snapshots: copy them to an instance, restore them into a running app, hash them.

A hot reset writes the snapshot's SQLite databases into the live ones through
SQLite's backup API, which takes the live file's locks like any writer, so the
running server sees the restored rows on its next query. Files the app keeps beside
its databases (search index, uploads) are synced back by size and mtime.

The content hash covers what a task could read or change (rows of chosen tables and
columns), never the file bytes: salted password hashes and page layout differ
between two builds that hold the same content.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from colorbrowser.errors import ColorBrowserError


def copy_tree(src: Path, dst: Path) -> None:
    """Replace ``dst`` with a copy of ``src`` (symlinks kept, times preserved)."""
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def restore_db(snapshot: Path, live: Path) -> None:
    """Overwrite the live database with the snapshot's content, in place."""
    src = sqlite3.connect(f"file:{snapshot}?mode=ro", uri=True)
    dst = sqlite3.connect(live, timeout=10)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


def sync_dir(snapshot: Path, live: Path) -> int:
    """Make ``live`` hold exactly ``snapshot``'s files; returns how many were changed."""
    changed = 0
    want: dict[str, os.stat_result] = {}
    if snapshot.exists():
        for path in snapshot.rglob("*"):
            if path.is_file():
                want[str(path.relative_to(snapshot))] = path.stat()
    if live.exists():
        for path in sorted(live.rglob("*"), reverse=True):
            rel = str(path.relative_to(live))
            if path.is_file() and rel not in want:
                path.unlink()
                changed += 1
            elif path.is_dir() and not any(path.iterdir()) and not (snapshot / rel).is_dir():
                path.rmdir()
    for rel, st in want.items():
        target = live / rel
        try:
            cur = target.stat()
            if cur.st_size == st.st_size and int(cur.st_mtime) == int(st.st_mtime):
                continue
        except FileNotFoundError:
            target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(snapshot / rel, target)
        changed += 1
    return changed


def content_hash(db: Path, tables: Mapping[str, Sequence[str]]) -> str:
    """SHA-256 over the sorted rows of ``tables`` (name -> columns left out, such as
    salted password hashes and last-login times)."""
    digest = hashlib.sha256()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for table in sorted(tables):
            cols = [c for c in _columns(con, table) if c not in tables[table]]
            quoted = ", ".join(f'"{c}"' for c in cols)
            rows = con.execute(f'SELECT {quoted} FROM "{table}"').fetchall()
            digest.update(f"\x00{table}:{','.join(cols)}\x00".encode())
            for row in sorted(rows, key=repr):
                digest.update(repr(row).encode())
                digest.update(b"\n")
    finally:
        con.close()
    return digest.hexdigest()


def _columns(con: sqlite3.Connection, table: str) -> list[str]:
    cols = [row[1] for row in con.execute(f'PRAGMA table_info("{table}")')]
    if not cols:
        raise ColorBrowserError(f"content table {table!r} is missing from the database")
    return cols


def combine(hashes: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for item in hashes:
        digest.update(item.encode())
    return digest.hexdigest()
