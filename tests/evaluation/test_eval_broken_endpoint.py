"""`eval` against an endpoint that answers HTTP 200 with a broken or hostile body: each
episode is recorded, as a model error or as the reply it carried, and no worker or
coordinator ends in a traceback."""

from __future__ import annotations

from colorbrowser.testing import user_text
from tests.evaluation.runner_helpers import by_task, eval_cli, write
from tests.llm.hostile_bodies import HANDLED, MODEL_ERRORS, hostile_stop
from tests.llm.llm_fake_server import Recorded, fake_endpoint


def task_id(shape: str) -> str:
    return shape.replace(" ", "-")


def reply_in_the_shape_the_goal_names(request: Recorded):
    """Scripted model reply: stop('finished'), sent in the shape the task's goal names."""
    text = user_text(request.body["messages"])
    shape = next(s for s in MODEL_ERRORS + HANDLED if f"Answer in shape {s}." in text)
    return hostile_stop(shape)


def test_every_broken_reply_is_recorded_and_no_process_crashes(tmp_path, bench_url):
    shapes = MODEL_ERRORS + HANDLED
    tasks = write(tmp_path / "tasks.yaml", "tasks:\n" + "".join(
        f"- id: {task_id(shape)}\n"
        f"  goal: Answer in shape {shape}.\n"
        f"  start_url: {bench_url}/start.html\n"
        f"  eval: {{reference_answers: {{must_include: [finished]}}}}\n" for shape in shapes))
    study = tmp_path / "study"
    with fake_endpoint([reply_in_the_shape_the_goal_names] * 20) as ep:
        proc = eval_cli(str(tasks), "--base-url", ep.url, "--model", "m", "--memory", "none",
                        "--knowledge", "off", "--max-steps", "3", "--out", str(study),
                        cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    logs = list((study / "logs").glob("*.log")) if (study / "logs").exists() else []
    assert not any("Traceback" in log.read_text(errors="replace") for log in logs)
    found = by_task(study)
    assert sorted(found) == sorted(task_id(s) for s in shapes)
    for shape in MODEL_ERRORS:
        record = found[task_id(shape)]
        assert record.error_class == "model", record
        assert record.error.startswith("ModelError: model endpoint http://127.0.0.1:")
        assert "\n" not in record.error
    for shape in HANDLED:
        record = found[task_id(shape)]
        assert record.error_class is None and record.success, record
