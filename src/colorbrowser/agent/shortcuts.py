"""Shortcuts in the loop: the Operator sees the current site's URL templates and
calls ``goto`` with the blanks filled in plainly (``goto('http://shop/search?q=blue
socks')``); this hook recognises the template and re-encodes the values.

Shortcuts are knowledge (tips of kind ``shortcut``): they come from the knowledge
base (``tips add --kind shortcut`` or ``tips import FILE``); ``file_source`` reads
them straight from a tips file for code that runs without a store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from colorbrowser.gate import Run
from colorbrowser.knowledge.aliases import NO_ALIASES, SiteAliases
from colorbrowser.knowledge.patterns import host_matches_site, url_host
from colorbrowser.knowledge.shortcuts import fill_template, match_template
from colorbrowser.knowledge.tip import Tip
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import Decision, ShortcutUse, StepContext
from colorbrowser.types import Action, Observation

# A source gives the shortcut tips known for a URL's site.
ShortcutSource = Callable[[str], list[Tip]]


def shortcut_line(tip: Tip) -> str:
    return f"{tip.id}: {tip.url_template} ({tip.text})"


def file_source(path: Path) -> ShortcutSource:
    """Shortcuts from a tips file (YAML or Markdown), read once and checked up front."""
    from colorbrowser.knowledge.exchange import read_tips_file

    tips = [t for t in read_tips_file(path) if t.kind == "shortcut"]
    return lambda url: [t for t in tips if host_matches_site(url_host(url), t.site)]


@dataclass
class ShortcutHook(Hook):
    source: ShortcutSource
    aliases: SiteAliases = NO_ALIASES
    shown: list[Tip] = field(default_factory=list)  # templates at the live address

    def before_decide(self, episode: EpisodeView, ctx: StepContext, obs: Observation) -> None:
        url = self.aliases.stable(obs.url)
        host = url_host(url)
        self.shown = [self._live(t) for t in self.source(url)
                      if t.kind == "shortcut" and t.url_template
                      and host_matches_site(host, t.site)]
        ctx.shortcuts = [shortcut_line(t) for t in self.shown]

    def _live(self, tip: Tip) -> Tip:
        live = self.aliases.live(tip.url_template or "")
        return tip if live == tip.url_template else tip.model_copy(update={"url_template": live})

    def review(self, episode: EpisodeView, ctx: StepContext, decision: Decision) -> Run | None:
        """A goto that fills a shortcut's blanks runs with the values encoded for their
        place in the URL (an edit of the decision, logged by the gate)."""
        action = decision.action
        if action is None or action.name not in {"goto", "new_tab"} or not action.args[0]:
            return None
        url = str(action.args[0])
        live = self.aliases.live(url)  # a stable address read in a tip leads to the served site
        for tip in self.shown:
            found = match_template(live, tip.url_template or "")
            if found is None:
                continue
            values, rest = found
            live = fill_template(tip.url_template or "", values) + rest
            ctx.shortcut = ShortcutUse(id=tip.id, values=values, url=live)
            break
        if live == url:
            return None
        edited = Action(action.name, [live, *action.args[1:]], raw=f"{action.name}({live!r})")
        return Run(replace(decision, action=edited), by="shortcuts")
