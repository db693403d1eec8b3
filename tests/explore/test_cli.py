"""``colorbrowser explore``: a user's mistake is one ``error:`` line and a non-zero
exit, never a traceback; a good run ends with its one-line summary."""

from __future__ import annotations

import json

import pytest

from colorbrowser.testing import run_cli


def error_line(capsys, *argv: str) -> str:
    code = run_cli("explore", *argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.mark.parametrize(("argv", "says"), [
    (["ftp://example.com/"], "START must be an http(s) URL, 'demo' or an arena app"),
    (["not a url"], "START must be"),
    (["demo", "--budget", "0"], "'--budget'"),
    (["http://127.0.0.1:9/", "--allow", "bad host/x", "--no-tasks"], "bad host/x"),
    (["http://127.0.0.1:1/", "--user", "hugo"], "--user is for arena apps only"),
    (["demo", "--no-tasks", "--workflows"], "--workflows learns from the proved tasks"),
])
def test_bad_input_is_one_error_line(capsys, tmp_path, argv, says):
    assert says in error_line(capsys, *argv, "--out", str(tmp_path / "x"))


def test_an_out_folder_that_is_a_file_is_one_error_line(capsys, tmp_path):
    (tmp_path / "f").write_text("")
    assert "--out" in error_line(capsys, "demo", "--out", str(tmp_path / "f"))


def test_an_unreachable_start_is_one_error_line(capsys, tmp_path):
    line = error_line(capsys, "http://127.0.0.1:9/", "--out", str(tmp_path / "x"),
                      "--no-tasks", "--budget", "2")
    assert "127.0.0.1:9" in line


def test_the_command_explores_and_summarises(capsys, site_url, tmp_path):
    code = run_cli("explore", site_url, "--budget", "4", "--out", str(tmp_path / "r"),
                   "--no-tasks", "--screenshots", "none")
    err = capsys.readouterr().err
    assert code == 0 and "explored " + site_url in err.replace("\n", "")
    assert (tmp_path / "r" / "graph.html").is_file()


def test_max_tasks_caps_how_many_tasks_are_proved(capsys, site_url, tmp_path):
    code = run_cli("explore", site_url, "--budget", "12", "--out", str(tmp_path / "r"),
                   "--screenshots", "none", "--max-tasks", "2")
    err = capsys.readouterr().err.replace("\n", " ")
    assert code == 0 and "over --max-tasks" in err
    tasks = json.loads((tmp_path / "r" / "tasks.json").read_text())
    rejected = json.loads((tmp_path / "r" / "tasks.rejected.json").read_text())
    assert 1 <= len(tasks) + len(rejected) <= 2
