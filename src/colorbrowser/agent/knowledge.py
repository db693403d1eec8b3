"""The knowledge base in the episode loop: tips for each page, usage statistics.

``on`` retrieves and learns (how often a tip was shown, how those episodes ended),
``frozen`` retrieves from a store opened read-only (the papers' evaluation
protocol: nothing changes during a run), ``off`` opens nothing (the ablation).
This adapter sits beside the shortcuts adapter: the knowledge package itself knows
nothing of episodes.
"""

from __future__ import annotations

import logging
import sqlite3

from colorbrowser.errors import ColorBrowserError
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.retrieve import prompt_text
from colorbrowser.knowledge.store import KnowledgeBase
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import EpisodeResult, Step, StepContext, TipWhy
from colorbrowser.types import Observation

log = logging.getLogger(__name__)

# Shortcuts are shown in their own prompt section; asking for a few more results
# than k keeps k plain tips when some of the best matches are shortcuts.
_SHORTCUT_SLACK = 3


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

    def on_start(self, episode: EpisodeView) -> None:
        self.shown = {}

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        if self.k <= 0:
            return
        try:
            found = self.kb.search(self.aliases.stable(obs.url), episode.goal,
                                   k=self.k + _SHORTCUT_SLACK, token_budget=self.token_budget)
        except (ColorBrowserError, sqlite3.Error) as exc:
            ctx.knowledge_error = f"tip retrieval failed: {exc}"
            return
        if found.note:
            ctx.knowledge_note = found.note
        chosen = [r for r in found if r.tip.kind != "shortcut"][: self.k]
        for item in chosen:
            if item.tip.id in ctx.tip_ids:
                continue
            ctx.tips.append(prompt_text(item.tip))
            ctx.tip_ids.append(item.tip.id)
        ctx.tips_why = [TipWhy(id=r.tip.id, score=round(r.score, 3), why=r.why) for r in chosen]

    def after_step(self, episode: EpisodeView, ctx: StepContext, step: Step) -> None:
        ids = list(ctx.tip_ids)
        if ctx.shortcut is not None:
            ids.append(ctx.shortcut.id)
        new = [i for i in dict.fromkeys(ids) if i not in self.shown]
        if not new:
            return
        self.shown.update(dict.fromkeys(new))
        if not self.frozen:
            self._write(lambda: self.kb.record_retrieval(new))

    def on_end(self, episode: EpisodeView, result: EpisodeResult) -> None:
        if not self.defer_outcome:
            self.record_outcome(result.status == "done")

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
