"""``colorbrowser eval SUITE --list``: listing, filtering and one-line errors."""

from __future__ import annotations

import json

import pytest

from colorbrowser.evaluation.suites import webarena_test_file
from tests.evaluation.runner_helpers import out_places_that_cannot_be_written, run_main, write


def run(capsys, *argv: str) -> tuple[int, list[str], str]:
    code, out, err = run_main(capsys, *argv)
    return code, out.splitlines(), err


@pytest.fixture
def no_sites(monkeypatch):
    for var in ("WA_SHOPPING", "WA_SHOPPING_ADMIN", "WA_REDDIT", "WA_GITLAB", "WA_MAP",
                "WA_WIKIPEDIA", "WA_HOMEPAGE", "WA_AUTH_DIR"):
        monkeypatch.delenv(var, raising=False)


def test_list_miniwob_shows_every_task_and_ends_with_the_counts(capsys):
    code, lines, err = run(capsys, "eval", "miniwob", "--list")
    assert code == 0 and err == ""
    assert lines[-1] == "tasks: 130, runnable: 130, unsupported: 0"
    assert len(lines) == 131
    assert lines[0].startswith("miniwob:ascending-numbers")
    assert "Click Button Task" in next(line for line in lines if "miniwob:click-button " in line)


def test_list_miniwob_with_task_names_in_the_suite_argument(capsys):
    code, lines, _ = run(capsys, "eval", "miniwob:click-button,enter-text", "--list")
    assert code == 0
    assert [line.split()[0] for line in lines[:-1]] == ["miniwob:click-button",
                                                        "miniwob:enter-text"]
    assert lines[-1] == "tasks: 2, runnable: 2, unsupported: 0"


def test_tasks_filter_takes_globs_with_or_without_the_prefix(capsys):
    code, lines, _ = run(capsys, "eval", "miniwob", "--list", "--tasks",
                         "click-checkboxes*,miniwob:focus-text")
    assert code == 0
    assert [line.split()[0] for line in lines[:-1]] == [
        "miniwob:click-checkboxes", "miniwob:click-checkboxes-large",
        "miniwob:click-checkboxes-soft", "miniwob:click-checkboxes-transfer",
        "miniwob:focus-text"]


def test_list_the_libwebarena_file_without_sites_marks_every_task(capsys, no_sites):
    code, lines, _ = run(capsys, "eval", str(webarena_test_file()), "--list")
    assert code == 0
    assert lines[-1] == "tasks: 812, runnable: 0, unsupported: 812"
    first = next(line for line in lines if line.startswith("webarena:0 "))
    assert "What is the top-1 best-selling product in 2022" in first
    assert "unsupported: WA_SHOPPING_ADMIN not set" in first


def test_list_webarena_with_sites_set_names_the_missing_helpers(capsys, monkeypatch, tmp_path):
    auth = tmp_path / ".auth"
    auth.mkdir()
    for name in ("shopping", "shopping_admin", "gitlab", "reddit", "gitlab.reddit"):
        (auth / f"{name}_state.json").write_text('{"cookies": []}')
    for i, var in enumerate(("WA_SHOPPING", "WA_SHOPPING_ADMIN", "WA_REDDIT", "WA_GITLAB",
                             "WA_MAP", "WA_WIKIPEDIA", "WA_HOMEPAGE")):
        monkeypatch.setenv(var, f"http://127.0.0.1:{7000 + i}")
    monkeypatch.setenv("WA_AUTH_DIR", str(auth))
    code, lines, _ = run(capsys, "eval", "webarena", "--list")
    assert code == 0
    assert lines[-1] == "tasks: 812, runnable: 797, unsupported: 15"
    assert "118 runnable task(s) need a judge model (fuzzy_match)" in lines
    blocked = [line for line in lines if "unsupported:" in line and "webarena:" in line]
    assert all("needs func:shopping_" in line for line in blocked)


def test_list_webarena_file_filtered_by_task_ids(capsys, no_sites):
    code, lines, _ = run(capsys, "eval", "webarena", "--list", "--tasks", "webarena:1?,0")
    assert code == 0
    assert lines[-1] == "tasks: 11, runnable: 0, unsupported: 11"


def test_list_a_yaml_file(capsys, tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("tasks:\n"
                    "  - id: docs\n    goal: Open the docs\n    start_url: http://127.0.0.1:9/\n"
                    "    eval: {reference_url: http://127.0.0.1:9/docs}\n"
                    "  - id: shop\n    goal: Open the shop\n    start_url: __SHOPPING__/\n"
                    "    eval: {reference_answers: {fuzzy_match: [shoes]}}\n")
    code, lines, _ = run(capsys, "eval", str(path), "--list")
    assert code == 0
    assert lines[0].split()[:2] == ["docs", "127.0.0.1"] and lines[0].endswith("[runnable]")
    assert lines[1].endswith("[unsupported: WA_SHOPPING not set]")
    assert lines[-1] == "tasks: 2, runnable: 1, unsupported: 1"


def test_judge_tasks_are_marked_in_the_list(capsys, tmp_path):
    path = tmp_path / "judge.yml"
    path.write_text("- id: q\n  goal: How many?\n  start_url: http://x/\n"
                    "  eval: {reference_answers: {fuzzy_match: [three]}}\n")
    code, lines, _ = run(capsys, "eval", str(path), "--list")
    assert code == 0
    assert lines[0].endswith("[runnable (judge)]")
    assert lines[-2] == "1 runnable task(s) need a judge model (fuzzy_match)"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "nosuchsuite", "--list"], "error: unknown suite 'nosuchsuite': expected"),
        (["eval", "missing.json", "--list"], "error: no such task file: missing.json"),
        (["eval", "miniwob:no-such-task", "--list"],
         "error: no task in miniwob matches 'no-such-task'"),
        (["eval", "miniwob", "--list", "--tasks", "zzz*"],
         "error: no task in miniwob matches 'zzz*'"),
        (["eval", "miniwob:click-button", "--seeds", "x"],
         "error: --seeds: expected numbers like 0,1,2 or 0-4, got 'x'"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(capsys, argv, message):
    code, lines, err = run(capsys, *argv)
    assert code != 0
    assert err.count("\n") == 1 and err.startswith(message)
    assert lines == []


def test_broken_json_file_is_one_line(capsys, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("[{")
    code, _, err = run(capsys, "eval", str(path), "--list")
    assert code == 2
    assert err == f"error: {path}: not valid JSON: Expecting property name enclosed in " \
                  "double quotes (line 1, column 3)\n"


def test_invalid_task_in_json_file_is_one_line(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"task_id": 3, "intent": "x", "start_url": "http://a",
                                 "eval": {"eval_types": ["url_match"]}}]))
    code, _, err = run(capsys, "eval", str(path), "--list")
    assert code == 2
    assert err == f"error: {path}: entry 0 (task_id 3): eval: url_match needs reference_url\n"


def test_unknown_file_type_is_refused(capsys, tmp_path):
    path = tmp_path / "tasks.txt"
    path.write_text("x")
    code, _, err = run(capsys, "eval", str(path), "--list")
    assert code == 2 and "unknown task file type" in err


@out_places_that_cannot_be_written("study")
def test_a_study_folder_that_cannot_be_created_is_one_error_line(capsys, tmp_path, place):
    replay = write(tmp_path / "replay.yaml", "click-button:\n  0: [\"click('1')\"]\n")
    out = place(tmp_path)
    code, lines, err = run(capsys, "eval", "miniwob:click-button", "--replay", str(replay),
                           "--out", out)
    assert code == 2 and lines == []
    assert err.count("\n") == 1 and err.startswith(f"error: cannot write the study folder {out}:")
