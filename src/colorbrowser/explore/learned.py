"""What the Judger found, fed back into the Predictor.

The rules read what a page declares; an app does more than it declares. Members'
links that all end on the login form, a topic page that bumps its view counter, a
"Sort by" select that reloads the list, an "Add to cart" that posts and comes back:
each is a surprise the first time and the same surprise every time after. Left as a
surprise it keeps the Predictor's doubt high, and the Selector, which goes where the
Predictor is unsure, spends the budget on it again and again. So outcomes are counted
per kind of action aimed at one kind of page (the rules' destination template) from
one kind of page, and once they have been seen twice and most of them agree with each
other and not with the rules, the prediction says what they did.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.outcome import Outcome
from colorbrowser.explore.predict import Prediction
from colorbrowser.explore.urls import url_template

STAYS = ""  # the action left the page where it was
BACK = "(here)"  # it went to a page of the kind it started on (a POST that redirects back)
MAJORITY = 2 / 3
MIN_TRIES = 2  # one surprise may be a fluke; the same one twice is how the app works


@dataclass
class Seen:
    tries: int = 0
    wrote: int = 0  # times it changed rows of the app's databases
    landed: dict[str, int] = field(default_factory=dict)  # destination -> times


def _destination(navigates: bool | None, template: str | None, here: str) -> str:
    if not navigates:
        return STAYS
    return BACK if template == here else (template or "?")


class Outcomes:
    def __init__(self) -> None:
        self.seen: dict[str, Seen] = {}

    @staticmethod
    def key(cand: Candidate, rule: Prediction, here: str) -> str:
        """Actions of one kind, on one kind of page (``here``, its URL template), aimed
        at one kind of page; one that should stay put, by its name ("Sort by" on a
        category page). The page it is taken on counts: a category's badge inside a
        topic's row may open the topic while the same link in a breadcrumb opens the
        category."""
        if rule.navigates:
            return f"{cand.kind}|{here}|{rule.template}"
        return f"{cand.kind}|{here}|{cand.target.name[:60]}"

    def observe(self, key: str, out: Outcome, here: str) -> None:
        if out.error:
            return
        seen = self.seen.setdefault(key, Seen())
        seen.tries += 1
        seen.wrote += bool(out.db)
        moved = out.navigated or out.new_tab
        dest = _destination(moved, url_template(out.url), here)
        seen.landed[dest] = seen.landed.get(dest, 0) + 1

    def adjust(self, key: str, rule: Prediction, here: str) -> Prediction:
        """The rules' prediction, corrected by what this kind of action did before."""
        seen = self.seen.get(key)
        if rule.abstained or seen is None or seen.tries < MIN_TRIES:
            return rule
        pred = replace(rule, states=dict(rule.states))
        notes = []
        if seen.wrote / seen.tries >= MAJORITY:
            pred.writes = True
            notes.append(f"wrote rows {seen.wrote} of {seen.tries} times")
        dest, times = max(seen.landed.items(), key=lambda kv: (kv[1], kv[0]))
        if times / seen.tries >= MAJORITY and dest != _destination(
                rule.navigates, rule.template, here):
            if dest == STAYS:
                pred = replace(pred, navigates=False, url=None, template=None, method=None,
                               submits=False, new_tab=False, appear=None, disappear=None,
                               kind_changes=None)
            else:
                template = here if dest == BACK else dest
                pred = replace(pred, navigates=True, url=None, template=template,
                               method=rule.method if rule.submits else None,
                               appear=None, disappear=None, states={},
                               kind_changes=template != here)
            where = {STAYS: "stayed", BACK: "came back to its page"}.get(dest, f"went to {dest}")
            notes.append(f"{where} {times} of {seen.tries} times")
        if notes:
            pred.learned = "; ".join(notes)
        return pred

    def to_json(self) -> dict[str, Any]:
        return {k: [s.tries, s.wrote, s.landed] for k, s in self.seen.items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcomes:
        out = cls()
        out.seen = {k: Seen(v[0], v[1], dict(v[2])) for k, v in data.items()}
        return out
