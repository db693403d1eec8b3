"""What a watchdog did reaches the Operator: a real Chromium, a page where clicks
change nothing, and the stall watchdog's reload notice in the next prompt."""

from __future__ import annotations

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act, bid_in, prompt_text
from colorbrowser.types import ActionResult, Observation


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


def test_the_last_actions_own_error_is_not_repeated_as_a_notice():
    from colorbrowser.agent.loop import _browser_notice

    failed = ActionResult.failure("element '9' not found")
    obs = Observation(url="u", title="t", axtree="",
                      last_error="element '9' not found; the tab crashed and was reopened at u")
    assert _browser_notice(obs, failed) == "the tab crashed and was reopened at u"
    obs.last_error = "element '9' not found"
    assert _browser_notice(obs, failed) == ""
    assert _browser_notice(obs, None) == "element '9' not found"
