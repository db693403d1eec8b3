"""``colorbrowser eval`` as a user runs it: real processes, real Chromium, MiniWoB++ pages
scored by their own JavaScript, and the replay agent (fixed action lists, no model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil
import pytest

from tests.evaluation.runner_helpers import (
    SOLUTIONS,
    SOLVED,
    WRONG,
    assert_one_line_error,
    bench_tasks,
    by_task,
    eval_cli,
    freeze_replay,
    records,
    study_meta,
    write,
)

RECORD_FIELDS = {"task", "seed", "reward", "success", "steps", "tokens", "cost", "wall_time",
                 "error_class", "trajectory", "config_hash", "variant", "status"}


@pytest.fixture
def solutions(tmp_path):
    return write(tmp_path / "solutions.yaml", SOLUTIONS)


def test_replay_agent_solves_seven_miniwob_tasks_with_two_workers(tmp_path, solutions):
    study = tmp_path / "study"
    proc = eval_cli("miniwob", "--tasks", SOLVED, "--replay", str(solutions),
                    "--workers", "2", "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = by_task(study)
    assert sorted(found) == sorted(f"miniwob:{t}" for t in SOLVED.split(","))
    for record in found.values():
        assert record.reward == 1.0 and record.success, record
        assert record.error_class is None and record.seed == 0
        assert set(record.model_dump()) >= RECORD_FIELDS
        assert (study / record.trajectory / "steps.jsonl").is_file()
        assert json.loads((study / record.trajectory / "validation.json").read_text())[
            "reward"] == 1.0
    # The page ends the episode on the answer: no step is spent after it.
    assert found["miniwob:click-button"].steps == 1
    assert found["miniwob:login-user"].steps == 3
    assert {r.worker for r in found.values()} == {"worker-1", "worker-2"}
    assert "success 7/7" in proc.stderr


def test_wrong_actions_score_zero_or_less(tmp_path):
    wrong = write(tmp_path / "wrong.yaml", WRONG)
    study = tmp_path / "study"
    proc = eval_cli("miniwob", "--tasks", "click-button,click-link,enter-text,"
                    "click-checkboxes,focus-text", "--replay", str(wrong),
                    "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = by_task(study)
    assert len(found) == 5
    for record in found.values():
        assert record.reward <= 0 and not record.success and record.error_class is None
    assert found["miniwob:click-button"].reward == -1.0  # a wrong answer, judged by the page
    assert found["miniwob:focus-text"].reward == 0.0  # nothing done: not finished, no reward


def test_running_the_same_command_again_skips_what_is_finished(tmp_path, solutions):
    study = tmp_path / "study"
    args = ("miniwob", "--tasks", "click-button,click-link", "--seeds", "0",
            "--replay", str(solutions), "--out", str(study))
    assert eval_cli(*args, cwd=tmp_path).returncode == 0
    first = (study / "results.jsonl").read_text()
    again = eval_cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "ran 0 episode(s)" in again.stderr and "2 already done" in again.stderr
    assert (study / "results.jsonl").read_text() == first
    # Widening the study runs only the new episodes.
    wider = eval_cli("miniwob", "--tasks", "click-button,click-link,focus-text",
                     "--replay", str(solutions), "--out", str(study), cwd=tmp_path)
    assert "ran 1 episode(s)" in wider.stderr, wider.stderr
    assert len(records(study)) == 3


def test_a_frozen_page_is_killed_at_the_time_limit_and_the_worker_moves_on(
        tmp_path, bench_url):
    tasks = bench_tasks(tmp_path / "tasks.yaml", bench_url)
    replay = freeze_replay(tmp_path / "replay.yaml")
    study = tmp_path / "study"
    started = time.monotonic()
    proc = eval_cli(str(tasks), "--replay", str(replay), "--timeout", "3", "--kill-grace", "2",
                    "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    found = by_task(study)
    frozen, solved = found["freeze"], found["open-order"]
    assert frozen.error_class == "timeout" and not frozen.success
    assert frozen.wall_time < 20
    assert solved.success and solved.error_class is None  # on a fresh browser, same worker
    assert solved.worker == frozen.worker
    assert time.monotonic() - started < 60
    assert "errored 1 timeout" in proc.stderr and "--retry-errors" in proc.stderr

    # --retry-errors runs the errored episode again (a second attempt, its own folder)
    # and leaves the finished one alone.
    retry = eval_cli(str(tasks), "--replay", str(replay), "--timeout", "3", "--kill-grace",
                     "2", "--retry-errors", "--out", str(study), cwd=tmp_path)
    assert retry.returncode == 0, retry.stderr
    lines = records(study)
    assert [(r.task, r.attempt) for r in lines] == [
        ("freeze", 1), ("open-order", 1), ("freeze", 2)]
    assert lines[-1].trajectory.endswith("-a2")
    assert (study / frozen.trajectory).is_dir() and (study / lines[-1].trajectory).is_dir()


def test_a_worker_that_dies_is_recorded_as_a_crash_and_replaced(tmp_path, bench_url):
    tasks = bench_tasks(tmp_path / "tasks.yaml", bench_url)
    replay = write(tmp_path / "replay.yaml", """\
        freeze: ["click('2')"]
        open-order: ["click('4')", "stop('opened')"]
        """)
    study = tmp_path / "study"
    proc = subprocess.Popen(
        [sys.executable, "-m", "colorbrowser", "eval", str(tasks), "--tasks", "freeze,open-order",
         "--replay", str(replay), "--timeout", "120", "--out", str(study)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        worker = None
        deadline = time.monotonic() + 60
        while worker is None and time.monotonic() < deadline:
            time.sleep(0.5)
            running = (study / "runs" / "default" / "freeze").is_dir()  # episode under way
            for child in psutil.Process(proc.pid).children():
                if running and "spawn_main" in " ".join(child.cmdline()):
                    worker = child
        assert worker is not None, "no worker process with a running episode"
        time.sleep(1)
        worker.kill()
        _, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    found = by_task(study)
    assert found["freeze"].error_class == "crash"
    assert "worker process died" in found["freeze"].error
    assert found["open-order"].success  # on a new worker process
    assert not psutil.pid_exists(worker.pid) or worker.status() == psutil.STATUS_ZOMBIE


def test_matrix_runs_one_variant_per_combination(tmp_path, solutions):
    study = tmp_path / "study"
    proc = eval_cli("miniwob", "--tasks", "click-button", "--replay", str(solutions),
                    "--matrix", "browser.interactive_only=false,true", "screenshots=true,false",
                    "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = records(study)
    names = sorted(r.variant for r in lines)
    assert names == sorted(f"browser.interactive_only={a} screenshots={b}"
                           for a in ("false", "true") for b in ("true", "false"))
    assert len({r.config_hash for r in lines}) == 4
    assert all(r.success for r in lines)
    variants = study_meta(study)["variants"]
    assert set(variants) == {r.config_hash for r in lines}
    no_shots = [h for h, v in variants.items() if v["overrides"]["screenshots"] == "false"]
    assert all(variants[h]["settings"]["browser"]["screenshots"] is False for h in no_shots)
    folders = {p.name for p in (study / "runs").iterdir()}
    assert len(folders) == 4


def test_agent_config_file_sets_the_agent_for_the_study(tmp_path, solutions):
    config = write(tmp_path / "agent.toml", """\
        [agent]
        max_steps = 1
        """)
    study = tmp_path / "study"
    proc = eval_cli("miniwob", "--tasks", "login-user", "--replay", str(solutions),
                    "--agent-config", str(config), "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    record = by_task(study)["miniwob:login-user"]
    assert record.status == "step_limit" and record.steps == 1 and not record.success
    settings = next(iter(study_meta(study)["variants"].values()))["settings"]
    assert settings["agent"]["max_steps"] == 1


def test_seeds_give_one_episode_each_and_unseeded_suites_ignore_them(tmp_path, bench_url):
    any_seed = write(tmp_path / "replay.yaml", """\
        click-button: []
        open-order: ["click('4')", "stop('opened')"]
        """)
    study = tmp_path / "study"
    proc = eval_cli("miniwob:click-button", "--seeds", "0-2,5", "--replay", str(any_seed),
                    "--out", str(study), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(r.seed for r in records(study)) == [0, 1, 2, 5]
    tasks = bench_tasks(tmp_path / "tasks.yaml", bench_url)
    other = tmp_path / "other"
    proc = eval_cli(str(tasks), "--tasks", "open-order", "--seeds", "0,1",
                    "--replay", str(any_seed), "--out", str(other), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [(r.task, r.seed) for r in records(other)] == [("open-order", None)]
    assert "--seeds ignored" in proc.stderr


@pytest.mark.parametrize("args, fragments", [
    (["--matrix", "colour=red,blue"], ["unknown setting 'colour'"]),
    (["--matrix", "memory"], ["expected KEY=V1,V2"]),
    (["--matrix", "memory=full,tiny"], ["--matrix: agent.memory"]),
    (["--matrix", "memory=full", "memory=summary"], ["given twice"]),
    (["stray"], ["unexpected argument 'stray'"]),
    (["--seeds", "a-b"], ["--seeds"]),
    (["--tasks", "no-such-task"], ["no task in miniwob matches"]),
])
def test_mistakes_are_one_line_errors_before_anything_runs(tmp_path, solutions, args,
                                                           fragments):
    proc = eval_cli("miniwob", "--tasks", "click-button", "--replay", str(solutions), *args,
                    "--out", str(tmp_path / "study"), cwd=tmp_path)
    assert_one_line_error(proc, *fragments)
    assert not (tmp_path / "study" / "results.jsonl").exists()


def test_a_missing_frozen_store_stops_the_study_before_any_model_starts(tmp_path):
    started = time.monotonic()
    proc = eval_cli("miniwob", "--tasks", "click-button", "--knowledge", "frozen",
                    "--kb", str(tmp_path / "missing.db"), "--out", str(tmp_path / "study"),
                    cwd=tmp_path)
    assert_one_line_error(proc, "frozen knowledge", "missing.db")
    assert time.monotonic() - started < 20
    assert not (tmp_path / "missing.db").exists()


@pytest.mark.parametrize("text, fragment", [
    ("click-button: [\"click(\"]\n", "not a valid call"),
    ("click-button: [oops\n", "not valid YAML"),
    ("- click('1')\n", "expected a mapping"),
    ("click-link: [\"click('1')\"]\n", "no actions for miniwob:click-button"),
])
def test_a_broken_replay_file_is_one_line(tmp_path, text, fragment):
    replay = tmp_path / "replay.yaml"
    replay.write_text(text)
    proc = eval_cli("miniwob", "--tasks", "click-button", "--replay", str(replay),
                    "--out", str(tmp_path / "study"), cwd=tmp_path)
    assert_one_line_error(proc, fragment)


def test_a_broken_agent_config_is_one_line(tmp_path, solutions):
    bad = write(tmp_path / "agent.toml", "[agent\nmax_steps = 1\n")
    proc = eval_cli("miniwob", "--tasks", "click-button", "--replay", str(solutions),
                    "--agent-config", str(bad), cwd=tmp_path)
    assert_one_line_error(proc, "not valid TOML")
    wrong = write(tmp_path / "wrong.toml", "[agent]\nmax_steps = 0\n")
    proc = eval_cli("miniwob", "--tasks", "click-button", "--replay", str(solutions),
                    "--agent-config", str(wrong), cwd=tmp_path)
    assert_one_line_error(proc, "agent.max_steps")


def test_a_variant_name_cannot_change_its_settings_within_a_study(tmp_path, solutions):
    study = tmp_path / "study"
    base = ("miniwob", "--tasks", "click-button", "--replay", str(solutions), "--out",
            str(study))
    assert eval_cli(*base, cwd=tmp_path).returncode == 0
    proc = eval_cli(*base, "--max-steps", "3", cwd=tmp_path)
    assert_one_line_error(proc, "already holds variant 'default'", "use another --out")
    assert len(records(study)) == 1


def test_list_still_lists_without_running(tmp_path):
    proc = eval_cli("miniwob", "--list", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip().splitlines()[-1] == "tasks: 130, runnable: 130, unsupported: 0"
    assert not (tmp_path / "studies").exists()


def test_default_study_folder_is_named_after_the_suite(tmp_path, solutions):
    env = dict(os.environ)
    proc = eval_cli("miniwob:click-button", "--replay", str(solutions), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "studies" / "miniwob-click-button" / "results.jsonl").is_file()
