"""`colorbrowser run` refuses bad input before it starts a model or a browser: one
`error:` line naming what to fix, exit code 2, no traceback and no run folder."""

from __future__ import annotations

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
