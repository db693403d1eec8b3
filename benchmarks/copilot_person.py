"""The copilot study's scripted person: knows a task's oracle plan, answers the agent's
proposals through the real copilot channel and gate, and takes the plan's step itself
after a rejection (CowPilot's intervention)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from colorbrowser.actions import parse_action
from colorbrowser.copilot.channel import Channel, Command, Feed
from colorbrowser.copilot.episode import CopilotEpisode
from colorbrowser.copilot.gate import CopilotGate
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.turn import PersonTurn
from colorbrowser.plan.format import OracleMiss, Plan, parse_step
from colorbrowser.plan.format import Step as PlanStep
from colorbrowser.steps import Step

WAIT = "scroll(0, 0)"  # the replay agent's no-op while a target loads
LOOKS = 3  # how often the person looks again for a target that has not appeared


def _canon(text: str) -> str:
    try:
        return str(parse_action(text))
    except Exception:  # an unparsable proposal matches nothing
        return text


def _reopens(proposed: str, url: str) -> bool:
    """Whether the proposal opens the page already shown (a workflow starts where its
    run started, which is where a task's start page already is): a no-op."""
    try:
        action = parse_action(proposed)
    except Exception:  # an unparsable proposal is no no-op
        return False
    if action.name != "goto" or not action.args:
        return False

    def norm(text: str) -> str:
        return str(text).split("#", 1)[0].rstrip("/")

    return norm(action.args[0]) == norm(url)



@dataclass
class ScriptedPerson:
    """Knows the plan; answers proposals through the channel; owes a step after a reject."""

    plan: list[PlanStep]
    channel: Channel | None = None
    episode: CopilotEpisode | None = None
    position: int = 0
    expect: Any = None  # the target the last step should make appear
    owes: bool = False  # rejected: the person takes the plan's step now
    log: list[str] = field(default_factory=list)

    @classmethod
    def knowing(cls, plan: Plan) -> ScriptedPerson:
        steps = list(plan.steps)
        if not steps or steps[-1].action != "stop":
            steps.append(parse_step("stop()"))  # the plan ends: the person says done
        return cls(steps)

    def next_action(self, obs) -> str | None:
        """The plan's next step on this page, or None while its target is not there."""
        if self.position >= len(self.plan):
            return "stop()"
        try:
            return _canon(self.plan[self.position].action_text(obs, os.environ))
        except OracleMiss:
            return None

    def waiting(self, obs) -> bool:
        if self.expect is None:
            return False
        try:
            self.expect.find(obs)
        except OracleMiss:
            return True
        self.expect = None
        return False

    def on_proposal(self, data: dict[str, Any]) -> None:
        assert self.channel is not None and self.episode is not None
        obs = self.episode.obs
        proposed = _canon(str(data.get("action") or ""))
        wanted = self.next_action(obs) if obs is not None else None
        if wanted is not None and proposed == wanted and not self.waiting(obs):
            self._advance()
            self.channel.send(Command(kind="run", proposal=data["id"]))
            return
        if proposed == _canon(WAIT) and (wanted is None or self.waiting(obs)):
            self.channel.send(Command(kind="run", proposal=data["id"]))
            return
        if obs is not None and _reopens(proposed, obs.url):
            self.channel.send(Command(kind="run", proposal=data["id"]))  # changes nothing
            return
        step = self.plan[min(self.position, len(self.plan) - 1)]
        self.owes = True
        self.channel.send(Command(kind="reject", proposal=data["id"],
                                  reason=f"the next step is: {step.describe()}"))

    def _advance(self) -> None:
        step = self.plan[self.position]
        self.position += 1
        self.expect = step.expect

    def take_step(self, episode: CopilotEpisode) -> Step | None:
        """The plan's step, done by the person on the page as it is now."""
        self.owes = False
        if self.position >= len(self.plan):
            return None
        obs = episode.current()
        for look in range(LOOKS + 1):
            if not self.waiting(obs):
                text = self.next_action(obs)
                if text is not None:
                    self._advance()
                    return episode.apply(parse_action(text), "person",
                                         thought="the person's own step")
            if look < LOOKS:
                episode.env.page.wait_for_timeout(400)
                obs = episode.observe()
        self.log.append(f"plan step {self.position + 1} not on {obs.url}")
        self.position = len(self.plan)  # the plan does not fit; the person gives up
        return None


class PersonFeed(Feed):
    """The panel's feed, read by the scripted person instead of a browser tab."""

    def __init__(self, person: ScriptedPerson) -> None:
        super().__init__()
        self.person = person

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        super().publish(kind, data)
        if kind == "proposal" and not data.get("done"):
            self.person.on_proposal(data)


class QuietLive(Live):
    """No panel watches: no screenshots or overlays, only the gate's waits."""

    def screenshot(self, force: bool = False) -> None:
        return None

    def highlight(self, bbox) -> None:
        return None

    def unhighlight(self) -> None:
        return None


class StudyEpisode(CopilotEpisode):
    person: ScriptedPerson
    taken: list[Step]

    def step(self) -> Step:
        step = super().step()
        if self.person.owes and self.state.status == "running":
            self.person.take_step(self)
        return step

    def record(self, *args, **kwargs) -> Step:
        step = super().record(*args, **kwargs)
        self.taken.append(step)
        return step


def episode_type(person: ScriptedPerson) -> type[StudyEpisode]:
    """An episode class whose instances answer to ``person`` through a real gate."""

    class Bound(StudyEpisode):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.person, self.taken = person, []
            channel = Channel()
            channel.feed = PersonFeed(person)
            env = self.env
            live = QuietLive(lambda: env.page, channel.feed)
            gate = CopilotGate(channel, live, mode="copilot", countdown=0.0,
                               observation=lambda: self.obs)
            self.attach(gate, PersonTurn(channel, live, None, lambda command: None))
            person.channel, person.episode = channel, self

    return Bound

