"""WebArena's three evaluators (string_match, url_match, program_html), our own code.

Each returns an ``Outcome``: a score in [0, 1], details for the trace, and an
``error`` when no score can be given (no judge model, a helper we do not have, a
check page that would not load). Scores multiply, as in WebArena; a certain 0
wins over an unscorable part, because the task is failed either way.
"""

from __future__ import annotations

import contextlib
import html
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from colorbrowser.browser.policy import NO_LIMITS, NavigationPolicy
from colorbrowser.evaluation import helpers
from colorbrowser.evaluation.judge import Judge, Verdict
from colorbrowser.evaluation.matching import (
    OR_SEPARATOR,
    clean_answer,
    exact_match,
    must_include,
    must_include_any,
)
from colorbrowser.evaluation.spec import NOT_ACHIEVABLE, EvalSpec, HtmlCheck

if TYPE_CHECKING:
    from playwright.sync_api import Page

NEEDS_JUDGE = "needs a judge model"


@dataclass
class Outcome:
    score: float
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def combine(parts: dict[str, Outcome]) -> Outcome:
    """Product of the scores; unscorable only if nothing already failed for sure."""
    info = {name: {"score": o.score, **o.info, **({"error": o.error} if o.error else {})}
            for name, o in parts.items()}
    scored = [o.score for o in parts.values() if o.error is None]
    if any(s == 0 for s in scored):
        return Outcome(0.0, info)
    errors = [f"{name}: {o.error}" for name, o in parts.items() if o.error]
    if errors:
        return Outcome(0.0, info, error="; ".join(errors))
    score = 1.0
    for s in scored:
        score *= s
    return Outcome(score, info)


# --- string_match -------------------------------------------------------------

def string_match(spec: EvalSpec, intent: str, answer: str | None,
                 judge: Judge | None = None) -> Outcome:
    refs = spec.reference_answers
    assert refs is not None  # EvalSpec guarantees it for string_match
    # WebArena cleans the answer once up front and again in each comparison.
    pred = clean_answer(answer or "")
    parts: dict[str, Outcome] = {}
    if refs.exact_match is not None:
        parts["exact_match"] = Outcome(float(exact_match(refs.exact_match, pred)),
                                       {"reference": refs.exact_match})
    if refs.must_include is not None:
        as_token = len(refs.must_include) == 1
        missing = [r for r in refs.must_include if not must_include(r, pred, as_token=as_token)]
        parts["must_include"] = Outcome(0.0 if missing else 1.0, {"missing": missing})
    if refs.fuzzy_match is not None:
        known_zero = any(p.score == 0 for p in parts.values())
        parts["fuzzy_match"] = (Outcome(0.0, {"skipped": "another check already failed"})
                                if known_zero else _fuzzy(spec, intent, pred, judge))
    result = combine(parts)
    result.info = {"answer": pred, **result.info}
    return result


def _fuzzy(spec: EvalSpec, intent: str, pred: str, judge: Judge | None) -> Outcome:
    refs = spec.reference_answers
    assert refs is not None and refs.fuzzy_match is not None
    if refs.fuzzy_match == NOT_ACHIEVABLE:
        # An unachievable task: a bare "N/A" is right; otherwise the judge decides
        # whether the reason the agent gave is the actual one (string_note).
        if exact_match(NOT_ACHIEVABLE, pred):
            return Outcome(1.0, {"reference": NOT_ACHIEVABLE})
        if judge is None:
            return Outcome(0.0, {"reference": NOT_ACHIEVABLE}, error=NEEDS_JUDGE)
        verdict = judge.same_reason(intent, spec.string_note or "", pred)
        return _from_verdict(verdict, {"reference": NOT_ACHIEVABLE, "reason": spec.string_note})
    if not pred:
        return Outcome(0.0, {"reference": refs.fuzzy_match, "skipped": "empty answer"})
    if judge is None:
        return Outcome(0.0, {"reference": refs.fuzzy_match}, error=NEEDS_JUDGE)
    replies: list[str] = []
    for reference in refs.fuzzy_match:
        verdict = judge.answer_matches(intent, reference, pred)
        replies.append(verdict.reply)
        if verdict.error or verdict.score == 0:
            return _from_verdict(verdict, {"reference": reference, "replies": replies})
    return Outcome(1.0, {"reference": refs.fuzzy_match, "replies": replies})


def _from_verdict(verdict: Verdict, info: dict[str, Any]) -> Outcome:
    info = {**info, "judge_reply": verdict.reply}
    if verdict.error or verdict.score is None:
        return Outcome(0.0, info, error=verdict.error or "judge gave no verdict")
    return Outcome(float(verdict.score), info)


# --- url_match ----------------------------------------------------------------

def _split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    parsed = urlparse(url)
    return parsed.netloc + parsed.path, parse_qs(parsed.query)


def url_match(reference_url: str, page_url: str) -> Outcome:
    """GOLD in PRED: some gold host+path is a substring of the page's host+path, and
    every query key found in any gold URL is present with one of its gold values."""
    golds = [u.rstrip("/") for u in reference_url.split(OR_SEPARATOR)]
    pred_base, pred_query = _split_url(page_url.rstrip("/"))
    gold_bases: list[str] = []
    gold_query: dict[str, set[str]] = defaultdict(set)
    for gold in golds:
        base, query = _split_url(gold)
        gold_bases.append(base)
        for key, values in query.items():
            gold_query[key].update(values)
    base_ok = any(base in pred_base for base in gold_bases)
    bad_keys = sorted(k for k, values in gold_query.items()
                      if not any(v in pred_query.get(k, []) for v in values))
    score = float(base_ok and not bad_keys)
    return Outcome(score, {"url": page_url, "reference": reference_url,
                           "path_ok": base_ok, "query_mismatch": bad_keys})


# --- program_html -------------------------------------------------------------

def program_html(spec: EvalSpec, page: Page, *, settle_ms: int = 3000,
                 timeout_ms: int = 30_000, policy: NavigationPolicy = NO_LIMITS) -> Outcome:
    """Each check reads the agent's page (``last``) or a page it opens itself; a page
    that ``policy`` refuses (anything but the web, a host the task does not name) is
    never opened or read: the check is an evaluation error."""
    checks: list[dict[str, Any]] = []
    for check in spec.program_html:
        try:
            text, where = _read(check, page, settle_ms, timeout_ms, policy)
        except _CheckError as exc:
            return Outcome(0.0, {"checks": checks}, error=str(exc))
        ok, detail = _compare(check, html.unescape(text))
        checks.append({"url": where, "locator": check.locator, "ok": ok, **detail})
        if not ok:
            return Outcome(0.0, {"checks": checks})
    return Outcome(1.0, {"checks": checks})


class _CheckError(Exception):
    pass


def _read(check: HtmlCheck, page: Page, settle_ms: int, timeout_ms: int,
          policy: NavigationPolicy) -> tuple[str, str]:
    """The text a check compares, read from the agent's page or a freshly opened one."""
    try:
        url = check.url if check.url == "last" else helpers.resolve_url(check.url, page.url)
    except ValueError as exc:
        raise _CheckError(str(exc)) from exc
    if url == "last":
        # The agent's own navigation policy already held this page to its host list.
        _refuse(NO_LIMITS.refuse_page(page.url), page.url)
        return _locate(check, page), page.url
    _refuse(policy.refuse_target(url), url)
    other = page.context.new_page()
    try:
        try:
            other.goto(url, wait_until="load", timeout=timeout_ms)
        except Exception as exc:
            line = (str(exc).strip().splitlines() or ["error"])[0]
            raise _CheckError(f"cannot open {_shown(url)}: {line}") from exc
        # pages that keep fetching get settle_ms at most, like the reference's pause
        with contextlib.suppress(Exception):
            other.wait_for_load_state("networkidle", timeout=settle_ms)
        _refuse(policy.refuse_page(other.url), other.url)  # where a redirect ended
        return _locate(check, other), url
    finally:
        other.close()


def _refuse(reason: str | None, url: str) -> None:
    if reason:
        raise _CheckError(f"the check may not read {_shown(url)}: {reason}")


def _shown(url: str) -> str:
    return url if len(url) <= 100 else url[:99] + "…"


def _locate(check: HtmlCheck, page: Page) -> str:
    locator = check.locator
    if not locator.strip():
        return page.content()
    if locator.startswith(helpers.PREFIX):
        try:
            return helpers.run_locator(locator, page)
        except ValueError as exc:
            raise _CheckError(str(exc)) from exc
    for action in check.prep_actions:
        try:
            page.evaluate(f"() => {{ {action} }}")
        except Exception:  # as in WebArena, a failing preparation stops the rest
            break
    try:
        value = page.evaluate(f"() => {locator}")
    except Exception:  # the element is not there: the page is wrong, read as empty
        return ""
    # JS values are compared as Python prints them ("5", "True"); a missing one is "".
    return "" if value is None else str(value)


def _compare(check: HtmlCheck, text: str) -> tuple[bool, dict[str, Any]]:
    wanted = check.required_contents
    excerpt = text if len(text) <= 300 else text[:300] + "…"
    if wanted.exact_match is not None:
        return exact_match(wanted.exact_match, text), {"exact_match": wanted.exact_match,
                                                        "found": excerpt}
    assert wanted.must_include is not None
    missing = [item for item in wanted.must_include if not must_include_any(item, text)]
    return not missing, {"missing": missing, "found": excerpt}
