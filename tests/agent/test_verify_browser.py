"""The verifier at the stop, in real Chromium against a real local site: each check
refuses a false "done" and accepts a true one, and a refused stop goes back to the
decider through the gate with a reason it reads, so a second chance recovers the task.
The decisions come from scripted model replies (named as such: ScriptedModel)."""

from __future__ import annotations

import json

import pytest

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import Trajectory, load_steps
from colorbrowser.agent.verifying import VerifyHook
from colorbrowser.config import AgentSettings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act, bid_in, prompt_text
from colorbrowser.ui.trace import write_trace
from tests.verify_site import verify_site

REJECTED = "rejected by verifier"


@pytest.fixture(scope="module")
def site():
    with verify_site() as running:
        yield running


def run(env, tmp_path, goal: str, url: str, replies, *, retries: int = 2,
        state_changed=None, max_steps: int = 8):
    model = ScriptedModel(replies)
    hook = VerifyHook(retries, state_changed=state_changed, late=env.late_evidence)
    episode = Episode(goal, env, Operator(model, format_retries=0),
                      settings=AgentSettings(max_steps=max_steps), start_url=url,
                      trajectory=Trajectory(tmp_path / "run"), hooks=[hook])
    env.page.context.clear_cookies()
    return episode.run(), model


def told(messages) -> bool:
    """Did the last prompt carry the verifier's refusal?"""
    return REJECTED in prompt_text(messages)


# -- information ---------------------------------------------------------------------------
def test_a_made_up_value_is_sent_back_and_the_second_chance_finds_the_real_one(
        browser_env, site, tmp_path):
    replies = [act("I think I know it.", "stop('$42.00')"),
               lambda m: act("The verifier says 42 was never seen; read the page.",
                             "stop('$12.50')") if "'42.00'" in prompt_text(m) and told(m)
               else act("lost", "stop('')")]
    result, _ = run(browser_env, tmp_path, "What is the price of the wool hiking socks?",
                    f"{site.url}/shop.html", replies)
    assert result.status == "done" and result.answer == "$12.50"
    assert result.verification.verdict == "verified" and result.verification.retries == 1
    held, _stopped = load_steps(tmp_path / "run")
    assert not held.executed and held.verification.verdict == "refuted"
    assert "on no page you saw" in held.result.error
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["verdict"] == "verified"
    page = write_trace(tmp_path / "run").read_text()
    assert 'id="verdict">verified' in page and "on no page you saw" in page


def test_an_empty_answer_is_not_done_when_the_retries_are_spent(browser_env, site, tmp_path):
    replies = [act("Nothing to say.", "stop('')")]
    result, _ = run(browser_env, tmp_path, "What is the price of the wool hiking socks?",
                    f"{site.url}/shop.html", replies, retries=0)
    assert result.status == "done" and result.verdict == "refuted"
    assert "the answer is empty" in result.verification.reason_text()


# -- changes ---------------------------------------------------------------------------------
def _fill_and_save(form: str, button: str, title: str):
    return [lambda m: act("Type the title.", f"fill('{bid_in(m, 'textbox', form)}', '{title}')"),
            lambda m: act("Save it.", f"click('{bid_in(m, 'button', button)}')")]


def test_a_write_answered_500_is_refuted_and_the_retry_saves_it_for_real(browser_env, site,
                                                                       tmp_path):
    replies = [*_fill_and_save("Broken title", "Save on the broken server", "Boots"),
               act("The page changed, so it is saved.", "stop('Saved')"),
               lambda m: act("The server answered 500: use the other form.",
                             f"goto('{site.url}/form.html')") if "answered 500" in
               prompt_text(m) else act("lost", "stop('')"),
               *_fill_and_save("Title", "Save", "Boots"),
               act("Saved now.", "stop('Saved')")]
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Boots".',
                    f"{site.url}/form.html", replies)
    assert result.verdict == "verified", result.verification
    assert site.stored[-1] == "Boots"
    first_stop = load_steps(tmp_path / "run")[2]
    assert first_stop.verification.verdict == "refuted"
    assert f"answered 500 to POST {site.url}/save-broken" in first_stop.result.error


def test_a_saved_page_with_nothing_stored_is_refuted_by_the_database(browser_env, site,
                                                                     tmp_path):
    before = len(site.stored)
    replies = [*_fill_and_save("Fake title", "Save on the fake server", "Hat"),
               act("It says Saved!", "stop('Saved')")]
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Hat".',
                    f"{site.url}/form.html", replies, retries=0,
                    state_changed=lambda: len(site.stored) != before)
    assert result.verdict == "refuted"
    assert "nothing changed in its database" in result.verification.reason_text()


def test_a_form_filled_but_never_submitted_is_refuted(browser_env, site, tmp_path):
    replies = [lambda m: act("Type it.", f"fill('{bid_in(m, 'textbox', 'Title')}', 'Cap')"),
               act("Done.", "stop('Added the cap')")]
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Cap".',
                    f"{site.url}/form.html", replies, retries=0)
    assert result.verdict == "refuted" and "nothing was saved" in \
        result.verification.reason_text()


def _save_later(env, title: str):
    """late.html: the click arms the form, whose post starts only after the click's
    evidence window closed (released here, as a loaded machine would delay it)."""
    def release(m):
        env.page.evaluate("window.go = true")
        env.page.wait_for_url("**/saved")
        return act("The page says it is saved.", "stop('Saved')")
    return [lambda m: act("Type the title.", f"fill('{bid_in(m, 'textbox', 'Late title')}', "
                                             f"'{title}')"),
            lambda m: act("Save it.", f"click('{bid_in(m, 'button', 'Save later')}')"),
            release]


def test_a_save_whose_post_starts_late_is_verified_at_a_stop_right_after(browser_env, site,
                                                                         tmp_path):
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Scarf".',
                    f"{site.url}/late.html", _save_later(browser_env, "Scarf"), retries=0)
    assert site.stored[-1] == "Scarf"
    assert result.verdict == "verified", result.verification
    assert f"POST {site.url}/save answered 303" in result.verification.checks[-1].reason
    stop = load_steps(tmp_path / "run")[-1]  # the stop's record keeps what came late
    assert [r.url for r in stop.evidence.late.requests if r.writes] == [f"{site.url}/save"]


def test_a_save_whose_post_starts_late_is_verified_after_another_action(browser_env, site,
                                                                       tmp_path):
    *save, release = _save_later(browser_env, "Mitts")
    replies = [*save, lambda m: (release(m), act("Look at it.", "scroll(0, 100)"))[1],
               act("Saved.", "stop('Saved')")]
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Mitts".',
                    f"{site.url}/late.html", replies, retries=0)
    assert site.stored[-1] == "Mitts"
    assert result.verdict == "verified", result.verification
    scrolled = load_steps(tmp_path / "run")[2]
    assert [r.status for r in scrolled.evidence.late.requests if r.writes] == [303]


def test_a_save_whose_post_arrives_while_its_evidence_is_written_is_verified(browser_env,
                                                                          site, tmp_path):
    """The flaky "nothing was saved" with the database changed: the post's request and
    answer reached the driver while the step's evidence read the page (a loaded machine;
    while-read.html forces the order), and the log marked them told unseen."""
    replies = [lambda m: act("Type the title.",
                             f"fill('{bid_in(m, 'textbox', 'Read title')}', 'Toque')"),
               lambda m: act("Save it.", f"click('{bid_in(m, 'button', 'Save when read')}')"),
               act("It says saved.", "stop('Saved')")]
    before = len(site.stored)
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Toque".',
                    f"{site.url}/while-read.html", replies, retries=0,
                    state_changed=lambda: len(site.stored) != before)
    assert site.stored[-1] == "Toque"
    assert result.verdict == "verified", result.verification
    assert f"POST {site.url}/save answered 303" in result.verification.checks[-1].reason


def test_a_save_posted_into_a_new_tab_is_verified(browser_env, site, tmp_path):
    replies = [*_fill_and_save("Tab title", "Save in a new tab", "Beret"),
               act("The new tab says saved.", "stop('Saved')")]
    before = len(site.stored)
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Beret".',
                    f"{site.url}/newtab.html", replies, retries=0,
                    state_changed=lambda: len(site.stored) != before)
    assert site.stored[-1] == "Beret"
    assert result.verdict == "verified", result.verification


def test_a_late_post_answered_500_is_still_refuted(browser_env, site, tmp_path):
    def to_the_broken_server(m):
        browser_env.page.evaluate("document.getElementById('later').action = '/save-broken'")
        return act("Type the title.", f"fill('{bid_in(m, 'textbox', 'Late title')}', 'Cowl')")

    def release(m):
        browser_env.page.evaluate("window.go = true")
        browser_env.page.wait_for_function("document.title === 'Internal Server Error'")
        return act("Saved, surely.", "stop('Saved')")

    replies = [to_the_broken_server,
               lambda m: act("Save it.", f"click('{bid_in(m, 'button', 'Save later')}')"),
               release]
    result, _ = run(browser_env, tmp_path, 'Add a product titled "Cowl".',
                    f"{site.url}/late.html", replies, retries=0)
    assert result.verdict == "refuted"
    assert f"answered 500 to POST {site.url}/save-broken" in result.verification.reason_text()


# -- sign in and open a page --------------------------------------------------------------------
def test_a_sign_in_needs_its_session_cookie(browser_env, site, tmp_path):
    good = [lambda m: act("User.", f"fill('{bid_in(m, 'textbox', 'User')}', 'ann')"),
            lambda m: act("Password.", f"fill('{bid_in(m, 'textbox', 'Password')}', 'pw-9x')"),
            lambda m: act("Go.", f"click('{bid_in(m, 'button', 'Sign in')}')"),
            act("Signed in.", "stop('Signed in')")]
    result, _ = run(browser_env, tmp_path / "good", "Sign in as ann", f"{site.url}/login.html",
                    good, retries=0)
    assert result.verdict == "verified", result.verification
    bad = [lambda m: act("User.", f"fill('{bid_in(m, 'textbox', 'Other user')}', 'bob')"),
           lambda m: act("Go.", f"click('{bid_in(m, 'button', 'Sign in without a session')}')"),
           act("Signed in.", "stop('Signed in')")]
    result, _ = run(browser_env, tmp_path / "bad", "Sign in as bob", f"{site.url}/login.html",
                    bad, retries=0)
    assert result.verdict == "refuted"
    assert "no cookie was set for 127.0.0.1" in result.verification.reason_text()


def test_opening_a_page_is_refused_on_an_error_page_and_accepted_on_the_page(browser_env,
                                                                           site, tmp_path):
    wrong = [lambda m: act("That link.", f"click('{bid_in(m, 'link', 'Old catalogue')}')"),
             act("Opened.", "stop('')")]
    result, _ = run(browser_env, tmp_path / "wrong", "Open the old catalogue page",
                    f"{site.url}/shop.html", wrong, retries=0)
    assert result.verdict == "refuted" and "error page" in result.verification.reason_text()
    right = [lambda m: act("That link.", f"click('{bid_in(m, 'link', 'Add a product')}')"),
             act("Opened.", "stop('')")]
    result, _ = run(browser_env, tmp_path / "right", "Open the page for adding a product",
                    f"{site.url}/shop.html", right, retries=0)
    assert result.verdict == "verified", result.verification


def test_an_open_a_page_goal_stopped_before_any_action_is_not_verified(browser_env, site,
                                                                        tmp_path):
    # The start page shows what the goal names, but nothing was opened.
    result, _ = run(browser_env, tmp_path, "Open the page of the wool hiking socks",
                    f"{site.url}/shop.html", [act("It is right here.", "stop('')")], retries=0)
    assert result.verdict != "verified"
    assert "you stopped before taking any action" in result.verification.reason_text()


def test_an_empty_answer_at_the_first_step_is_refuted(browser_env, site, tmp_path):
    result, _ = run(browser_env, tmp_path, "What is the price of the trail map?",
                    f"{site.url}/shop.html", [act("Done.", "stop()")], retries=0)
    assert result.verdict == "refuted" and "the answer is empty" in \
        result.verification.reason_text()


def test_a_question_answered_from_the_start_page_alone_is_still_verified(browser_env, site,
                                                                         tmp_path):
    # The start page is a page the agent saw: an answer grounded there needs no action.
    result, _ = run(browser_env, tmp_path, "What is the price of the trail map?",
                    f"{site.url}/shop.html", [act("It says so.", "stop('$4.20')")], retries=0)
    assert result.verdict == "verified", result.verification


def test_an_episode_that_never_stops_is_unverified(browser_env, site, tmp_path):
    replies = [act("Look around.", "scroll(0, 100)")] * 2
    result, _ = run(browser_env, tmp_path, "What is the price of the wool hiking socks?",
                    f"{site.url}/shop.html", replies, max_steps=2)
    assert result.status == "step_limit" and result.verdict == "unverified"
