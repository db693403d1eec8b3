"""The copilot's say between decide and execute: propose, count down, and answer.

The Operator's decision is shown in the panel with a countdown. The person may run
it now, reject it (the reason is the error the Operator reads next), edit it (the
edited action runs without asking the model again), pause (hand over), or stop. When
the countdown ends the action runs, unless it is risky: a risky action always waits
for a person. Input of the person in the page while a proposal waits is a pause too.

Modes: ``copilot`` gates every step; ``ask`` only when a trigger fired or the action
is risky; ``auto`` only risky actions, and only when risky actions are confirmed.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable
from typing import Literal

from colorbrowser.actions import parse_action
from colorbrowser.browser.capture import Capture
from colorbrowser.copilot.channel import ANSWERS, Channel, Command
from colorbrowser.copilot.live import SLICE_MS, Live
from colorbrowser.errors import ActionParseError
from colorbrowser.gate import Abort, HandOver, Reject, Run, Verdict
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import Decision, StepContext
from colorbrowser.types import Observation

Mode = Literal["copilot", "ask", "auto"]
MODES: tuple[Mode, ...] = ("copilot", "ask", "auto")
PERSON = "person"
# What a person's hand does; loads, tabs and hovers alone are not taking over.
HANDS = ("click", "dblclick", "input", "change", "key", "wheel")

RiskCheck = Callable[[Decision, Observation | None], "str | None"]


class CopilotGate(Hook):
    """One proposal at a time, answered through the channel."""

    def __init__(self, channel: Channel, live: Live, *, mode: Mode = "copilot",
                 countdown: float = 5.0, risk: RiskCheck | None = None,
                 confirm_risky: bool = True, capture: Capture | None = None,
                 other: Callable[[Command], None] | None = None,
                 observation: Callable[[], Observation | None] = lambda: None) -> None:
        self.channel = channel
        self.live = live
        self.mode = mode
        self.countdown = max(0.0, countdown)
        self.risk = risk
        self.confirm_risky = confirm_risky
        self.capture = capture
        self.other = other or (lambda command: None)  # tips, outcome, forwarded input
        self.observation = observation
        self.handover_since: float | None = None  # wall ms the person's turn began
        self.pauses = 0
        self._ids = itertools.count(1)

    # -- the seam ------------------------------------------------------------------------
    def review(self, episode: EpisodeView, ctx: StepContext,
               decision: Decision) -> Verdict | None:
        waiting = self._between_proposals()
        if waiting is not None:
            return waiting
        obs = self.observation()
        risky = self.risk(decision, obs) if self.risk and decision.action else None
        if not self._gates(ctx, risky):
            return None
        return self._propose(decision, ctx, obs, risky)

    def _gates(self, ctx: StepContext, risky: str | None) -> bool:
        if risky:
            return self.mode != "auto" or self.confirm_risky
        if self.mode == "copilot":
            return True
        return self.mode == "ask" and bool(ctx.triggers)

    def _between_proposals(self) -> Verdict | None:
        """Commands that came while the agent was thinking: a pause or stop holds now."""
        while (command := self.channel.poll()) is not None:
            if command.kind == "pause":
                return self._pause(command.received * 1000, 0.0)
            if command.kind == "stop":
                return Abort(command.reason or "stopped in the panel", by=PERSON)
            if command.kind not in ANSWERS and command.kind != "resume":
                self.other(command)
        return None

    # -- one proposal ----------------------------------------------------------------------
    def _propose(self, decision: Decision, ctx: StepContext, obs: Observation | None,
                 risky: str | None) -> Verdict:
        pid = next(self._ids)
        started = time.monotonic()
        opened_ms = time.time() * 1000
        timed = not risky and self.countdown > 0  # a risky action waits for a person
        deadline = started + self.countdown if timed else None
        target = self._target(decision, obs)
        self.channel.open(pid)
        self.channel.feed.publish("proposal", {
            "id": pid, "step": ctx.step, "action": str(decision.action or ""),
            "thought": decision.thought, "error": decision.error, "risky": risky or "",
            "countdown_ms": round(self.countdown * 1000) if timed else 0,
            "target": target, "triggers": [t.reason for t in ctx.triggers]})
        self.live.highlight(obs.elements[target["bid"]].bbox if obs and target else None)
        self.live.screenshot(force=True)
        chosen: Verdict | None = None
        try:
            while True:
                waited = (time.monotonic() - started) * 1000
                command = self.channel.poll()
                if command is not None:
                    said = self._answer(command, decision, pid, waited)
                    if said is not None and not isinstance(said, Run):
                        return said
                    chosen = said or chosen
                    continue
                if self._person_acted(opened_ms):
                    return self._pause(self.handover_since or opened_ms, waited,
                                       "the person acted in the page")
                if chosen is None and deadline is not None and time.monotonic() >= deadline:
                    chosen = Run(decision, by="countdown")
                if chosen is not None:
                    if self.channel.commit():
                        chosen.waited_ms = round(waited, 1)
                        return chosen
                    continue  # a command came in first: read it before running
                left = (deadline - time.monotonic()) * 1000 if deadline else SLICE_MS
                self.live.wait(max(1.0, min(SLICE_MS, left)))
                self.live.screenshot()
        finally:
            self.channel.close()
            self.live.unhighlight()
            self.channel.feed.publish("proposal", {"id": pid, "step": ctx.step, "done": True})

    def _answer(self, command: Command, decision: Decision, pid: int,
                waited: float) -> Verdict | None:
        kind = command.kind
        if kind in ANSWERS and command.proposal != pid:
            return None  # meant for a proposal that is gone
        if kind == "run":
            return Run(decision, by=PERSON)
        if kind == "reject":
            return Reject(command.reason.strip(), by=PERSON, waited_ms=round(waited, 1))
        if kind == "pause":
            return self._pause(command.received * 1000, waited)
        if kind == "stop":
            return Abort(command.reason or "stopped in the panel", by=PERSON)
        if kind == "edit":
            try:
                action = parse_action(command.action)
            except ActionParseError as exc:
                self.channel.feed.publish("notice", {"text": f"edit not run: {exc}"})
                return None  # still waiting for an answer
            return Run(dataclasses.replace(decision, action=action), by=PERSON)
        if kind != "resume":
            self.other(command)
        return None

    def _pause(self, since_ms: float, waited: float, reason: str = "") -> HandOver:
        self.pauses += 1
        self.handover_since = min(since_ms, time.time() * 1000)
        return HandOver(reason, by=PERSON, waited_ms=round(waited, 1))

    def _person_acted(self, since_ms: float) -> bool:
        if self.capture is None:
            return False
        hands = [e for e in self.capture.since(since_ms) if e.kind in HANDS]
        if hands:
            self.handover_since = hands[0].t
        return bool(hands)

    @staticmethod
    def _target(decision: Decision, obs: Observation | None) -> dict | None:
        action = decision.action
        if action is None or obs is None or not action.args:
            return None
        element = obs.elements.get(str(action.args[0]))
        if element is None:
            return None
        box = element.bbox
        return {"bid": element.bid, "role": element.role, "name": element.name,
                "bbox": [box.x, box.y, box.width, box.height] if box else None}
