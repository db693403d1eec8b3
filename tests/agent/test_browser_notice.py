"""What a watchdog did reaches the Operator: a real Chromium, a page where clicks
change nothing, and the stall watchdog's reload notice in the next prompt."""

from __future__ import annotations

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act, bid_in, prompt_text


def test_the_stall_watchdogs_reload_is_told_to_the_operator(pages_url):
    click = lambda m: act("try it", f"click('{bid_in(m, 'button', 'Does nothing')}')")  # noqa: E731
    model = ScriptedModel([click] * 5 + [act("done", "stop('x')")])
    with BrowserEnv(BrowserSettings(action_timeout_ms=1500, stall_steps=2)) as env:
        episode = Episode("press the button", env, Operator(model),
                          settings=AgentSettings(max_steps=8),
                          start_url=f"{pages_url}/watchdog/busy.html")
        episode.run()
    prompts = [prompt_text(call.messages) for call in model.calls]
    told = [p for p in prompts if "Browser notice: nothing changed for 2 actions; "
            "the page was reloaded" in p]
    assert told, prompts[-1]


def test_the_last_actions_own_error_is_not_repeated_as_a_notice(pages_url):
    model = ScriptedModel([act("try", "click('9999')"), act("done", "stop('x')")])
    with BrowserEnv(BrowserSettings(action_timeout_ms=1500)) as env:
        episode = Episode("press the button", env, Operator(model),
                          settings=AgentSettings(max_steps=3),
                          start_url=f"{pages_url}/watchdog/busy.html")
        episode.run()
        assert env.observe().notice is None  # a quiet page: nothing of the browser's own
    after_failure = prompt_text(model.calls[1].messages)
    assert "9999" in after_failure  # shown once, as the action's result
    assert "Browser notice" not in after_failure


def test_an_observation_keeps_the_browsers_notice_apart_from_the_actions_error(pages_url):
    with BrowserEnv(BrowserSettings(action_timeout_ms=1500)) as env:
        env.reset(f"{pages_url}/watchdog/busy.html")
        env.session.notice("the tab crashed and was reopened")
        failed = env.step("click('9999')")
        obs = env.observe()
    assert not failed.ok and obs.last_error.startswith(failed.error)
    assert obs.last_error.endswith("the tab crashed and was reopened")
    assert obs.notice == "the tab crashed and was reopened"
