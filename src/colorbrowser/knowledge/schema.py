"""SQLite schema of the knowledge base, versioned with PRAGMA user_version.

Each entry of MIGRATIONS takes the database from version i to i+1, so a store
written by an older release is upgraded in place inside one transaction.
"""

from __future__ import annotations

import sqlite3

from colorbrowser.errors import UserError

_V1 = """
CREATE TABLE tips (
    pk INTEGER PRIMARY KEY,            -- stable rowid for the FTS index
    id TEXT NOT NULL UNIQUE,
    site TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('tip', 'shortcut')),
    url_patterns TEXT NOT NULL,        -- JSON list
    keywords TEXT NOT NULL,            -- JSON list
    tags TEXT NOT NULL,                -- JSON list
    text TEXT NOT NULL CHECK (length(trim(text)) > 0),
    url_template TEXT,
    source TEXT NOT NULL,
    author TEXT,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    retrieved INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    last_used TEXT
);
CREATE INDEX tips_site ON tips (site);

CREATE VIRTUAL TABLE tips_fts USING fts5 (
    text, keywords, tags,
    content = 'tips', content_rowid = 'pk',
    tokenize = 'porter unicode61'
);
CREATE TRIGGER tips_fts_insert AFTER INSERT ON tips BEGIN
    INSERT INTO tips_fts (rowid, text, keywords, tags)
    VALUES (new.pk, new.text, new.keywords, new.tags);
END;
CREATE TRIGGER tips_fts_delete AFTER DELETE ON tips BEGIN
    INSERT INTO tips_fts (tips_fts, rowid, text, keywords, tags)
    VALUES ('delete', old.pk, old.text, old.keywords, old.tags);
END;
CREATE TRIGGER tips_fts_update AFTER UPDATE OF text, keywords, tags ON tips BEGIN
    INSERT INTO tips_fts (tips_fts, rowid, text, keywords, tags)
    VALUES ('delete', old.pk, old.text, old.keywords, old.tags);
    INSERT INTO tips_fts (rowid, text, keywords, tags)
    VALUES (new.pk, new.text, new.keywords, new.tags);
END;

CREATE TABLE embeddings (
    tip_pk INTEGER PRIMARY KEY REFERENCES tips (pk) ON DELETE CASCADE,
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL               -- float32, little-endian, L2-normalized
);

CREATE TABLE review_queue (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    site TEXT NOT NULL DEFAULT '',
    url TEXT NOT NULL DEFAULT '',
    goal TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '',
    last_actions TEXT NOT NULL DEFAULT '[]',   -- JSON list of action strings
    screenshot_path TEXT,
    run_dir TEXT,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'skipped')),
    resolved TEXT,
    tip_id TEXT
);
CREATE INDEX review_queue_status ON review_queue (status);
"""

# Version 2: learned workflows beside the tips (knowledge/workflow_store.py). The
# document is the checked JSON of a Workflow; the columns beside it change in place.
_V2 = """
CREATE TABLE workflows (
    pk INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    site TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    data TEXT NOT NULL,                -- JSON of the Workflow without active and stats
    runs INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    healed_steps INTEGER NOT NULL DEFAULT 0,
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE INDEX workflows_site ON workflows (site, active);
"""

MIGRATIONS: list[str] = [_V1, _V2]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, where: str) -> None:
    """Bring the schema up to date; safe when several processes open a new file at once."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise UserError(
            f"knowledge base {where} has schema version {version}; this colorbrowser "
            f"understands up to {SCHEMA_VERSION} (upgrade colorbrowser)"
        )
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read inside the write lock: another process may have migrated meanwhile.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0 and conn.execute(
            "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchone()[0]:
            raise UserError(f"{where} is an SQLite file but not a colorbrowser knowledge base")
        for step in MIGRATIONS[version:]:
            for statement in _statements(step):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _statements(script: str) -> list[str]:
    """Split a script on statement ends, keeping trigger bodies whole."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--") and not buf.strip():
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return [s for s in out if s]
