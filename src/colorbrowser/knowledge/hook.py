"""The knowledge base in the episode loop: tips for each page, usage statistics.

``on`` retrieves and learns (how often a tip was shown, how those episodes ended),
``frozen`` retrieves from a store opened read-only (the papers' evaluation
protocol: nothing changes during a run), ``off`` opens nothing (the ablation).
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from typing import TYPE_CHECKING, Any

from rich.console import Console

from colorbrowser.agent.hooks import Hook
from colorbrowser.errors import ColorBrowserError
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.retrieve import prompt_text
from colorbrowser.knowledge.store import KnowledgeBase, default_db_path
from colorbrowser.safe_text import escape

if TYPE_CHECKING:
    from colorbrowser.agent.loop import Episode
    from colorbrowser.agent.state import StepContext
    from colorbrowser.config import Settings
    from colorbrowser.types import Observation

log = logging.getLogger(__name__)

# Shortcuts are shown in their own prompt section; asking for a few more results
# than k keeps k plain tips when some of the best matches are shortcuts.
_SHORTCUT_SLACK = 3


def open_knowledge(settings: Settings, stack: contextlib.ExitStack) -> KnowledgeBase | None:
    """The store the settings ask for, closed with ``stack``; None when knowledge is off."""
    mode = settings.agent.knowledge
    if mode == "off":
        return None
    path = settings.paths.knowledge or default_db_path()
    kb = KnowledgeBase.open(path, readonly=mode == "frozen",
                            embeddings=settings.agent.tips_embeddings)
    stack.callback(kb.close)
    return kb


class KnowledgeHook(Hook):
    """Fills ``ctx.tips`` before every decision and keeps the tips' usage counts.

    A tip counts as retrieved once per episode, when a step that showed it has run
    (tips a person adds mid-run and shortcuts the agent used count too); at the end
    every tip shown gets the episode's outcome. A frozen store is never written.
    """

    def __init__(self, kb: KnowledgeBase, *, k: int = 3, token_budget: int = 400,
                 aliases: SiteAliases = NO_ALIASES) -> None:
        self.kb = kb
        self.aliases = aliases
        self.k = k
        self.token_budget = token_budget
        self.shown: dict[str, None] = {}  # ids shown this episode, in order
        self.defer_outcome = False  # the caller judges success itself (adapt)

    @property
    def frozen(self) -> bool:
        return self.kb.readonly

    def on_start(self, episode: Episode) -> None:
        self.shown = {}

    def before_decide(self, episode: Episode, ctx: StepContext, obs: Observation) -> None:
        if self.k <= 0:
            return
        try:
            found = self.kb.search(self.aliases.stable(obs.url), episode.state.goal,
                                   k=self.k + _SHORTCUT_SLACK, token_budget=self.token_budget)
        except (ColorBrowserError, sqlite3.Error) as exc:
            ctx.extra["knowledge_error"] = f"tip retrieval failed: {exc}"
            return
        if found.note:
            ctx.extra["knowledge_note"] = found.note
        chosen = [r for r in found if r.tip.kind != "shortcut"][: self.k]
        for item in chosen:
            if item.tip.id in ctx.tip_ids:
                continue
            ctx.tips.append(prompt_text(item.tip))
            ctx.tip_ids.append(item.tip.id)
        ctx.extra["tips_why"] = [
            {"id": r.tip.id, "score": round(r.score, 3), "why": r.why} for r in chosen
        ]

    def after_step(self, episode: Episode, ctx: StepContext, record: dict[str, Any]) -> None:
        ids = list(ctx.tip_ids)
        used = ctx.extra.get("shortcut")
        if isinstance(used, dict) and used.get("id"):
            ids.append(str(used["id"]))
        new = [i for i in dict.fromkeys(ids) if i not in self.shown]
        if not new:
            return
        self.shown.update(dict.fromkeys(new))
        if not self.frozen:
            self._write(lambda: self.kb.record_retrieval(new))

    def on_end(self, episode: Episode, result: dict[str, Any]) -> None:
        if not self.defer_outcome:
            self.record_outcome(result.get("status") == "done")

    def record_outcome(self, success: bool) -> None:
        """Credit (or blame) every tip shown in this episode; nothing when frozen."""
        if self.shown and not self.frozen:
            ids = list(self.shown)
            self._write(lambda: self.kb.record_outcome(ids, success=success))

    @staticmethod
    def _write(write) -> None:
        # Statistics are a by-product: a busy or broken store must not end the episode.
        try:
            write()
        except (ColorBrowserError, sqlite3.Error) as exc:
            log.warning("could not update tip statistics: %s", exc)


class KnowledgeConsole(Hook):
    """Shows in the terminal which tips and shortcuts the agent was given or used."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._last: tuple[list[str], list[str]] | None = None

    def after_step(self, episode: Episode, ctx: StepContext, record: dict[str, Any]) -> None:
        current = (list(ctx.tip_ids), [s.split(":", 1)[0] for s in ctx.shortcuts])
        if current != self._last and (current[0] or current[1]):
            tips = ", ".join(current[0]) or "none"
            line = f"  [magenta]tips[/] {escape(tips)}"
            if current[1]:
                line += f"  [magenta]shortcuts[/] {escape(', '.join(current[1]))}"
            self.console.print(line)
        self._last = current
        used = ctx.extra.get("shortcut")
        if isinstance(used, dict):
            self.console.print(f"  [magenta]shortcut used[/] {escape(str(used.get('id')))} "
                               f"-> {escape(str(used.get('url')))}")
