"""The episode loop on a real browser and the demo shop, with scripted model replies."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import Trajectory, read_steps
from colorbrowser.config import AgentSettings
from colorbrowser.errors import ModelError
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.protocols import Hook
from colorbrowser.testing import act, bid_in, prompt_text
from colorbrowser.types import Usage


def make_episode(env, replies, tmp_path, goal="Find the price of the wool hiking socks",
                 url=None, **agent):
    model = ScriptedModel(replies)
    settings = AgentSettings(**{"max_steps": 6, **agent})
    episode = Episode(goal, env, Operator(model, format_retries=2), settings=settings,
                      start_url=url, trajectory=Trajectory(tmp_path / "run"))
    return episode, model


def test_success_path_reaches_the_answer_and_records_every_step(browser_env, shop_url, tmp_path):
    replies = [
        lambda m: act("Socks are in their own category.", f"click('{bid_in(m, 'link', 'Socks')}')"),
        lambda m: act("Open the wool socks.", f"click('{bid_in(m, 'link', 'Wool hiking socks')}')"),
        lambda m: act("The price is shown.", "stop('$14.50')")
        if "$14.50" in prompt_text(m) else act("not there", "go_back()"),
    ]
    episode, _ = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    assert result.status == "done" and result.answer == "$14.50"
    assert result.steps == 3
    steps = read_steps(tmp_path / "run")
    assert [s["action"] for s in steps][-1] == "stop('$14.50')"
    assert "product.html?id=3" in steps[-1]["url"]
    for s in steps:
        assert (tmp_path / "run" / s["screenshot"]).stat().st_size > 1000
        assert (tmp_path / "run" / s["som"]).exists()
        assert s["observation"].count("[") > 3
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["status"] == "done" and saved["answer"] == "$14.50"


def test_a_format_error_is_re_asked_with_the_error_and_costs_no_step(browser_env, shop_url,
                                                                    tmp_path):
    replies = ["I am not sure what to do here.", act("ok", "stop('done')")]
    episode, model = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    assert result.status == "done" and result.steps == 1
    retry_prompt = model.calls[1].messages[-1].content
    assert "could not be used" in retry_prompt and "no action found" in retry_prompt
    step = read_steps(tmp_path / "run")[0]
    assert step["format_errors"] and "no action found" in step["format_errors"][0]


def test_a_reply_with_two_action_blocks_is_re_asked_not_run_in_part(browser_env, shop_url,
                                                                   tmp_path):
    replies = ["<think>both</think>\n<action>go_back()</action>\n<action>stop('x')</action>",
               act("one at a time", "stop('done')")]
    episode, model = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    assert result.status == "done" and result.answer == "done" and result.steps == 1
    assert "2 actions" in model.calls[1].messages[-1].content
    assert "2 actions" in read_steps(tmp_path / "run")[0]["format_errors"][0]


def test_format_errors_beyond_the_retry_limit_become_a_failed_step(browser_env, shop_url,
                                                                   tmp_path):
    replies = ["nothing", "still nothing", "again nothing", act("ok", "stop()")]
    episode, _ = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    steps = read_steps(tmp_path / "run")
    assert steps[0]["action"] is None and not steps[0]["result"]["ok"]
    assert "no valid action after 3 tries" in steps[0]["result"]["error"]
    assert result.status == "done" and result.steps == 2


def test_step_limit_ends_the_episode(browser_env, shop_url, tmp_path):
    episode, _ = make_episode(browser_env, [act("look", "scroll(0, 100)")] * 3, tmp_path,
                              url=f"{shop_url}/index.html", max_steps=3)
    result = episode.run()
    assert result.status == "step_limit" and result.steps == 3
    assert len(read_steps(tmp_path / "run")) == 3
    assert json.loads((tmp_path / "run" / "result.json").read_text())["status"] == "step_limit"


def test_cost_limit_ends_the_episode(browser_env, shop_url, tmp_path):
    class Priced(ScriptedModel):
        def complete(self, messages, **kw):
            c = super().complete(messages, **kw)
            c.usage.cost = 0.4
            return c

    settings = AgentSettings(max_steps=10, max_cost=1.0)
    episode = Episode("g", browser_env, Operator(Priced([act("x", "scroll(0, 10)")] * 5)),
                      settings=settings, start_url=f"{shop_url}/index.html")
    result = episode.run()
    assert result.status == "cost_limit" and result.steps == 3


def test_errors_come_back_as_data_the_operator_sees_next_step(browser_env, shop_url, tmp_path):
    replies = [act("try", "click('99999')"), act("then", "stop()")]
    episode, model = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    first = read_steps(tmp_path / "run")[0]
    assert not first["result"]["ok"] and "99999" in first["result"]["error"]
    assert "99999" in model.calls[1].messages[-1].content
    assert result.status == "done"


def test_notes_and_calculations_are_kept_and_shown(browser_env, shop_url, tmp_path):
    replies = [
        act("remember", "take_note('socks cost $14.50')"),
        act("sum", "calculate('14.50 * 3 + 7.25')"),
        lambda m: act("done", "stop('50.75')") if "50.75" in prompt_text(m) else act("?", "stop()"),
    ]
    episode, model = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    result = episode.run()
    assert result.answer == "50.75"
    assert "socks cost $14.50" in model.calls[1].messages[-1].content
    assert read_steps(tmp_path / "run")[-1]["notes"] == ["socks cost $14.50"]


def test_trajectory_is_on_disk_after_every_step_and_survives_a_model_failure(
        browser_env, shop_url, tmp_path):
    seen = []

    class Check(Hook):
        def after_step(self, episode, ctx, record):
            seen.append(len(read_steps(tmp_path / "run")))

    replies = [act("a", "scroll(0, 50)"), act("b", "scroll(0, 50)"),
               ModelError("endpoint gone after retries")]
    episode, _ = make_episode(browser_env, replies, tmp_path, url=f"{shop_url}/index.html")
    episode.hooks.append(Check())
    result = episode.run()
    assert seen == [1, 2]
    assert result.status == "error" and "endpoint gone" in result.error
    assert len(read_steps(tmp_path / "run")) == 2


def test_typed_passwords_never_reach_the_trajectory(browser_env, pages_url, tmp_path):
    secret = "correct-horse-battery"
    replies = [lambda m: act("log in", f"fill('{bid_in(m, 'textbox', 'Password')}', '{secret}')"),
               act("done", "stop()")]
    episode, _ = make_episode(browser_env, replies, tmp_path, goal="log in",
                              url=f"{pages_url}/agent/login.html")
    episode.run()
    for path in (tmp_path / "run").rglob("*.json*"):
        assert secret not in path.read_text(), path


def test_a_typed_password_is_covered_in_later_screenshots_of_a_plain_field(
        browser_env, pages_url, tmp_path):
    """The model typed the password into the user name box too: the step's screenshot
    must not show it there, nor the image the model is sent."""
    secret = "correct-horse-battery"
    replies = [lambda m: act("log in", f"fill('{bid_in(m, 'textbox', 'Password')}', '{secret}')"),
               lambda m: act("oops", f"fill('{bid_in(m, 'textbox', 'User')}', '{secret}')"),
               act("done", "stop()")]
    episode, _ = make_episode(browser_env, replies, tmp_path, goal="log in",
                              url=f"{pages_url}/agent/login.html")
    episode.run()
    user = next(e for e in episode.obs.elements.values() if e.name == "User")
    shot = Image.open(tmp_path / "run" / read_steps(tmp_path / "run")[2]["screenshot"])
    field = shot.convert("RGB").crop((user.bbox.x + 3, user.bbox.y + 3,
                                      user.bbox.x + user.bbox.width - 3,
                                      user.bbox.y + user.bbox.height - 3))
    assert len(field.getcolors(maxcolors=1 << 24)) == 1


def test_a_password_is_masked_in_the_pending_action_while_its_step_runs(
        browser_env, pages_url, tmp_path):
    """pending.json outlives a process killed mid-step; it must not hold the password."""
    secret = "correct-horse-battery"
    seen: list[str] = []

    class Killed(BaseException):
        pass

    class DiesMidStep:  # the browser as seen by a process killed during the fill
        def __getattr__(self, name):
            return getattr(browser_env, name)

        def step(self, action):
            seen.append((tmp_path / "run" / "pending.json").read_text())
            raise Killed

    replies = [lambda m: act("log in", f"fill('{bid_in(m, 'textbox', 'Password')}', '{secret}')")]
    episode, _ = make_episode(DiesMidStep(), replies, tmp_path, goal="log in",
                              url=f"{pages_url}/agent/login.html")
    with pytest.raises(Killed):
        episode.run()
    assert seen and "fill(" in seen[0] and secret not in seen[0]
    assert secret not in (tmp_path / "run" / "pending.json").read_text()


def test_operator_prompt_stays_flat_as_steps_grow(browser_env, shop_url, tmp_path):
    episode, model = make_episode(browser_env, [act("x", "scroll(0, 1)")] * 12, tmp_path,
                                  url=f"{shop_url}/index.html", max_steps=12, memory="none")
    episode.run()
    sizes = [len(c.messages[-1].content) for c in model.calls]
    assert sizes[-1] <= sizes[5] * 1.1


@pytest.mark.parametrize("memory", ["none", "full"])
def test_full_history_mode_grows_while_none_does_not(browser_env, shop_url, tmp_path, memory):
    episode, model = make_episode(browser_env, [act("x", "scroll(0, 1)")] * 10, tmp_path,
                                  url=f"{shop_url}/index.html", max_steps=10)
    if memory == "full":
        from colorbrowser.agent.memory import FullHistory
        episode.memory = FullHistory()
    episode.run()
    growth = len(model.calls[-1].messages[-1].content) / len(model.calls[4].messages[-1].content)
    assert (growth > 1.2) if memory == "full" else (growth < 1.1)
    assert isinstance(episode.state.usage, Usage)
