"""The Judger: the prediction against the outcome. A mismatch is a finding, something
the agent could not predict; so is an effect no rule foresaw (a script button that
navigated, a click that wrote rows). Deterministic; a model judge is optional and only
adds a sentence for a person."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from colorbrowser.explore.candidates import Candidate
from colorbrowser.explore.outcome import Outcome
from colorbrowser.explore.predict import Prediction
from colorbrowser.explore.urls import same_page, url_template


@dataclass
class Verdict:
    checks: dict[str, bool] = field(default_factory=dict)  # url, method, appear, ...
    finding: str | None = None  # "mismatch", "unpredicted" or "error"
    text: str = ""  # what happened, for a person

    @property
    def missed(self) -> bool:
        return any(not ok for ok in self.checks.values())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _effects(out: Outcome) -> list[str]:
    said = []
    if out.navigated:
        said.append(f"went to {out.url}" + (f" ({out.method})" if out.method else ""))
    if out.new_tab:
        said.append("opened a tab")
    if out.appeared:
        said.append(f"{len(out.appeared)} appeared ({', '.join(out.appeared[:3])})")
    if out.disappeared:
        said.append(f"{len(out.disappeared)} went ({', '.join(out.disappeared[:3])})")
    if out.db:
        said.append("wrote " + ", ".join(f"{t}: {c}" for t, c in list(out.db.items())[:4]))
    return said


def judge(cand: Candidate, pred: Prediction, out: Outcome) -> Verdict:
    what = f"{cand.action.split('(')[0]} on {cand.target.role} {cand.target.name[:50]!r}"
    effects = _effects(out)
    if out.error:
        return Verdict(finding="error", text=f"{what} failed: {out.error[:200]}")
    if pred.abstained:
        if not effects:
            return Verdict(text=f"{what}: no visible effect")
        return Verdict(finding="unpredicted", text=f"{what} (no rule applies): "
                       + "; ".join(effects))
    checks: dict[str, bool] = {}
    moved = out.navigated or out.new_tab
    if pred.navigates is not None:
        checks["navigates"] = pred.navigates == moved
    if pred.url and pred.navigates:
        checks["url"] = moved and same_page(pred.url, out.url)
    elif pred.template and pred.navigates:  # learned: the kind of page, not the address
        checks["url"] = moved and url_template(out.url) == pred.template
    if pred.method and out.method:
        checks["method"] = pred.method == out.method
    if pred.navigates is False and not moved:
        if pred.appear is not None:
            checks["appear"] = pred.appear == bool(out.appeared)
        if pred.disappear is not None:
            checks["disappear"] = pred.disappear == bool(out.disappeared)
        for key in ("expanded", "checked"):
            if key in pred.states and key in out.states:
                checks[key] = bool(pred.states[key]) == bool(out.states[key])
    if pred.kind_changes is not None:
        checks["kind"] = pred.kind_changes == out.kind_changed
    if pred.writes and not cand.writes:  # learned: this kind of read writes rows
        checks["db"] = bool(out.db)
    elif out.db and not cand.writes:
        checks["db"] = False
    verdict = Verdict(checks=checks)
    if verdict.missed:
        wrong = [k for k, ok in checks.items() if not ok]
        expected = _expected(pred)
        verdict.finding = "mismatch"
        verdict.text = (f"{what}: expected {expected}; but it "
                        + ("; ".join(effects) or "had no visible effect")
                        + f" (wrong: {', '.join(wrong)})")
    else:
        verdict.text = f"{what}: as predicted"
    return verdict


def _expected(pred: Prediction) -> str:
    wrote = ", rows written" if pred.writes else ""
    if pred.navigates:
        return (f"{pred.method or 'a'} navigation to "
                f"{pred.url or pred.template or 'a new page'}{wrote}")
    parts = ["no navigation"]
    if pred.appear:
        parts.append("something to appear")
    if pred.disappear:
        parts.append("something to go")
    if pred.appear is False and pred.disappear is False:
        parts.append("no element to appear or go")
    return ", ".join(parts) + wrote
