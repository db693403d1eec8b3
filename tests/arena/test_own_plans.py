"""`arena plans` reads a user's own task file with the plan file beside it, and writes the
same agents as for the shipped tasks: the oracle, nothing, a wrong value, no last step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from colorbrowser.arena.plans import error_page_plans, missing_page, plan_file_for, plans
from colorbrowser.errors import UserError

TASKS = [
    {"task_id": "owner-18", "sites": ["trac"], "start_url": "__TRAC__/",
     "intent": "Who owns ticket #18?",
     "eval": {"eval_types": ["string_match"],
              "reference_answers": {"exact_match": "Julian Moore"}}},
    {"task_id": 7, "sites": ["trac"], "start_url": "__TRAC__/", "intent": "Open the roadmap",
     "eval": {"eval_types": ["url_match"], "reference_url": "__TRAC__/roadmap"}},
]
PLANS = """\
owner-18:
- goto('__TRAC__/ticket/18')
- stop: Julian Moore
  wrong: Noah White
7:
- click: {role: link, name: Roadmap}
  wrong: {role: link, name: Timeline}
- stop: done
"""


@pytest.fixture
def mine(tmp_path) -> Path:
    tasks = tmp_path / "mine.json"
    tasks.write_text(json.dumps(TASKS))
    (tmp_path / "mine.oracle.yaml").write_text(PLANS)
    return tasks


def arena_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "colorbrowser", "arena", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env=os.environ)


def test_the_plan_file_sits_beside_the_task_file(mine):
    assert plan_file_for(mine) == mine.with_name("mine.oracle.yaml")


def test_each_kind_of_plan_is_made_for_every_task_of_the_users_file(mine):
    oracle = plans("oracle", tasks=mine)
    assert list(oracle) == ["owner-18", "7"]
    assert [s.to_data() for s in oracle["owner-18"].steps][-1] == {
        "stop": "Julian Moore", "wrong": "Noah White"}
    wrong = plans("wrong", tasks=mine)
    assert wrong["owner-18"].steps[-1].args == ("Noah White",)
    assert wrong["7"].steps[0].target.name == "Timeline"
    assert plans("null", tasks=mine)["7"].steps == []
    assert len(plans("truncated", tasks=mine)["owner-18"].steps) == 1
    assert set(plans("random", tasks=mine, steps=3)) == {"owner-18", "7"}


def test_the_error_page_plan_opens_a_missing_page_of_the_site_before_the_oracles_stop(mine):
    ending = error_page_plans(tasks=mine)
    assert [s.to_data() for s in ending["owner-18"].steps] == [
        "goto('__TRAC__/ticket/18')", "goto('__TRAC__/ticket/99999')",
        {"stop": "Julian Moore", "wrong": "Noah White"}]
    assert [s.to_data() for s in ending["7"].steps][1:] == ["goto('__TRAC__/ticket/99999')",
                                                           {"stop": "done"}]
    assert missing_page("__SHOPPING_ADMIN__/orders/") == "__SHOPPING_ADMIN__/orders/99999/"
    assert missing_page("__SHOPPING__/") == "__SHOPPING__/catalogue/missing_99999/"
    assert missing_page("http://example.com/") is None


def test_arena_plans_writes_a_replay_file_for_the_users_tasks(mine, tmp_path):
    out = tmp_path / "wrong.yaml"
    done = arena_cli("plans", "wrong", str(mine), "-o", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"2 task(s) -> {out}"
    written = yaml.safe_load(out.read_text())
    assert list(written) == ["owner-18", "7"]
    assert written["owner-18"] == ["goto('__TRAC__/ticket/18')", {"stop": "Noah White"}]
    assert written["7"][0] == {"click": {"role": "link", "name": "Timeline"}}


def test_a_plan_file_named_with_plans_is_read_instead(mine, tmp_path):
    other = tmp_path / "elsewhere.yaml"
    other.write_text(PLANS.replace("Julian Moore", "James Chen"))
    done = arena_cli("plans", "oracle", str(mine), "--plans", str(other), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "James Chen" in done.stdout and "Julian Moore" not in done.stdout


def test_mistakes_in_a_users_files_are_one_line(mine, tmp_path):
    (tmp_path / "mine.oracle.yaml").unlink()
    done = arena_cli("plans", "oracle", str(mine), cwd=tmp_path)
    assert done.returncode != 0
    assert done.stderr.strip() == (f"error: no oracle plan file {tmp_path / 'mine.oracle.yaml'}"
                                   f" for {mine} (write the plans there, in the replay format,"
                                   " or name the file with --plans)")
    (tmp_path / "mine.oracle.yaml").write_text(PLANS.split("7:")[0])
    with pytest.raises(UserError, match="task 7 has no oracle plan"):
        plans("oracle", tasks=mine)
    (tmp_path / "mine.oracle.yaml").write_text(PLANS.replace("  wrong: Noah White\n", ""))
    with pytest.raises(UserError, match="task owner-18: its oracle plan names no wrong value"):
        plans("wrong", tasks=mine)
    assert plans("oracle", tasks=mine)["owner-18"].steps  # the oracle needs no wrong value


def test_the_shipped_tasks_still_get_their_plans_without_a_file():
    assert len(plans("oracle")) >= 150
