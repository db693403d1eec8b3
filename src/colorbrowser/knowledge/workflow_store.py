"""Workflows in the knowledge base's SQLite file, beside the tips.

A workflow is stored as its checked JSON document plus the columns that change without
a new version (active, the run counts), so recording a run is one atomic UPDATE and
every read validates the document again: a row edited by hand is refused, not run.
The KnowledgeBase wraps these functions in its write transactions.
"""

from __future__ import annotations

import json
import sqlite3

from pydantic import ValidationError

from colorbrowser.errors import UserError
from colorbrowser.knowledge.patterns import host_matches_site, url_host
from colorbrowser.knowledge.tip import MAX_COUNT, format_time, now
from colorbrowser.knowledge.workflow import Workflow


class WorkflowNotFound(UserError):
    pass


class WorkflowExists(UserError):
    pass


class InvalidWorkflow(UserError):
    """A workflow that cannot be stored (or a stored one that no longer checks out)."""


def _quoted(flow_id: str) -> str:
    """An id a person typed, quoted for one short error line."""
    return repr(flow_id[:120]) + ("…" if len(flow_id) > 120 else "")


def describe(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    message = err["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def check(data: object, where: str = "workflow") -> Workflow:
    """A Workflow from untrusted data, or InvalidWorkflow with one line."""
    try:
        return Workflow.model_validate(data)
    except ValidationError as exc:
        raise InvalidWorkflow(f"{where}: {' '.join(describe(exc).split())[:300]}") from None


def _document(flow: Workflow) -> str:
    return flow.model_dump_json(exclude={"stats", "active"})


def from_row(row: sqlite3.Row) -> Workflow:
    data = json.loads(row["data"])
    data["active"] = bool(row["active"])
    data["stats"] = {"runs": row["runs"], "successes": row["successes"],
                     "healed_steps": row["healed_steps"]}
    return check(data, f"stored workflow {row['id']}")


def insert(conn: sqlite3.Connection, flow: Workflow) -> Workflow:
    try:
        conn.execute(
            "INSERT INTO workflows (id, site, active, data, runs, successes, healed_steps, "
            "created, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (flow.id, flow.site, int(flow.active), _document(flow), flow.stats.runs,
             flow.stats.successes, flow.stats.healed_steps, format_time(flow.created),
             format_time(flow.updated)),
        )
    except sqlite3.IntegrityError:
        raise WorkflowExists(f"workflow {flow.id} already exists") from None
    return flow


def replace(conn: sqlite3.Connection, flow: Workflow) -> Workflow:
    """Overwrite a stored workflow with this one (an import with --replace)."""
    conn.execute(
        "UPDATE workflows SET site = ?, active = ?, data = ?, runs = ?, successes = ?, "
        "healed_steps = ?, created = ?, updated = ? WHERE id = ?",
        (flow.site, int(flow.active), _document(flow), flow.stats.runs, flow.stats.successes,
         flow.stats.healed_steps, format_time(flow.created), format_time(flow.updated),
         flow.id),
    )
    return flow


def find(conn: sqlite3.Connection, flow_id: str) -> Workflow | None:
    row = conn.execute("SELECT * FROM workflows WHERE id = ?", (flow_id,)).fetchone()
    return from_row(row) if row else None


def get(conn: sqlite3.Connection, flow_id: str) -> Workflow:
    flow = find(conn, flow_id)
    if flow is None:
        raise WorkflowNotFound(f"no workflow with id {_quoted(flow_id)}")
    return flow


def select(conn: sqlite3.Connection, site: str | None, include_inactive: bool) -> list[Workflow]:
    where, args = [], []
    if site:
        where.append("site = ?")
        args.append(site.strip().lower())
    if not include_inactive:
        where.append("active = 1")
    sql = "SELECT * FROM workflows" + (" WHERE " + " AND ".join(where) if where else "")
    return [from_row(r) for r in conn.execute(sql + " ORDER BY site, created, pk", args)]


def for_url(conn: sqlite3.Connection, url: str) -> list[Workflow]:
    """Active workflows whose site covers the URL's host (none for about:blank, file:)."""
    host = url_host(url or "")
    if not host:
        return []
    sites = sorted({host, host.split(":", 1)[0]})
    rows = conn.execute(
        f"SELECT * FROM workflows WHERE active = 1 AND site IN ({','.join('?' * len(sites))}) "
        "ORDER BY created, pk", sites)
    return [f for f in map(from_row, rows) if host_matches_site(host, f.site)]


def remove(conn: sqlite3.Connection, flow_id: str) -> None:
    if conn.execute("DELETE FROM workflows WHERE id = ?", (flow_id,)).rowcount == 0:
        raise WorkflowNotFound(f"no workflow with id {_quoted(flow_id)}")


def new_version(conn: sqlite3.Connection, old_id: str, flow: Workflow) -> Workflow:
    """Store ``flow`` as the next version of ``old_id``; the old one is kept, inactive,
    with its own counts (the new version counts its own runs from ``flow.stats``)."""
    old = get(conn, old_id)
    if flow.site != old.site:
        raise InvalidWorkflow(f"a new version of {old_id} must stay on {old.site}, "
                              f"not {flow.site}")
    data = flow.model_dump() | {
        "id": "", "previous": old.id, "version": old.version + 1, "active": True,
        "created": now(), "updated": now(),
    }
    new = check(data, f"new version of {old_id}")
    conn.execute("UPDATE workflows SET active = 0, updated = ? WHERE id = ?",
                 (format_time(now()), old.id))
    return insert(conn, new)


def record_run(conn: sqlite3.Connection, flow_id: str, success: bool, healed: int) -> None:
    if isinstance(healed, bool) or not isinstance(healed, int) or healed < 0:
        raise ValueError("healed is a count of steps")
    cursor = conn.execute(
        "UPDATE workflows SET runs = min(runs + 1, ?), successes = min(successes + ?, ?), "
        "healed_steps = min(healed_steps + ?, ?), updated = ? WHERE id = ?",
        (MAX_COUNT, int(bool(success)), MAX_COUNT, healed, MAX_COUNT, format_time(now()),
         flow_id))
    if cursor.rowcount == 0:
        raise WorkflowNotFound(f"no workflow with id {_quoted(flow_id)}")
