"""Writing the arena's tasks: one draft per task, its answer read from the snapshot.

A generator (``gen_<app>.py``) reads the built snapshot's database and returns drafts;
each draft becomes one WebArena task config (with ``intent_template`` and
``instantiation_dict`` as in WebArena) and one oracle plan. The eval blocks are built
with the small helpers below, so every task file has the same shape.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.arena.tasks.sites import SITES


@dataclass
class Draft:
    id: str  # "trac-ticket-owner-17"
    sites: list[str]
    template: str  # the intent with {placeholders}
    values: dict[str, Any]
    start_url: str
    eval: dict[str, Any]
    plan: list[Any]  # oracle steps (plan/format.py)
    login: bool = True  # use the sites' WebArena login state
    template_id: int = 0  # filled by the writer: drafts of one template share it

    @property
    def intent(self) -> str:
        return self.template.format(**self.values)

    def config(self) -> dict[str, Any]:
        state = f"./.auth/{'.'.join(self.sites)}_state.json" if self.login else None
        return {"task_id": self.id, "sites": self.sites, "require_login": self.login,
                "storage_state": state, "start_url": self.start_url,
                "geolocation": None, "intent_template": self.template,
                "instantiation_dict": self.values, "intent": self.intent,
                "require_reset": True, "eval": self.eval,
                "intent_template_id": self.template_id}


# -- eval blocks ------------------------------------------------------------------------

def exact(answer: Any) -> dict[str, Any]:
    return {"eval_types": ["string_match"], "reference_answers": {"exact_match": str(answer)},
            "reference_url": "", "program_html": []}


def includes(*phrases: Any) -> dict[str, Any]:
    return {"eval_types": ["string_match"],
            "reference_answers": {"must_include": [str(p) for p in phrases]},
            "reference_url": "", "program_html": []}


def fuzzy(reference: str, *fallback: str) -> dict[str, Any]:
    """Judged by a model in WebArena's way; ``fallback`` (must_include) keeps the score
    deterministic where no judge is used (the arena suite)."""
    return {"eval_types": ["string_match"],
            "reference_answers": {"fuzzy_match": [reference],
                                  "must_include": list(fallback)},
            "reference_url": "", "program_html": []}


def url(reference: str) -> dict[str, Any]:
    return {"eval_types": ["url_match"], "reference_answers": None,
            "reference_url": reference, "url_note": "GOLD in PRED", "program_html": []}


def html(page: str, locator: str, *required: str) -> dict[str, Any]:
    return {"eval_types": ["program_html"], "reference_answers": None, "reference_url": "",
            "program_html": [{"url": page, "locator": locator,
                              "required_contents": {"must_include": list(required)}}]}


def db(site: str, query: str, rows: list[list[Any]], ordered: bool = False) -> dict[str, Any]:
    return {"eval_types": ["db_match"], "reference_answers": None, "reference_url": "",
            "program_html": [],
            "db_match": [{"site": site, "query": " ".join(query.split()), "expected": rows,
                          **({"ordered": True} if ordered else {})}]}


def both(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """Two eval blocks in one (all must pass): e.g. db_match and program_html."""
    out = dict(first)
    out["eval_types"] = first["eval_types"] + second["eval_types"]
    for key in ("program_html", "db_match"):
        if second.get(key):
            out[key] = list(first.get(key) or []) + second[key]
    return out


# -- reading the snapshot ------------------------------------------------------------------

@dataclass
class Snapshot:
    """Read-only SQL on one app's built snapshot."""

    path: Path
    _con: sqlite3.Connection | None = field(default=None, repr=False)

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        if self._con is None:
            self._con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        return self._con.execute(sql, params).fetchall()

    def one(self, sql: str, *params: Any) -> Any:
        found = self.rows(sql, *params)
        if len(found) != 1 or len(found[0]) != 1:
            raise ValueError(f"expected one value from {sql!r}, got {found[:3]}")
        return found[0][0]

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


def base(site: str) -> str:
    return SITES[site].placeholder
