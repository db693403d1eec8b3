"""Tasks synthesised from an exploration's graph, in WebArena's JSON format, each with
an oracle plan (the recorded path) and an evaluator taken from what was observed:

- single-step: one link or form from the start page, reverse-generated ("open the page of X"),
  checked by ``url_match`` against the address it reached;
- multi-step: a stored path through the graph to a page, also ``url_match``;
- page questions: a label/value pair or a table cell a page showed, asked about by the
  page's heading and answered word for word (``string_match``, ``must_include``).

A task is kept only when its proof holds on a fresh start (validate.py): the recorded
path scores 1, doing nothing scores 0 and an answer read off the start page scores 0.
Near-duplicates (the same intent or the same reference) are dropped first. Intents are
written from templates; a model role (roles.IntentWriter) rewrites the kept ones when one
is configured, and its sentence is used only when it keeps every name the task needs.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Any

from colorbrowser.agent.trajectory import write_json_atomic
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.explore.graph import Graph, Node
from colorbrowser.explore.pagefacts import lasting
from colorbrowser.explore.plans import PlanStep, describe, stop_step
from colorbrowser.explore.proved import clear_proved, write_proved_run
from colorbrowser.explore.sandbox import Sandbox
from colorbrowser.explore.state import ExploreState
from colorbrowser.explore.urls import page_address, same_page, steady_url, url_template
from colorbrowser.explore.validate import Prover, SynthReport, fresh_start, save_tasks

MAX_PER_TEMPLATE = 3  # tasks that end on one kind of page, per kind of task
MAX_PATH = 6
MAX_PER_PAGE = 4  # page questions asked about one page
MAX_TASKS = 60  # proved per exploration by default; each proof takes a few seconds
_LABEL = re.compile(r"[^\W\d_]{2}")  # a label names something: two letters in a row
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
    where: str = ""  # the URL template of the page the task ends on
    start_url: str = ""  # where it starts, when not at the site's start page

    def webarena(self, task_id: str, site_start: str, template_id: int) -> dict[str, Any]:
        ev: dict[str, Any] = {"eval_types": ["url_match"] if self.reference_url else
                              ["string_match"],
                              "reference_answers": {"must_include": [self.answer]}
                              if self.answer else None,
                              "reference_url": self.reference_url, "program_html": []}
        return {"task_id": task_id, "sites": [], "require_login": False, "storage_state": None,
                "start_url": self.start_url or site_start, "geolocation": None,
                "intent_template": self.template,
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


@dataclass
class Route:
    """The shortest way found, by hand, from the start page to a state of a page."""

    url: str  # the address reached, as the browser showed it
    start: str = ""  # where it begins, when not at the site's start page
    plan: list[PlanStep] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # what each step clicks
    via: list[str] = field(default_factory=list)  # the address each step is taken on
    loads: list[int] = field(default_factory=list)  # the steps that opened another page


def routes(graph: Graph) -> dict[str, Route]:
    """The shortest path of recorded actions that wrote nothing from the start page to
    each address (keyed by ``page_address``), breadth-first over states (an address
    and a node: a toggle that uncovers a link is a step). Edges taken while no write
    was in effect come first. A link that led somewhere other than its own address is
    no step: a redirect such as a wiki's "Random page" need not lead there again.
    Addresses no such path reaches may still be reached from a page whose address was
    proved to show its state (a hop by address landed on it): those routes start
    there, as a WebArena task may start on any page."""
    State = tuple[str, str]
    ways: dict[State, list[tuple[State, str, PlanStep, str, bool]]] = {}
    for edge in sorted(graph.edges, key=lambda e: e.after_write):
        o = edge.outcome
        if (edge.writes or o.get("error") or o.get("new_tab") or not isinstance(edge.plan, dict)
                or not edge.source_url or not o.get("url")
                or (edge.verdict or {}).get("checks", {}).get("url") is False):
            continue
        source, dest = (page_address(edge.source_url), edge.source), \
            (page_address(o["url"]), edge.dest)
        if source != dest:
            ways.setdefault(source, []).append(
                (dest, o["url"], edge.plan, _name(edge.plan),
                 bool(o.get("navigated")) and edge.kind in ("link", "submit")))
    found: dict[State, Route] = {}
    by_address: dict[str, Route] = {}

    def spread(roots: list[Node], start: bool) -> None:
        queue: deque[State] = deque()
        for node in roots:
            state = (page_address(node.url), node.key)
            if state not in found and page_address(node.url) not in by_address:
                url = node.url.split("#", 1)[0]
                found[state] = Route(url, "" if start else url)
                queue.append(state)
        while queue:
            state = queue.popleft()
            here = found[state]
            by_address.setdefault(state[0], here)
            if len(here.plan) >= MAX_PATH:
                continue
            for dest, url, plan, label, loads in ways.get(state, []):
                if dest not in found:
                    step = len(here.plan)
                    found[dest] = Route(url.split("#", 1)[0], here.start, [*here.plan, plan],
                                        [*here.labels, label], [*here.via, here.url],
                                        [*here.loads, step] if loads else list(here.loads))
                    queue.append(dest)

    spread([n for n in graph.nodes.values() if not n.path], start=True)
    spread(sorted((n for n in graph.nodes.values() if n.url_reproduces and not n.after_write),
                  key=lambda n: n.first_step), start=False)
    return by_address


def _facts(graph: Graph) -> dict[str, dict[str, Any]]:
    """What each address showed (heading, title, pairs, tables), by ``page_address``:
    the pages kept during the exploration, then the nodes not reached through a write."""
    out: dict[str, dict[str, Any]] = {}
    for url, facts in graph.pages.items():
        out.setdefault(page_address(url), {**facts, "url": url})
    for node in graph.nodes.values():
        if not node.after_write:
            out.setdefault(page_address(node.url), {
                "h1": node.h1, "title": node.title, "pairs": node.pairs,
                "tables": node.tables, "url": node.url})
    return out


def _page_name(facts: dict[str, Any] | None, url: str) -> str:
    """Its heading or title; else its address, which a person can follow (a template's
    placeholders could not be)."""
    facts = facts or {}
    return facts.get("h1") or facts.get("title") or url.split("://", 1)[-1].split("#", 1)[0]


def _open_tasks(graph: Graph, found: dict[str, Route],
                facts: dict[str, dict[str, Any]]) -> list[SynthTask]:
    """One task per address reached by clicks: single-step when one page load gets
    there from the start page, multi-step ("go to the page X, then open Y") otherwise."""
    tasks = []
    for route in sorted(found.values(), key=lambda r: (bool(r.start), len(r.plan))):
        if (not route.loads or route.loads[-1] != len(route.plan) - 1
                or not route.labels[-1] or same_page(route.url, graph.start_url)):
            continue  # the last step must open the page, by a link or form with a name
        where, reference = url_template(route.url), steady_url(route.url)
        if len(route.loads) == 1:
            values = {"label": route.labels[-1]}
            tasks.append(SynthTask("single", SINGLE.format(**values), SINGLE, values,
                                   list(route.plan), reference_url=reference, where=where,
                                   start_url=route.start))
        else:
            via = route.via[-1]
            values = {"via": _page_name(facts.get(page_address(via)), via),
                      "label": route.labels[-1]}
            tasks.append(SynthTask("multi", MULTI.format(**values), MULTI, values,
                                   list(route.plan), reference_url=reference, where=where,
                                   start_url=route.start))
    return tasks


def _question_tasks(graph: Graph, found: dict[str, Route],
                    facts: dict[str, dict[str, Any]]) -> list[SynthTask]:
    """Questions about what a page reached by clicks shows, answered word for word."""
    tasks = []
    pages = [(found[key], page) for key, page in facts.items() if key in found]
    for route, page in sorted(pages, key=lambda rp: (bool(rp[0].start), len(rp[0].plan))):
        h1 = page.get("h1") or ""
        if not h1:
            continue
        where = url_template(route.url)
        first = len(tasks)
        for pair in page.get("pairs") or []:
            label, value = pair["label"], lasting(pair["value"])
            # a line number beside a line of code (a diff, a source view) is no label
            if (value is None or not _LABEL.search(label) or not re.search(r"\w", value)
                    or value.lower() in h1.lower()):
                continue
            values = {"label": label, "page": h1}
            tasks.append(SynthTask(
                "question", PAIR.format(**values), PAIR, values,
                [*route.plan, stop_step(value)], answer=value,
                check={"h1": h1, "label": label, "value": value}, where=where,
                start_url=route.start))
        for table in page.get("tables") or []:
            heads = table.get("heads") or []
            for row in (table.get("rows") or [])[:3]:
                if len(row) != len(heads) or not row[0]:
                    continue
                for col in range(1, min(len(heads), 4)):
                    cell = lasting(row[col] or "")
                    if (not cell or not _LABEL.search(heads[col]) or cell == row[0]
                            or not _LABEL.search(heads[0])):
                        continue
                    values = {"page": h1, "column": heads[col], "key": heads[0], "row": row[0]}
                    tasks.append(SynthTask(
                        "question", CELL.format(**values), CELL, values,
                        [*route.plan, stop_step(cell)], answer=cell,
                        check={"h1": h1, "cell": [heads[0], row[0], heads[col], cell]},
                        where=where, start_url=route.start))
        del tasks[first + MAX_PER_PAGE:]
    return tasks


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w ]+", " ", text.lower()).split())


def deduplicate(tasks: list[SynthTask]) -> tuple[list[SynthTask], int]:
    """Drop tasks whose intent or reference repeats an earlier one, and keep at most a
    few of one kind that end on one kind of page (asking about one label or column)."""
    seen: set[str] = set()
    per_kind: dict[tuple[str, ...], int] = {}
    kept = []
    for task in tasks:
        ref = task.reference_url or f"{task.check.get('h1')}|{task.answer}"
        asked = task.check.get("label") or (task.check.get("cell") or ["", "", ""])[2]
        group = (task.kind, task.where or url_template(task.reference_url), asked or "")
        keys = {"i:" + _norm(task.intent), "r:" + _norm(ref)}
        if keys & seen or per_kind.get(group, 0) >= MAX_PER_TEMPLATE:
            continue
        seen |= keys
        per_kind[group] = per_kind.get(group, 0) + 1
        kept.append(task)
    return kept, len(tasks) - len(kept)


def propose(graph: Graph, limit: int = MAX_TASKS) -> tuple[list[SynthTask], int, int]:
    """(unique tasks, how many were proposed, how many were near-duplicates). At most
    ``limit`` are kept, taken in turn from each kind of task so that a page with many
    questions does not crowd out the rest (each costs a proof)."""
    found, facts = routes(graph), _facts(graph)
    tasks = _open_tasks(graph, found, facts) + _question_tasks(graph, found, facts)
    unique, dups = deduplicate(tasks)
    kinds: dict[str, list[SynthTask]] = {}
    for task in unique:
        kinds.setdefault(task.kind, []).append(task)
    taken = [t for group in zip_longest(*kinds.values()) for t in group if t is not None]
    return taken[:limit], len(tasks), dups


def prover_for(env: BrowserEnv, sandbox: Sandbox | None,
               cookies: list[dict[str, Any]] | None = None) -> Prover:
    """A prover whose fresh start restores the site and signs in again (the cookies)."""
    base = fresh_start(env, sandbox)

    def fresh() -> None:
        base()
        if cookies:
            env.session.context.add_cookies(cookies)  # type: ignore[arg-type]

    return Prover(env, fresh)


def synthesise_and_validate(state: ExploreState, out: Path, env: BrowserEnv,
                            sandbox: Sandbox | None, *, cookies: list[dict[str, Any]] | None = None,
                            writer: Callable[[SynthTask], str | None] | None = None,
                            say: Callable[[str], None] = print,
                            limit: int = MAX_TASKS) -> SynthReport:
    """Propose, de-duplicate, prove each task on a fresh start, and save the kept ones
    (tasks.json in WebArena's format, tasks.oracle.yaml with their plans)."""
    unique, proposed, dups = propose(state.graph, limit)
    report = SynthReport(proposed=proposed, duplicates=dups,
                         over=proposed - dups - len(unique))
    prover = prover_for(env, sandbox, cookies)
    kept: list[dict[str, Any]] = []
    plans: dict[str, list[Any]] = {}
    clear_proved(out)
    rejected: list[dict[str, Any]] = []
    slug = re.sub(r"[^a-z0-9]+", "-", url_template(state.start_url).lower()).strip("-")[:30]
    for i, task in enumerate(unique):
        task_id = f"explore-{slug}-{task.kind}-{i}"
        entry = task.webarena(task_id, state.start_url, 9000 + TEMPLATE_IDS[task.template])
        proof = prover.prove(entry, task.plan)
        report.proofs.append(proof)
        if proof.ok:
            written = writer(task) if writer is not None else None
            if written:
                entry["intent"] = written
                entry["synthesised"]["intent_by"] = "model"
            kept.append(entry)
            plans[task_id] = task.plan
            report.runs.append(write_proved_run(out, entry, prover.walked, proof))
        else:
            rejected.append({"task": entry, "plan": task.plan, "proof": proof.__dict__})
    report.kept = len(kept)
    report.failed = len(unique) - len(kept)
    save_tasks(out, kept, plans)
    write_json_atomic(out / "tasks.rejected.json", rejected)
    return report
