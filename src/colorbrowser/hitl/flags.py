"""Flags for knowledge and human help, shared by ``run``, ``demo`` and ``resume``.

Kept apart from the commands so agent/cli.py can import them without a cycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

    from colorbrowser.config import Settings

KNOWLEDGE_MODES = ("on", "off", "frozen")


# -- flags shared with `run` ----------------------------------------------------------
def knowledge_options(f):
    """--knowledge and --kb."""
    f = click.option("--kb", "kb_path", type=click.Path(dir_okay=False, path_type=Path),
                     default=None, help="Knowledge base file (default: $COLORBROWSER_KB or the "
                                        "user data folder).")(f)
    f = click.option("--knowledge", type=click.Choice(KNOWLEDGE_MODES), default=None,
                     help="on: retrieve tips and learn their usage (default); off: no tips "
                          "(ablation); frozen: retrieve from a read-only store.")(f)
    return f


def help_options(f):
    """--interactive and --critic-every."""
    f = click.option("--critic-every", type=click.IntRange(min=0), default=None,
                     help="Ask the LLM critic after every N-th action (0: never).")(f)
    f = click.option("--interactive/--no-interactive", default=None,
                     help="Pause when a trigger fires and ask you for a tip or a hint.")(f)
    return f


def loop_overrides(knowledge: str | None = None, kb_path: Path | None = None,
                   interactive: bool | None = None, critic_every: int | None = None,
                   ) -> dict[tuple[str, ...], Any]:
    """Settings overrides for the flags above (None leaves the configured value)."""
    return {("agent", "knowledge"): knowledge, ("paths", "knowledge"): kb_path,
            ("hitl", "interactive"): interactive, ("hitl", "critic_every"): critic_every}


# -- what the terminal commands attach to an episode ------------------------------------
def loop_console_hooks(settings: Settings, console: Console) -> list:
    """The step display, plus which tips were used when knowledge is on."""
    from colorbrowser.agent.console import ConsoleHook

    if settings.agent.knowledge == "off":
        return [ConsoleHook(console)]
    from colorbrowser.knowledge.hook import KnowledgeConsole

    return [ConsoleHook(console), KnowledgeConsole(console)]


def terminal_asker(settings: Settings, console: Console):
    """The person at this terminal answers triggers when --interactive is on."""
    if not settings.hitl.interactive:
        return None
    from colorbrowser.hitl.terminal import TerminalAsker

    return TerminalAsker(console)
