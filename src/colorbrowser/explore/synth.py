"""Tasks synthesised from an exploration's graph, in WebArena's JSON format, each with
an oracle plan (the recorded path) and an evaluator taken from what was observed:

- single-step: one edge from the start page, reverse-generated ("open the page of X"),
  checked by ``url_match`` against the address it reached;
- multi-step: a stored path through the graph to a page, also ``url_match``;
- page questions: a label/value pair or a table cell a page showed, asked about by the
  page's heading and answered word for word (``string_match``, ``must_include``).

A task is kept only when its proof holds on a fresh start (validate.py): the recorded
path scores 1, doing nothing scores 0 and an answer read off the start page scores 0.
Near-duplicates (the same intent or the same reference) are dropped first. Intents are
written from templates; a model role could rewrite them, it is not needed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import write_json_atomic
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.explore.graph import Edge, Graph, Node
from colorbrowser.explore.plans import PlanStep, by_hand, describe, stop_step
from colorbrowser.explore.sandbox import Sandbox
from colorbrowser.explore.state import ExploreState
from colorbrowser.explore.urls import same_page, url_template
from colorbrowser.explore.validate import Prover, SynthReport, fresh_start, save_tasks

MAX_PER_TEMPLATE = 3  # tasks that end on one kind of page, per kind of task
MAX_PATH = 6
SINGLE = 'Open the page that the link "{label}" on the start page leads to.'
MULTI = 'Go to the page "{via}", then open "{label}" from there.'
PAIR = 'What is the {label} shown for "{page}"?'
CELL = 'On "{page}", what is the {column} of the row whose {key} is "{row}"?'
TEMPLATE_IDS = {SINGLE: 1, MULTI: 2, PAIR: 3, CELL: 4}


@dataclass
class SynthTask:
    """One proposed task: its WebArena entry and its oracle plan from the start page."""

    kind: str  # single, multi, question
    intent: str
    template: str  # intent_template
    values: dict[str, str]
    plan: list[PlanStep]
    reference_url: str = ""
    answer: str = ""
    check: dict[str, Any] = field(default_factory=dict)  # what the final page must show

    def webarena(self, task_id: str, start_url: str, template_id: int) -> dict[str, Any]:
        ev: dict[str, Any] = {"eval_types": ["url_match"] if self.reference_url else
                              ["string_match"],
                              "reference_answers": {"must_include": [self.answer]}
                              if self.answer else None,
                              "reference_url": self.reference_url, "program_html": []}
        return {"task_id": task_id, "sites": [], "require_login": False, "storage_state": None,
                "start_url": start_url, "geolocation": None, "intent_template": self.template,
                "instantiation_dict": self.values, "intent": self.intent,
                "require_reset": False, "eval": ev, "intent_template_id": template_id,
                "synthesised": {"kind": self.kind, "check": self.check,
                                "path": [describe(s) for s in self.plan]}}


def _name(plan: PlanStep) -> str:
    if isinstance(plan, dict):
        for value in plan.values():
            if isinstance(value, dict) and "name" in value:
                return " ".join(str(value["name"]).split())
    return ""


def _page_name(node: Node) -> str:
    return node.h1 or node.title or url_template(node.url)


def _navigations(graph: Graph) -> list[tuple[Edge, Node, Node]]:
    """Edges that led, without writing, from a known page to another page."""
    out = []
    for edge in graph.edges:
        src, dest = graph.nodes.get(edge.source), graph.nodes.get(edge.dest)
        o = edge.outcome
        if (src is None or dest is None or edge.writes or o.get("error") or not o.get("navigated")
                or src.after_write or dest.after_write or edge.kind not in ("link", "submit")
                or same_page(o.get("url", ""), graph.start_url)):
            continue
        out.append((edge, src, dest))
    return out


def _open_tasks(graph: Graph) -> list[SynthTask]:
    tasks = []
    for edge, src, _dest in _navigations(graph):
        label = _name(edge.plan)
        if not label or len(src.path) + 1 > MAX_PATH or not by_hand(src.path):
            continue
        plan = [*src.path, edge.plan]
        url = edge.outcome["url"].split("#", 1)[0]
        if not src.path:
            values = {"label": label}
            tasks.append(SynthTask("single", SINGLE.format(**values), SINGLE, values, plan,
                                   reference_url=url))
        else:
            values = {"via": _page_name(src), "label": label}
            tasks.append(SynthTask("multi", MULTI.format(**values), MULTI, values, plan,
                                   reference_url=url))
    return tasks


def _question_tasks(graph: Graph) -> list[SynthTask]:
    tasks = []
    for node in graph.nodes.values():
        if (node.after_write or not node.h1 or len(node.path) > MAX_PATH
                or not by_hand(node.path)):
            continue
        for pair in node.pairs:
            label, value = pair["label"], pair["value"]
            if not re.search(r"\w", value) or value.lower() in node.h1.lower():
                continue
            values = {"label": label, "page": node.h1}
            tasks.append(SynthTask(
                "question", PAIR.format(**values), PAIR, values,
                [*node.path, stop_step(value)], answer=value,
                check={"h1": node.h1, "label": label, "value": value}))
        for table in node.tables:
            heads = table.get("heads") or []
            for row in (table.get("rows") or [])[:3]:
                if len(row) != len(heads) or not row[0]:
                    continue
                for col in range(1, min(len(heads), 4)):
                    if not row[col] or not heads[col] or row[col] == row[0]:
                        continue
                    values = {"page": node.h1, "column": heads[col], "key": heads[0],
                              "row": row[0]}
                    tasks.append(SynthTask(
                        "question", CELL.format(**values), CELL, values,
                        [*node.path, stop_step(row[col])], answer=row[col],
                        check={"h1": node.h1, "cell": [heads[0], row[0], heads[col], row[col]]}))
    return tasks


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]+", " ", text.lower()).split())


def deduplicate(tasks: list[SynthTask]) -> tuple[list[SynthTask], int]:
    """Drop tasks whose intent or reference repeats an earlier one, and keep at most a
    few tasks of one kind ending on one kind of page."""
    seen: set[str] = set()
    per_kind: dict[tuple[str, str], int] = {}
    kept = []
    for task in tasks:
        ref = task.reference_url or f"{task.check.get('h1')}|{task.answer}"
        group = (task.kind, url_template(task.reference_url) if task.reference_url
                 else f"{task.check.get('label') or task.check.get('cell', [''])[0]}")
        keys = {"i:" + _norm(task.intent), "r:" + _norm(ref)}
        if keys & seen or per_kind.get(group, 0) >= MAX_PER_TEMPLATE:
            continue
        seen |= keys
        per_kind[group] = per_kind.get(group, 0) + 1
        kept.append(task)
    return kept, len(tasks) - len(kept)


def propose(graph: Graph) -> tuple[list[SynthTask], int, int]:
    """(unique tasks, how many were proposed, how many were near-duplicates)."""
    tasks = _open_tasks(graph) + _question_tasks(graph)
    unique, dups = deduplicate(tasks)
    return unique, len(tasks), dups


def synthesise_and_validate(state: ExploreState, out: Path, env: BrowserEnv,
                            sandbox: Sandbox | None, *, cookies: list[dict[str, Any]] | None = None,
                            say: Callable[[str], None] = print) -> SynthReport:
    """Propose, de-duplicate, prove each task on a fresh start, and save the kept ones
    (tasks.json in WebArena's format, tasks.oracle.yaml with their plans)."""
    unique, proposed, dups = propose(state.graph)
    report = SynthReport(proposed=proposed, duplicates=dups)
    base = fresh_start(env, sandbox)

    def fresh() -> None:
        base()
        if cookies:
            env.session.context.add_cookies(cookies)  # type: ignore[arg-type]

    prover = Prover(env, fresh)
    kept: list[dict[str, Any]] = []
    plans: dict[str, list[Any]] = {}
    rejected: list[dict[str, Any]] = []
    slug = re.sub(r"[^a-z0-9]+", "-", url_template(state.start_url).lower()).strip("-")[:30]
    for i, task in enumerate(unique):
        task_id = f"explore-{slug}-{task.kind}-{i}"
        entry = task.webarena(task_id, state.start_url, 9000 + TEMPLATE_IDS[task.template])
        proof = prover.prove(entry, task.plan)
        report.proofs.append(proof)
        if proof.ok:
            kept.append(entry)
            plans[task_id] = task.plan
        else:
            rejected.append({"task": entry, "plan": task.plan, "proof": proof.__dict__})
    report.kept = len(kept)
    report.failed = len(unique) - len(kept)
    save_tasks(out, kept, plans)
    write_json_atomic(out / "tasks.rejected.json", rejected)
    return report
