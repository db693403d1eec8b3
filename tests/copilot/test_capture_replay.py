"""The capture benchmark's replay (``benchmarks/capture_sessions.py``) reaches the end
state the person reached, in real Chromium, when the page takes its time."""

from __future__ import annotations

import sys
from pathlib import Path

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from capture_sessions import replay  # noqa: E402


def test_the_replay_waits_for_a_suggestion_list_that_comes_after_the_typing(watched):
    """Found on Redmine's parent task and MediaWiki's search: the person clicked a
    suggestion once its list was there; the replay observed right after its fill,
    before the list came, and its click named an id the page had not given yet."""
    watched.open("late_list.html")
    watched.page.click("#parent")
    watched.page.keyboard.type("Pa")
    watched.page.wait_for_selector("#list li")
    watched.page.click("#list li >> nth=0")
    done = watched.actions().actions
    assert [a.label() for a in done] == ["fill(textbox 'Parent', 'Pa')",
                                         "click(listitem '')"]
    with BrowserEnv(BrowserSettings(action_timeout_ms=3000)) as env:
        replay(env, watched.url("late_list.html"), done, wait=3000)
        assert env.page.eval_on_selector("#parent", "e => e.value") == "Parma"
