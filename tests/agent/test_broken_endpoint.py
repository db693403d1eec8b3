"""`run` and `resume` against an endpoint that answers HTTP 200 with a broken or
hostile body: the run ends as a recorded model error (exit 1, one-line error in
result.json) or reads the reply and finishes, and never ends in a traceback."""

from __future__ import annotations

import json
import shutil

import pytest

from colorbrowser.agent.trajectory import read_steps
from colorbrowser.cli import main
from colorbrowser.testing import act
from tests.evaluation.runner_helpers import run_main
from tests.llm.hostile_bodies import HANDLED, MODEL_ERRORS, answer_read, hostile_stop
from tests.llm.llm_fake_server import error, fake_endpoint, ok


def run_args(url: str, endpoint: str, out) -> list[str]:
    return ["run", "look around", "--url", url, "--base-url", endpoint, "--model", "m",
            "--memory", "none", "--knowledge", "off", "--max-steps", "4", "--verify", "off",
            "--out", str(out)]


def assert_recorded(shape: str, code: int, err: str, run_dir, steps_before: int) -> None:
    """A body with no reply ends the run as a model error; a readable one finishes it."""
    assert "Traceback" not in err, err
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    if shape in MODEL_ERRORS:
        assert code == 1 and result["status"] == "error", err
        assert result["steps"] == steps_before
        assert result["error"].startswith("ModelError: model endpoint http://127.0.0.1:")
        assert "\n" not in result["error"]
    else:
        assert code == 0 and result["status"] == "done", err
        assert result["answer"] == answer_read(shape)
        (run_dir / "steps.jsonl").read_text(encoding="utf-8")  # strict UTF-8


@pytest.fixture(scope="module")
def killed_after_one_step(tmp_path_factory, pages_url):
    """A run folder as SIGKILL leaves it after step 1 (no result.json), to resume.
    Scripted model replies: a scroll, then an HTTP 400 that ends the run."""
    run_dir = tmp_path_factory.mktemp("killed") / "run"
    script = [ok(act("scroll first", "scroll(0, 100)")), error(400, "scripted end")]
    with fake_endpoint(script) as ep, pytest.raises(SystemExit) as end:
        main(run_args(f"{pages_url}/agent/login.html", ep.url, run_dir))
    assert end.value.code == 1 and len(read_steps(run_dir)) == 1
    (run_dir / "result.json").unlink()
    return run_dir


@pytest.mark.parametrize("shape", MODEL_ERRORS + HANDLED)
def test_run_meets_each_broken_reply_without_a_traceback(tmp_path, capsys, pages_url, shape):
    run_dir = tmp_path / "run"
    with fake_endpoint([hostile_stop(shape)]) as ep:
        code, _, err = run_main(capsys, *run_args(f"{pages_url}/agent/login.html", ep.url,
                                                  run_dir))
    assert_recorded(shape, code, err, run_dir, steps_before=0)


@pytest.mark.parametrize("shape", MODEL_ERRORS + HANDLED)
def test_resume_meets_the_same_reply_without_a_traceback(tmp_path, capsys,
                                                         killed_after_one_step, shape):
    run_dir = tmp_path / "run"
    shutil.copytree(killed_after_one_step, run_dir)
    with fake_endpoint([hostile_stop(shape)]) as ep:
        code, _, err = run_main(capsys, "resume", str(run_dir), "--base-url", ep.url)
    assert_recorded(shape, code, err, run_dir, steps_before=1)
