"""Rule-based failure detectors over the trajectory so far.

Each rule is a small function of a ``Trace`` (the pages seen, the actions taken)
and the thresholds in ``HitlSettings``; it returns a Trigger or None. The Detector
runs them and keeps a cool-down so that a stuck agent is reported once, not at
every step while the evidence stays the same.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from colorbrowser.actions import spec_for
from colorbrowser.config import HitlSettings, compile_phrase
from colorbrowser.steps import HistoryEntry


@dataclass
class Trigger:
    kind: str  # url_cycle, repeated_action, no_change, repeated_errors, error_text, budget, critic
    reason: str  # one line a person (and the Summarizer) can act on
    step: int  # the step about to be decided when it fired
    key: str = ""  # what makes two firings "the same" for the cool-down (within a kind)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "step": self.step}


@dataclass
class PageMark:
    """The page as the agent saw it before deciding at ``step``."""

    step: int
    url: str
    dom_hash: str


@dataclass
class Trace:
    """What the detectors look at; ``pages[-1]`` is the page of the current step."""

    step: int
    max_steps: int
    pages: list[PageMark]
    actions: list[HistoryEntry]  # finished steps, oldest first
    title: str = ""
    text: str = ""  # current page text (the observation's tree)
    previous_text: str | None = None  # the page text of the step before, if seen

    def page_at(self, step: int) -> PageMark | None:
        for mark in reversed(self.pages):
            if mark.step == step:
                return mark
        return None


Rule = Callable[[Trace, HitlSettings], "Trigger | None"]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _touches_page(entry: HistoryEntry) -> bool:
    """Actions that are expected to change the page (not notes, sums or stop)."""
    if not entry.action:
        return False
    spec = spec_for(entry.action.split("(", 1)[0])
    return spec is not None and spec.scope != "agent"


def url_cycle(trace: Trace, cfg: HitlSettings) -> Trigger | None:
    """The same sequence of URLs visited again and again (A B A B ...)."""
    seq: list[str] = []
    for mark in trace.pages:
        if not seq or seq[-1] != mark.url:
            seq.append(mark.url)
    for length in range(2, cfg.cycle_max_len + 1):
        span = length * cfg.cycle_repeats
        if len(seq) < span:
            break
        tail = seq[-span:]
        block = tail[:length]
        if len(set(block)) == length and all(tail[i] == block[i % length] for i in range(span)):
            path = " -> ".join(_short(u, 60) for u in [*block, block[0]])
            return Trigger("url_cycle", f"URL cycle: went round {path} {cfg.cycle_repeats} "
                           "times", trace.step, key="|".join(sorted(block)))
    return None


def repeated_action(trace: Trace, cfg: HitlSettings) -> Trigger | None:
    """The same action, with the same arguments, several times in a row."""
    last = trace.actions[-cfg.repeat_actions:]
    if len(last) < cfg.repeat_actions or not last[-1].action:
        return None
    if all(e.action == last[-1].action for e in last):
        return Trigger("repeated_action", f"the same action {_short(last[-1].action)} "
                       f"{len(last)} times in a row", trace.step, key=last[-1].action)
    return None


def no_change(trace: Trace, cfg: HitlSettings) -> Trigger | None:
    """Several page actions in a row left the URL and the page content as they were."""
    acting = [e for e in trace.actions if _touches_page(e)][-cfg.still_actions:]
    if len(acting) < cfg.still_actions:
        return None
    for entry in acting:
        before, after = trace.page_at(entry.step), trace.page_at(entry.step + 1)
        if before is None or after is None:
            return None
        if (before.url, before.dom_hash) != (after.url, after.dom_hash):
            return None
    return Trigger("no_change", f"{len(acting)} actions in a row changed neither the URL nor "
                   "the page", trace.step)


def repeated_errors(trace: Trace, cfg: HitlSettings) -> Trigger | None:
    """Many of the last actions failed."""
    window = trace.actions[-cfg.error_window:]
    failed = [e for e in window if not e.ok]
    if len(failed) < cfg.error_actions:
        return None
    return Trigger("repeated_errors", f"{len(failed)} of the last {len(window)} actions failed "
                   f"(last: {_short(failed[-1].error or 'no valid action')})", trace.step)


class ErrorText:
    """Error wording on the page (access denied, out of stock, 4xx/5xx pages).

    Fires when the wording appears, not while it stays on screen: text that was
    already on the previous page (a footer, a listing) is old news.
    """

    def __init__(self, phrases: Sequence[str]) -> None:
        self.patterns = [(p, compile_phrase(p)) for p in phrases]

    def __call__(self, trace: Trace, cfg: HitlSettings) -> Trigger | None:
        page = f"{trace.title}\n{trace.text}"
        for source, pattern in self.patterns:
            m = pattern.search(page)
            if m is None:
                continue
            if trace.previous_text is not None and pattern.search(trace.previous_text):
                continue
            return Trigger("error_text", f"the page says {_short(m.group(0), 60)!r}",
                           trace.step, key=source)
        return None


def budget(trace: Trace, cfg: HitlSettings) -> Trigger | None:
    """Most of the step budget is gone and the last steps found nothing new."""
    used = trace.step - 1
    if used < math.ceil(cfg.budget_fraction * trace.max_steps) or used < cfg.progress_window:
        return None
    recent = {m.step for m in trace.pages if m.step > trace.step - cfg.progress_window}
    earlier_urls = {m.url for m in trace.pages if m.step not in recent}
    new_page = any(m.url not in earlier_urls for m in trace.pages if m.step in recent)
    noted = any(e.action and e.action.startswith("take_note(")
                for e in trace.actions[-cfg.progress_window:])
    if new_page or noted:
        return None
    return Trigger("budget", f"{used} of {trace.max_steps} steps used with no new page or note "
                   f"in the last {cfg.progress_window}", trace.step)


ONCE_PER_EPISODE = frozenset({"budget"})


@dataclass
class Detector:
    """Runs the rules; a kind (and key) that fired stays quiet for ``cooldown`` steps."""

    settings: HitlSettings
    rules: list[Rule] = field(default_factory=list)
    fired: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, key) -> step

    @classmethod
    def from_settings(cls, settings: HitlSettings) -> Detector:
        rules: list[Rule] = [url_cycle, repeated_action, no_change, repeated_errors,
                             ErrorText(settings.error_phrases), budget]
        return cls(settings, rules)

    def reset(self) -> None:
        self.fired.clear()

    def admit(self, trigger: Trigger) -> bool:
        """Whether this trigger is news; records it when it is."""
        for (kind, key), step in self.fired.items():
            if kind != trigger.kind:
                continue
            if kind in ONCE_PER_EPISODE:
                return False
            if key == trigger.key and trigger.step - step <= self.settings.cooldown:
                return False
        self.fired[(trigger.kind, trigger.key)] = trigger.step
        return True

    def check(self, trace: Trace) -> list[Trigger]:
        found = []
        for rule in self.rules:
            trigger = rule(trace, self.settings)
            if trigger is not None and self.admit(trigger):
                found.append(trigger)
        return found

