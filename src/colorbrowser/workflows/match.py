"""Which learned workflow fits a goal, and how.

A goal that fits a workflow's pattern on the same site (``Who owns ticket #{{ticket}}?``
against ``who owns ticket #42``) *runs* it with the parameters read from the goal. A
goal that is only similar (the embedding of the goal against the goal the workflow
was learned from, as tips are retrieved; shared words when embeddings are off) gets
the workflow as *guidance* in the Operator's prompt: never run blindly.

Matching a pattern: its literal parts match ignoring case, runs of spaces and the
punctuation that ends a sentence; every parameter takes a non-empty value. When a
goal splits over the parameters in more than one way (``{{a}} and {{b}}`` against
``salt and pepper and oil``) nothing runs: the shortest-first and the longest-first
readings are compared, and they differ exactly when a second reading exists. The
regex runs on RE2, in time linear in the goal, since both the pattern (an imported
file) and the goal come from outside.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from colorbrowser.errors import ColorBrowserError
from colorbrowser.knowledge.retrieve import query_terms
from colorbrowser.knowledge.workflow import PARAM, SECRET_MARK, Workflow
from colorbrowser.linear_regex import RegexRefused, compile_linear
from colorbrowser.llm.prompts import render
from colorbrowser.plan.format import fill, parse_step
from colorbrowser.workflows import spelling

if TYPE_CHECKING:
    from colorbrowser.knowledge.store import KnowledgeBase

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
_END = ".?!;:,。 \t\n"  # what may end a sentence without being part of it
MAX_GOAL = 2000  # longer goals are never matched (they are not a family's question)
MIN_SIMILARITY = 0.6  # cosine of two goals (all-MiniLM-L6-v2) from which a workflow guides
MIN_OVERLAP = 0.6  # share of the goal's words, when embeddings are off


@dataclass
class PatternRegex:
    """A goal pattern compiled twice (shortest-first, longest-first) and the parameter
    each group captures (a parameter used twice has two groups that must agree)."""

    lazy: Any
    greedy: Any
    groups: list[str]
    strip_end: bool  # the pattern ended with literal text: the goal's end punctuation goes


def _literal(text: str) -> str:
    """A literal part: words in any case, any run of spaces between them."""
    words = text.split()
    body = r"\s+".join(re.escape(w) for w in words)
    if not words:
        return r"\s+" if text else ""
    head = r"\s+" if text[0].isspace() else ""
    tail = r"\s+" if text[-1].isspace() else ""
    return head + body + tail


def compile_pattern(pattern: str) -> PatternRegex:
    """The regexes of a goal pattern; RegexRefused should RE2 refuse one (it cannot:
    literal parts are escaped)."""
    stripped = pattern.strip()
    core = stripped.rstrip(_END)
    # The goal's end punctuation goes when the pattern ends with text or punctuation; a
    # pattern that ends with a bare parameter keeps it (a title may end with "!").
    strip_end = core != stripped or not core.endswith("}}")
    parts = PARAM.split(core)
    lazy, greedy, groups = [], [], []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            lazy.append(_literal(part))
            greedy.append(_literal(part))
        else:
            groups.append(part)
            lazy.append("(.+?)")
            greedy.append("(.+)")
    name = f"goal pattern {pattern[:60]!r}"
    return PatternRegex(compile_linear("".join(lazy), name=name, ignore_case=True),
                        compile_linear("".join(greedy), name=name, ignore_case=True),
                        groups, strip_end)


def _values(found: Any, groups: list[str]) -> dict[str, str] | None:
    if found is None:
        return None
    values: dict[str, str] = {}
    for index, name in enumerate(groups, 1):
        value = " ".join(found.group(index).split())
        if not value or values.setdefault(name, value) != value:
            return None  # empty, or a parameter used twice with two values
    return values


def match_goal(flow: Workflow, goal: str) -> dict[str, str] | None:
    """The parameters of ``goal`` under the workflow's pattern, or None when it does not
    fit, a parameter would be empty, or the goal fits in more than one way."""
    goal = " ".join((goal or "").split())
    if not goal or len(goal) > MAX_GOAL:
        return None
    try:
        regex = compile_pattern(flow.goal_pattern)
    except RegexRefused as exc:  # cannot happen for escaped literals; never run then
        log.warning("workflow %s: %s", flow.id, exc)
        return None
    if regex.strip_end:
        goal = goal.rstrip(_END)
    lazy = _values(regex.lazy.fullmatch(goal), regex.groups)
    if lazy is None:
        return None
    greedy = _values(regex.greedy.fullmatch(goal), regex.groups)
    if lazy != greedy or any(SECRET_MARK.search(v) for v in lazy.values()):
        return None  # a value naming a secret is the Operator's (the vault's rules)
    return lazy


def example_goal(flow: Workflow) -> str:
    """The goal the workflow was learned from (its pattern with its own values)."""
    return PARAM.sub(lambda m: flow.params.get(m.group(1), m.group(0)), flow.goal_pattern)


@dataclass
class WorkflowChoice:
    """What to do with a goal: ``run`` the workflow with ``params``, or show it to the
    Operator as ``guide`` (``params`` are then the workflow's own example values)."""

    kind: Literal["run", "guide"]
    workflow: Workflow
    params: dict[str, str] = field(default_factory=dict)
    score: float = 1.0
    why: str = ""

    def guidance(self) -> str:
        return guidance_text(self.workflow, self.params, example=self.kind == "guide")


def _rank(flow: Workflow) -> tuple[Any, ...]:
    """Among workflows whose pattern fits: proved first, then the most specific pattern
    (most literal text), then the one that succeeded most, then the newest."""
    literal = len(PARAM.sub("", flow.goal_pattern))
    stats = flow.stats
    return (flow.proved, literal, stats.successes - (stats.runs - stats.successes),
            flow.version, flow.id)


def choose(kb: KnowledgeBase, url: str, goal: str, *,
           min_similarity: float = MIN_SIMILARITY) -> WorkflowChoice | None:
    """The workflow for ``goal`` starting at ``url`` (a stable URL: site aliases are the
    caller's), or None. Reads the store only; a broken store means no workflow."""
    try:
        flows = kb.workflows_for_url(url)
    except (ColorBrowserError, sqlite3.Error) as exc:
        log.warning("no workflows: %s", exc)
        return None
    fits = [(flow, params) for flow in flows if (params := match_goal(flow, goal)) is not None]
    if fits:
        flow, params = max(fits, key=lambda fit: _rank(fit[0]))
        return WorkflowChoice("run", flow, params, 1.0,
                              f"the goal fits the pattern {flow.goal_pattern!r}")
    return _similar(kb, flows, goal, min_similarity)


def _similar(kb: KnowledgeBase, flows: list[Workflow], goal: str,
             min_similarity: float) -> WorkflowChoice | None:
    if not flows or not goal.strip():
        return None
    examples = [example_goal(f) for f in flows]
    scores: list[float]
    if kb.embedder is not None:
        query = kb.embed_goal(goal)
        vectors = kb.embedder.encode(examples)
        scores = [float(query @ v) for v in vectors]
        floor, how = min_similarity, "embedding"
    else:
        words = set(query_terms(goal))
        scores = [len(words & set(query_terms(e))) / max(1, len(words)) for e in examples]
        floor, how = MIN_OVERLAP, "shared words"
    best = max(range(len(flows)), key=lambda i: (scores[i], _rank(flows[i])))
    if scores[best] < floor:
        return None
    flow = flows[best]
    return WorkflowChoice("guide", flow, dict(flow.params), scores[best],
                          f"{how} {scores[best]:.2f} with {examples[best]!r}")


# -- guidance for the Operator's prompt ------------------------------------------------
def _describe(raw: Any, params: dict[str, str]) -> str:
    """A workflow step as a sentence, its parameters and site placeholders filled."""
    return fill(_sentence(raw, params), os.environ)


def _sentence(raw: Any, params: dict[str, str]) -> str:
    text = PARAM.sub(lambda m: params.get(m.group(1), m.group(0)), str(raw)) \
        if isinstance(raw, str) else None
    try:
        if text is not None:
            return parse_step(text).describe()
        return parse_step(_fill(raw, params)).describe()
    except ValueError:
        return str(raw)


def _fill(value: Any, params: dict[str, str]) -> Any:
    if isinstance(value, str):
        return PARAM.sub(lambda m: params.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _fill(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, params) for v in value]
    return value


def guidance_text(flow: Workflow, params: dict[str, str], *, example: bool = False,
                  current: int | None = None, done: int = 0, reason: str = "") -> str:
    """The workflow as the Operator reads it (the prompt fences it: its names come from
    web pages). ``current`` is the 0-based step that missed, ``done`` how many ran."""
    params = spelling.with_spellings(flow, params)  # as the steps write them
    steps = [_describe(s.step, params) for s in flow.steps]
    answer = None
    if flow.answer is not None:
        answer = (flow.answer.template and _fill(flow.answer.template, params)) or \
            (flow.answer.label and f"the value under {flow.answer.label!r}") or \
            "the value on the last page"
    missed = ""
    if current is not None:
        what = (f"Step {current + 1} ({steps[current]})" if current < len(steps)
                else "Reading the answer")
        missed = f"{what} could not be done as recorded" + (f": {reason}" if reason else "")
    return render("guidance.j2", [TEMPLATES], goal=_fill(flow.goal_pattern, params),
                  example=example, steps=steps, answer=answer, current=current, done=done,
                  missed=missed).strip()
