"""Extension points of the episode loop.

Knowledge retrieval, failure triggers, the copilot gate and the console display
are each a Hook, so the loop itself stays one short function and each concern
lives in its own module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.agent.operator import Decision
    from colorbrowser.agent.state import StepContext
    from colorbrowser.types import Observation


class Hook:
    """Override what you need; every method is a no-op by default."""

    def on_start(self, episode: Episode) -> None:
        pass

    def before_decide(self, episode: Episode, ctx: StepContext, obs: Observation) -> None:
        """Add tips, shortcuts or hints to ``ctx`` before the Operator is asked."""

    def review(self, episode: Episode, ctx: StepContext, decision: Decision) -> Decision:
        """Approve, replace or veto a decision (copilot gate). Raise Aborted to stop."""
        return decision

    def after_step(self, episode: Episode, ctx: StepContext, record: dict[str, Any]) -> None:
        """Look at the finished step (triggers, statistics, display)."""

    def on_end(self, episode: Episode, result: dict[str, Any]) -> None:
        pass
