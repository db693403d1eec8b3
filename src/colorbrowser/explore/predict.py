"""The Predictor: what an action will do, said before it runs.

Rules first, from what the page itself declares: a link's href, a form's action and
method (and, for GET, the query its fields make), a toggle's expanded state, a
select's options, a checkbox's state. Where no rule applies (a button wired up by
script) the rules abstain, and a model role answers when one is configured.

How sure a prediction is comes from two places: a prior per kind of action, and
what the Judger found for this kind of action on this kind of page so far.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.urls import same_page, url_template

# How often each rule is wrong before anything is learned (abstaining: always unsure).
PRIOR = {"link": 0.1, "submit": 0.3, "submit-post": 0.5, "toggle": 0.3, "select": 0.35,
         "check": 0.2, "fill": 0.1, "button": 1.0}
PRIOR_WEIGHT = 2.0


@dataclass
class Prediction:
    source: str = "rule"  # rule, model, or none (abstained)
    navigates: bool | None = None
    url: str | None = None
    template: str | None = None
    method: str | None = None  # GET or POST, for a navigation or a submission
    submits: bool | None = None
    new_tab: bool = False
    appear: bool | None = None  # whether elements appear on the same page
    disappear: bool | None = None
    states: dict[str, Any] = field(default_factory=dict)  # the target's states after
    kind_changes: bool | None = None
    writes: bool = False  # rows of the app's databases change (learned.py)
    learned: str = ""  # what earlier outcomes of its kind changed in the rules' prediction
    note: str = ""

    @property
    def abstained(self) -> bool:
        return self.source == "none"

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, "", False)
                or k == "source"}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Prediction:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def _stays(**states: Any) -> Prediction:
    return Prediction(navigates=False, submits=False, appear=False, disappear=False,
                      states=states, kind_changes=False)


def rule_predict(cand: Candidate, page_url: str) -> Prediction:
    """The rules' prediction, or an abstention (``source='none'``)."""
    f = cand.facts
    here = url_template(page_url)
    if cand.kind == "link":
        href = f["href"].split("#", 1)[0]
        if same_page(href, page_url) and not f.get("target"):
            return _stays()
        return Prediction(navigates=True, url=href, template=url_template(href), method="GET",
                          submits=False, new_tab=f.get("target") == "_blank",
                          kind_changes=url_template(href) != here)
    if cand.kind == "submit":
        form = f.get("form") or {}
        method = form.get("method", "get").upper()
        url = form.get("url") if method == "GET" else form.get("action")
        url = (url or "").split("#", 1)[0] or None
        return Prediction(navigates=True, url=url, template=url_template(url) if url else None,
                          method=method, submits=True,
                          kind_changes=url_template(url) != here if url else None)
    if cand.kind == "toggle":
        opening = not f.get("expanded", False)
        return Prediction(navigates=False, submits=False, appear=opening, disappear=not opening,
                          states={"expanded": opening}, kind_changes=False,
                          note="opens" if opening else "closes")
    if cand.kind == "select":
        if f.get("onchange"):
            return Prediction(source="none", note="the select runs a script on change")
        return _stays(value=f.get("choice"))
    if cand.kind == "check":
        return _stays(checked=f.get("to"))
    if cand.kind == "fill":
        return _stays(value=f.get("value"))
    return Prediction(source="none", note="no rule for a button that runs a script")


def prior_of(cand: Candidate) -> float:
    if cand.kind == "submit" and (cand.facts.get("form") or {}).get("method", "get") != "get":
        return PRIOR["submit-post"]
    return PRIOR.get(cand.kind, 1.0)


@dataclass
class Track:
    """How the rules fared for one kind of action on one kind of page."""

    tries: int = 0
    misses: int = 0


class Uncertainty:
    """Learned doubt: the prior, pulled toward the miss rate the Judger has seen."""

    def __init__(self) -> None:
        self.tracks: dict[str, Track] = {}

    @staticmethod
    def _key(node: str, cand: Candidate) -> str:
        return f"{node}|{cand.signature}"

    def of(self, node: str, cand: Candidate, pred: Prediction) -> float:
        if pred.abstained:
            return 1.0
        prior = prior_of(cand)
        track = next((self.tracks[k] for k in self._keys(node, cand, pred)
                      if k in self.tracks), None)
        if track is None:
            return prior
        return (track.misses + prior * PRIOR_WEIGHT) / (track.tries + PRIOR_WEIGHT)

    def _keys(self, node: str, cand: Candidate, pred: Prediction | None) -> list[str]:
        """Most to least particular: this action here, then actions of its kind aimed at
        the same kind of page where it has an address (members' links that all end on a
        login form should not make every link look doubtful), else actions of its kind."""
        if pred is not None and pred.template:
            return [self._key(node, cand), f"*|{cand.kind}|{pred.template}"]
        return [self._key(node, cand), f"*|{cand.kind}"]

    def learn(self, node: str, cand: Candidate, missed: bool,
              pred: Prediction | None = None) -> None:
        for key in self._keys(node, cand, pred):
            track = self.tracks.setdefault(key, Track())
            track.tries += 1
            track.misses += int(missed)

    def to_json(self) -> dict[str, list[int]]:
        return {k: [t.tries, t.misses] for k, t in self.tracks.items()}

    @classmethod
    def from_json(cls, data: dict[str, list[int]]) -> Uncertainty:
        out = cls()
        out.tracks = {k: Track(v[0], v[1]) for k, v in data.items()}
        return out
