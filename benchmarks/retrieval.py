"""Retrieval quality of the knowledge cascade on a labelled set of (page, goal) cases.

Builds a temporary store from benchmarks/data/retrieval_cases.yaml, then measures
recall@3 and precision@3 for three configurations of the same cascade: URL patterns
only, URL + keywords (BM25), and the full cascade with embeddings. It also times one
search with and without the embedding stage. The last line printed is
``recall@3 <full cascade value>``. Cases marked ``holdout`` were written after the
scorer was last changed; their recall is shown in its own column.

    PYTHONPATH=src python benchmarks/retrieval.py [--cases FILE] [--k 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from colorbrowser.knowledge import KnowledgeBase, load_yaml

DATA = Path(__file__).parent / "data" / "retrieval_cases.yaml"
MODES = {
    "URL only": ("url",),
    "URL + keyword": ("url", "keyword"),
    "full cascade": ("url", "keyword", "embedding"),
}
TYPES = ("url", "keyword", "semantic")


def score_case(found: list[str], relevant: list[str], k: int) -> tuple[float, float]:
    hits = len(set(found[:k]) & set(relevant))
    return hits / len(relevant), hits / k


def evaluate(kb: KnowledgeBase, cases: list[dict], stages: tuple[str, ...], k: int,
             progress: Progress, label: str) -> dict[str, list[tuple[float, float]]]:
    per_type: dict[str, list[tuple[float, float]]] = {t: [] for t in ("all", *TYPES, "holdout")}
    task = progress.add_task(label, total=len(cases))
    for case in cases:
        found = [r.tip.id for r in kb.search(case["url"], case["goal"], k=k, stages=stages)]
        result = score_case(found, case["relevant"], k)
        per_type["all"].append(result)
        per_type[case["type"]].append(result)
        if case.get("holdout"):
            per_type["holdout"].append(result)
        progress.advance(task)
    return per_type


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def time_searches(kb: KnowledgeBase, cases: list[dict], stages: tuple[str, ...],
                  same_goal: bool = False) -> float:
    """Median milliseconds per search, after one warm-up pass. ``same_goal`` times the
    second search of a goal (the goal vector is cached, as on every step after the
    first in an episode); otherwise every goal is embedded afresh."""
    for case in cases[:5]:
        kb.search(case["url"], case["goal"], stages=stages)
    times = []
    for case in cases:
        kb.clear_goal_cache()
        if same_goal:
            kb.search(case["url"], case["goal"], stages=stages)
        started = time.perf_counter()
        kb.search(case["url"], case["goal"], stages=stages)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=DATA)
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args(argv)
    console = Console()
    if console.width < 120:  # logs and pipes: keep the table readable
        console = Console(width=120)

    data = yaml.safe_load(args.cases.read_text(encoding="utf-8"))
    tips = load_yaml(args.cases.read_text(encoding="utf-8"), str(args.cases))
    cases = data["cases"]
    sites = {t.site for t in tips}
    counts = ", ".join(f"{t} {sum(c['type'] == t for c in cases)}" for t in TYPES)
    console.print(f"{len(tips)} tips on {len(sites)} sites, {len(cases)} cases ({counts})")

    with tempfile.TemporaryDirectory() as tmp:
        kb = KnowledgeBase.open(Path(tmp) / "kb.db")
        kb.add_many(tips)
        if kb.embedder is None:
            console.print("[red]embedding model not installed: install colorbrowser[embed][/]")
            return 1
        started = time.perf_counter()
        kb.reindex()
        index_s = time.perf_counter() - started
        console.print(f"model load + embedding {len(tips)} tips: {index_s:.1f} s")

        results = {}
        with Progress(console=console, transient=True) as progress:
            for label, stages in MODES.items():
                results[label] = evaluate(kb, cases, stages, args.k, progress, label)
        no_embed_ms = time_searches(kb, cases, ("url", "keyword"))
        full_ms = time_searches(kb, cases, MODES["full cascade"])
        cached_ms = time_searches(kb, cases, MODES["full cascade"], same_goal=True)
        kb.close()

    k = args.k
    table = Table(title=f"Retrieval on {len(cases)} cases (k={k})")
    table.add_column("stages")
    table.add_column(f"recall@{k}", justify="right")
    table.add_column(f"precision@{k}", justify="right")
    for t in TYPES:
        table.add_column(f"recall@{k} {t} cases", justify="right")
    held_out = sum(bool(c.get("holdout")) for c in cases)
    table.add_column(f"recall@{k} {held_out} held-out cases", justify="right")
    for label, per_type in results.items():
        table.add_row(
            label,
            f"{mean([r for r, _ in per_type['all']]):.2f}",
            f"{mean([p for _, p in per_type['all']]):.2f}",
            *(f"{mean([r for r, _ in per_type[t]]):.2f}" for t in (*TYPES, "holdout")),
        )
    console.print(table)
    best_precision = mean([min(len(c["relevant"]), k) / k for c in cases])
    console.print(f"precision@{k} counts hits / {k}; with 1-2 relevant tips per case the "
                  f"ceiling is {best_precision:.2f}")
    timing = Table(title="Median time per search (warm, model loaded)")
    timing.add_column("configuration")
    timing.add_column("ms", justify="right")
    timing.add_row("URL + keyword (no embeddings)", f"{no_embed_ms:.2f}")
    timing.add_row("full cascade, new goal (goal embedded)", f"{full_ms:.2f}")
    timing.add_row("full cascade, same goal as last step (cached)", f"{cached_ms:.2f}")
    timing.add_row("ratio new goal / no embeddings", f"{full_ms / no_embed_ms:.1f}x")
    timing.add_row("ratio same goal / no embeddings", f"{cached_ms / no_embed_ms:.1f}x")
    console.print(timing)
    full = mean([r for r, _ in results["full cascade"]["all"]])
    print(f"recall@{k} {full:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
