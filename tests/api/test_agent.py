"""The Python entry point on a real browser and a local page, with scripted model
replies (unit tests of the agent logic the API wires together)."""

from __future__ import annotations

import asyncio

import pytest

from colorbrowser import Agent, AgentResult, StopRun, UserError
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.steps import Step
from colorbrowser.testing import act, bid_in, run_async

# No tips store, no Summarizer calls, no verifier (its own test below).
QUIET = {"knowledge": "off", "memory": "none", "verify": "off"}


def sign_in_replies():
    return [
        lambda m: act("Type the user name.", f"fill('{bid_in(m, 'textbox', 'User')}', 'ann')"),
        lambda m: act("Sign in.", f"click('{bid_in(m, 'button', 'Sign in')}')"),
        lambda m: act("Signed in.", "stop('signed in')"),
    ]


def test_run_returns_a_typed_result_with_the_steps_the_run_folder_holds(pages_url, tmp_path):
    seen: list[Step] = []
    model = ScriptedModel(sign_in_replies())
    agent = Agent("Sign in as ann", url=f"{pages_url}/agent/login.html", model=model,
                  run_dir=tmp_path / "run", on_step=seen.append, max_steps=5, **QUIET)
    result = agent.run()
    assert isinstance(result, AgentResult)
    assert (result.status, result.answer, result.done) == ("done", "signed in", True)
    assert result.verdict is None and result.output is None
    assert result.steps[0].action.startswith("fill(")
    assert all(isinstance(s, Step) for s in result.steps) and len(result.steps) == 3
    assert [s.step for s in seen] == [1, 2, 3] and seen[-1].result.done
    assert result.usage.calls == 3 and result.usage.prompt_tokens > 0
    assert result.run_dir == tmp_path / "run" and (result.run_dir / "result.json").exists()
    assert result.to_json()["status"] == "done"


def test_the_result_carries_the_verifiers_verdict_and_its_reasons(pages_url, tmp_path):
    # The page says "signed in" but sends nothing and sets no session cookie: the
    # verifier cannot accept the claim, sends the stop back twice (the default
    # retries), then reports it unverified, with the reason.
    stops = [lambda m: act("Signed in.", "stop('signed in')")] * 3
    model = ScriptedModel(sign_in_replies()[:2] + stops)
    agent = Agent("Sign in as ann", url=f"{pages_url}/agent/login.html", model=model,
                  run_dir=tmp_path / "run", max_steps=8, knowledge="off", memory="none")
    result = agent.run()
    assert result.verdict == "unverified", result.reasons
    assert any("cookie" in reason for reason in result.reasons)
    assert len(model.calls) == 5  # two actions, the first stop and its two second chances
    assert result.to_json()["verdict"] == "unverified"


def test_a_callback_stops_the_run_by_raising_stop_run(pages_url, tmp_path):
    def enough(step: Step) -> None:
        if step.step == 1:
            raise StopRun("one step is enough")

    agent = Agent("Sign in as ann", url=f"{pages_url}/agent/login.html",
                  model=ScriptedModel(sign_in_replies()), run_dir=tmp_path / "run",
                  on_step=[enough], **QUIET)
    result = agent.run()
    assert result.status == "stopped" and result.error == "one step is enough"
    assert len(result.steps) == 1


def test_arun_runs_inside_an_event_loop(pages_url, tmp_path):
    async def main() -> AgentResult:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        result = await Agent("Sign in as ann", url=f"{pages_url}/agent/login.html",
                             model=ScriptedModel(sign_in_replies()), run_dir=tmp_path / "r",
                             **QUIET).arun()
        task.cancel()
        assert ticks > 0  # the loop kept serving while the agent ran
        return result

    assert run_async(main).answer == "signed in"  # a loop of its own, as an app's


def test_keyword_settings_are_the_config_file_settings(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("[agent]\nmax_steps = 7\n[browser]\nheadless = true\n")
    agent = Agent("x", config=config, headless=False)
    assert agent.settings.agent.max_steps == 7  # from the file
    assert agent.settings.browser.headless is False  # the keyword on top
    assert Agent("x", config=config, model="qwen").settings.model.model == "qwen"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_step": 3}, "unknown setting 'max_step'"),
    ({"max_steps": 0}, "agent.max_steps"),
    ({"allow_hosts": "http://x.org/"}, "must be a host name"),
])
def test_a_bad_setting_is_one_user_error_naming_it(kwargs, message):
    with pytest.raises(UserError, match=message):
        Agent("x", **kwargs)


def test_an_empty_goal_is_refused():
    with pytest.raises(UserError, match="the goal is empty"):
        Agent("  ")


def test_a_whole_settings_object_is_taken_as_is_and_not_mixed_with_keywords():
    from colorbrowser import Settings

    settings = Settings()
    settings.agent.max_steps = 4
    assert Agent("x", settings=settings).settings.agent.max_steps == 4
    with pytest.raises(UserError, match="either settings= or keyword settings"):
        Agent("x", settings=settings, max_steps=3)
    # "knowledge" is a field of two sections: the keyword is the mode, kb= the file
    agent = Agent("x", knowledge="frozen", kb="/tmp/tips.db")
    assert agent.settings.agent.knowledge == "frozen"
    assert str(agent.settings.paths.knowledge) == "/tmp/tips.db"
