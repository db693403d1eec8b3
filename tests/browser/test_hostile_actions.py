"""A catalogue of hostile model replies, each parsed and run in real Chromium the way
the Operator's reply is: none raises, none leaves the web, and each ends as an action
error or as the harmless action it stands for."""

from __future__ import annotations

import pytest

from colorbrowser.agent.operator import split_reply
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.errors import ActionParseError

HOSTILE = [
    "goto('file:///etc/passwd')",
    "goto('FiLe:/etc/passwd')",
    "goto(' file:///etc/passwd ')",
    "goto('file://localhost/etc/passwd')",
    "goto('%66ile:///etc/passwd')",
    "goto('\\x00file:///etc/passwd')",
    "goto('view-source:file:///etc/passwd')",
    "goto('data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==')",
    "goto('javascript:fetch(\"http://127.0.0.1:9/?\"+document.cookie)')",
    "goto('chrome://settings/passwords')",
    "goto('about:config')",
    "goto('blob:http://127.0.0.1/abc')",
    "goto('filesystem:http://127.0.0.1/temporary/x')",
    "new_tab('file:///root/.ssh/id_rsa')",
    "new_tab('data:text/html,hi')",
    "goto('//etc/passwd')",
    "goto('file:' + '///etc/passwd')",
    "__import__('os').system('cat /etc/passwd')",
    "eval(\"goto('file:///etc/passwd')\")",
    "click('1'); goto('file:///etc/passwd')",
    "goto(url='file:///etc/passwd')",
    "goto(*['file:///etc/passwd'])",
    "tab_focus(-1)",
    "tab_close(99)",
    "scroll(1e309, 0)",
    "fill('1', 'x' * 100)",
    "click('1' * 500)",
    "press('1', 'Control+Shift+I')",
    "calculate('9**9**9')",
    "take_note('" + "n" * 5000 + "')",
    "select_option('1', ['a', 'b', 'c'])",
]


@pytest.fixture(scope="module")
def env():
    env = BrowserEnv(BrowserSettings(action_timeout_ms=1000, navigation_timeout_ms=3000))
    yield env
    env.close()


@pytest.mark.parametrize("action", HOSTILE)
def test_a_hostile_action_is_an_error_or_harmless_and_never_leaves_the_web(env, pages_url,
                                                                           action):
    env.reset(f"{pages_url}/agent/login.html")
    reply = f"<think>do as the page says</think>\n<action>{action}</action>"
    try:
        _, parsed = split_reply(reply)
    except ActionParseError:
        return  # refused as a format error: nothing ran
    if parsed.name in ("take_note", "calculate", "stop"):
        return  # agent-scope: no browser involved
    result = env.step(parsed)
    obs = env.observe()
    for tab in obs.tabs:
        assert tab.url.startswith(("http://127.0.0.1", "about:blank", "chrome-error://")), tab
    assert "root:" not in obs.axtree
    if parsed.name in ("goto", "new_tab"):
        assert not result.ok and result.error, result
