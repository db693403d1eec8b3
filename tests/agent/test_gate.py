"""The seam between decide and execute, and steps taken by someone other than the
Operator. Real Chromium; scripted model replies stand in for the Operator."""

from __future__ import annotations

import json

from colorbrowser.agent.loop import Episode
from colorbrowser.agent.operator import Operator
from colorbrowser.agent.trajectory import Trajectory, load_steps, read_steps
from colorbrowser.config import AgentSettings
from colorbrowser.gate import Abort, HandOver, Reject, Run
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.protocols import Hook
from colorbrowser.steps import Decision
from colorbrowser.testing import act, bid_in, prompt_text
from colorbrowser.types import Action, ActionResult


class Says(Hook):
    """A gate that answers each review with the next scripted verdict (None: no opinion)."""

    def __init__(self, *verdicts):
        self.verdicts = list(verdicts)
        self.seen: list[Decision] = []

    def review(self, episode, ctx, decision):
        self.seen.append(decision)
        make = self.verdicts.pop(0) if self.verdicts else None
        return make(decision) if callable(make) else make


def episode_with(env, replies, tmp_path, url, *hooks, max_steps=6):
    model = ScriptedModel(replies)
    episode = Episode("Sign in as ada", env, Operator(model),
                      settings=AgentSettings(max_steps=max_steps), start_url=url,
                      trajectory=Trajectory(tmp_path / "run"), hooks=list(hooks))
    return episode, model


def fill_user(name):
    return lambda m: act("type the name", f"fill('{bid_in(m, 'textbox', 'User')}', '{name}')")


def test_a_rejected_action_does_not_run_and_its_reason_reaches_the_next_prompt(
        browser_env, pages_url, tmp_path):
    gate = Says(Reject("the user is ada, not eve", by="person"))
    episode, model = episode_with(browser_env, [fill_user("eve"), fill_user("ada"),
                                                act("done", "stop()")],
                                  tmp_path, f"{pages_url}/agent/login.html", gate)
    episode.run()
    assert browser_env.page.input_value("#u") == "ada"  # eve was never typed
    first, second, _ = load_steps(tmp_path / "run")
    assert not first.executed and first.gate[0].verdict == "reject"
    assert first.gate[0].by == "person" and "not eve" in first.result.error
    assert second.executed and second.gate == []
    assert "rejected by person: the user is ada, not eve" in prompt_text(model.calls[1].messages)


def test_an_edited_decision_runs_as_edited_and_the_edit_is_logged(browser_env, pages_url,
                                                                  tmp_path):
    def to_ada(decision):
        bid = decision.action.args[0]
        return Run(Decision(decision.thought, Action("fill", [bid, "ada"]), decision.reply),
                   by="person")

    episode, _ = episode_with(browser_env, [fill_user("eve"), act("done", "stop()")],
                              tmp_path, f"{pages_url}/agent/login.html", Says(to_ada))
    episode.run()
    first = load_steps(tmp_path / "run")[0]
    assert browser_env.page.input_value("#u") == "ada"
    assert first.action.endswith("'ada')") and first.gate[0].edited_from.endswith("'eve')")


def test_the_first_refusal_wins_and_later_hooks_see_the_edit(browser_env, pages_url,
                                                             tmp_path):
    edit = Says(lambda d: Run(Decision("", Action("scroll", [0, 10]), ""), by="a"))
    later = Says(Reject("no", by="b"))
    never = Says(Abort("must not be asked", by="c"))
    episode, _ = episode_with(browser_env, [act("x", "stop()")], tmp_path,
                              f"{pages_url}/agent/login.html", edit, later, never,
                              max_steps=1)
    episode.run()
    assert later.seen[0].action.name == "scroll" and never.seen == []
    assert [g.verdict for g in load_steps(tmp_path / "run")[0].gate] == ["run", "reject"]


def test_abort_ends_the_episode(browser_env, pages_url, tmp_path):
    episode, _ = episode_with(browser_env, [fill_user("eve")], tmp_path,
                              f"{pages_url}/agent/login.html", Says(Abort("stop now")))
    result = episode.run()
    assert result.status == "aborted" and result.steps == 0
    assert browser_env.page.input_value("#u") == ""


def test_after_a_hand_over_the_next_decision_sees_what_the_person_did(browser_env, pages_url,
                                                                      tmp_path):
    gate = Says(HandOver("the person types it", by="person"))
    episode, model = episode_with(browser_env, [fill_user("eve"), act("done", "stop()")],
                                  tmp_path, f"{pages_url}/agent/login.html", gate)
    episode.step()  # proposed, handed over
    browser_env.page.fill("#u", "ada")  # the person acts in the same browser
    user = next(e.bid for e in episode.obs.elements.values() if e.name == "User")
    episode.apply(Action("fill", [user, "ada"]), "person", done=ActionResult())
    episode.run()
    steps = load_steps(tmp_path / "run")
    assert [(s.actor, s.executed) for s in steps] == [("agent", False), ("person", True),
                                                      ("agent", True)]
    assert steps[1].target.name == "User" and steps[1].action == f"fill('{user}', 'ada')"
    prompt = prompt_text(model.calls[-1].messages)
    assert "value='ada'" in prompt  # a fresh observation, not the one before the hand-over
    assert f"step 2 (by the person): fill('{user}', 'ada') -> ok" in prompt


def test_a_script_actor_runs_its_action_through_the_same_checkpoint(browser_env, pages_url,
                                                                    tmp_path):
    episode, _ = episode_with(browser_env, [], tmp_path, f"{pages_url}/agent/login.html")
    obs = episode.observe()
    user = next(e.bid for e in obs.elements.values() if e.name == "User")
    step = episode.apply(Action("fill", [user, "ada"]), "script", thought="replayed")
    assert step.actor == "script" and step.result.ok and step.thought == "replayed"
    assert browser_env.page.input_value("#u") == "ada"
    [line] = read_steps(tmp_path / "run")
    assert line["actor"] == "script" and line["step"] == 1
    checkpoint = json.loads((tmp_path / "run" / "checkpoints" / "0001.json").read_text())
    assert checkpoint["state"]["history"][0]["actor"] == "script"
    assert not (tmp_path / "run" / "pending.json").exists()


def test_person_steps_do_not_use_up_the_agents_step_limit(browser_env, pages_url, tmp_path):
    episode, _ = episode_with(browser_env, [act("done", "stop('ok')")], tmp_path,
                              f"{pages_url}/agent/login.html", max_steps=1)
    obs = episode.observe()
    user = next(e.bid for e in obs.elements.values() if e.name == "User")
    for name in ("a", "ad", "ada"):
        episode.apply(Action("fill", [user, name]), "person", done=ActionResult())
    result = episode.run()
    assert result.status == "done" and result.steps == 4
