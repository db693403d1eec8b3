"""Findings become proposed tips: each surprising transition goes into the review
queue that ``colorbrowser review`` walks, marked as coming from exploration, so the
tip a person writes for it is stored with source ``exploration``."""

from __future__ import annotations

from pathlib import Path

from colorbrowser.explore.graph import Finding
from colorbrowser.explore.urls import host_of
from colorbrowser.knowledge.review_queue import EXPLORATION, QueueItem
from colorbrowser.knowledge.store import KnowledgeBase

WORTH_A_TIP = ("mismatch", "unpredicted")


def propose(findings: list[Finding]) -> list[Finding]:
    """One finding per page kind and kind of surprise: the first one seen."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for f in findings:
        if f.kind not in WORTH_A_TIP:
            continue
        key = (f.node, f.kind, f.text.split(":", 1)[0])
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def queue_findings(kb_path: Path, findings: list[Finding], folder: Path) -> int:
    chosen = propose(findings)
    with KnowledgeBase.open(kb_path, embeddings=False) as kb:
        known = {(i.url, i.summary) for i in kb.queue_list(None) if i.reason.startswith(
            EXPLORATION)}
        added = 0
        for f in chosen:
            if (f.url, f.text) in known:
                continue  # a resumed run does not queue the same finding twice
            kb.queue_add(QueueItem(
                site=host_of(f.url), url=f.url, goal="(exploration)",
                reason=f"{EXPLORATION} {f.kind}", summary=f.text, last_actions=[f.action],
                screenshot_path=str(folder / f.screenshot) if f.screenshot else None,
                run_dir=str(folder)))
            added += 1
    return added
