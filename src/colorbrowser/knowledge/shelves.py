"""The knowledge base's shelves beside the tips: workflows and the review queue.

They are mixins of ``KnowledgeBase`` so that they share its one connection and its
``BEGIN IMMEDIATE`` write transactions (a workflow and a tip are written alike); the
SQL itself lives in ``workflow_store`` and ``review_queue``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from colorbrowser.errors import UserError
from colorbrowser.knowledge import review_queue
from colorbrowser.knowledge import workflow_store as flows
from colorbrowser.knowledge.review_queue import STATUSES, QueueItem
from colorbrowser.knowledge.workflow import Workflow

if TYPE_CHECKING:
    from colorbrowser.knowledge.tip import Tip

OnConflict = Literal["error", "replace", "skip"]


@dataclass
class ImportResult:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class _Shelf:
    """What a shelf needs from ``KnowledgeBase``."""

    _conn: sqlite3.Connection

    if TYPE_CHECKING:
        def _write(self, what: str) -> AbstractContextManager[sqlite3.Connection]: ...

        def get(self, tip_id: str) -> Tip: ...


class WorkflowShelf(_Shelf):
    def add_workflow(self, flow: Workflow) -> Workflow:
        flow = flows.check(flow.model_dump(), f"workflow {flow.id}")
        with self._write(f"add workflow {flow.id}") as conn:
            return flows.insert(conn, flow)

    def add_workflows(self, items: Iterable[Workflow], on_conflict: OnConflict = "error"
                      ) -> ImportResult:
        """All or nothing, like ``add_many`` for tips (an import)."""
        items = [flows.check(f.model_dump(), f"workflow {f.id}") for f in items]
        if len({f.id for f in items}) != len(items):
            raise flows.InvalidWorkflow("a workflow id appears twice in the input")
        result = ImportResult()
        with self._write("import workflows") as conn:
            for flow in items:
                if flows.find(conn, flow.id) is None:
                    flows.insert(conn, flow)
                    result.added.append(flow.id)
                elif on_conflict == "skip":
                    result.skipped.append(flow.id)
                elif on_conflict == "replace":
                    flows.replace(conn, flow)
                    result.replaced.append(flow.id)
                else:
                    raise flows.WorkflowExists(
                        f"workflow {flow.id} already exists (use --replace or --skip-existing)")
        return result

    def get_workflow(self, flow_id: str) -> Workflow:
        return flows.get(self._conn, flow_id)

    def find_workflow(self, flow_id: str) -> Workflow | None:
        return flows.find(self._conn, flow_id)

    def list_workflows(self, site: str | None = None, include_inactive: bool = False
                       ) -> list[Workflow]:
        return flows.select(self._conn, site, include_inactive)

    def workflows_for_url(self, url: str) -> list[Workflow]:
        """The active workflows of this URL's site."""
        return flows.for_url(self._conn, url)

    def remove_workflow(self, flow_id: str) -> None:
        with self._write(f"remove workflow {flow_id}") as conn:
            flows.remove(conn, flow_id)

    def new_workflow_version(self, old_id: str, flow: Workflow) -> Workflow:
        """``flow`` replaces ``old_id`` (kept, inactive) as version + 1."""
        with self._write(f"update workflow {old_id}") as conn:
            return flows.new_version(conn, old_id, flow)

    def record_workflow_run(self, flow_id: str, success: bool, healed: int = 0) -> None:
        with self._write(f"record a run of workflow {flow_id}") as conn:
            flows.record_run(conn, flow_id, success, healed)


class QueueShelf(_Shelf):
    def queue_add(self, item: QueueItem) -> QueueItem:
        with self._write("add to the review queue") as conn:
            return review_queue.insert(conn, item)

    def queue_list(self, status: str | None = "open") -> list[QueueItem]:
        if status is not None and status not in STATUSES:
            raise UserError(f"unknown queue status {status!r} (use {', '.join(STATUSES)})")
        return review_queue.select(self._conn, status)

    def queue_get(self, item_id: int) -> QueueItem:
        row = self._conn.execute("SELECT * FROM review_queue WHERE id = ?", (item_id,)).fetchone()
        if row is None:
            raise UserError(f"no review item {item_id}")
        return review_queue.from_row(row)

    def queue_resolve(self, item_id: int, status: str, tip_id: str | None = None) -> QueueItem:
        if status not in STATUSES:
            raise UserError(f"unknown queue status {status!r} (use {', '.join(STATUSES)})")
        with self._write("resolve a review item") as conn:
            if tip_id is not None:
                self.get(tip_id)  # raises TipNotFound
            if review_queue.resolve(conn, item_id, status, tip_id).rowcount == 0:
                raise UserError(f"no review item {item_id}")
        return self.queue_get(item_id)
