"""A damaged run folder is refused with one line and exit code 2, never a traceback:
files that parse as JSON but hold the wrong shape included."""

from __future__ import annotations

import json

import pytest

from colorbrowser.agent import checkpoint
from colorbrowser.agent.state import EpisodeState
from colorbrowser.cli import main
from colorbrowser.errors import UserError


def _run_folder(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "meta.json").write_text(json.dumps({"goal": "find it", "start_url": "http://x/"}))
    step = {"step": 1, "action": "click('3')"}
    (run / "steps.jsonl").write_text(json.dumps(step) + "\n")
    state = EpisodeState(goal="find it", start_url="http://x/", step=1)
    (run / "checkpoints" / "0001.json").write_text(json.dumps({"state": state.to_json()}))
    return run


def test_an_intact_folder_loads(tmp_path):
    point = checkpoint.load(_run_folder(tmp_path))
    assert point.state.step == 1 and point.state.goal == "find it"


@pytest.mark.parametrize("name, text", [
    ("checkpoints/0001.json", "[1, 2]"),
    ("checkpoints/0001.json", "{}"),
    ("checkpoints/0001.json", '{"state": {"goal": 3, "step": 1}}'),
    ("checkpoints/0001.json", '{"state": {"goal": "g", "step": 7}}'),
    ("checkpoints/0001.json", '{"state": {"goal": "g", "step": 1, "bogus": 1}}'),
    ("checkpoints/0001.json", '{"state": {"goal": "g", "step": 1, "history": [5]}}'),
    ("checkpoints/0001.json", '{"state": {"goal": "g", "step": 1}, "memory": [1]}'),
    ("meta.json", "[]"),
    ("pending.json", '"x"'),
])
def test_wrong_shapes_are_user_errors(tmp_path, capsys, name, text):
    run = _run_folder(tmp_path)
    (run / name).write_text(text)
    with pytest.raises(UserError, match="damaged"):
        checkpoint.load(run)
    with pytest.raises(SystemExit) as exit_info:
        main(["resume", str(run)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "damaged" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_run_with_no_step_needs_a_goal_in_meta(tmp_path):
    run = _run_folder(tmp_path)
    (run / "steps.jsonl").write_text("")
    (run / "meta.json").write_text("{}")
    with pytest.raises(UserError, match="goal is missing"):
        checkpoint.load(run)
