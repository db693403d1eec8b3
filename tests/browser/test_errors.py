"""Every way an action can go wrong comes back as an ActionResult error, never an exception."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from colorbrowser.testing import hang, send_html, serve_directory
from colorbrowser.types import Action

from .browser_helpers import find


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unknown_bid_is_an_error_carried_into_the_next_observation(env, page_url):
    env.reset(page_url("actions.html"))
    result = env.step("click('999')")
    assert not result.ok
    assert result.error == ("element '999' is not on the page; "
                            "use an id from the current observation")
    obs = env.observe()
    assert obs.last_error == result.error
    assert env.observe().last_error is None  # reported once


def test_a_bid_that_is_not_an_id_is_refused(env, page_url):
    env.reset(page_url("actions.html"))
    result = env.step(Action("click", ['"] , body']))
    assert not result.ok and "is not an element id" in result.error


def test_malformed_actions_are_errors(env, page_url):
    env.reset(page_url("actions.html"))
    assert "not a valid call" in env.step("click(").error
    assert "is missing bid" in env.step(Action("click", [])).error
    assert "unknown action 'fly'" in env.step(Action("fly", ["1"])).error
    assert "takes 2 argument(s), got 3" in env.step(Action("click", ["1", "left", 3])).error
    assert "must be a number" in env.step(Action("scroll", ["down", 3])).error
    assert "button must be" in env.step(Action("click", ["1", "sideways"])).error


@pytest.mark.parametrize("raw", ["stop('done')", "take_note('x')", "calculate('1+1')"])
def test_agent_actions_are_not_run_by_the_browser(env, raw):
    result = env.step(raw)
    assert not result.ok and "handled by the agent loop" in result.error


def test_disabled_element_fails_fast_with_a_reason(env, page_url):
    obs = env.reset(page_url("actions.html"))
    start = time.monotonic()
    result = env.step(f"click('{find(obs, 'Disabled').bid}')")
    assert time.monotonic() - start < 10
    assert not result.ok
    assert result.error.endswith(
        f"is disabled (gave up after {env.settings.action_timeout_ms} ms)")
    assert result.error.startswith(f"click('{find(obs, 'Disabled').bid}')")


def test_element_hidden_after_the_observation_is_reported_not_visible(env, page_url):
    obs = env.reset(page_url("actions.html"))
    env.page.evaluate("document.getElementById('inc').style.visibility = 'hidden'")
    result = env.step(f"click('{find(obs, 'Increment').bid}')")
    assert not result.ok and "is not visible" in result.error
    assert "\n" not in result.error


def test_covered_element_is_reported_covered(env, page_url):
    obs = env.reset(page_url("covered.html"))
    result = env.step(f"click('{find(obs, 'Under the overlay').bid}')")
    assert not result.ok and "is covered by another element" in result.error


def test_element_removed_since_the_observation(env, page_url):
    obs = env.reset(page_url("dynamic.html"))
    env.page.evaluate("document.getElementById('target').remove()")
    result = env.step(f"click('{find(obs, 'Target').bid}')")
    assert not result.ok and "is no longer on the page" in result.error
    assert result.info.get("stale") is True  # nothing was done: the target may be looked up again


def test_an_id_never_observed_is_a_mistake_not_a_stale_element(env, page_url):
    env.reset(page_url("dynamic.html"))
    result = env.step("click('9999')")
    assert not result.ok and "stale" not in result.info


def test_fill_on_a_button_explains_what_fill_is_for(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"fill('{find(obs, 'Increment').bid}', 'x')")
    assert not result.ok and "is not a text field" in result.error


def test_fill_errors_never_echo_a_password(env, page_url):
    obs = env.reset(page_url("actions.html"))
    secret = find(obs, "Secret").bid
    env.page.evaluate("document.getElementById('pw').disabled = true")
    result = env.step(f"fill('{secret}', 'hunter2')")
    assert not result.ok and result.info.get("secret") is True
    assert "hunter2" not in repr(result) and result.error.startswith(f"fill('{secret}', …)")


def test_select_option_lists_the_options_when_none_matches(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"select_option('{find(obs, 'Colour', 'combobox').bid}', 'Purple')")
    assert not result.ok
    assert result.error.endswith("no option 'Purple' in element "
                                 f"'{find(obs, 'Colour', 'combobox').bid}'; "
                                 "options are: 'Red', 'Green', 'Blue'")


def test_select_option_on_something_else(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"select_option('{find(obs, 'Increment').bid}', 'x')")
    assert not result.ok and "is not a <select>" in result.error


def test_uncheck_on_a_radio_button_suggests_another_option(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"uncheck('{find(obs, 'Free').bid}')")
    assert not result.ok and "cannot be unchecked" in result.error


def test_press_with_an_unknown_key(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"press('{find(obs, 'Query').bid}', 'Hyperspace')")
    assert not result.ok and "unknown key" in result.error


def test_goto_a_refused_port(env):
    port = _free_port()
    result = env.step(f"goto('http://127.0.0.1:{port}/')")
    assert not result.ok
    assert result.error == (f"could not open http://127.0.0.1:{port}/: connection refused "
                            "(net::ERR_CONNECTION_REFUSED)")
    # The network watchdog retries before the Operator sees the error page.
    assert env.observe().last_error.startswith(result.error + "; ")


def test_goto_an_unknown_host(env):
    result = env.step("goto('http://no-such-host.invalid/')")
    assert not result.ok and result.error.startswith("could not open http://no-such-host.invalid/")
    assert "ERR_NAME" in result.error


def test_goto_refuses_script_urls(env):
    result = env.step("goto('javascript:alert(1)')")
    assert not result.ok and "unsupported URL scheme 'javascript'" in result.error


def test_goto_a_page_that_never_answers_times_out(env):
    env.settings.navigation_timeout_ms = 700
    env.session.apply_timeouts()
    try:
        with serve_directory(Path("."), {"/hang": hang}) as base:
            result = env.step(f"goto('{base}/hang')")
    finally:
        env.settings.navigation_timeout_ms = 5000
        env.session.apply_timeouts()
    assert not result.ok and result.error == f"{base}/hang did not load within 0.7 s"


def test_clicking_a_link_to_a_server_that_never_answers(env):
    env.settings.navigation_timeout_ms = 700
    env.session.apply_timeouts()
    link = "<title>Start</title><a href='/hang'>Slow link</a><p>still here</p>"
    try:
        with serve_directory(Path("."), {"/hang": hang,
                                         "/start": lambda r: send_html(r, link)},
                             token="") as base:  # the link is root-absolute
            obs = env.reset(f"{base}/start")
            start = time.monotonic()
            result = env.step(f"click('{find(obs, 'Slow link').bid}')")
            assert time.monotonic() - start < 5
            obs = env.observe()
    finally:
        env.settings.navigation_timeout_ms = 5000
        env.session.apply_timeouts()
    assert not result.ok
    assert result.error == (f"click('{find(obs, 'Slow link').bid}') was done, but the page did "
                            "not load within 0.7 s; loading was stopped")
    assert obs.title == "Start" and "still here" in obs.axtree


def test_history_and_tab_errors(env, page_url):
    env.reset()  # reset opens a fresh tab: no history
    assert env.step("go_back()").error == "there is no previous page in this tab's history"
    assert env.step("go_forward()").error == "there is no next page in this tab's history"
    assert env.step("tab_focus(5)").error == "tab_focus: no tab 5; open tabs are 0..0"
    assert env.step("tab_close(3)").error == "tab_close: no tab 3; open tabs are 0..0"


def test_closing_the_last_tab_leaves_a_fresh_one(env, page_url):
    env.reset(page_url("page1.html"))
    assert env.step("tab_close()").ok
    obs = env.observe()
    assert len(obs.tabs) == 1 and obs.url == "about:blank"
    assert env.step(f"goto('{page_url('page2.html')}')").ok


def test_observe_after_the_active_tab_was_closed_behind_our_back(env, page_url):
    env.reset(page_url("page1.html"))
    env.step(f"new_tab('{page_url('page2.html')}')")
    env.page.close()
    obs = env.observe()
    assert obs.title == "Page one"
    assert obs.last_error.startswith("the active tab was closed; now on tab 0")
    assert env.step(f"click('{find(obs, 'Go to page two').bid}')").ok


def test_observe_after_the_only_tab_was_closed(env):
    env.page.close()
    obs = env.observe()
    assert obs.url == "about:blank" and len(obs.tabs) == 1
    assert "the active tab was closed" in obs.last_error


def test_a_crashed_tab_is_replaced_and_reported(env, page_url):
    env.reset(page_url("page1.html"))
    env.step(f"new_tab('{page_url('page2.html')}')")
    with pytest.raises(Exception):  # noqa: B017 - Playwright raises on the crash itself
        env.page.goto("chrome://crash")
    result = env.step("scroll(0, 100)")
    assert not result.ok  # acting on the dead tab is an error, not an exception
    obs = env.observe()  # the crashed tab comes back at the page it was showing
    assert "the tab crashed and was reopened at" in obs.last_error and obs.title == "Page two"
    assert [t.title for t in obs.tabs] == ["Page one", "Page two"]
    env.step("tab_focus(0)")
    obs = env.observe()
    assert env.step(f"click('{find(obs, 'Go to page two').bid}')").ok
    assert env.observe().title == "Page two"


def test_a_browser_that_went_away_is_restarted(env, page_url):
    env.reset(page_url("page1.html"))
    env.session.browser.close()
    assert not env.session.is_alive
    result = env.step(f"goto('{page_url('page2.html')}')")
    assert result.ok
    obs = env.observe()
    assert obs.title == "Page two"
    assert obs.last_error == ("the browser stopped and was restarted; 1 tab(s), cookies and "
                              "storage were restored")
