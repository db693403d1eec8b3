"""The person's turn: from a pause (or their first input) until they resume.

The loop's thread keeps the page alive in short slices, forwards input from the
panel's live view, and when the person resumes, turns what the capture saw into
actions that enter the trajectory as the person's own steps (``Episode.apply`` with
``done``: they already took effect). The agent's next prompt lists them.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from colorbrowser.agent.loop import Episode
from colorbrowser.browser.capture import Capture
from colorbrowser.copilot.channel import ANSWERS, Channel, Command
from colorbrowser.copilot.cleanup import Cleanup
from colorbrowser.copilot.live import SLICE_MS, Live
from colorbrowser.copilot.normalize import HumanAction, normalise
from colorbrowser.errors import Aborted
from colorbrowser.steps import Step
from colorbrowser.types import ActionResult, ElementInfo, Observation

EARLY_MS = 50  # input a moment before the pause was registered still belongs to it


class PersonTurn:
    def __init__(self, channel: Channel, live: Live, capture: Capture | None,
                 other: Callable[[Command], None], cleanup: Cleanup | None = None) -> None:
        self.channel = channel
        self.live = live
        self.capture = capture
        self.other = other
        self.cleanup = cleanup  # an optional model's second look at the actions

    def hold(self, since_ms: float) -> tuple[float, float]:
        """Wait until the person resumes; (start, end) of their turn in wall ms."""
        self.channel.feed.publish("state", {"state": "paused"})
        self.live.screenshot(force=True)
        while True:
            command = self.channel.poll()
            if command is None:
                self.live.wait(SLICE_MS)
                self.live.screenshot()
                continue
            if command.kind == "resume":
                break
            if command.kind == "stop":
                raise Aborted(command.reason or "stopped in the panel")
            if command.kind in ("click", "type", "press"):
                self.live.forward(command)
            elif command.kind not in (*ANSWERS, "pause"):
                self.other(command)
        self.live.wait(SLICE_MS)  # the last events of the person's input arrive
        self.channel.feed.publish("state", {"state": "running"})
        return since_ms - EARLY_MS, time.time() * 1000

    def actions(self, start_ms: float, end_ms: float) -> list[HumanAction]:
        if self.capture is None:
            return []
        self.capture.flush_secrets()
        done = normalise(self.capture.all(), keep=lambda e: start_ms <= e.t <= end_ms)
        return done.actions

    def take(self, episode: Episode, since_ms: float) -> list[Step]:
        """The whole turn: hold, then record what the person did as their steps."""
        start, end = self.hold(since_ms)
        actions = self.actions(start, end)
        if self.cleanup is not None and actions:
            cleaned = self.cleanup(episode.state.goal, actions)
            episode.state.usage.add(cleaned.usage)
            actions = cleaned.actions
        steps = []
        if not actions:
            return steps
        now = episode.current()  # the page after the turn: one look for all its steps
        for act in actions:
            result = ActionResult(output=act.describe() or None)
            steps.append(episode.apply(act.action, "person", done=result, obs=_as_seen(now, act)))
        return steps


def _as_seen(now: Observation, act: HumanAction) -> Observation:
    """The page after the turn, named as the person saw it when they acted: their URL,
    and their element (the same id may name another element on a later page)."""
    elements = {}
    if act.target is not None:
        t = act.target
        elements[t.bid] = ElementInfo(bid=t.bid, role=t.role, name=t.name)
    return dataclasses.replace(now, url=act.url or now.url, elements=elements)
