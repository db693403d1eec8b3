"""Put a copilot together around an episode: capture, channel, live view, gate, turn.

The command line and the tests build the same thing here, so a test of the gate is a
test of what ``colorbrowser copilot`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from colorbrowser.browser.capture import Capture, capture_for
from colorbrowser.browser.env import BrowserEnv
from colorbrowser.copilot.channel import Channel, Command
from colorbrowser.copilot.cleanup import Cleanup
from colorbrowser.copilot.episode import CopilotEpisode
from colorbrowser.copilot.gate import CopilotGate, Mode, RiskCheck
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.turn import PersonTurn


@dataclass
class Copilot:
    channel: Channel
    capture: Capture
    live: Live
    gate: CopilotGate
    turn: PersonTurn
    handlers: dict[str, Callable[[Command], None]] = field(default_factory=dict)

    def other(self, command: Command) -> None:
        """Tips, an outcome, forwarded input: whoever registered for the kind."""
        if command.kind in ("click", "type", "press"):
            self.live.forward(command)
        elif (handler := self.handlers.get(command.kind)) is not None:
            handler(command)


def start_capture(env: BrowserEnv, on_secret: Callable[[str], None]) -> Capture:
    """Capture in the browser from now on (it starts here if it has not yet)."""
    _ = env.page  # the browser starts on first use
    return capture_for(env.session, on_secret)


def attach_copilot(episode: CopilotEpisode, env: BrowserEnv, *, mode: Mode = "copilot",
                   countdown: float = 5.0, risk: RiskCheck | None = None,
                   confirm_risky: bool = True, channel: Channel | None = None,
                   cleanup: Cleanup | None = None) -> Copilot:
    """A copilot for ``episode``: the gate is added as its last hook."""
    channel = channel or Channel()
    redactor = episode.trajectory.redactor if episode.trajectory else None
    capture = start_capture(env, redactor.add if redactor else (lambda _secret: None))
    live = Live(lambda: env.page, channel.feed)
    holder: list[Copilot] = []

    def other(command: Command) -> None:
        holder[0].other(command)

    gate = CopilotGate(channel, live, mode=mode, countdown=countdown, risk=risk,
                       confirm_risky=confirm_risky, capture=capture, other=other,
                       observation=lambda: episode.obs)
    turn = PersonTurn(channel, live, capture, other, cleanup)
    copilot = Copilot(channel, capture, live, gate, turn)
    holder.append(copilot)
    episode.attach(gate, turn)
    return copilot
