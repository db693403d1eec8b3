"""A user's own arena task file, end to end on the test arena's real Trac: listed,
judged by a model endpoint when it asks for fuzzy_match, proved with its own plan file
(`arena prove FILE`), and run on the instance the user chose or started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from colorbrowser.arena import Arena
from colorbrowser.arena.prove import KINDS, WANT
from colorbrowser.evaluation.records import read_records
from colorbrowser.testing import user_text
from tests.llm.llm_fake_server import Recorded, fake_endpoint, ok

from .conftest import own_cache

pytestmark = pytest.mark.slow

OWNER = {"task_id": "owner-18", "sites": ["trac"], "start_url": "__TRAC__/",
         "storage_state": "./.auth/trac_state.json",
         "intent": "Who is the owner of ticket #18?",
         "eval": {"eval_types": ["string_match"],
                  "reference_answers": {"exact_match": "Julian Moore"}}}
ROADMAP = {"task_id": "roadmap", "sites": ["trac"], "start_url": "__TRAC__/",
           "intent": "Open the roadmap",
           "eval": {"eval_types": ["url_match"], "reference_url": "__TRAC__/roadmap"}}
PLANS = """\
owner-18:
- goto('__TRAC__/ticket/18')
- stop: Julian Moore
  wrong: Noah White
roadmap:
- goto('__TRAC__/wiki')
- click: {role: link, name: Roadmap}
  wrong: {role: link, name: Timeline}
"""


def fuzzy(task_id: str) -> dict:
    return {"task_id": task_id, "sites": ["trac"], "start_url": "__TRAC__/",
            "intent": "Who is the owner of ticket #18?",
            "eval": {"eval_types": ["string_match"],
                     "reference_answers": {"fuzzy_match": ["Julian Moore"]}}}


@pytest.fixture
def cache(arena_cache, tmp_path) -> Path:
    """A cache of this test's own: the built Trac of the shared test cache, and no
    instance anybody else runs, so the choice of instance is this test's alone."""
    own = own_cache(arena_cache, tmp_path / "cache")
    yield own
    for number in range(4):
        Arena(number, cache=own).down()


@pytest.fixture
def env(cache, trac_port) -> dict[str, str]:
    return {**os.environ, "COLORBROWSER_CACHE": str(cache),
            "COLORBROWSER_ARENA_PORTS": f"trac={trac_port}"}


def colorbrowser(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colorbrowser", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def judge_by_the_name(request: Recorded):
    """The scripted judge: correct when the graded answer names Julian Moore."""
    answer = user_text(request.body["messages"]).split("Answer to grade", 1)[1].lower()
    return ok("The answer is graded against the owner.\nverdict: "
              + ("correct" if "julian moore" in answer else "incorrect"))


def test_a_fuzzy_task_in_an_arena_file_is_scored_by_the_judge_endpoint(env, tmp_path):
    tasks = tmp_path / "fuzzy.json"
    tasks.write_text(json.dumps([fuzzy("right"), fuzzy("wrong")]))
    plan = tmp_path / "answers.yaml"
    plan.write_text("right:\n- stop: It is Julian Moore\nwrong:\n- stop: Noah White\n")
    listed = colorbrowser(env, "eval", f"arena:{tasks}", "--list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count("[runnable (judge)]") == 2
    study = tmp_path / "study"
    with fake_endpoint([judge_by_the_name] * 4) as endpoint:
        done = colorbrowser(env, "eval", f"arena:{tasks}", "--replay", str(plan),
                            "--base-url", endpoint.url, "--model", "judge", "--instance", "1",
                            "--out", str(study), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(endpoint.chat_requests) == 2
    got = {r.task: (r.reward, r.error, r.instance) for r in read_records(study)}
    assert got == {"arena:right": (1.0, None, 1), "arena:wrong": (0.0, None, 1)}
    assert "--retry-errors" not in done.stderr


def test_a_users_task_file_is_proved_with_its_own_plans(env, tmp_path):
    tasks = tmp_path / "mine.json"
    tasks.write_text(json.dumps([OWNER, ROADMAP]))
    (tmp_path / "mine.oracle.yaml").write_text(PLANS)
    out = tmp_path / "proof"
    done = colorbrowser(env, "arena", "prove", str(tasks), "--instance", "2", "--out",
                        str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "proven 2/2" in done.stdout
    assert "arena tasks by app" in done.stdout and "mine" in done.stdout
    proofs = {p["task"]: p for p in json.loads((out / "proofs.json").read_text())}
    assert set(proofs) == {"arena:owner-18", "arena:roadmap"}
    for proof in proofs.values():
        assert proof["rewards"] == WANT and proof["proven"], proof
    for kind in KINDS:
        assert {r.instance for r in read_records(out / kind)} == {2}


def test_a_proof_fails_when_a_mutant_is_not_caught(env, tmp_path):
    """The same table says so when the wrong value is as good as the right one."""
    tasks = tmp_path / "weak.json"
    tasks.write_text(json.dumps([ROADMAP]))
    (tmp_path / "weak.oracle.yaml").write_text(  # the "wrong" link is the same link
        "roadmap:\n- goto('__TRAC__/wiki')\n- click: {role: link, name: Roadmap}\n"
        "  wrong: {role: link, contains: oadma}\n")
    out = tmp_path / "proof"
    done = colorbrowser(env, "arena", "prove", str(tasks), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 1
    assert "proven 0/1" in done.stdout
    proof = json.loads((out / "proofs.json").read_text())[0]
    assert proof["rewards"] == {"oracle": 1.0, "null": 0.0, "wrong": 1.0, "truncated": 0.0}, proof
    assert "unproven arena:roadmap: wrong scored 1.0" in done.stdout


def test_a_plain_eval_runs_on_the_instance_arena_up_started(env, tmp_path, cache):
    up = colorbrowser(env, "arena", "up", "trac", "--instance", "3", cwd=tmp_path)
    assert up.returncode == 0, up.stderr
    tasks = tmp_path / "mine.json"
    tasks.write_text(json.dumps([ROADMAP]))
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLANS)
    done = colorbrowser(env, "eval", f"arena:{tasks}", "--replay", str(plan), "--out",
                        str(tmp_path / "study"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [record] = read_records(tmp_path / "study")
    assert (record.success, record.instance) == (True, 3)
    status = colorbrowser(env, "arena", "status", "trac", cwd=tmp_path)
    rows = [line.split() for line in status.stdout.splitlines()[1:] if line.strip()]
    assert [(row[0], row[1]) for row in rows] == [("3", "trac")]
    assert rows[0][5] == "pid"  # running: "pid N"
    assert Arena(3, cache=cache).running() == ["trac"]  # the eval left the user's app up
