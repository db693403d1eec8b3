"""Checks that keep the knowledge base site-level and honest.

A good tip describes how a site works for every task on it ("to add any item to
the cart, select a size first"); a bad one replays one task ("buy the red socks"),
games a grader, or gives the agent orders (``instruction``: tips are shown as trusted
instructions, so a tip file from someone else may carry a prompt injection). The
heuristics are deliberately simple and explainable: each finding says which words
triggered it, and a person decides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

from colorbrowser.knowledge.embed import embedding_text
from colorbrowser.knowledge.injection import instruction_findings
from colorbrowser.knowledge.patterns import (
    REGEX_PREFIX,
    PatternError,
    compile_pattern,
    glob_host,
    host_matches_site,
)
from colorbrowser.knowledge.retrieve import STOPWORDS as _STOPWORDS
from colorbrowser.knowledge.tip import Tip, template_problems
from colorbrowser.linear_regex import nested_quantifier

if TYPE_CHECKING:
    from colorbrowser.knowledge.embed import Embedder

Category = Literal["pattern", "instruction", "query-specific", "grader", "duplicate"]
CATEGORIES: tuple[str, ...] = ("pattern", "instruction", "query-specific", "grader",
                               "duplicate")


@dataclass(frozen=True)
class Finding:
    tip_id: str
    category: Category
    message: str
    severity: Literal["warning", "error"] = "warning"

    def __str__(self) -> str:
        return f"{self.tip_id}: {self.severity}: {self.category}: {self.message}"


_COLORS = (
    "red|blue|green|black|white|yellow|pink|purple|orange|grey|gray|brown|beige|navy|silver|gold"
)
_UI_WORDS = (
    "button|link|icon|banner|tab|menu|bar|badge|label|arrow|box|header|heading|panel|"
    "dropdown|text|border|highlight|dot|marker|pin|check|checkmark|star"
)
# (pattern, what it suggests); matched case-insensitively unless noted.
_QUERY_SPECIFIC: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:#|\bno\.?\s*|\bnumber\s+|\border\s+|\bid\s*)\d{3,}", re.I),
     "an order or record number"),
    (re.compile(r"(?:[$€£¥]\s?\d|\b\d+(?:[.,]\d\d)\s?(?:usd|eur|dollars?)\b)", re.I), "a price"),
    (re.compile(rf"\bthe\s+(?:{_COLORS})\s+(?!(?:{_UI_WORDS})s?\b)[a-z]+", re.I),
     "a specific item ('the red socks')"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|"
                r"dec)[a-z]*\.?\s+\d{1,2},\s+\d{4}\b", re.I), "a specific date"),
    (re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b"), "an email address"),
    (re.compile(r"\bI\s+(?:need|want|have|had|am|was|will|should|must|tried|clicked|bought"
                r"|searched|could)\b|\bI'(?:m|ve|ll|d)\b|(?<![A-Z])\bmy\s+(?:task|goal|query|"
                r"question|answer|order|cart|search)\b"), "first-person task phrasing"),
    (re.compile(r"\b(?:this|the current|for this|in this)\s+(?:task|query|question|episode)\b",
                re.I), "a reference to one task"),
    # Quoted UI labels are fine ("Invite members"); a quoted value typed into a box is not.
    (re.compile(r"\b(?:search(?:ing)?\s+for|look(?:ing)?\s+(?:for|up)|type|typing|enter|query)"
                r"\s+[\"“'][^\"”']+[\"”']", re.I), "a quoted search value"),
]
_GRADER: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bbenchmarks?\b", re.I), "mentions the benchmark"),
    (re.compile(r"\bgrad(?:er|ers|ed|ing)\b", re.I), "mentions grading"),
    (re.compile(r"\b(?:evaluator|evaluation script|the judge|checker)\b", re.I),
     "mentions an evaluator"),
    (re.compile(r"\bto pass (?:the|this) (?:test|task|check|evaluation)\b", re.I),
     "written to pass a test"),
    (re.compile(r"\b(?:exact[_ ]match|fuzzy[_ ]match|must_include|string[_ ]match|"
                r"program_html|url_match)\b", re.I), "uses evaluator vocabulary"),
    (re.compile(r"\b(?:webarena|miniwob|webchorearena|reward)\b", re.I),
     "names a benchmark or reward"),
    (re.compile(r"\b(?:expected answer|reference answer|answer key|get (?:full )?credit)\b",
                re.I), "talks about expected answers"),
]

DUPLICATE_JACCARD = 0.8
DUPLICATE_COSINE = 0.95


def normalize_text(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


_NEGATIONS = frozenset(("no", "not", "never", "nor", "without", "dont", "don", "t"))
_FILLER = _STOPWORDS - _NEGATIONS  # "do not X" and "X" must never look alike


def _stem(word: str) -> str:
    """Enough to meet "press" in "pressing" and "page" in "pages"; not a real stemmer."""
    if len(word) >= 6 and word.endswith("ing"):
        return word[:-3]
    if len(word) >= 5 and word.endswith("ed"):
        return word[:-2]
    if len(word) >= 4 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> set[str]:
    """The content words of a tip, lightly stemmed, for the near-duplicate check."""
    return {_stem(w) for w in normalize_text(text).split() if w not in _FILLER}


def _content_checks(tip: Tip) -> list[Finding]:
    # Tips are trusted instructions to the agent: text that orders it away from its
    # goal or sends data off the site is an error, whoever wrote the file.
    out = [Finding(tip.id, "instruction", f"{message}; a tip must describe the site, never "
                   "give the agent orders", "error")
           for message in instruction_findings(
               "\n".join(filter(None, (tip.text, tip.url_template))), tip.site)]
    for regex, what in _QUERY_SPECIFIC:
        if m := regex.search(tip.text):
            out.append(Finding(tip.id, "query-specific",
                               f"looks query-specific ({what}: {m.group(0).strip()!r}); "
                               "describe how the site works for every task instead"))
    for regex, what in _GRADER:
        if m := regex.search(tip.text):
            out.append(Finding(tip.id, "grader",
                               f"written for a grader, not the site ({what}: "
                               f"{m.group(0).strip()!r})"))
    return out


def _pattern_checks(tip: Tip) -> list[Finding]:
    out = []
    for pattern in tip.url_patterns:
        try:
            cp = compile_pattern(pattern)
        except PatternError as exc:
            out.append(Finding(tip.id, "pattern", str(exc), "error"))
            continue
        if pattern.startswith(REGEX_PREFIX):
            if cp.regex.search("") is not None:
                out.append(Finding(tip.id, "pattern",
                                   f"regex {pattern!r} matches every URL; drop it or narrow it"))
            if nested := nested_quantifier(pattern[len(REGEX_PREFIX):]):
                out.append(Finding(tip.id, "pattern",
                                   f"regex {pattern!r} nests quantifiers in {nested!r}; every "
                                   "URL is matched in linear time here, but most other regex "
                                   "engines backtrack exponentially on it"))
            continue
        if pattern.replace("*", "").strip("/:") == "":
            out.append(Finding(tip.id, "pattern",
                               f"glob {pattern!r} matches every URL of every site"))
            continue
        host = glob_host(pattern)
        if host is not None:
            if not host or not re.fullmatch(r"[a-z0-9.*:-]+", host):
                out.append(Finding(tip.id, "pattern", f"glob {pattern!r} has no usable host",
                                   "error"))
            elif "*" not in host and not host_matches_site(host, tip.site):
                out.append(Finding(tip.id, "pattern",
                                   f"pattern host {host!r} is not the tip's site {tip.site!r}",
                                   "error"))
            elif "*" in host and not re.fullmatch(
                re.escape(host).replace(r"\*", ".*"), tip.site
            ):
                out.append(Finding(tip.id, "pattern",
                                   f"pattern host {host!r} never matches site {tip.site!r}",
                                   "error"))
    if tip.url_template:
        out.extend(Finding(tip.id, "pattern", p, "error") for p in template_problems(tip))
    return out


def _duplicates(tips: Sequence[Tip], embedder: Embedder | None) -> list[Finding]:
    out = []
    vectors = None
    if embedder is not None and len(tips) > 1:
        vectors = embedder.encode([embedding_text(t) for t in tips])
    index = {t.id: i for i, t in enumerate(tips)}
    flagged: set[str] = set()  # one finding per duplicate, naming the first original
    for a, b in combinations(tips, 2):
        if a.site != b.site or b.id in flagged:
            continue
        if normalize_text(a.text) == normalize_text(b.text):
            out.append(Finding(b.id, "duplicate", f"same text as tip {a.id}"))
            flagged.add(b.id)
            continue
        wa, wb = _words(a.text), _words(b.text)
        jaccard = len(wa & wb) / len(wa | wb) if wa | wb else 0.0
        if jaccard >= DUPLICATE_JACCARD and wa & _NEGATIONS == wb & _NEGATIONS:
            out.append(Finding(b.id, "duplicate",
                               f"near-identical to tip {a.id} (word overlap {jaccard:.2f})"))
            flagged.add(b.id)
            continue
        if vectors is not None:
            cosine = float(vectors[index[a.id]] @ vectors[index[b.id]])
            if cosine >= DUPLICATE_COSINE:
                out.append(Finding(b.id, "duplicate",
                                   f"says the same as tip {a.id} (embedding {cosine:.2f})"))
                flagged.add(b.id)
    return out


def lint(tips: Sequence[Tip], *, embedder: Embedder | None = None) -> list[Finding]:
    """Findings for these tips, in tip order; duplicates are reported on the later tip."""
    findings = []
    for tip in tips:
        findings.extend(_pattern_checks(tip))
        findings.extend(_content_checks(tip))
    findings.extend(_duplicates(tips, embedder))
    order = {t.id: i for i, t in enumerate(tips)}
    return sorted(findings, key=lambda f: (order.get(f.tip_id, 0), CATEGORIES.index(f.category)))
