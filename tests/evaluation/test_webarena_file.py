"""WebArena's own task file (libwebarena's test.raw.json) as parsing input."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from colorbrowser.errors import UserError
from colorbrowser.evaluation.suites import webarena_test_file
from colorbrowser.evaluation.taskfiles import load_webarena
from colorbrowser.plan.placeholders import PLACEHOLDERS

STATES = ["shopping_state.json", "shopping_admin_state.json", "gitlab_state.json",
          "reddit_state.json", "gitlab.reddit_state.json"]


@pytest.fixture(scope="module")
def raw_file():
    return webarena_test_file()


@pytest.fixture
def full_env(tmp_path):
    """Every site set and every login state present: only helpers can block a task."""
    auth = tmp_path / ".auth"
    auth.mkdir()
    for name in STATES:
        (auth / name).write_text('{"cookies": [], "origins": []}')
    env = {var: f"http://127.0.0.1:{7000 + i}" for i, var in enumerate(PLACEHOLDERS.values())}
    return {**env, "WA_AUTH_DIR": str(auth)}


def test_all_812_tasks_load(raw_file):
    definitions = load_webarena(raw_file, env={})
    assert len(definitions) == 812
    assert len({d.id for d in definitions}) == 812
    assert definitions[0].id == "webarena:0"


def test_eval_type_breakdown_matches_the_published_one(raw_file):
    definitions = load_webarena(raw_file, env={})
    types = Counter(" + ".join(d.eval.eval_types) for d in definitions)
    assert types == {"string_match": 325, "program_html": 282, "url_match + program_html": 129,
                     "url_match": 66, "string_match + url_match": 10}
    answers = Counter(kind for d in definitions if d.eval.reference_answers
                      for kind, value in d.eval.reference_answers.model_dump().items()
                      if value is not None)
    assert answers == {"must_include": 176, "fuzzy_match": 118, "exact_match": 45}
    not_achievable = sum(1 for d in definitions if d.eval.reference_answers
                         and d.eval.reference_answers.fuzzy_match == "N/A")
    assert not_achievable == 36
    assert sum(d.entry().needs_judge for d in definitions) == 118


def test_with_every_site_set_only_magento_api_helpers_block_tasks(raw_file, full_env):
    entries = [d.entry() for d in load_webarena(raw_file, env=full_env)]
    unsupported = Counter(e.unsupported for e in entries if not e.runnable)
    assert sum(e.runnable for e in entries) == 797
    assert unsupported == {
        "needs func:shopping_get_latest_order_url": 10,
        "needs func:shopping_get_sku_latest_review_rating; "
        "needs func:shopping_get_sku_latest_review_author": 5,
    }


def test_tasks_using_our_own_helpers_are_runnable(raw_file, full_env):
    raw = json.loads(raw_file.read_text())
    by_id = {d.id: d for d in load_webarena(raw_file, env=full_env)}
    with_reddit = [t for t in raw if "func:reddit_get_post_url" in json.dumps(t)]
    with_gitlab = [t for t in raw if "func:gitlab_get_project_memeber_role" in json.dumps(t)]
    assert (len(with_reddit), len(with_gitlab)) == (55, 9)
    assert all(by_id[f"webarena:{t['task_id']}"].entry().runnable
               for t in with_reddit + with_gitlab)


def test_placeholders_are_filled_everywhere_in_a_task(raw_file, full_env):
    definitions = load_webarena(raw_file, env=full_env)
    for d in definitions:
        dumped = json.dumps({"start": d.start_url, "eval": d.eval.model_dump()})
        assert not any(p in dumped for p in PLACEHOLDERS), d.id
    first = definitions[0]
    assert first.start_url == full_env["WA_SHOPPING_ADMIN"]


def test_without_site_variables_every_task_is_listed_with_its_missing_variables(raw_file):
    entries = {e.id: e for e in (d.entry() for d in load_webarena(raw_file, env={}))}
    assert not any(e.runnable for e in entries.values())
    assert entries["webarena:0"].unsupported == (
        "WA_SHOPPING_ADMIN not set; login state ./.auth/shopping_admin_state.json not found "
        "(set WA_AUTH_DIR)")
    # a map task needs no login
    map_task = next(e for e in entries.values() if e.site == "map")
    assert map_task.unsupported == "WA_MAP not set"


def test_only_the_missing_site_is_named(raw_file, full_env):
    env = {k: v for k, v in full_env.items() if k != "WA_GITLAB"}
    entries = [d.entry() for d in load_webarena(raw_file, env=env)]
    reasons = Counter(e.unsupported for e in entries if not e.runnable and e.site == "gitlab")
    assert set(reasons) == {"WA_GITLAB not set"}
    assert all(e.runnable for e in entries if e.site == "map")


def test_a_single_task_config_file_loads(raw_file, tmp_path):
    one = json.loads(raw_file.read_text())[27]
    path = tmp_path / "27.json"
    path.write_text(json.dumps(one))
    [definition] = load_webarena(path, env={})
    assert definition.id == "webarena:27" and definition.goal == one["intent"]


def test_broken_json_is_one_line_with_the_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[{"task_id": 1,\n "intent": }]')
    with pytest.raises(UserError) as err:
        load_webarena(path, env={})
    assert str(err.value) == f"{path}: not valid JSON: Expecting value (line 2, column 12)"


def test_missing_field_names_entry_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"task_id": 5, "intent": "x", "start_url": "http://a",
                                 "eval": {"eval_types": ["string_match"]}}]))
    with pytest.raises(UserError) as err:
        load_webarena(path, env={})
    assert str(err.value) == (f"{path}: entry 0 (task_id 5): eval: string_match needs "
                              "reference_answers")


def test_unknown_eval_type_is_rejected(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"task_id": 5, "intent": "x", "start_url": "http://a",
                                "eval": {"eval_types": ["page_image_query"]}}))
    with pytest.raises(UserError, match=r"entry 0 \(task_id 5\): eval.eval_types.0: Input "
                                        r"should be 'string_match', 'url_match', "
                                        r"'program_html' or 'db_match'"):
        load_webarena(path, env={})


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(UserError, match="no such task file"):
        load_webarena(tmp_path / "nope.json", env={})
