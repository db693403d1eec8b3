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


def _files(root: Path) -> dict[str, tuple[int, int]]:
    """relative path -> (size, whole-second mtime) of every file under ``root``."""
    out: dict[str, tuple[int, int]] = {}
    stack = [""]
    while stack:
        rel = stack.pop()
        try:
            entries = list(os.scandir(root / rel))
        except FileNotFoundError:
            continue
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir(follow_symlinks=False):
                stack.append(name)
            else:
                st = entry.stat(follow_symlinks=False)
                out[name] = (st.st_size, int(st.st_mtime))
    return out


def sync_dir(snapshot: Path, live: Path) -> int:
    """Make ``live`` hold exactly ``snapshot``'s files; returns how many were changed.

    Files are compared by size and mtime (copies keep the snapshot's mtime), so an
    unchanged folder of a few hundred files costs a few milliseconds.
    """
    want, have = _files(snapshot), _files(live)
    changed = 0
    for rel in have.keys() - want.keys():
        (live / rel).unlink()
        changed += 1
    for rel, stamp in want.items():
        if have.get(rel) != stamp:
            (live / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(snapshot / rel, live / rel)
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
