"""Triggers in the loop: detect, ask a person, and put their answer to work at once.

Before each decision the hook runs the rule detectors (and, when due, the critic)
over the trajectory so far. What fires goes into ``ctx.triggers``, where the
Summarizer treats it as a deviation and the console shows it. With an Asker the
episode pauses: a tip is stored and shown in this very step's Operator prompt (and
on later pages it covers), a hint is shown once, abort ends the run.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from colorbrowser.config import HitlSettings
from colorbrowser.errors import Aborted, ColorBrowserError
from colorbrowser.hitl.asking import Asker, HelpAnswer, HelpRequest, scope_matches
from colorbrowser.hitl.critic import Critic
from colorbrowser.hitl.triggers import Detector, PageMark, Trace, Trigger
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.retrieve import prompt_text
from colorbrowser.knowledge.tip import InvalidTip, Tip
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import HelpNote, StepContext, TriggerNote
from colorbrowser.types import Observation

if TYPE_CHECKING:
    from colorbrowser.knowledge.store import KnowledgeBase

log = logging.getLogger(__name__)
RECENT_ACTIONS = 5


@dataclass
class TriggerHook(Hook):
    settings: HitlSettings
    detector: Detector | None = None
    critic: Critic | None = None
    asker: Asker | None = None
    kb: KnowledgeBase | None = None
    aliases: SiteAliases = NO_ALIASES  # tip scopes name served sites stably
    pages: list[PageMark] = field(default_factory=list)
    session_tips: list[Tip] = field(default_factory=list)  # a person's tips of this run
    fired: list[Trigger] = field(default_factory=list)
    closed: bool = False  # the person's input ended: stop asking
    _previous_text: str | None = None

    @property
    def can_store(self) -> bool:
        return self.kb is not None and not self.kb.readonly

    def on_start(self, episode: EpisodeView) -> None:
        self.pages, self.fired, self.session_tips = [], [], []
        self._previous_text = None
        if self.detector:
            self.detector.reset()

    # -- detection --------------------------------------------------------------
    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        self.pages.append(PageMark(ctx.step, obs.url, obs.dom_hash))
        triggers: list[Trigger] = []
        if self.detector:
            trace = Trace(step=ctx.step, max_steps=episode.max_steps,
                          pages=self.pages, actions=list(episode.history), title=obs.title,
                          text=obs.axtree, previous_text=self._previous_text)
            triggers += self.detector.check(trace)
        self._previous_text = obs.axtree
        triggers += self._critic(episode, ctx, obs)
        self.fired += triggers
        ctx.triggers.extend(TriggerNote(kind=t.kind, reason=t.reason, step=t.step)
                            for t in triggers)
        self._inject_session_tips(ctx, self.aliases.stable(obs.url))
        if triggers and self.asker is not None and not self.closed:
            self._ask(episode, ctx, obs, triggers)

    def _critic(self, episode: EpisodeView, ctx: StepContext,
                obs: Observation) -> list[Trigger]:
        history = episode.history
        if self.critic is None or not history or not self.critic.due(len(history)):
            return []
        verdict = self.critic.check(episode.goal, history[-1], obs)
        ctx.usage.add(verdict.usage)
        ctx.critic = verdict.note()
        if verdict.consistent is not False:
            return []
        trigger = Trigger("critic", f"critic: {verdict.reason or 'page does not fit the intent'}",
                          ctx.step, key=obs.url)
        if self.detector and not self.detector.admit(trigger):
            return []
        return [trigger]

    # -- asking -----------------------------------------------------------------
    def request(self, episode: EpisodeView, ctx: StepContext, obs: Observation,
                triggers: list[Trigger]) -> HelpRequest:
        run_dir = episode.run_dir
        screenshot = str(run_dir / ctx.screenshot) if run_dir and ctx.screenshot else None
        stable = self.aliases.stable(obs.url)
        return HelpRequest.at(
            "; ".join(t.reason for t in triggers), episode.goal, stable,
            live_url=obs.url if stable != obs.url else None, step=ctx.step,
            summary=episode.summary, screenshot=screenshot, can_store=self.can_store,
            last_actions=[h.line() for h in episode.recent(RECENT_ACTIONS)],
            kinds=[t.kind for t in triggers],
            run_dir=str(run_dir) if run_dir is not None else None,
        )

    def _ask(self, episode: EpisodeView, ctx: StepContext, obs: Observation,
             triggers: list[Trigger]) -> None:
        request = self.request(episode, ctx, obs, triggers)
        answer = self.asker.ask(request)
        # A person may paste a password into a tip or a hint: known secrets never reach
        # the store, the model, the trajectory or the panel.
        answer = dataclasses.replace(answer, text=episode.redact(answer.text))
        self.closed = self.closed or answer.closed
        help_record = ctx.help = HelpNote(reason=request.reason, answer=answer.kind)
        if answer.kind == "abort":
            raise Aborted(f"stopped by the person at step {ctx.step}: {request.reason}")
        if answer.kind == "hint" and answer.text.strip():
            ctx.hints.append(answer.text.strip())
        elif answer.kind == "tip":
            tip = self._tip(answer, help_record)
            if tip is not None:
                self.session_tips.append(tip)
                self._show(ctx, tip)

    def _tip(self, answer: HelpAnswer, record: HelpNote) -> Tip | None:
        try:
            tip = answer.tip(tags=["hitl"])
        except InvalidTip as exc:  # an Asker that skipped validation
            record.error = str(exc)
            return None
        record.tip_id = tip.id
        record.stored = False
        if self.can_store:
            try:
                self.kb.add(tip)
                record.stored = True
            except (ColorBrowserError, sqlite3.Error) as exc:
                record.error = f"tip not stored: {exc}"
                log.warning("tip not stored: %s", exc)
        return tip

    # -- the person's tips stay in force for the rest of the run ------------------
    def _inject_session_tips(self, ctx: StepContext, url: str) -> None:
        for tip in self.session_tips:
            if scope_matches(tip, url):
                self._show(ctx, tip)

    @staticmethod
    def _show(ctx: StepContext, tip: Tip) -> None:
        if tip.id not in ctx.tip_ids:
            ctx.tips.append(prompt_text(tip))
            ctx.tip_ids.append(tip.id)


def build_trigger_hook(settings: HitlSettings, *, model=None, kb: KnowledgeBase | None = None,
                       asker: Asker | None = None,
                       aliases: SiteAliases = NO_ALIASES) -> TriggerHook | None:
    """The hook the settings ask for; None when nothing would ever fire or ask."""
    detector = Detector.from_settings(settings) if settings.triggers else None
    critic = Critic(model, every=settings.critic_every) if settings.critic_every and model \
        else None
    if asker is None and settings.interactive:
        from colorbrowser.hitl.terminal import TerminalAsker

        asker = TerminalAsker()
    if detector is None and critic is None:
        return None
    return TriggerHook(settings, detector=detector, critic=critic, asker=asker, kb=kb,
                       aliases=aliases)
