"""The only link between the panel's server thread and the loop's thread.

The loop's thread owns the browser and must never block on the panel; the panel must
never touch Playwright. Commands (button presses, HTTP calls) go one way through a
queue; what the panel shows (proposal, countdown, screenshots, steps) goes the other
way through ``Feed``, which fans each message out to every open event stream.

A pause or reject that arrives while the gate is about to run an action races with
it. ``Channel.send`` and ``Channel.commit`` share one lock: a command queued before
the gate commits is read before the action runs; an answer that comes after is
refused as too late, so no accepted pause or reject ever lets its action run.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import threading
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CommandKind = Literal["run", "reject", "pause", "resume", "stop", "edit", "tip", "outcome",
                      "answer", "click", "type", "press", "keep"]
ANSWERS = ("run", "reject", "edit")  # answers to one proposal


class Command(BaseModel):
    """One button press or HTTP call from the panel."""

    model_config = ConfigDict(extra="forbid")

    kind: CommandKind
    reason: str = Field("", max_length=2000)
    action: str = Field("", max_length=2000)  # edit: the action to run instead
    text: str = Field("", max_length=4000)  # tip text, or text typed on the live view
    site: str = Field("", max_length=300)  # a tip's confirmed scope: site ...
    pattern: str = Field("", max_length=1000)  # ... and URL pattern ("" for the whole site)
    outcome: Literal["", "success", "failure"] = ""
    x: float = 0.0
    y: float = 0.0
    key: str = Field("", max_length=40)
    # Which proposal an answer is for (0: the one waiting now); once queued, for any
    # command, the proposal that was waiting when it came (0: none).
    proposal: int = 0
    received: float = 0.0  # wall-clock seconds when the panel got it


class Feed:
    """Messages for the panel; each subscriber has its own asyncio queue."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = []
        self.latest: dict[str, dict[str, Any]] = {}  # kind -> last message (for new pages)
        self._ids = itertools.count(1)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        message = {"kind": kind, "id": next(self._ids), **data}
        with self._lock:
            self.latest[kind] = message
            subscribers = list(self._subscribers)
        for loop, q in subscribers:
            try:
                loop.call_soon_threadsafe(q.put_nowait, message)
            except RuntimeError:  # its event loop has closed
                self.unsubscribe(q)

    def subscribe(self) -> asyncio.Queue:
        """Called on the server's event loop; starts with the current picture."""
        q: asyncio.Queue = asyncio.Queue()
        with self._lock:
            self._subscribers.append((asyncio.get_running_loop(), q))
            for message in sorted(self.latest.values(), key=lambda m: m["id"]):
                q.put_nowait(message)
        return q

    def backlog(self) -> int:
        """Messages published but not yet taken by an open stream."""
        with self._lock:
            return sum(q.qsize() for _, q in self._subscribers)

    def unsubscribe(self, q: asyncio.Queue) -> None:
        with self._lock:
            self._subscribers = [(lp, s) for lp, s in self._subscribers if s is not q]


class Channel:
    """Commands from the panel to the loop, and the feed back."""

    def __init__(self) -> None:
        self._commands: queue.Queue[Command] = queue.Queue()
        self._lock = threading.Lock()
        self._open: int | None = None  # the proposal waiting for a verdict
        self.feed = Feed()

    def send(self, command: Command) -> str | None:
        """Queue a command; the reason it was refused, or None. Run, reject and edit
        answer the proposal now waiting, and only while it waits."""
        command.received = command.received or time.time()
        with self._lock:
            if command.kind in ANSWERS:
                if self._open is None:
                    return "nothing is waiting for approval (it may have run already)"
                if command.proposal and command.proposal != self._open:
                    return "that proposal is no longer waiting"
            command.proposal = self._open or 0  # what was waiting when it came
            self._commands.put(command)
        return None

    def poll(self) -> Command | None:
        try:
            return self._commands.get_nowait()
        except queue.Empty:
            return None

    def open(self, proposal: int) -> None:
        with self._lock:
            self._open = proposal

    def commit(self) -> bool:
        """Close the proposal to run it, unless a command is waiting (the gate must read
        it first). True when committed: later answers are refused as too late."""
        with self._lock:
            if not self._commands.empty():
                return False
            self._open = None
            return True

    def close(self) -> None:
        with self._lock:
            self._open = None
