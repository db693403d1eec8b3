"""A WebArena-format task end to end on local pages: setup, acting, validate, teardown."""

from __future__ import annotations

import json

import pytest

from colorbrowser.errors import UserError
from colorbrowser.evaluation.configured import ConfigSuite
from colorbrowser.evaluation.task import Task, TaskSetupError
from colorbrowser.evaluation.taskfiles import load_webarena


def write_tasks(tmp_path, *configs) -> str:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(list(configs)))
    return str(path)


def config(task_id=1, **overrides) -> dict:
    base = {
        "sites": ["shopping"], "task_id": task_id, "require_login": True,
        "storage_state": None, "start_url": "__SHOPPING__/start.html", "geolocation": None,
        "intent": "Search the shop for shoes",
        "eval": {"eval_types": ["url_match"], "reference_answers": None,
                 "reference_url": "__SHOPPING__/search.html?q=shoes", "program_html": []},
    }
    base.update(overrides)
    return base


@pytest.fixture
def env(bench_url, tmp_path):
    return {"WA_SHOPPING": bench_url + "/", "WA_AUTH_DIR": str(tmp_path / ".auth")}


def open_task(path, env, task_id="webarena:1", judge=None) -> Task:
    suite = ConfigSuite("t", load_webarena(path, env=env), judge=judge)
    task = suite.task(task_id)
    assert isinstance(task, Task)
    return task


def test_setup_opens_the_start_url_with_placeholders_filled(tmp_path, env, page, bench_url):
    task = open_task(write_tasks(tmp_path, config()), env)
    spec = task.setup(page)
    assert spec.goal == "Search the shop for shoes"
    assert spec.start_url == f"{bench_url}/start.html" == page.url
    assert task.site == "shopping"


def test_url_task_scores_by_where_the_agent_ended(tmp_path, env, page):
    task = open_task(write_tasks(tmp_path, config()), env)
    task.setup(page)
    page.click("#search-boots")
    assert task.validate(page, "").reward == 0.0
    page.go_back()
    page.click("#search-shoes")
    verdict = task.validate(page, "")
    assert (verdict.reward, verdict.success, verdict.done, verdict.error) == (1.0, True, True, None)
    assert verdict.info["url_match"]["score"] == 1.0


def test_validate_before_the_agent_answers_judges_nothing(tmp_path, env, page):
    task = open_task(write_tasks(tmp_path, config()), env)
    task.setup(page)
    page.click("#search-shoes")
    verdict = task.validate(page, None)
    assert (verdict.done, verdict.success) == (False, False)


def test_several_start_urls_open_as_tabs_and_teardown_closes_the_extra_ones(
        tmp_path, env, page, context, bench_url):
    task = open_task(write_tasks(tmp_path, config(
        start_url="__SHOPPING__/start.html |AND| __SHOPPING__/order.html")), env)
    spec = task.setup(page)
    assert spec.extra_urls == [f"{bench_url}/order.html"]
    assert [p.url for p in context.pages] == [f"{bench_url}/start.html", f"{bench_url}/order.html"]
    task.teardown()
    assert context.pages == [page]


def test_login_state_cookies_are_in_the_context_before_the_start_page(
        tmp_path, env, page, bench_url):
    auth = tmp_path / ".auth"
    auth.mkdir()
    state = {"cookies": [{"name": "session", "value": "abc123", "domain": "127.0.0.1",
                          "path": "/", "expires": -1, "httpOnly": False, "secure": False,
                          "sameSite": "Lax"}], "origins": []}
    (auth / "shopping_state.json").write_text(json.dumps(state))
    task = open_task(write_tasks(tmp_path, config(
        storage_state="./.auth/shopping_state.json", start_url="__SHOPPING__/whoami.html")), env)
    spec = task.setup(page)
    assert spec.storage_state == str(auth / "shopping_state.json")
    assert page.inner_text("#cookie") == "session=abc123"


def test_combined_url_and_html_checks_all_have_to_hold(tmp_path, env, page):
    task = open_task(write_tasks(tmp_path, config(eval={
        "eval_types": ["url_match", "program_html"], "reference_answers": None,
        "reference_url": "__SHOPPING__/order.html",
        "program_html": [{"url": "last", "locator": "document.querySelector('#status').outerText",
                          "required_contents": {"exact_match": "Pending"}},
                         {"url": "__SHOPPING__/search.html?q=x", "locator": "",
                          "required_contents": {"must_include": ["Results for x"]}}],
    })), env)
    task.setup(page)
    assert task.validate(page, "").reward == 0.0  # still on the start page
    page.click("#order")
    verdict = task.validate(page, "")
    assert verdict.reward == 1.0, verdict.info


def test_string_and_url_task_needs_both(tmp_path, env, page):
    task = open_task(write_tasks(tmp_path, config(eval={
        "eval_types": ["string_match", "url_match"],
        "reference_answers": {"must_include": ["0"]},
        "reference_url": "__SHOPPING__/search.html?q=shoes", "program_html": [],
    })), env)
    task.setup(page)
    page.click("#search-shoes")
    assert task.validate(page, "There are 0 results").reward == 1.0
    assert task.validate(page, "There are 10 results").reward == 0.0


def test_fuzzy_task_with_a_failed_url_is_failed_without_asking_the_judge(
        tmp_path, env, page, scripted):
    judge = scripted()  # any call would raise: no replies
    task = open_task(write_tasks(tmp_path, config(eval={
        "eval_types": ["string_match", "url_match"],
        "reference_answers": {"fuzzy_match": ["three results"]},
        "reference_url": "__SHOPPING__/search.html?q=shoes", "program_html": [],
    })), env, judge=judge)
    task.setup(page)
    verdict = task.validate(page, "3 results")
    assert (verdict.reward, verdict.error) == (0.0, None)
    assert judge.calls == []


def test_fuzzy_task_without_judge_is_unscored(tmp_path, env, page):
    task = open_task(write_tasks(tmp_path, config(eval={
        "eval_types": ["string_match"], "reference_answers": {"fuzzy_match": ["three"]},
        "reference_url": "", "program_html": [],
    })), env)
    task.setup(page)
    verdict = task.validate(page, "3")
    assert verdict.error == "string_match: fuzzy_match: needs a judge model"
    assert (verdict.success, verdict.done) == (False, True)


def test_unsupported_task_cannot_be_opened(tmp_path, env):
    path = write_tasks(tmp_path, config(eval={
        "eval_types": ["program_html"], "reference_answers": None, "reference_url": "",
        "program_html": [{"url": "func:shopping_get_latest_order_url()", "locator": "",
                          "required_contents": {"must_include": ["x"]}}]}))
    definitions = load_webarena(path, env=env)
    suite = ConfigSuite("t", definitions)
    with pytest.raises(UserError, match="needs func:shopping_get_latest_order_url"):
        suite.task("webarena:1")
    from colorbrowser.evaluation.configured import ConfiguredTask
    with pytest.raises(TaskSetupError):
        ConfiguredTask(definitions[0]).setup(None)  # type: ignore[arg-type]


def test_unreachable_start_page_raises_a_setup_error(tmp_path, page):
    path = write_tasks(tmp_path, config())
    task = open_task(path, {"WA_SHOPPING": "http://127.0.0.1:9"})
    with pytest.raises(TaskSetupError, match="cannot open the start page"):
        task.setup(page)
