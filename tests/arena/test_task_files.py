"""The shipped task files: WebArena's format, an oracle plan for every task, and the
spread of task kinds the issue asks for. No server needed."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from colorbrowser.arena.plans import load_plans, plans, random_plan, task_ids
from colorbrowser.arena.prove import evaluator_kinds
from colorbrowser.arena.suite import plan_files, task_files, without_judge
from colorbrowser.arena.tasks.sites import SITES, merge_states, sites_in_state_name
from colorbrowser.errors import UserError
from colorbrowser.evaluation.spec import EvalSpec
from colorbrowser.evaluation.taskfiles import load_webarena
from colorbrowser.plan.placeholders import PLACEHOLDERS

ENV = {**{s.var: f"http://127.0.0.1:9{i}00{s.path}" for i, s in enumerate(SITES.values())},
       **{f"WA_DB_{app.upper()}": "/tmp/x.db" for app in ("shop", "forum", "trac", "tracker",
                                                         "wiki")}}


@pytest.fixture(scope="module")
def tasks():
    return [item for path in task_files() for item in json.loads(path.read_text("utf-8"))]


def test_there_are_at_least_150_tasks_over_every_app_and_some_across_sites(tasks):
    assert len(tasks) >= 150
    groups = Counter(t["task_id"].split("-")[0] for t in tasks)
    assert set(groups) == {"trac", "tracker", "shop", "admin", "forum", "wiki", "multi"}
    assert min(groups.values()) >= 9
    assert all(len(t["sites"]) == 2 for t in tasks if t["task_id"].startswith("multi-"))


def test_every_kind_of_evaluator_is_used_in_a_webarena_like_spread(tasks):
    kinds = Counter(k for t in tasks for k in evaluator_kinds(EvalSpec.model_validate(t["eval"])))
    assert kinds["string_match/exact_match"] >= 30 and kinds["string_match/must_include"] >= 15
    assert 3 <= kinds["string_match/fuzzy_match"] <= 10
    assert kinds["url_match"] >= 25 and kinds["db_match"] >= 40 and kinds["program_html"] >= 5


def test_every_task_loads_in_webarenas_format_with_all_addresses_filled(tasks):
    for path in task_files():
        for task in load_webarena(path, env=ENV):
            assert not any(p in task.start_url + task.goal for p in PLACEHOLDERS), task.id
            assert all(r.startswith("login state") for r in task.unsupported), task.id
    for task in tasks:
        if task["storage_state"]:  # WebArena's names: ./.auth/<site>[.<site>]_state.json
            sites = sites_in_state_name(task["storage_state"].split("/")[-1])
            assert sites == task["sites"], task["task_id"]


def test_fuzzy_tasks_carry_a_deterministic_fallback(tasks):
    for task in tasks:
        spec = EvalSpec.model_validate(task["eval"])
        if spec.needs_judge:
            assert not without_judge(spec).needs_judge, task["task_id"]


def test_task_ids_are_unique_and_each_has_an_oracle_plan_that_can_be_mutated(tasks):
    ids = [t["task_id"] for t in tasks]
    assert len(ids) == len(set(ids)) == len(task_ids())
    found = load_plans(plan_files())
    assert set(found) == set(ids)
    for task_id, plan in found.items():
        assert plan.mutable, task_id
        assert plan.wrong_value().steps != plan.steps
        assert len(plan.without_last().steps) == len(plan.steps) - 1


def test_answers_do_not_depend_on_the_date(tasks):
    relative = ("ago", "yesterday", "today", "last week", "this month")
    for task in tasks:
        assert not any(word in task["intent"].lower() for word in relative), task["task_id"]


def test_login_state_names_are_webarenas_and_merge_their_cookies(tmp_path):
    assert sites_in_state_name("gitlab.reddit_state.json") == ["gitlab", "reddit"]
    with pytest.raises(UserError, match=r"<site>_state\.json"):
        sites_in_state_name("gitlab.json")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({"cookies": [{"name": "s", "domain": "h", "path": "/",
                                              "value": "1"}]}))
    second.write_text(json.dumps({"cookies": [{"name": "s", "domain": "h", "path": "/",
                                               "value": "2"}, {"name": "t", "domain": "h",
                                                               "path": "/", "value": "3"}]}))
    merged = merge_states([first, second])["cookies"]
    assert sorted((c["name"], c["value"]) for c in merged) == [("s", "2"), ("t", "3")]


def test_replay_files_can_be_made_for_every_task():
    assert set(plans("null")) == set(task_ids())
    assert all(not p.steps for p in plans("null").values())
    assert random_plan(4, 3).steps[-1].args == (4, 3, True)
    with pytest.raises(UserError, match="unknown plan kind"):
        plans("clever")
