"""The knowledge base: one SQLite file (WAL, FTS5, embeddings) behind a small API.

Every write is one ``BEGIN IMMEDIATE`` transaction with a busy timeout, so several
processes (a run, a person adding tips, an import) can share the file without losing
anything. A frozen store opens the file read-only at the SQLite level, so evaluation
cannot change it even by mistake.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from colorbrowser.errors import UserError
from colorbrowser.knowledge.embed import Embedder, default_embedder, embedding_text, text_hash
from colorbrowser.knowledge.patterns import host_matches_site, match, url_host
from colorbrowser.knowledge.retrieve import Found, KeywordHit, cascade, query_terms
from colorbrowser.knowledge.schema import migrate
from colorbrowser.knowledge.shelves import ImportResult, OnConflict, QueueShelf, WorkflowShelf
from colorbrowser.knowledge.sqlite_file import BUSY_TIMEOUT_MS, enter_wal, report_damage
from colorbrowser.knowledge.tip import (
    InvalidTip,
    Tip,
    check_tip,
    describe_validation,
    format_time,
    now,
)

if TYPE_CHECKING:
    import numpy as np

    from colorbrowser.config import Settings

EDITABLE = ("site", "url_patterns", "text", "keywords", "tags", "kind", "url_template", "author")


class ReadOnlyError(UserError):
    """A write was attempted on a frozen (read-only) knowledge base."""


class TipNotFound(UserError):
    pass


class TipExists(UserError):
    pass


def default_db_path() -> Path:
    """``$COLORBROWSER_KB``, else the user data dir (XDG), e.g. ~/.local/share/colorbrowser."""
    if env := os.environ.get("COLORBROWSER_KB"):
        return Path(env).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "colorbrowser" / "knowledge.db"


def _row_to_tip(row: sqlite3.Row) -> Tip:
    return Tip.model_validate(
        {
            "id": row["id"], "site": row["site"], "kind": row["kind"],
            "url_patterns": json.loads(row["url_patterns"]),
            "keywords": json.loads(row["keywords"]), "tags": json.loads(row["tags"]),
            "text": row["text"], "url_template": row["url_template"],
            "source": row["source"], "author": row["author"],
            "created": row["created"], "updated": row["updated"],
            "stats": {"retrieved": row["retrieved"], "successes": row["successes"],
                      "failures": row["failures"]},
        }
    )


def _tip_values(tip: Tip) -> tuple[Any, ...]:
    return (
        tip.id, tip.site, tip.kind, json.dumps(tip.url_patterns), json.dumps(tip.keywords),
        json.dumps(tip.tags), tip.text, tip.url_template, tip.source, tip.author,
        format_time(tip.created), format_time(tip.updated), tip.stats.retrieved,
        tip.stats.successes, tip.stats.failures,
    )


_TIP_COLUMNS = (
    "id, site, kind, url_patterns, keywords, tags, text, url_template, source, author, "
    "created, updated, retrieved, successes, failures"
)
_INSERT = f"INSERT INTO tips ({_TIP_COLUMNS}) VALUES ({', '.join('?' * 15)})"
_REPLACE = f"UPDATE tips SET ({_TIP_COLUMNS}) = ({', '.join('?' * 15)}) WHERE id = ?"
_REPLACE_KEEP_STATS = (
    f"UPDATE tips SET ({_TIP_COLUMNS.rsplit(', retrieved', 1)[0]}) = ({', '.join('?' * 12)}) "
    "WHERE id = ?"
)


@report_damage
class KnowledgeBase(WorkflowShelf, QueueShelf):
    """Tips, their usage, their vectors, workflows and the review queue, in one SQLite file."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, *, readonly: bool,
        embedder: Embedder | None,
    ) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self.embedder = embedder
        self._vector_cache: dict[tuple[str, str], Any] = {}  # used when frozen
        self._goal_cache: OrderedDict[str, Any] = OrderedDict()

    # -- opening ------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: str | Path | None = None, *, readonly: bool = False,
        embeddings: bool = True, embedder: Embedder | None = None,
    ) -> KnowledgeBase:
        """Open (and create, unless read-only) the store. ``embeddings=False`` or a
        missing embed extra leaves the cascade with URL and keyword stages only."""
        path = Path(path).expanduser() if path is not None else default_db_path()
        if embeddings and embedder is None:
            embedder = default_embedder()
        try:
            if readonly:
                if not path.is_file():
                    raise UserError(f"no knowledge base at {path}")
                conn = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(path, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA foreign_keys = ON")
            if readonly:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version == 0:
                    raise UserError(f"{path} is not a colorbrowser knowledge base")
            else:
                enter_wal(conn)
                conn.execute("PRAGMA synchronous = NORMAL")
                migrate(conn, str(path))
        except sqlite3.DatabaseError as exc:
            raise UserError(f"cannot open knowledge base {path}: {exc}") from None
        except OSError as exc:
            raise UserError(f"cannot create knowledge base {path}: {exc.strerror}") from None
        return cls(conn, path, readonly=readonly, embedder=embedder if embeddings else None)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def journal_mode(self) -> str:
        return self._conn.execute("PRAGMA journal_mode").fetchone()[0]

    @contextmanager
    def _write(self, what: str) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise ReadOnlyError(
                f"knowledge base {self.path} is frozen (read-only): cannot {what}"
            )
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise UserError(f"knowledge base {self.path} is busy, cannot {what}: {exc}") from None
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # -- tips ---------------------------------------------------------------------
    def add(self, tip: Tip) -> Tip:
        check_tip(tip)
        with self._write(f"add tip {tip.id}") as conn:
            self._insert(conn, tip)
        return tip

    def _insert(self, conn: sqlite3.Connection, tip: Tip) -> None:
        try:
            conn.execute(_INSERT, _tip_values(tip))
        except sqlite3.IntegrityError:
            raise TipExists(f"tip {tip.id} already exists") from None

    def add_many(self, tips: Iterable[Tip], on_conflict: OnConflict = "error") -> ImportResult:
        """All or nothing: one bad tip or clash leaves the store as it was."""
        tips = [check_tip(t) for t in tips]
        seen: set[str] = set()
        for tip in tips:
            if tip.id in seen:
                raise InvalidTip(f"tip {tip.id} appears twice in the input")
            seen.add(tip.id)
        result = ImportResult()
        with self._write("import tips") as conn:
            for tip in tips:
                existing = conn.execute("SELECT 1 FROM tips WHERE id = ?", (tip.id,)).fetchone()
                if existing is None:
                    conn.execute(_INSERT, _tip_values(tip))
                    result.added.append(tip.id)
                elif on_conflict == "skip":
                    result.skipped.append(tip.id)
                elif on_conflict == "replace":
                    if tip.stats.empty:  # a file without stats must not erase usage data
                        conn.execute(_REPLACE_KEEP_STATS, (*_tip_values(tip)[:12], tip.id))
                    else:
                        conn.execute(_REPLACE, (*_tip_values(tip), tip.id))
                    result.replaced.append(tip.id)
                else:
                    raise TipExists(
                        f"tip {tip.id} already exists (use --replace or --skip-existing)"
                    )
        return result

    def find(self, tip_id: str) -> Tip | None:
        row = self._conn.execute("SELECT * FROM tips WHERE id = ?", (tip_id,)).fetchone()
        return _row_to_tip(row) if row else None

    def get(self, tip_id: str) -> Tip:
        tip = self.find(tip_id)
        if tip is None:
            raise TipNotFound(f"no tip with id {tip_id!r}")
        return tip

    def update(self, tip_id: str, **changes: Any) -> Tip:
        """Change editable fields; the whole tip is re-validated before anything is saved."""
        unknown = set(changes) - set(EDITABLE)
        if unknown:
            raise InvalidTip(f"cannot edit {', '.join(sorted(unknown))} of tip {tip_id}")
        with self._write(f"edit tip {tip_id}") as conn:
            old = self.get(tip_id)
            data = old.model_dump() | changes | {"updated": now()}
            try:
                new = Tip.model_validate(data)
            except ValidationError as exc:
                raise InvalidTip(describe_validation(exc, tip_id)) from None
            check_tip(new)
            if new.model_dump(exclude={"updated"}) == old.model_dump(exclude={"updated"}):
                return old
            conn.execute(_REPLACE, (*_tip_values(new), tip_id))
        return new

    def remove(self, *tip_ids: str) -> None:
        with self._write("remove tips") as conn:
            for tip_id in tip_ids:
                if conn.execute("DELETE FROM tips WHERE id = ?", (tip_id,)).rowcount == 0:
                    raise TipNotFound(f"no tip with id {tip_id!r}")

    def list(self, site: str | None = None, kind: str | None = None) -> list[Tip]:
        sql, args = "SELECT * FROM tips", []
        where = []
        if site:
            where.append("site = ?")
            args.append(site.lower())
        if kind:
            where.append("kind = ?")
            args.append(kind)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [_row_to_tip(r) for r in self._conn.execute(sql + " ORDER BY site, id", args)]

    def tips_for_url(self, url: str | None) -> list[Tip]:
        """Tips whose site covers the URL's host; every tip when no URL is given, none
        for a page without a host (about:blank, file:)."""
        if not url:
            return self.list()
        host = url_host(url)
        if not host:
            return []
        sites = {host, host.split(":", 1)[0]}
        marks = ",".join("?" * len(sites))
        rows = self._conn.execute(
            f"SELECT * FROM tips WHERE site IN ({marks}) ORDER BY id", sorted(sites)
        )
        return [t for t in map(_row_to_tip, rows) if host_matches_site(host, t.site)]

    def shortcuts_for(self, url: str) -> list[Tip]:
        """URL shortcuts usable on this URL's site; those whose patterns match come first."""
        tips = [t for t in self.tips_for_url(url) if t.kind == "shortcut"]
        return sorted(tips, key=lambda t: (not any(match(p, url) for p in t.url_patterns), t.id))

    # -- search -------------------------------------------------------------------
    def keyword_hits(self, query: str, url: str | None = None, limit: int = 50) -> list[KeywordHit]:
        """BM25 over text, keywords (weighted double) and tags, limited to the URL's site.

        Each hit also says which of the query's words it contains and what share of the
        query's information (IDF-weighted) that is, so that one common word shared by
        chance does not look like a strong match."""

        terms = query_terms(query)
        host = url_host(url or "")
        if not terms or (url and not host):
            return []
        total = self._conn.execute("SELECT count(*) FROM tips").fetchone()[0]
        docs = {
            t: {r[0] for r in self._conn.execute(
                "SELECT rowid FROM tips_fts WHERE tips_fts MATCH ?", (f'"{t}"',))}
            for t in terms
        }
        idf = {t: math.log(1 + (total - len(d) + 0.5) / (len(d) + 0.5)) for t, d in docs.items()}
        site_filter, args = "", [" OR ".join(f'"{t}"' for t in terms)]
        if host:
            site_filter = " AND t.site IN (?, ?)"
            args += [host, host.split(":", 1)[0]]
        rows = self._conn.execute(
            "SELECT t.*, bm25(tips_fts, 1.0, 2.0, 1.0) AS rank "
            "FROM tips_fts JOIN tips t ON t.pk = tips_fts.rowid "
            f"WHERE tips_fts MATCH ?{site_filter} ORDER BY rank LIMIT ?",
            (*args, limit),
        ).fetchall()
        hits = []
        for row in rows:
            if host and not host_matches_site(host, row["site"]):
                continue
            matched = [t for t in terms if row["pk"] in docs[t]]
            coverage = sum(idf[t] for t in matched) / sum(idf.values())
            hits.append(KeywordHit(_row_to_tip(row), -float(row["rank"]), matched, coverage))
        return hits

    def vectors(self, tips: list[Tip]) -> dict[str, np.ndarray]:
        """Embeddings of these tips, computing (and storing) the missing or stale ones."""
        if self.embedder is None or not tips:
            return {}
        import numpy as np

        model = self.embedder.name
        wanted = {t.id: text_hash(embedding_text(t)) for t in tips}
        found: dict[str, np.ndarray] = {}
        ids = list(wanted)
        for start in range(0, len(ids), 500):  # stay under SQLite's variable limit
            chunk = ids[start:start + 500]
            for row in self._conn.execute(
                "SELECT t.id, e.text_hash, e.vector FROM embeddings e "
                "JOIN tips t ON t.pk = e.tip_pk "
                f"WHERE e.model = ? AND t.id IN ({','.join('?' * len(chunk))})", (model, *chunk),
            ):
                if row["text_hash"] == wanted[row["id"]]:
                    found[row["id"]] = np.frombuffer(row["vector"], dtype="<f4")
        for tip in tips:
            if tip.id not in found and (tip.id, wanted[tip.id]) in self._vector_cache:
                found[tip.id] = self._vector_cache[(tip.id, wanted[tip.id])]
        missing = [t for t in tips if t.id not in found]
        if missing:
            fresh = self.embedder.encode([embedding_text(t) for t in missing])
            for tip, vec in zip(missing, fresh, strict=True):
                found[tip.id] = vec.astype("<f4")
                self._vector_cache[(tip.id, wanted[tip.id])] = found[tip.id]
            if not self.readonly:
                self._store_vectors(missing, wanted, found)
        return found

    def _store_vectors(self, tips: list[Tip], hashes: dict[str, str], found: dict) -> None:
        with self._write("store embeddings") as conn:
            for tip in tips:
                vec = found[tip.id]
                conn.execute(
                    "INSERT OR REPLACE INTO embeddings (tip_pk, model, text_hash, dim, vector) "
                    "SELECT pk, ?, ?, ?, ? FROM tips WHERE id = ?",
                    (self.embedder.name, hashes[tip.id], len(vec), vec.tobytes(), tip.id),
                )

    def embed_goal(self, goal: str) -> np.ndarray:
        """Vector of a goal, cached: an episode searches with the same goal every step."""
        if self.embedder is None:
            raise UserError("embeddings are off for this knowledge base")
        vec = self._goal_cache.get(goal)
        if vec is None:
            vec = self.embedder.encode([goal])[0]
            self._goal_cache[goal] = vec
            if len(self._goal_cache) > 64:
                self._goal_cache.popitem(last=False)
        else:
            self._goal_cache.move_to_end(goal)
        return vec

    def clear_goal_cache(self) -> None:
        self._goal_cache.clear()

    def reindex(self) -> int:
        """Compute every missing or stale embedding now (e.g. before freezing a store)."""
        tips = self.list()
        before = len(self._vector_cache)
        self.vectors(tips)
        return len(self._vector_cache) - before

    def search(
        self, url: str | None, goal: str, k: int = 3, token_budget: int = 400,
        stages: Iterable[str] | None = None,
    ) -> Found:
        """Tips for this page and goal, best first, with why each one matched."""

        return cascade(self, url, goal, k=k, token_budget=token_budget, stages=stages)

    # -- usage statistics ---------------------------------------------------------
    def record_retrieval(self, tip_ids: Iterable[str]) -> None:
        ids = list(dict.fromkeys(tip_ids))
        with self._write("record retrievals") as conn:
            conn.executemany(
                "UPDATE tips SET retrieved = retrieved + 1, last_used = ? WHERE id = ?",
                [(format_time(now()), i) for i in ids],
            )

    def record_outcome(self, tip_ids: Iterable[str], success: bool) -> None:
        column = "successes" if success else "failures"
        ids = list(dict.fromkeys(tip_ids))
        with self._write("record outcomes") as conn:
            conn.executemany(f"UPDATE tips SET {column} = {column} + 1 WHERE id = ?",
                             [(i,) for i in ids])


def open_knowledge(settings: Settings, stack: ExitStack) -> KnowledgeBase | None:
    """The store the settings ask for, closed with ``stack``; None when knowledge is off."""
    mode = settings.agent.knowledge
    if mode == "off":
        return None
    path = settings.paths.knowledge or default_db_path()
    kb = KnowledgeBase.open(path, readonly=mode == "frozen",
                            embeddings=settings.agent.tips_embeddings)
    stack.callback(kb.close)
    return kb
