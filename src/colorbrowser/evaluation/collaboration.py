"""CowPilot's collaboration figures over a study: per variant, from each episode's
``result.json`` (the ``copilot`` block a copilot run writes) or from the record's own
``info["copilot"]``. Episodes without them (autonomous runs) are left out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colorbrowser.datafile import DataFileError, parse_json
from colorbrowser.evaluation.records import EpisodeRecord


@dataclass
class CollaborationRow:
    variant: str
    episodes: int
    success: float  # share with outcome success (the person's override counts)
    agent_steps: float  # means per episode
    human_steps: float
    total_steps: float
    human_share: float  # human steps / all steps, over the whole group
    interventions: float
    agent_driven: float  # share of episodes whose last step was the agent's


def _metrics(study: Path, record: EpisodeRecord) -> dict[str, Any] | None:
    found = record.info.get("copilot") if isinstance(record.info, dict) else None
    if isinstance(found, dict):
        return found
    if not record.trajectory:
        return None
    path = (study / record.trajectory / "result.json").resolve()
    if not path.is_relative_to(study.resolve()) or not path.is_file():
        return None
    try:
        found = parse_json(path.read_bytes(), str(path)).get("copilot")
    except (OSError, DataFileError, AttributeError):
        return None
    return found if isinstance(found, dict) else None


def collaboration(study: Path, records: list[EpisodeRecord]) -> list[CollaborationRow]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        metrics = _metrics(study, record)
        if metrics is not None:
            groups.setdefault(record.variant, []).append(metrics)
    rows = []
    for variant, items in sorted(groups.items()):
        n = len(items)

        def mean(key: str, items: list[dict[str, Any]] = items, n: int = n) -> float:
            return sum(float(m.get(key) or 0) for m in items) / n

        total = sum(float(m.get("total_steps") or 0) for m in items)
        human = sum(float(m.get("human_steps") or 0) for m in items)
        rows.append(CollaborationRow(
            variant=variant, episodes=n,
            success=sum(m.get("outcome") == "success" for m in items) / n,
            agent_steps=mean("agent_steps"), human_steps=mean("human_steps"),
            total_steps=mean("total_steps"), human_share=human / total if total else 0.0,
            interventions=mean("interventions"),
            agent_driven=sum(bool(m.get("agent_driven")) for m in items) / n))
    return rows


def markdown(rows: list[CollaborationRow]) -> str:
    if not rows:
        return ""
    lines = ["", "## Collaboration (copilot runs)", "",
             "| variant | episodes | success | agent steps | human steps | total | "
             "human share | interventions | agent-driven |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r.variant} | {r.episodes} | {r.success:.0%} | {r.agent_steps:.1f} | "
                     f"{r.human_steps:.1f} | {r.total_steps:.1f} | {r.human_share:.0%} | "
                     f"{r.interventions:.1f} | {r.agent_driven:.0%} |")
    return "\n".join(lines) + "\n"
