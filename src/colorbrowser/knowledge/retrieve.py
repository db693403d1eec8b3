"""Retrieval cascade: URL pattern, then keywords (BM25), then embedding similarity.

Each stage scores a tip between 0 and 1; the final score is a weighted sum, so a tip
found by several stages ranks above one found by a single stage, and every stage's
reason is kept in ``why``. Weights are fixed and documented here rather than tuned on
the benchmark cases:

- url: a matched pattern counts 0.25 + 0.75 * specificity, so a site-wide ``/*`` tip
  barely moves the ranking while ``/admin/sales/order/*`` does;
- keyword: the IDF-weighted share of the goal's words found in the tip, times
  0.5 + 0.5 * BM25 / best BM25. Dividing by the best BM25 alone would give a tip that
  shares one common word ("back", "make") a full score when nothing better exists;
- embedding: cosine above a noise floor, relative to the closest tip of the site for
  this goal (but never stretched when even the closest is weak). A short goal
  against a longer tip gives low absolute cosines with all-MiniLM-L6-v2 (often
  0.2-0.45 for the right tip), so a fixed absolute band misses most paraphrases.

Retrieval runs before every decision, so it has a deadline: once it passes, the URL
stage stops checking tips and the later stages are skipped; what was found is
returned, with a note saying it was cut short.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from colorbrowser.errors import UserError
from colorbrowser.knowledge.patterns import compile_pattern, match
from colorbrowser.knowledge.tip import Tip

if TYPE_CHECKING:
    import numpy as np


@dataclass
class KeywordHit:
    tip: Tip
    bm25: float  # higher is better (FTS5's rank, negated)
    terms: list[str]  # words of the query found in the tip (stemmed match)
    coverage: float  # IDF-weighted share of the query's words found in the tip, 0..1


class TipSource(Protocol):
    """What the cascade reads from a store (the KnowledgeBase); kept apart so the
    store can use the cascade without the two importing each other."""

    embedder: Any

    def tips_for_url(self, url: str | None) -> list[Tip]: ...

    def keyword_hits(self, query: str, url: str | None = None,
                     limit: int = 50) -> list[KeywordHit]: ...

    def vectors(self, tips: list[Tip]) -> dict[str, np.ndarray]: ...

    def embed_goal(self, goal: str) -> np.ndarray: ...

STAGES: tuple[str, ...] = ("url", "keyword", "embedding")

STOPWORDS = frozenset((
    "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with",
    "from", "into", "onto", "over", "under", "about", "as", "is", "are", "was", "were", "be",
    "been", "being", "do", "does", "did", "done", "have", "has", "had", "i", "me", "my", "mine",
    "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they",
    "them", "their", "this", "that", "these", "those", "there", "here", "what", "which", "who",
    "whom", "whose", "when", "where", "why", "how", "all", "any", "some", "no", "not", "can",
    "could", "should", "would", "will", "shall", "may", "might", "must", "please", "just", "so",
    "than", "then", "too", "very", "also", "up", "out", "off", "again", "more", "most", "other",
    "such", "only", "own", "same", "each", "few", "both", "get", "got", "let", "lets", "i'm",
    "im",
))


@dataclass(frozen=True)
class Weights:
    url: float = 0.40
    keyword: float = 0.35
    embedding: float = 0.25
    min_similarity: float = 0.15  # noise floor of the cosine
    min_span: float = 0.25  # the best cosine counts as at least floor + span


DEFAULT_WEIGHTS = Weights()
DEADLINE_S = 2.0  # far above a normal retrieval (milliseconds), far below a stuck step


@dataclass
class Retrieved:
    """One tip chosen for a page and goal, its score and why it matched."""

    tip: Tip
    score: float
    reasons: list[str] = field(default_factory=list)
    parts: dict[str, float] = field(default_factory=dict)  # stage -> stage score 0..1

    @property
    def why(self) -> str:
        return "; ".join(self.reasons)

    @property
    def tokens(self) -> int:
        return estimate_tokens(prompt_text(self.tip))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.tip.id, "score": round(self.score, 4), "why": self.why,
            "site": self.tip.site, "kind": self.tip.kind, "text": self.tip.text,
        }
        if self.tip.url_template:
            out["url_template"] = self.tip.url_template
        return out


class Found(list["Retrieved"]):
    """The tips retrieved, best first, and a note when the deadline cut the search short."""

    note: str | None = None


def prompt_text(tip: Tip) -> str:
    """What the agent's prompt shows for a tip (and what the token budget counts)."""
    if tip.url_template:
        return f"{tip.text} (URL shortcut: {tip.url_template})"
    return tip.text


def estimate_tokens(text: str) -> int:
    """About four characters per token for English with BPE tokenizers; no model needed."""
    return max(1, math.ceil(len(text) / 4))


def query_terms(text: str) -> list[str]:
    words = re.findall(r"[^\W_]+", text.lower())
    terms = [w for w in words if len(w) > 1 and w not in STOPWORDS]
    return list(dict.fromkeys(terms))[:32]


def fts_query(text: str) -> str:
    """An FTS5 OR query of the goal's content words, each quoted so nothing is syntax."""
    return " OR ".join(f'"{t}"' for t in query_terms(text))


def _stages(stages: Iterable[str] | None) -> tuple[str, ...]:
    chosen = tuple(STAGES if stages is None else stages)
    unknown = [s for s in chosen if s not in STAGES]
    if unknown:
        raise UserError(f"unknown retrieval stage {unknown[0]!r} (use {', '.join(STAGES)})")
    return chosen


def url_stage(
    tips: list[Tip], url: str, in_time: Callable[[], bool] = lambda: True,
) -> dict[str, tuple[float, str]]:
    """tip id -> (score, reason) for tips whose scope covers the URL, among the tips
    checked while ``in_time()`` held."""
    found: dict[str, tuple[float, str]] = {}
    for tip in tips:
        if not in_time():
            break
        if not tip.url_patterns:
            found[tip.id] = (0.25, f"site {tip.site}")
            continue
        matched = [p for p in tip.url_patterns if match(p, url)]
        if matched:
            best = max(matched, key=lambda p: compile_pattern(p).specificity)
            found[tip.id] = (0.25 + 0.75 * compile_pattern(best).specificity,
                             f"url pattern {best}")
    return found


def cascade(
    kb: TipSource, url: str | None, goal: str, *, k: int = 3, token_budget: int = 400,
    stages: Iterable[str] | None = None, weights: Weights = DEFAULT_WEIGHTS,
    deadline: float = DEADLINE_S, clock: Callable[[], float] = time.monotonic,
) -> Found:
    chosen = _stages(stages)
    if k <= 0 or token_budget <= 0:
        return Found()
    goal = (goal or "").strip()
    ends = clock() + deadline

    def in_time() -> bool:
        return clock() <= ends

    tips = kb.tips_for_url(url)
    by_id = {t.id: t for t in tips}
    results: dict[str, Retrieved] = {}

    def note(tip: Tip, stage: str, value: float, reason: str) -> None:
        item = results.setdefault(tip.id, Retrieved(tip, 0.0))
        item.parts[stage] = value
        item.reasons.append(reason)

    if "url" in chosen and url:
        for tip_id, (value, reason) in url_stage(tips, url, in_time).items():
            note(by_id[tip_id], "url", value, reason)
    late = not in_time()
    if "keyword" in chosen and goal and not late:
        hits = kb.keyword_hits(goal, url)
        best = max((h.bm25 for h in hits), default=0.0)
        for hit in hits:
            if hit.tip.id in by_id and best > 0 and hit.coverage > 0:
                value = hit.coverage * (0.5 + 0.5 * hit.bm25 / best)
                note(by_id[hit.tip.id], "keyword", value, f"keywords: {', '.join(hit.terms)}")
    late = late or not in_time()
    if "embedding" in chosen and goal and kb.embedder is not None and tips and not late:
        vectors = kb.vectors(tips)
        query = kb.embed_goal(goal)
        cosines = {t.id: float(query @ vectors[t.id]) for t in tips}
        floor = weights.min_similarity
        span = max(max(cosines.values()) - floor, weights.min_span)
        for tip in tips:
            if cosines[tip.id] > floor:
                note(tip, "embedding", min(1.0, (cosines[tip.id] - floor) / span),
                     f"embedding {cosines[tip.id]:.2f}")

    for item in results.values():
        item.score = sum(getattr(weights, stage) * value for stage, value in item.parts.items())
    ranked = sorted(
        results.values(), key=lambda r: (-r.score, -r.parts.get("url", 0.0), r.tip.id)
    )
    chosen_items = Found()
    if late:
        chosen_items.note = (f"tip retrieval stopped at its {deadline:g} s deadline; "
                             "only tips found before it are shown")
    used = 0
    for item in ranked:
        if item.score <= 0:
            break
        if used + item.tokens > token_budget:
            continue  # a shorter tip further down may still fit
        chosen_items.append(item)
        used += item.tokens
        if len(chosen_items) == k:
            break
    return chosen_items
