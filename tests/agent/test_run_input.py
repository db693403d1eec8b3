"""`colorbrowser run` refuses bad input before it starts a model or a browser: one
`error:` line naming what to fix, exit code 2, no traceback and no run folder."""

from __future__ import annotations

import json

import pytest

from colorbrowser.cli import main


@pytest.mark.parametrize(("args", "message"), [
    (["  ", "--url", "http://127.0.0.1:9/"], "the goal is empty"),
    (["x", "--url", "ftp://example.org/"], "--url: unsupported URL scheme 'ftp'"),
    (["x", "--url", "two words"], "--url: not a URL"),
    (["x", "--url", "http://127.0.0.1:9/", "--max-steps", "0"],
     "command line: agent.max_steps"),
    (["x", "--url", "http://127.0.0.1:9/", "--summary-budget", "5"],
     "command line: agent.summary_budget"),
])
def test_bad_run_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", *args, "--out", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}"), err
    assert len(err.strip().splitlines()) == 1 and "config.toml" not in err
    assert not out.exists()


def test_a_run_folder_that_cannot_be_created_is_one_line_and_exit_2(tmp_path, capsys,
                                                                    pages_url):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "x", "--url", f"{pages_url}/agent/login.html", "--knowledge", "off",
              "--out", str(blocker / "run")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot write the run folder {blocker / 'run'}")
    assert "Traceback" not in err


def test_a_refused_api_key_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, pages_url):
    from colorbrowser.testing import ScriptedEndpoint, act

    monkeypatch.setenv("COLORBROWSER_API_KEY", "sk-wrong-key-123")
    out = tmp_path / "run"
    with ScriptedEndpoint(lambda messages: act("t", "stop('x')"), token="right") as model, \
            pytest.raises(SystemExit) as exit_info:
        main(["run", "log in", "--url", f"{pages_url}/agent/login.html", "--base-url",
              model.url, "--model", "m", "--knowledge", "off", "--out", str(out)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("error: model endpoint")
    assert "HTTP 401" in err and "sk-wrong-key-123" not in err
    assert json.loads((out / "result.json").read_text())["status"] == "error"


def test_the_api_key_never_reaches_the_terminal_or_the_run_folder(tmp_path, monkeypatch,
                                                                   capsys, pages_url):
    # A model that repeats the key in its thought, a note and the answer.
    from colorbrowser.testing import ScriptedEndpoint, act

    key = "sk-live-key-4242"
    # The verifier sends the stop back twice (the key is on no page): its reasons must
    # not carry the key to the terminal or the run folder either.
    replies = iter([act(f"key {key}", f"take_note('the key is {key}')"),
                    *[act("done", f"stop('{key}')")] * 3])
    monkeypatch.setenv("COLORBROWSER_API_KEY", key)
    out = tmp_path / "run"
    with ScriptedEndpoint(lambda messages: next(replies), token=key) as model:
        main(["run", "log in", "--url", f"{pages_url}/agent/login.html", "--base-url",
              model.url, "--model", "m", "--knowledge", "off", "--memory", "none",
              "--out", str(out), "--json"])  # returns: exit code 0
    captured = capsys.readouterr()
    assert "take_note" in captured.err and json.loads(captured.out)["status"] == "done"
    assert key not in captured.out + captured.err
    for path in out.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def one_error_line(capsys, argv: list[str]) -> str:
    """Run the CLI in this process; it must exit 2 with one `error:` line and no traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.mark.parametrize("url", ["::::", "http://[::1"])
@pytest.mark.parametrize("source", ["flag", "COLORBROWSER_BASE_URL", "OPENAI_BASE_URL",
                                    "config file"])
def test_a_malformed_base_url_is_one_error_line_naming_where_it_came_from(
        tmp_path, monkeypatch, capsys, url, source):
    argv = ["run", "x", "--url", "http://127.0.0.1:9/", "--out", str(tmp_path / "run")]
    if source == "flag":
        argv += ["--base-url", url]
        named = "command line: model.base_url"
    elif source == "config file":
        config = tmp_path / "config.toml"
        config.write_text(f"[model]\nbase_url = {json.dumps(url)}\n")
        argv += ["--config", str(config)]
        named = f"config file {config}: model.base_url"
    else:
        monkeypatch.setenv(source, url)
        named = f"environment variable {source}: model.base_url"
    line = one_error_line(capsys, argv)
    assert line.startswith(f"error: {named}: ") and url in line
    assert not (tmp_path / "run").exists()


def test_a_missing_config_file_is_one_error_line_from_the_flag_or_the_variable(
        tmp_path, monkeypatch, capsys):
    missing = tmp_path / "missing.toml"
    argv = ["run", "x", "--url", "http://127.0.0.1:9/", "--out", str(tmp_path / "run")]
    line = one_error_line(capsys, [*argv, "--config", str(missing)])
    assert line == f"error: config file {missing} does not exist"
    monkeypatch.setenv("COLORBROWSER_CONFIG", str(missing))
    line = one_error_line(capsys, argv)
    assert line == (f"error: environment variable COLORBROWSER_CONFIG: config file {missing} "
                    "does not exist")


@pytest.mark.parametrize("make", [
    lambda tmp: tmp / "no-such-chromium",
    lambda tmp: tmp,
    lambda tmp: "/etc/passwd",
], ids=["missing", "folder", "not-executable"])
def test_a_chromium_path_that_is_not_there_is_one_error_line_before_anything_starts(
        tmp_path, monkeypatch, capsys, make):
    path = make(tmp_path)
    monkeypatch.setenv("CHROMIUM_PATH", str(path))
    out = tmp_path / "run"
    line = one_error_line(capsys, ["run", "x", "--url", "http://127.0.0.1:9/", "--base-url",
                                   "http://127.0.0.1:9/v1", "--model", "m", "--knowledge",
                                   "off", "--out", str(out)])
    assert str(path) in line and "CHROMIUM_PATH" in line
    assert not out.exists()


def test_a_chromium_path_that_is_not_a_browser_ends_the_run_as_the_users_mistake(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHROMIUM_PATH", "/bin/true")
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "x", "--url", "http://127.0.0.1:9/", "--base-url",
              "http://127.0.0.1:9/v1", "--model", "m", "--knowledge", "off", "--out", str(out)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: cannot launch Chromium (/bin/true): ")
    assert "CHROMIUM_PATH" in last
    assert "run folder" not in err  # no run summary
    assert json.loads((out / "result.json").read_text())["status"] == "error"
