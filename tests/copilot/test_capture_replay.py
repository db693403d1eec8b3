"""The capture benchmark's replay (``benchmarks/capture_run.py``) reaches the end
state the person reached, in real Chromium, when the page takes its time."""

from __future__ import annotations

import sys
from pathlib import Path

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.browser.session import BrowserSession
from colorbrowser.config import BrowserSettings
from colorbrowser.testing import serve_directory

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from capture_run import end_state, replay  # noqa: E402


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


def test_the_end_state_is_read_once_what_the_page_loads_late_has_changed_it():
    """Found on MediaWiki: its modules, fetched after the load event, take the full-text
    search button out of the form; read at the load event, the end state had the button
    in one run and not in the other, though nobody's action differed."""
    browser = BrowserSession(BrowserSettings(action_timeout_ms=3000)).start()
    try:
        with serve_directory(ROOT / "tests" / "pages", token="") as url:
            browser.page.goto(f"{url}/copilot/late_module.html")
            [(_, fields)] = end_state(browser)
    finally:
        browser.close()
    assert "full" not in fields
    assert fields["go"] == "Go"
