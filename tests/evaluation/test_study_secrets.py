"""No study file holds a secret: not the API key a model echoes, not a password it typed.

Each run folder is masked by its episode; the study's own files (results.jsonl,
study.json, the worker logs, the report) are written from other copies of the same
answers, so they must be masked too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from colorbrowser.testing import ScriptedEndpoint, user_text
from tests.evaluation.runner_helpers import eval_cli, records, write

KEY = "sk-study-secret-key-5309"
PASSWORD = "pw-Correct-Horse-77"


def scripted_login_then_leak(messages):
    """Scripted replies: type the password into its field, then answer with the key and
    the password, as a model talked into it by a page would."""
    text = user_text(messages)
    field = re.search(r"\[(\w+)\] textbox 'Password'", text)
    if "fill(" not in text:  # no action taken yet
        return f"<think>type it</think><action>fill('{field.group(1)}', '{PASSWORD}')</action>"
    return f"<think>tell all</think><action>stop('key {KEY} password {PASSWORD}')</action>"


@pytest.mark.parametrize("verify", ["off", "on"])
def test_no_study_file_or_report_holds_the_key_or_a_typed_password(tmp_path, pages_url,
                                                                   verify):
    # With the verifier on, its refusals quote the answer back (to the model and into
    # the records): they must be masked as well.
    tasks = write(tmp_path / "tasks.yaml", f"""\
        tasks:
          - id: login
            goal: Log in
            start_url: {pages_url}/agent/login.html
            eval:
              reference_answers:
                must_include: ["signed in"]
        """)
    study = tmp_path / "study"
    env = {**os.environ, "COLORBROWSER_BASE_URL": "", "STUDY_KEY": KEY}
    with ScriptedEndpoint(scripted_login_then_leak, token=KEY) as endpoint:
        env["COLORBROWSER_BASE_URL"] = endpoint.url
        proc = eval_cli(str(tasks), "--memory", "none", "--knowledge", "off", "--verify", verify,
                        "--max-steps", "4",
                        "--api-key-env", "STUDY_KEY", "--out", str(study), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    [record] = records(study)
    assert record.answer == "key *** password ***"
    assert record.steps == (2 if verify == "off" else 4)  # on: sent back until max steps
    report = subprocess.run([sys.executable, "-m", "colorbrowser", "report", str(study)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    written = [p for p in study.rglob("*") if p.is_file() and p.suffix != ".png"]
    assert {"results.jsonl", "study.json", "report.md", "report.html"} <= {p.name for p in written}
    for path in written:  # graders lower-case answers: the secret in any case is a leak
        text = path.read_text(errors="replace").lower()
        assert KEY.lower() not in text and PASSWORD.lower() not in text, path
    for output in (proc.stdout, proc.stderr, report.stdout, report.stderr):
        assert KEY.lower() not in output.lower() and PASSWORD.lower() not in output.lower()
