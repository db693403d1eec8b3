"""``report`` over a study of copilot runs: the collaboration figures per variant, read
from each run's result.json (CowPilot's metrics)."""

from __future__ import annotations

import json

from colorbrowser.copilot.metrics import measure
from colorbrowser.evaluation.records import EpisodeRecord
from colorbrowser.steps import GateNote, Step
from colorbrowser.testing import run_cli


def steps(*who):
    """Steps by actor; 'x' is a proposal handed over (not run)."""
    out = []
    for n, actor in enumerate(who, 1):
        if actor == "x":
            out.append(Step(step=n, executed=False, gate=[GateNote(verdict="handover")]))
        else:
            out.append(Step(step=n, actor=actor))
    return out


def test_metrics_count_steps_by_actor_interventions_and_who_finished():
    m = measure(steps("agent", "x", "person", "person", "agent"), "done")
    assert (m.outcome, m.agent_steps, m.human_steps, m.total_steps, m.interventions,
            m.agent_driven) == ("success", 2, 2, 4, 1, True)
    m = measure(steps("agent", "x", "person"), "step_limit", override="success")
    assert (m.outcome, m.outcome_by, m.agent_driven) == ("success", "person", False)


def test_report_aggregates_the_collaboration_of_copilot_runs(tmp_path, capsys):
    study = tmp_path / "study"
    runs = [measure(steps("agent", "agent"), "done"),
            measure(steps("agent", "x", "person", "person"), "step_limit")]
    study.mkdir()
    with open(study / "results.jsonl", "w") as fh:
        for n, metrics in enumerate(runs):
            run = study / "runs" / f"r{n}"
            run.mkdir(parents=True)
            (run / "result.json").write_text(json.dumps({"status": "x",
                                                         "copilot": metrics.model_dump()}))
            record = EpisodeRecord(task=f"t{n}", config_hash="h", success=n == 0,
                                   status="done", trajectory=f"runs/r{n}")
            fh.write(record.model_dump_json() + "\n")
    assert run_cli("report", str(study), "--no-thumbnails") == 0
    md = (study / "report.md").read_text()
    assert "| default | 2 | 50% | 1.5 | 1.0 | 2.5 | 40% | 0.5 | 50% |" in md
    assert "collaboration (copilot runs)" in capsys.readouterr().out
