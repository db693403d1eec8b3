"""What the decider remembers beyond the last few actions (``protocols.Memory``).

``none`` is the vanilla agent: only the recent actions the loop already shows.
The Summarizer's bounded belief state and the full-history ablation plug in here.
"""

from __future__ import annotations

from colorbrowser.protocols import EpisodeView
from colorbrowser.steps import StepContext
from colorbrowser.types import Observation, Usage


class NoMemory:
    title = "Progress so far"
    shows_history = False

    def update(self, episode: EpisodeView, obs: Observation, ctx: StepContext) -> Usage:
        return Usage()

    def render(self, episode: EpisodeView) -> str:
        return ""


class FullHistory:
    """The vanilla full-history agent, kept for ablations: its prompt grows every step."""

    title = "Everything you did so far"
    shows_history = True

    def update(self, episode: EpisodeView, obs: Observation, ctx: StepContext) -> Usage:
        return Usage()

    def render(self, episode: EpisodeView) -> str:
        lines = []
        for h in episode.history:
            lines.append(f"step {h.step} at {h.url}")
            if h.thought:
                lines.append(f"  thought: {h.thought}")
            lines.append(f"  {h.line().split(': ', 1)[1]}")
        return "\n".join(lines)
