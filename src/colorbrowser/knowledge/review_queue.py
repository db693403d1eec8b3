"""Review queue: failures and triggers waiting for a person to turn them into tips.

``adapt`` fills it during runs, ``review`` walks a person through it; both only need
the three calls on KnowledgeBase (queue_add, queue_list, queue_resolve).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from colorbrowser.knowledge.tip import format_time, now

QueueStatus = Literal["open", "resolved", "skipped"]
STATUSES: tuple[str, ...] = ("open", "resolved", "skipped")
# Reasons that start with this were queued by ``explore``: their tips are stored with
# source "exploration".
EXPLORATION = "exploration:"


class QueueItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    created: datetime = Field(default_factory=now)
    site: str = ""
    url: str = ""
    goal: str = ""
    reason: str = ""  # which trigger fired, e.g. "url cycle" or "critic: results off-topic"
    summary: str = ""  # the summarizer's belief state at that moment
    last_actions: list[str] = Field(default_factory=list)
    screenshot_path: str | None = None
    run_dir: str | None = None
    status: QueueStatus = "open"
    resolved: datetime | None = None
    tip_id: str | None = None  # the tip a person wrote for it, if any


_COLUMNS = (
    "created, site, url, goal, reason, summary, last_actions, screenshot_path, run_dir, "
    "status, resolved, tip_id"
)


def insert(conn: sqlite3.Connection, item: QueueItem) -> QueueItem:
    cur = conn.execute(
        f"INSERT INTO review_queue ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            format_time(item.created), item.site, item.url, item.goal, item.reason,
            item.summary, json.dumps(item.last_actions), item.screenshot_path, item.run_dir,
            item.status, format_time(item.resolved) if item.resolved else None, item.tip_id,
        ),
    )
    return item.model_copy(update={"id": cur.lastrowid})


def from_row(row: sqlite3.Row) -> QueueItem:
    data = dict(row)
    data["last_actions"] = json.loads(data["last_actions"])
    return QueueItem.model_validate(data)


def select(conn: sqlite3.Connection, status: str | None) -> list[QueueItem]:
    if status is None:
        rows = conn.execute("SELECT * FROM review_queue ORDER BY id").fetchall()
    else:
        rows = conn.execute(
            "SELECT * FROM review_queue WHERE status = ? ORDER BY id", (status,)
        ).fetchall()
    return [from_row(r) for r in rows]


def resolve(
    conn: sqlite3.Connection, item_id: int, status: str, tip_id: str | None
) -> sqlite3.Cursor:
    return conn.execute(
        "UPDATE review_queue SET status = ?, resolved = ?, tip_id = ? WHERE id = ?",
        (status, format_time(now()) if status != "open" else None, tip_id, item_id),
    )
