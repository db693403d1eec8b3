"""Which actions must wait for a person: the approval policy and a pre-flight check.

Rules from the config (``[[copilot.risk]]``) are globs over the action's name, the
name of its element and the page's URL (for goto and new_tab: the address it
opens); the first that matches decides. ``always``
waits for approval; ``never`` does not; ``maybe`` asks the pre-flight check
(``hitl.preflight``): would this click or key press submit a form whose method is not
GET, run a handler that sends such a request, or did it send one before?

A risky action never runs on a countdown. ``run --confirm-risky`` applies the same
policy in autonomous runs, asking at the terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase

from playwright.sync_api import BrowserContext, Page

from colorbrowser.config import RiskRule
from colorbrowser.gate import Reject, Run, Verdict
from colorbrowser.hitl.preflight import Preflight
from colorbrowser.protocols import EpisodeView, Hook
from colorbrowser.steps import Decision, StepContext
from colorbrowser.types import Observation


def _glob(value: str, pattern: str) -> bool:
    return fnmatchcase(value.lower(), pattern.lower())


class RiskPolicy:
    def __init__(self, rules: Sequence[RiskRule], page: Callable[[], Page] | None = None) -> None:
        self.rules = list(rules)
        self.page = page
        self.looks = Preflight()

    def install(self, context: BrowserContext) -> RiskPolicy:
        """The request spy in every page of the context from now on."""
        self.looks.install(context)
        return self

    def check(self, decision: Decision, obs: Observation | None) -> str | None:
        """Why this action needs a person's approval, or None."""
        action = decision.action
        if action is None:
            return None
        element = None
        if obs is not None and action.args:
            element = obs.elements.get(str(action.args[0]))
        name = element.name if element else ""
        url = obs.url if obs else ""
        if action.name in ("goto", "new_tab") and action.args and action.args[0]:
            url = str(action.args[0])  # where it leads is what matters
        for rule in self.rules:
            if _glob(action.name, rule.action) and _glob(name, rule.element) \
                    and _glob(url, rule.url):
                if rule.tier == "always":
                    what = f" on {element.role} '{name}'" if element else ""
                    return f"{action.name}{what} needs approval (policy: {rule.element!r})"
                if rule.tier == "never":
                    return None
                return self.preflight(decision, obs)
        return None

    def preflight(self, decision: Decision, obs: Observation | None) -> str | None:
        """Would the action make the page write to a server (``hitl.preflight``)?"""
        action = decision.action
        if self.page is None or obs is None or action is None or not action.args:
            return None
        element = obs.elements.get(str(action.args[0]))
        if element is None:
            return None
        key = str(action.args[1]) if action.name == "press" and len(action.args) > 1 else ""
        return self.looks.check(self.page(), element, key)


class ConfirmRisky(Hook):
    """``run --confirm-risky``: a risky action runs only when the person says yes."""

    def __init__(self, policy: RiskPolicy, confirm: Callable[[str], bool],
                 observation: Callable[[], Observation | None]) -> None:
        self.policy = policy
        self.confirm = confirm
        self.observation = observation

    def review(self, episode: EpisodeView, ctx: StepContext,
               decision: Decision) -> Verdict | None:
        why = self.policy.check(decision, self.observation())
        if why is None:
            return None
        started = time.monotonic()
        yes = self.confirm(f"{decision.action} is risky: {why}. Run it?")
        waited = round((time.monotonic() - started) * 1000, 1)
        if yes:
            return Run(decision, by="person", waited_ms=waited)
        return Reject("not approved at the terminal", by="person", waited_ms=waited)
