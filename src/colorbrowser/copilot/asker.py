"""Trigger questions asked in the panel: one more way to ask a person (``Asker``).

The question is published to the panel; the loop's thread waits in short slices (the
page stays alive) until an ``answer`` command comes: a tip, a hint or skip. Stop
aborts; other commands (tips, input on the view) are handled as usual meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

from colorbrowser.copilot.channel import Channel, Command
from colorbrowser.copilot.live import SLICE_MS, Live
from colorbrowser.hitl.asking import WHOLE_SITE, HelpAnswer, HelpRequest


class PanelAsker:
    def __init__(self, channel: Channel, live: Callable[[], Live | None],
                 other: Callable[[Command], None] = lambda command: None) -> None:
        self.channel = channel
        self.live = live
        self.other = other
        self.asked = 0

    def ask(self, request: HelpRequest) -> HelpAnswer:
        self.asked += 1
        self.channel.feed.publish("question", {
            "open": True, "reason": request.reason, "url": request.url,
            "site": request.site, "pattern": request.pattern, "can_store": request.can_store,
            "choices": list(request.choices)})
        try:
            while True:
                command = self.channel.poll()
                if command is None:
                    live = self.live()
                    if live is not None:
                        live.wait(SLICE_MS)
                        live.screenshot()
                    continue
                if command.kind == "stop":
                    return HelpAnswer("abort", closed=True)
                if command.kind == "answer":
                    return self._answer(command, request)
                self.other(command)
        finally:
            self.channel.feed.publish("question", {"open": False})

    @staticmethod
    def _answer(command: Command, request: HelpRequest) -> HelpAnswer:
        kind = command.reason if command.reason in ("tip", "hint") else "skip"
        if kind == "skip" or not command.text.strip():
            return HelpAnswer("skip")
        pattern = command.pattern.strip()
        patterns = [] if not pattern or pattern == WHOLE_SITE else [pattern]
        return HelpAnswer(kind, command.text.strip(), site=command.site or request.site,
                          patterns=patterns)
