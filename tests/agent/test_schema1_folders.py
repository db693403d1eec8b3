"""Run and study folders written before steps were typed (schema 1, recorded in
tests/fixtures/schema1 by that version) still open in view, report and resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from colorbrowser.agent.trajectory import load_steps, read_steps
from colorbrowser.testing import ScriptedEndpoint, act, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "schema1"
RECORDED_AT = "http://127.0.0.1:45999"  # where the recorded pages were served



def copy_fixture(name: str, dest: Path, pages_url: str | None = None) -> Path:
    target = dest / name
    shutil.copytree(FIXTURES / name, target)
    if pages_url:
        for path in target.rglob("*.json*"):
            path.write_text(path.read_text().replace(RECORDED_AT, pages_url))
    return target


def killed_after_first_step(run: Path) -> Path:
    """What a kill after step 1 leaves: one committed line, its checkpoint, no result."""
    first = (run / "steps.jsonl").read_text().splitlines()[0]
    (run / "steps.jsonl").write_text(first + "\n")
    (run / "checkpoints" / "0002.json").unlink()
    (run / "result.json").unlink()
    return run


def test_old_step_lines_read_as_typed_steps(tmp_path):
    run = copy_fixture("run", tmp_path)
    steps = load_steps(run)
    assert "schema_version" not in json.loads((run / "meta.json").read_text())
    assert [s.step for s in steps] == [1, 2]
    assert all(s.actor == "agent" and s.executed for s in steps)
    assert steps[0].action == "take_note('user is ada')" and steps[0].result.ok
    assert steps[-1].result.answer == "logged in"
    assert steps[0].usage.total_tokens == read_steps(run)[0]["usage"]["prompt_tokens"] + \
        read_steps(run)[0]["usage"]["completion_tokens"]


def test_view_renders_an_old_run_and_an_old_study(tmp_path, capsys):
    run = copy_fixture("run", tmp_path)
    study = copy_fixture("study", tmp_path)
    assert run_cli("view", str(run)) == 0
    page = (run / "trace.html").read_text()
    assert "Step 2" in page and "logged in" in page and "user is ada" in page
    assert run_cli("view", str(study)) == 0
    assert (study / "runs" / "default" / "miniwob-click-test-s0" / "trace.html").is_file()


def test_report_reads_an_old_study(tmp_path):
    study = copy_fixture("study", tmp_path)
    assert run_cli("report", str(study), "--no-thumbnails") == 0
    report = (study / "report.md").read_text()
    assert "miniwob:click-test" in report


def test_resume_continues_an_old_run_killed_after_its_first_step(tmp_path, monkeypatch,
                                                                 pages_url):
    run = killed_after_first_step(copy_fixture("run", tmp_path, pages_url))
    monkeypatch.setenv("COLORBROWSER_API_KEY", "test-token")
    # Scripted model replies: the summarizer's JSON, then the Operator's stop.
    def policy(messages):
        if messages[0]["content"].startswith("You keep the running memory"):
            return json.dumps({"progress": ["typed the name"], "facts": []})
        return act("The name is typed.", "stop('logged in again')")

    with ScriptedEndpoint(policy) as model:
        code = run_cli("resume", str(run), "--base-url", model.url)
    assert code == 0
    steps = load_steps(run)
    assert [s.step for s in steps] == [1, 2]
    assert steps[1].result.answer == "logged in again"
    assert json.loads((run / "result.json").read_text())["status"] == "done"


@pytest.mark.parametrize("broken", ["{\"step\": \"two\", \"usage\": \"lots\"}", "[1, 2]"])
def test_a_damaged_old_line_keeps_what_it_can(tmp_path, broken):
    run = copy_fixture("run", tmp_path)
    with open(run / "steps.jsonl", "a") as fh:
        fh.write(broken + "\n")
    steps = load_steps(run)
    assert steps[0].action == "take_note('user is ada')"
    if broken.startswith("{"):
        assert steps[-1].step == 3 and steps[-1].usage.total_tokens == 0


def test_resume_sends_the_key_only_to_an_endpoint_the_person_names(tmp_path, monkeypatch,
                                                                   pages_url, capsys):
    """A run folder is a file anyone could have written: its base_url is not talked to
    unless the person names that endpoint again; their own settings decide."""
    from tests.llm.llm_fake_server import fake_endpoint, ok

    key = "sk-mine-only-7788"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    replies = [ok("<think>done</think><action>stop('x')</action>")] * 8
    for named in (False, True):
        run = killed_after_first_step(copy_fixture("run", tmp_path / str(named), pages_url))
        with fake_endpoint(replies) as theirs, fake_endpoint(replies) as mine:
            monkeypatch.setenv("OPENAI_BASE_URL", mine.url)  # the person's own endpoint
            meta = json.loads((run / "meta.json").read_text())
            meta["settings"]["model"]["base_url"] = theirs.url
            meta["settings"]["agent"]["memory"] = "none"
            (run / "meta.json").write_text(json.dumps(meta))
            args = ["resume", str(run)] + (["--base-url", theirs.url] if named else [])
            run_cli(*args)
            auth = [r.headers.get("authorization") for r in theirs.chat_requests]
            own = [r.headers.get("authorization") for r in mine.chat_requests]
        if named:
            assert auth and auth == [f"Bearer {key}"] * len(auth) and not own
        else:
            assert auth == [], "the folder's endpoint was asked"
            assert own and own == [f"Bearer {key}"] * len(own)
            err = " ".join(capsys.readouterr().err.split())
            assert f"model.base_url: the run folder says '{theirs.url}'" in err
