"""The copilot gate on a real episode in real Chromium: countdown, run now, reject,
edit, pause and the person's turn, stop, risky actions, modes. A thread plays the
panel and sends commands through the channel, as the panel's server thread does;
scripted model replies stand in for the Operator and the Summarizer."""

from __future__ import annotations

import threading
import time

import pytest

from colorbrowser.agent.operator import Operator
from colorbrowser.agent.secrets import Secret, Vault
from colorbrowser.agent.summarizer import Summarizer
from colorbrowser.agent.trajectory import Trajectory, load_steps
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import AgentSettings, BrowserSettings
from colorbrowser.copilot.channel import Command
from colorbrowser.copilot.episode import CopilotEpisode
from colorbrowser.copilot.report import PanelReport
from colorbrowser.copilot.wiring import attach_copilot
from colorbrowser.knowledge import KnowledgeBase
from colorbrowser.llm.scripted import ScriptedModel
from colorbrowser.protocols import Hook
from colorbrowser.steps import TriggerNote
from colorbrowser.testing import act, bid_in, prompt_text


@pytest.fixture(scope="module")
def env():
    with BrowserEnv(BrowserSettings(action_timeout_ms=2000)) as env:
        yield env


def summary(text="working on it"):
    return (f'{{"progress": "{text}", "state": "login page", "guidance": "", '
            '"tip_violation": ""}')


def fill_user(name):
    return lambda m: act("type the name", f"fill('{bid_in(m, 'textbox', 'User')}', '{name}')")


def copilot_episode(env, tmp_path, url, replies, *, summarizer=None, max_steps=6, vault=None,
                    **options):
    model = ScriptedModel(replies)
    trajectory = Trajectory(tmp_path / "run")
    for value in vault.values if vault else ():
        trajectory.redactor.add(value)  # as build_episode does
    episode = CopilotEpisode("Sign in as ada", env, Operator(model),
                             settings=AgentSettings(max_steps=max_steps), start_url=url,
                             trajectory=trajectory, vault=vault,
                             memory=Summarizer(summarizer) if summarizer else None)
    episode.trajectory.write_meta({"goal": episode.state.goal, "start_url": url})
    copilot = attach_copilot(episode, env, **options)
    return episode, copilot, model


class Panel(threading.Thread):
    """Answers proposals in order: each item is a Command, or a list of them sent one
    after another, or None (let the countdown run)."""

    def __init__(self, copilot, *answers, delay=0.05):
        super().__init__(daemon=True)
        self.copilot, self.answers, self.delay = copilot, list(answers), delay
        self.refused: list[str] = []
        self.start()

    def proposal(self, number):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            p = self.copilot.channel.feed.latest.get("proposal")
            if p and p["id"] >= number and not p.get("done"):
                return p
            time.sleep(0.005)
        raise AssertionError(f"proposal {number} never came")

    def person_acts(self, *commands, settle=0.4):
        """The person's input on the live view, then resume and run the next proposal."""
        for command in commands:
            self.copilot.channel.send(command)
        time.sleep(settle)
        self.copilot.channel.send(Command(kind="resume"))
        self.proposal(2)
        self.copilot.channel.send(Command(kind="run"))

    def run(self):
        for number, answer in enumerate(self.answers, 1):
            self.proposal(number)
            time.sleep(self.delay)
            for command in answer if isinstance(answer, list) else [answer]:
                if command is not None:
                    if (why := self.copilot.channel.send(command)) is not None:
                        self.refused.append(why)
                    time.sleep(self.delay)


def login(pages_url):
    return f"{pages_url}/agent/login.html"


def test_the_action_runs_when_the_countdown_ends(env, pages_url, tmp_path):
    episode, _copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=0.4)
    started = time.monotonic()
    episode.run()
    first = load_steps(tmp_path / "run")[0]
    assert env.page.input_value("#u") == "ada"
    assert first.gate[0].verdict == "run" and first.gate[0].by == "countdown"
    assert 400 <= first.gate[0].waited_ms < 600
    assert time.monotonic() - started >= 0.8  # both steps waited for their countdown


def test_run_now_does_not_wait_for_the_countdown(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=30)
    Panel(copilot, Command(kind="run"), Command(kind="run"))
    assert episode.run().status == "done"
    first = load_steps(tmp_path / "run")[0]
    assert first.gate[0].by == "person" and first.gate[0].waited_ms < 3000


def test_countdown_zero_waits_for_approval(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=0)
    Panel(copilot, Command(kind="run"), Command(kind="run"), delay=0.8)
    episode.run()
    assert load_steps(tmp_path / "run")[0].gate[0].waited_ms >= 800


def test_a_rejection_and_its_reason_reach_the_next_operator_prompt(env, pages_url, tmp_path):
    episode, copilot, model = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), fill_user("ada"),
                                          act("done", "stop()")], countdown=30)
    Panel(copilot, Command(kind="reject", reason="the user is ada, not eve"),
          Command(kind="run"), Command(kind="run"))
    episode.run()
    first, _second, _ = load_steps(tmp_path / "run")
    assert not first.executed and first.gate[0].verdict == "reject"
    assert env.page.input_value("#u") == "ada"
    assert "rejected by person: the user is ada, not eve" in prompt_text(model.calls[1].messages)


def test_a_secret_pasted_into_a_panel_tip_or_a_rejection_reaches_nothing_in_clear(
        env, pages_url, tmp_path):
    code = "door-code-8812"
    vault = Vault({"door": Secret(code, hosts=("127.0.0.1",))})
    episode, copilot, model = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), fill_user("ada"),
                                          act("done", "stop()")], countdown=30, vault=vault)
    kb = KnowledgeBase.open(tmp_path / "kb.db", embeddings=False)
    report = PanelReport(copilot.channel.feed, copilot.live, mode="copilot", countdown=30,
                         kb=kb)
    episode.hooks.insert(0, report)
    copilot.handlers.update(tip=report.on_tip)
    Panel(copilot, [Command(kind="tip", text=f"The door code is {code}", site="127.0.0.1"),
                    Command(kind="reject", reason=f"the user is ada; the code is {code}")],
          Command(kind="run"), Command(kind="run"))
    episode.run()
    (tip,) = kb.list()
    kb.close()
    assert tip.text == "The door code is {{secret:door}}"
    said = prompt_text(model.calls[1].messages)
    assert "rejected by person: the user is ada; the code is {{secret:door}}" in said
    assert all(code not in prompt_text(c.messages) for c in model.calls)
    assert not any(code.encode() in f.read_bytes() for f in tmp_path.rglob("*") if f.is_file())


def test_an_edited_action_runs_without_asking_the_model_again(env, pages_url, tmp_path):
    episode, copilot, model = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), act("done", "stop()")], countdown=30)
    user = None

    def edit():
        nonlocal user
        p = Panel.proposal(panel, 1)
        user = p["target"]["bid"]
        copilot.channel.send(Command(kind="edit", action=f"fill('{user}', 'ada')"))
        Panel.proposal(panel, 2)
        copilot.channel.send(Command(kind="run"))

    panel = Panel(copilot)
    threading.Thread(target=edit, daemon=True).start()
    episode.run()
    first = load_steps(tmp_path / "run")[0]
    assert env.page.input_value("#u") == "ada" and len(model.calls) == 2
    assert first.action == f"fill('{user}', 'ada')" and first.gate[0].edited_from.endswith("'eve')")


def test_an_edited_action_still_may_only_open_web_pages(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), act("done", "stop()")], countdown=30)
    Panel(copilot, Command(kind="edit", action="goto('file:///etc/passwd')"), Command(kind="run"))
    episode.run()
    first = load_steps(tmp_path / "run")[0]
    assert not first.result.ok and env.page.url.startswith("http")


def test_pause_the_persons_actions_become_their_steps_and_reach_both_prompts(
        env, pages_url, tmp_path):
    summarizer = ScriptedModel([summary()] * 6)
    episode, copilot, model = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), act("done", "stop()")],
        summarizer=summarizer, countdown=30)

    def person():
        p = panel.proposal(1)
        box = p["target"]["bbox"]
        copilot.channel.send(Command(kind="pause"))
        time.sleep(0.3)
        # the person clicks and types on the live view; the loop plays it into the page
        copilot.channel.send(Command(kind="click", x=box[0] + 5, y=box[1] + 5))
        copilot.channel.send(Command(kind="type", text="adx"))
        copilot.channel.send(Command(kind="press", key="Backspace"))
        copilot.channel.send(Command(kind="type", text="a"))
        time.sleep(0.5)
        copilot.channel.send(Command(kind="resume"))
        panel.proposal(2)
        copilot.channel.send(Command(kind="run"))

    panel = Panel(copilot)
    threading.Thread(target=person, daemon=True).start()
    assert episode.run().status == "done"
    steps = load_steps(tmp_path / "run")
    assert [(s.actor, s.executed) for s in steps] == [("agent", False), ("person", True),
                                                      ("agent", True)]
    user = steps[1].target.bid
    assert steps[1].action == f"fill('{user}', 'ada')" and steps[1].target.name == "User"
    line = f"step 2 (by the person): fill('{user}', 'ada') -> ok"
    assert line in prompt_text(model.calls[-1].messages)
    assert line in prompt_text(summarizer.calls[-1].messages)
    assert copilot.gate.pauses == 1


def test_typing_in_the_page_during_the_countdown_is_taking_over(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url), [fill_user("eve"), act("done", "stop()")], countdown=30)

    def person():
        box = panel.proposal(1)["target"]["bbox"]
        panel.person_acts(Command(kind="click", x=box[0] + 5, y=box[1] + 5),
                          Command(kind="type", text="ada"))

    panel = Panel(copilot)
    threading.Thread(target=person, daemon=True).start()
    episode.run()
    steps = load_steps(tmp_path / "run")
    assert steps[0].gate[0].verdict == "handover" and env.page.input_value("#u") == "ada"
    assert [s.actor for s in steps] == ["agent", "person", "agent"]


def test_stop_ends_the_episode_without_running_the_action(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url), [fill_user("eve")],
                                          countdown=30)
    Panel(copilot, Command(kind="stop"))
    assert episode.run().status == "aborted"
    assert env.page.input_value("#u") == ""


def test_a_risky_action_never_runs_on_the_countdown(env, pages_url, tmp_path):
    def risky(decision, obs):
        return "it signs in" if decision.action.name == "click" else None

    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url),
        [lambda m: act("sign in", f"click('{bid_in(m, 'button', 'Sign in')}')"),
         act("done", "stop()")], countdown=0.2, risk=risky)

    def approve():
        p = panel.proposal(1)
        assert p["risky"] == "it signs in" and p["countdown_ms"] == 0
        time.sleep(1.0)
        copilot.channel.send(Command(kind="run"))

    panel = Panel(copilot)
    threading.Thread(target=approve, daemon=True).start()
    episode.run()
    first = load_steps(tmp_path / "run")[0]
    assert first.gate[0].by == "person" and first.gate[0].waited_ms >= 1000


@pytest.mark.parametrize("mode", ["ask", "auto"])
def test_ask_and_auto_modes_run_ordinary_actions_without_a_proposal(env, pages_url, tmp_path,
                                                                   mode):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=30, mode=mode)
    started = time.monotonic()
    assert episode.run().status == "done"
    assert time.monotonic() - started < 10 and "proposal" not in copilot.channel.feed.latest
    assert env.page.input_value("#u") == "ada"


def test_an_answer_after_the_action_started_is_refused_as_too_late(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=0.1)
    episode.run()
    assert copilot.channel.send(Command(kind="reject")) is not None


def test_a_rejection_then_the_persons_correction_is_offered_as_a_candidate_tip(
        env, pages_url, tmp_path):
    from colorbrowser.copilot.corrections import CorrectionTips
    from colorbrowser.knowledge.store import KnowledgeBase

    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url),
        [fill_user("eve"), act("done", "stop()"), act("done", "stop()")], countdown=30)
    kb = KnowledgeBase.open(tmp_path / "kb.db", embeddings=False)
    episode.hooks.insert(0, CorrectionTips(kb))

    def person():
        box = panel.proposal(1)["target"]["bbox"]
        copilot.channel.send(Command(kind="reject", reason="ada, not eve"))
        copilot.channel.send(Command(kind="pause"))  # held at once when step 2 is decided
        panel.person_acts(Command(kind="click", x=box[0] + 5, y=box[1] + 5),
                          Command(kind="type", text="ada"))

    panel = Panel(copilot)
    threading.Thread(target=person, daemon=True).start()
    episode.run()
    [item] = kb.queue_list()
    assert "Do not fill(" in item.reason and "'eve') on textbox 'User' (ada, not eve)" in \
        item.reason
    assert "instead fill(" in item.reason and "'ada') on textbox 'User'" in item.reason
    kb.close()


class Fires(Hook):
    """A trigger fires before every decision (as the failure detectors would)."""

    def before_decide(self, episode, ctx, obs):
        ctx.triggers.append(TriggerNote(kind="test", reason="the page looks wrong"))


def test_ask_mode_proposes_when_a_trigger_fires_and_shows_it(env, pages_url, tmp_path):
    episode, copilot, _ = copilot_episode(env, tmp_path, login(pages_url),
                                          [fill_user("ada"), act("done", "stop()")],
                                          countdown=30, mode="ask")
    episode.hooks.insert(0, Fires())
    seen = []

    def approve():
        for n in (1, 2):
            seen.append(panel.proposal(n)["triggers"])
            copilot.channel.send(Command(kind="run"))

    panel = Panel(copilot)
    threading.Thread(target=approve, daemon=True).start()
    assert episode.run().status == "done"
    assert seen == [["the page looks wrong"]] * 2


def test_auto_mode_still_holds_a_risky_action_for_approval(env, pages_url, tmp_path):
    def risky(decision, obs):
        return "it signs in" if decision.action.name == "click" else None

    episode, copilot, _ = copilot_episode(
        env, tmp_path, login(pages_url),
        [fill_user("ada"), lambda m: act("sign in", f"click('{bid_in(m, 'button', 'Sign in')}')"),
         act("done", "stop()")], countdown=0.1, mode="auto", risk=risky)
    Panel(copilot, Command(kind="reject", reason="not now"))
    episode.run()
    steps = load_steps(tmp_path / "run")
    assert [s.gate[0].verdict if s.gate else None for s in steps] == [None, "reject", None]
    assert env.page.text_content("#m") == ""


def test_a_persons_click_that_leaves_the_page_names_the_element_they_clicked(
        env, pages_url, tmp_path):
    episode, copilot, model = copilot_episode(
        env, tmp_path, f"{pages_url}/copilot/form.html",
        [lambda m: act("go on", f"click('{bid_in(m, 'link', 'Next page')}')"),
         act("done", "stop()")], countdown=30)

    def person():
        box = panel.proposal(1)["target"]["bbox"]
        copilot.channel.send(Command(kind="pause"))
        panel.person_acts(Command(kind="click", x=box[0] + 3, y=box[1] + 3), settle=0.5)

    panel = Panel(copilot)
    threading.Thread(target=person, daemon=True).start()
    episode.run()
    step = load_steps(tmp_path / "run")[1]
    assert (step.actor, step.target.role, step.target.name) == ("person", "link", "Next page")
    assert step.url.endswith("/copilot/form.html") and "next.html" in step.result.output
    line = f"step 2 (by the person): {step.action} -> ok: on link 'Next page'; the page moved"
    assert line in prompt_text(model.calls[-1].messages)
