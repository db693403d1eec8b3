"""The copilot study's figures: each task's outcome, CowPilot's collaboration table per
agent and pass, and how the person's interventions change from the first pass."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from copilot_agents import AGENTS


@dataclass
class Outcome:
    agent: str
    knowledge: str
    task: str
    metrics: dict[str, Any]
    seconds: float
    notes: list[str]



def rows(outcomes: list[Outcome]):
    from colorbrowser.evaluation.collaboration import collaboration
    from colorbrowser.evaluation.records import EpisodeRecord

    records = [EpisodeRecord(task=o.task, variant=f"{o.agent} knowledge={o.knowledge}",
                             config_hash="copilot-study", success=o.metrics["outcome"] == "success",
                             info={"copilot": o.metrics}) for o in outcomes]
    return collaboration(Path("."), records)


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [f"{'agent':<8} {'knowledge':<9} {'tasks':>5} {'success':>8} {'agent st':>8} "
             f"{'human st':>8} {'human share':>11} {'interv.':>7} {'agent-driven':>12}"]
    order = {name: i for i, name in enumerate(AGENTS)}
    found = sorted(rows(outcomes), key=lambda r: (order.get(r.variant.split()[0], 9),
                                                  r.variant.split()[1]))
    for r in found:
        agent, knowledge = r.variant.split()
        lines.append(f"{agent:<8} {knowledge.split('=')[1]:<9} {r.episodes:>5} "
                     f"{r.success:>8.0%} {r.agent_steps:>8.1f} {r.human_steps:>8.1f} "
                     f"{r.human_share:>11.0%} {r.interventions:>7.2f} {r.agent_driven:>12.0%}")
    return lines


SECOND = {"on": "tips", "workflows": "workflows"}  # second passes and what they add


def change_lines(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for agent in AGENTS:
        before = [o for o in outcomes if o.agent == agent and o.knowledge == "off"]
        for second, label in SECOND.items():
            after = {o.task: o for o in outcomes if o.agent == agent and o.knowledge == second}
            pairs = [(b, after[b.task]) for b in before if b.task in after]
            if not pairs:
                continue
            a = sum(b.metrics["interventions"] for b, _ in pairs)
            z = sum(n.metrics["interventions"] for _, n in pairs)
            fewer = sum(n.metrics["interventions"] < b.metrics["interventions"]
                        for b, n in pairs)
            more = sum(n.metrics["interventions"] > b.metrics["interventions"]
                       for b, n in pairs)
            ran = sum(1 for _, n in pairs if n.metrics.get("workflow"))
            by = f", {ran} run by a workflow" if second == "workflows" else ""
            lines.append(f"{agent} with {label}: interventions {a} -> {z} over {len(pairs)} "
                         f"tasks ({fewer} tasks fewer, {more} more{by})")
    return lines


def corrected_line(outcomes: list[Outcome]) -> str | None:
    """Interventions on the tasks the person corrected in the first pass (and that then
    succeeded, so a workflow could be kept): first pass, then each second pass."""
    first = {(o.agent, o.task): o for o in outcomes if o.knowledge == "off"
             and o.metrics["interventions"] and o.metrics["outcome"] == "success"}
    if not first:
        return None
    parts = [f"first pass {sum(o.metrics['interventions'] for o in first.values())}"]
    for second, label in SECOND.items():
        again = [o for o in outcomes if o.knowledge == second and (o.agent, o.task) in first]
        if len(again) == len(first):
            parts.append(f"second pass with {label} "
                         f"{sum(o.metrics['interventions'] for o in again)}")
    return (f"corrected tasks ({len(first)}, all agents): interventions " + ", ".join(parts))

