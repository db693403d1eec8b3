"""Signing in through the copilot panel, for ``colorbrowser login`` without a display.

The panel's live view shows the page and plays the person's clicks, typing and keys
into it (copilot/live.py, as in copilot mode); its Stop button means "signed in".
"""

from __future__ import annotations

from collections.abc import Callable

import click

from colorbrowser.browser.session import BrowserSession
from colorbrowser.copilot.channel import Channel
from colorbrowser.copilot.live import Live
from colorbrowser.copilot.panel import PanelServer

SLICE_MS = 50


def panel_wait(session: BrowserSession, on_ready: Callable[[str], None] | None = None) -> None:
    """The person signs in through the copilot panel's live view; Stop ends it."""
    channel = Channel()
    live = Live(lambda: session.page, channel.feed)
    with PanelServer(channel) as panel:
        channel.feed.publish("notice", {"text": "Sign in on the page, then press Stop."})
        (on_ready or (lambda u: click.echo(f"Open {u} and sign in there; press Stop "
                                            "when you are signed in.", err=True)))(panel.url)
        while True:
            live.screenshot()
            command = channel.poll()
            if command is not None and command.kind == "stop":
                return
            if command is not None and command.kind in ("click", "type", "press"):
                live.forward(command)
            else:
                live.wait(SLICE_MS)
