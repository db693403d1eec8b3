"""A start page that does not load is the first thing the Operator reads, not the end.

A server that accepts the connection and never answers used to end the run with 0
steps. The episode now begins on a blank tab with the failure as the first
observation's error, so the Operator can try goto again (and resume, from that step).
"""

from __future__ import annotations

from pathlib import Path

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import Trajectory, read_steps
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.testing import act, hang, prompt_text, send_html, serve_directory


def test_a_start_page_that_never_answers_is_the_first_steps_error(tmp_path):
    seen: list[str] = []

    def retry_elsewhere(messages):  # scripted reply: read the error, go where it works
        seen.append(prompt_text(messages))
        return act("the start page did not load; try the other one", f"goto('{base}/ok')")

    routes = {"/hang": hang, "/ok": lambda r: send_html(r, "<title>Fine</title><p>here</p>")}
    with serve_directory(Path("."), routes, token="") as base, \
            BrowserEnv(BrowserSettings(navigation_timeout_ms=800, network_retries=0)) as env:
        model = ScriptedModel([retry_elsewhere, act("it loaded", "stop('here')")])
        episode = Episode("open the page", env, Operator(model),
                          settings=AgentSettings(max_steps=3), start_url=f"{base}/hang",
                          trajectory=Trajectory(tmp_path / "run"))
        result = episode.run()
    assert result.status == "done" and result.answer == "here" and result.steps == 2
    assert f"{base}/hang" in seen[0] and "did not load" in seen[0]
    first, second = read_steps(tmp_path / "run")
    assert "did not load" in first["last_error"] and first["url"] == "about:blank"
    assert first["result"]["ok"] and second["url"] == f"{base}/ok"
