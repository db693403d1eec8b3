"""The read-only face of a running episode that hooks and memories are given.

Plug-ins used to receive the whole ``Episode`` and could change anything in it; now
they read through this and write only into the step's typed ``StepContext``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from colorbrowser.agent.state import EpisodeState
from colorbrowser.agent.trajectory import Trajectory
from colorbrowser.config import AgentSettings
from colorbrowser.steps import HistoryEntry
from colorbrowser.types import Usage


class _Running(Protocol):
    """What the facade reads through (an Episode; its state may be swapped on resume)."""

    state: EpisodeState
    settings: AgentSettings
    trajectory: Trajectory | None

    def redact(self, value: Any) -> Any: ...


class EpisodeFacade:
    """Implements ``protocols.EpisodeView`` over an Episode; copies what it hands out."""

    def __init__(self, episode: _Running) -> None:
        self._episode = episode

    @property
    def goal(self) -> str:
        return self._episode.state.goal

    @property
    def start_url(self) -> str | None:
        return self._episode.state.start_url

    @property
    def step(self) -> int:
        return self._episode.state.step

    @property
    def max_steps(self) -> int:
        return self._episode.settings.max_steps

    @property
    def status(self) -> str:
        return self._episode.state.status

    @property
    def history(self) -> Sequence[HistoryEntry]:
        return tuple(self._episode.state.history)

    @property
    def notes(self) -> Sequence[str]:
        return tuple(self._episode.state.notes)

    @property
    def summary(self) -> str:
        return self._episode.state.summary

    @property
    def usage(self) -> Usage:
        return Usage().add(self._episode.state.usage)

    @property
    def run_dir(self) -> Path | None:
        trajectory = self._episode.trajectory
        return trajectory.dir if trajectory is not None else None

    def recent(self, k: int) -> Sequence[HistoryEntry]:
        return tuple(self._episode.state.recent(k))

    def redact(self, value: Any) -> Any:
        return self._episode.redact(value)
