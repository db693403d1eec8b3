"""MiniWoB++ tasks served on 127.0.0.1 and scored by their own JavaScript.

Each solver below is hand-written for its task: it reads the goal the page
generated for the seed and acts with plain Playwright calls on selectors derived
from that goal. Rewards come from the page (WOB_RAW_REWARD_GLOBAL), never from us.
"""

from __future__ import annotations

import re
import time

import pytest

from colorbrowser.errors import UserError
from colorbrowser.evaluation.miniwob import DEFAULT_EPISODE_MS, VIEWPORT, MiniWobSuite
from colorbrowser.evaluation.task import Task


@pytest.fixture(scope="module")
def suite():
    with MiniWobSuite() as suite:
        yield suite


@pytest.fixture(scope="module")
def page(browser):
    """One tab for the whole module: every setup() loads its task page afresh."""
    context = browser.new_context()
    yield context.new_page()
    context.close()


def start(suite, page, name, seed):
    task = suite.task(name, seed=seed)
    assert isinstance(task, Task)
    page.set_viewport_size({"width": VIEWPORT[0], "height": VIEWPORT[1]})
    return task, task.setup(page)


def quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]*)"', goal)


def exact(text: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


# --- listing -----------------------------------------------------------------

def test_all_130_task_pages_are_listed_and_runnable(suite):
    entries = suite.entries()
    assert len(entries) == 130
    assert all(e.runnable and e.site == "miniwob" for e in entries)
    ids = {e.id for e in entries}
    assert {"miniwob:click-button", "miniwob:email-inbox-nl-turk", "miniwob:terminal"} <= ids
    assert next(e for e in entries if e.id == "miniwob:click-button").summary == "Click Button Task"


def test_unknown_task_is_a_one_line_error_with_a_suggestion(suite):
    with pytest.raises(UserError, match=r"unknown task 'miniwob:click-buton'.*click-button"):
        suite.task("click-buton")


# --- solving tasks with the right actions --------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_click_button_right_button_scores_one(suite, page, seed):
    task, spec = start(suite, page, "click-button", seed)
    [label] = quoted(spec.goal)
    page.locator("#area button").filter(has_text=exact(label)).first.click()
    verdict = task.validate(page, None)
    assert (verdict.reward, verdict.success, verdict.done) == (1.0, True, True)


def test_click_link_scores_one(suite, page):
    task, spec = start(suite, page, "click-link", 3)
    [word] = quoted(spec.goal)
    page.locator("#area span.alink").filter(has_text=exact(word)).first.click()
    assert task.validate(page, None).reward == 1.0


@pytest.mark.parametrize("seed", [1, 2])
def test_enter_text_scores_one(suite, page, seed):
    task, spec = start(suite, page, "enter-text", seed)
    [text] = quoted(spec.goal)
    page.fill("#tt", text)
    page.click("#subbtn")
    assert task.validate(page, None).reward == 1.0


def test_focus_text_scores_one(suite, page):
    task, _ = start(suite, page, "focus-text", 1)
    page.click("#tt")
    assert task.validate(page, None).reward == 1.0


def checkbox_targets(goal: str) -> list[str]:
    listed = re.fullmatch(r"Select (.*) and click Submit\.", goal).group(1)
    return [] if listed == "nothing" else [w.strip() for w in listed.split(",")]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_click_checkboxes_scores_one(suite, page, seed):
    task, spec = start(suite, page, "click-checkboxes", seed)
    for word in checkbox_targets(spec.goal):
        page.locator("#boxes label").filter(has_text=exact(word)).locator("input").check()
    page.click("#subbtn")
    assert task.validate(page, None).reward == 1.0


def test_click_dialog_close_button_scores_one(suite, page):
    task, spec = start(suite, page, "click-dialog", 2)
    assert quoted(spec.goal) == ["x"]
    page.click(".ui-dialog button.ui-dialog-titlebar-close")
    assert task.validate(page, None).reward == 1.0


def test_login_user_scores_one(suite, page):
    task, spec = start(suite, page, "login-user", 1)
    username, password = quoted(spec.goal)
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#subbtn")
    verdict = task.validate(page, None)
    assert verdict.reward == 1.0
    assert 0 < verdict.info["discounted_reward"] <= 1.0


# --- wrong actions are punished by the task itself ---------------------------

def test_click_button_wrong_button_scores_minus_one(suite, page):
    task, spec = start(suite, page, "click-button", 3)
    [label] = quoted(spec.goal)
    wrong = page.locator("#area button").filter(has_not_text=exact(label)).first
    wrong.click()
    verdict = task.validate(page, None)
    assert (verdict.reward, verdict.success, verdict.done) == (-1.0, False, True)


def test_click_link_wrong_link_scores_minus_one(suite, page):
    task, spec = start(suite, page, "click-link", 3)
    [word] = quoted(spec.goal)
    page.locator("#area span.alink").filter(has_not_text=exact(word)).first.click()
    assert task.validate(page, None).reward == -1.0


def test_enter_text_wrong_text_scores_minus_one(suite, page):
    task, spec = start(suite, page, "enter-text", 1)
    [text] = quoted(spec.goal)
    page.fill("#tt", text + "x")
    page.click("#subbtn")
    verdict = task.validate(page, None)
    assert (verdict.reward, verdict.success) == (-1.0, False)


def test_click_checkboxes_opposite_choice_scores_minus_one(suite, page):
    task, spec = start(suite, page, "click-checkboxes", 2)
    targets = set(checkbox_targets(spec.goal))
    labels = page.locator("#boxes label")
    for i in range(labels.count()):
        if labels.nth(i).inner_text().strip() not in targets:
            labels.nth(i).locator("input").check()
    page.click("#subbtn")
    assert task.validate(page, None).reward == -1.0


def test_login_user_wrong_password_fails(suite, page):
    task, spec = start(suite, page, "login-user", 1)
    username, password = quoted(spec.goal)
    page.fill("#username", username)
    page.fill("#password", password.upper() + "!")
    page.click("#subbtn")
    verdict = task.validate(page, None)
    assert verdict.reward <= 0 and not verdict.success


def test_doing_nothing_is_not_done_and_earns_nothing(suite, page):
    task, _ = start(suite, page, "click-dialog", 1)
    page.click("#query")  # a click that solves nothing
    verdict = task.validate(page, None)
    assert (verdict.reward, verdict.success, verdict.done) == (0.0, False, False)


def test_leaving_the_task_page_ends_the_episode_without_reward(suite, page, bench_url):
    task, _ = start(suite, page, "click-button", 1)
    page.goto(f"{bench_url}/start.html")
    verdict = task.validate(page, None)
    assert (verdict.reward, verdict.done) == (0.0, True)
    assert verdict.info["reason"] == "the agent left the task page"


def test_a_fragment_change_from_tab_links_stays_on_the_task(suite, page):
    task, _ = start(suite, page, "click-tab", 1)
    page.evaluate("location.hash = 'tabs-2'")
    verdict = task.validate(page, None)
    assert verdict.done is False and "reason" in verdict.info
    assert verdict.info["reason"] is None


# --- seeds, goals and the page timer ------------------------------------------

def test_same_seed_same_episode_other_seed_other_episode(suite, page):
    _, first = start(suite, page, "click-checkboxes", 7)
    _, again = start(suite, page, "click-checkboxes", 7)
    _, other = start(suite, page, "click-checkboxes", 8)
    assert first.goal == again.goal != other.goal


def test_natural_language_email_task_gives_its_utterance_as_the_goal(suite, page):
    _, spec = start(suite, page, "email-inbox-nl-turk", 1)
    assert spec.goal == "Delete all messages from Coletta."
    assert spec.info["fields"] == {"task": "delete", "by": "Coletta"}


def test_episode_timer_is_extended_by_default(suite, page):
    _, spec = start(suite, page, "click-button", 1)
    assert spec.info["episode_max_time_ms"] == DEFAULT_EPISODE_MS
    assert spec.viewport == VIEWPORT


def test_page_timer_can_be_kept_or_set(page):
    with MiniWobSuite(episode_max_time_ms=None) as own:
        _, spec = start(own, page, "click-button", 1)
        assert spec.info["episode_max_time_ms"] == 10_000  # the page's own default
    with MiniWobSuite(episode_max_time_ms=800) as short:
        task, _ = start(short, page, "click-button", 1)
        time.sleep(1.2)
        verdict = task.validate(page, None)
        assert (verdict.reward, verdict.done, verdict.info["reason"]) == (-1.0, True, "timed out")


def test_teardown_stops_the_page_timer(page):
    with MiniWobSuite(episode_max_time_ms=600) as short:
        task, _ = start(short, page, "click-button", 1)
        task.teardown()
        time.sleep(0.9)
        assert task.validate(page, None).info["reason"] != "timed out"


def test_invalid_episode_time_is_refused():
    with pytest.raises(UserError, match="episode time"):
        MiniWobSuite(episode_max_time_ms=0)


@pytest.mark.slow
def test_every_task_page_starts_an_episode_with_a_goal(suite, page):
    empty = []
    for entry in suite.entries():
        task, spec = start(suite, page, entry.id, 11)
        verdict = task.validate(page, None)
        if not spec.goal or verdict.done:
            empty.append(entry.id)
        task.teardown()
    assert empty == []
