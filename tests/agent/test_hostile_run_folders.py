"""A run folder may come from someone else: resuming or learning from it never writes
outside it, never loses a step it holds, and a line that is no UTF-8 is one line
skipped, not a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import threading

import pytest

from colorbrowser.agent import checkpoint
from colorbrowser.agent.state import EpisodeState
from colorbrowser.agent.trajectory import load_steps, lock_run_dir
from colorbrowser.cli import main
from colorbrowser.errors import UserError


def _run_folder(tmp_path, steps=1):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "meta.json").write_text(json.dumps({"goal": "find it", "start_url": "http://x/"}))
    lines = [json.dumps({"step": n, "action": f"scroll(0, {n})"}) for n in range(1, steps + 1)]
    (run / "steps.jsonl").write_text("".join(line + "\n" for line in lines))
    state = EpisodeState(goal="find it", start_url="http://x/", step=steps)
    (run / "checkpoints" / f"{steps:04d}.json").write_text(json.dumps({"state": state.to_json()}))
    return run


def _one_error_line(capsys, args):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    return err


def test_resume_never_trims_a_file_a_link_in_the_folder_points_to(tmp_path, capsys):
    precious = tmp_path / "notes.txt"
    precious.write_text("line one\nline two\n")
    run = _run_folder(tmp_path)
    (run / "steps.jsonl").unlink()
    os.symlink(precious, run / "steps.jsonl")
    with pytest.raises(UserError, match="symbolic link"):
        checkpoint.load(run)
    assert precious.read_text() == "line one\nline two\n"
    assert "symbolic link" in _one_error_line(capsys, ["resume", str(run)])
    assert precious.read_text() == "line one\nline two\n"


@pytest.mark.parametrize("name", ["screenshots", "checkpoints"])
def test_resume_never_writes_into_a_folder_a_link_points_to(tmp_path, capsys, name):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = _run_folder(tmp_path)
    if (run / name).exists():
        (run / "checkpoints" / "0001.json").rename(elsewhere / "0001.json")
        (run / name).rmdir()
    os.symlink(elsewhere, run / name)
    with pytest.raises(UserError, match="symbolic link"):
        checkpoint.load(run)
    assert "symbolic link" in _one_error_line(capsys, ["resume", str(run)])
    assert sorted(p.name for p in elsewhere.iterdir()) == (
        ["0001.json"] if name == "checkpoints" else [])


def test_resume_refuses_a_pipe_where_its_lock_belongs(tmp_path):
    run = _run_folder(tmp_path)
    os.mkfifo(run / ".lock")  # opening it to lock would block for ever
    outcome: list[BaseException | None] = []

    def lock() -> None:
        try:
            with contextlib.ExitStack() as stack:
                lock_run_dir(run, stack)
            outcome.append(None)
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=lock, daemon=True)
    worker.start()
    worker.join(30)
    assert outcome and isinstance(outcome[0], UserError), "locking blocked or passed"
    assert "not a file" in str(outcome[0])


def test_a_line_that_is_no_step_never_costs_a_step_that_follows(tmp_path):
    run = _run_folder(tmp_path, steps=2)
    lines = (run / "steps.jsonl").read_text().splitlines(keepends=True)
    (run / "steps.jsonl").write_text(lines[0] + "[1]\n" + lines[1] + '{"step": 3, "act')
    point = checkpoint.load(run)
    assert point.state.step == 2
    assert [s.action for s in load_steps(run)] == ["scroll(0, 1)", "scroll(0, 2)"]
    assert (run / "steps.jsonl").read_text().endswith('"scroll(0, 2)"}\n')


def test_a_folder_that_cannot_resume_is_left_as_it_was(tmp_path):
    run = _run_folder(tmp_path, steps=2)
    before = (run / "steps.jsonl").read_text() + '{"step": 3, "act'
    (run / "steps.jsonl").write_text(before)
    (run / "checkpoints" / "0002.json").unlink()
    with pytest.raises(UserError, match="no checkpoint for step 2"):
        checkpoint.load(run)
    assert (run / "steps.jsonl").read_text() == before


def test_a_line_that_is_not_utf8_is_skipped_not_a_traceback(tmp_path):
    run = _run_folder(tmp_path, steps=1)
    with open(run / "steps.jsonl", "ab") as fh:
        fh.write(b'{"step": 2, "url": "\xff\xfe"}\n')
    assert [s.action for s in load_steps(run)] == ["scroll(0, 1)"]
    assert checkpoint.load(run).state.step == 1


def test_entries_that_are_not_the_runs_own_are_left_alone(tmp_path):
    """A folder given with --out may hold other things (a link to a data folder): only
    the run's own files and subfolders must be its own."""
    run = _run_folder(tmp_path)
    os.symlink(tmp_path, run / "data")
    assert checkpoint.load(run).state.step == 1
