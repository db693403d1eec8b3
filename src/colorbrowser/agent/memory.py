"""What the Operator remembers beyond the last few actions.

``none`` is the vanilla agent: only the recent actions the loop already shows.
The Summarizer's bounded belief state and the full-history ablation plug in here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from colorbrowser.types import Observation, Usage

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.agent.state import StepContext


class Memory(Protocol):
    title: str

    def update(self, episode: Episode, obs: Observation, ctx: StepContext) -> Usage:
        """Fold the newest observation in; return the model usage this cost."""
        ...

    def render(self, episode: Episode) -> str: ...


class NoMemory:
    title = "Progress so far"

    def update(self, episode: Episode, obs: Observation, ctx: StepContext) -> Usage:
        return Usage()

    def render(self, episode: Episode) -> str:
        return ""


class FullHistory:
    """The vanilla full-history agent, kept for ablations: its prompt grows every step."""

    title = "Everything you did so far"
    shows_history = True

    def update(self, episode: Episode, obs: Observation, ctx: StepContext) -> Usage:
        return Usage()

    def render(self, episode: Episode) -> str:
        lines = []
        for h in episode.state.history:
            lines.append(f"step {h.step} at {h.url}")
            if h.thought:
                lines.append(f"  thought: {h.thought}")
            lines.append(f"  {h.line().split(': ', 1)[1]}")
        return "\n".join(lines)
