"""Which actions must wait for a person: the approval policy and a pre-flight check.

Rules from the config (``[[copilot.risk]]``) are globs over the action's name, the
name of its element and the page's URL; the first that matches decides. ``always``
waits for approval; ``never`` does not; ``maybe`` asks the pre-flight check, which
looks in the page: would this click or key press submit a form whose method is not
GET (a POST that changes something on the server)?

A risky action never runs on a countdown. ``run --confirm-risky`` applies the same
policy in autonomous runs, asking at the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fnmatch import fnmatchcase

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FrameLocator, Page

from colorbrowser.config import RiskRule
from colorbrowser.steps import Decision
from colorbrowser.types import Observation

_READ_MS = 1000
# Whether activating this element submits a form, and with which method.
_SUBMITS = """(el, key) => {
  const form = el.form || el.closest('form');
  if (!form) return null;
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  const button = (tag === 'button' && type !== 'button' && type !== 'reset')
    || (tag === 'input' && (type === 'submit' || type === 'image'));
  const enter = key === 'Enter' && tag === 'input'
    && !['button', 'checkbox', 'radio', 'reset', 'file'].includes(type);
  if (!button && !enter) return null;
  const method = ((button && el.getAttribute('formmethod')) || form.getAttribute('method')
    || 'get').toLowerCase();
  return method;
}"""


def _glob(value: str, pattern: str) -> bool:
    return fnmatchcase(value.lower(), pattern.lower())


class RiskPolicy:
    def __init__(self, rules: Sequence[RiskRule], page: Callable[[], Page] | None = None) -> None:
        self.rules = list(rules)
        self.page = page

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
        """Would the action submit a form with a method other than GET?"""
        action = decision.action
        if self.page is None or obs is None or action is None or not action.args:
            return None
        element = obs.elements.get(str(action.args[0]))
        if element is None:
            return None
        key = str(action.args[1]) if action.name == "press" and len(action.args) > 1 else ""
        scope: Page | FrameLocator = self.page()
        for frame_bid in element.frame:
            scope = scope.frame_locator(f"[bid='{frame_bid}']")
        try:
            method = scope.locator(f"[bid='{element.bid}']").first.evaluate(
                _SUBMITS, key, timeout=_READ_MS)
        except PlaywrightError:
            return None
        if method and method != "get":
            return f"it would submit a form with {method.upper()}"
        return None
