"""Values a run read on one page and used later: typed on another page (the title of
the ticket the goal names, filed again on the code-hosting site; the population read
on the wiki, written in a forum post) or given as the answer after leaving the page
that showed it.

Learning looks for what a step typed (beyond the goal's own values) on the pages the
run saw before it, latest first: an element whose whole text the typed value holds
(a heading, a table cell beside its label). That element becomes a ``Reading`` of
the step that saw the page, in the same form as an answer's place (``AnswerSource``),
and the typed value holds ``{{read}}`` there. An answer that is not on the last page
is looked for the same way, and the answer becomes the reading's value. The runner
reads each value on the live page just before that step acts (a step whose reading
is not on the page misses, like a missing target), so a sibling types and answers its
own values.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from colorbrowser.knowledge.workflow import PARAM, AnswerSource, Reading, Workflow, WorkflowStep
from colorbrowser.steps import Step
from colorbrowser.types import Observation
from colorbrowser.workflows import page, values

# (lines, index, text, params) -> (score, source) or None: learning's answer place.
SourceAt = Callable[[list[page.Line], int, str, dict[str, str]],
                    tuple[int, AnswerSource] | None]
TYPED_KEYS = ("value", "text")  # the keys of a step that hold what it types
MAX_READS = 3  # readings per typed value
MIN_TEXT = 4


def _worth_reading(text: str) -> bool:
    """A text long or specific enough to be a value rather than a common word: a
    number, two words or more, or a long word."""
    words = text.split()
    return len(text) >= MIN_TEXT and (bool(re.search(r"\d", text)) or len(words) >= 2
                                      or len(text) >= 8) and \
        not all(w.lower().strip(".,:;!?") in values.STOPWORDS for w in words)


def _held(text: str, part: str) -> bool:
    at = part.find(text)
    if at < 0:
        return False
    before = part[at - 1] if at else " "
    after = part[at + len(text)] if at + len(text) < len(part) else " "
    return not (before.isalnum() or after.isalnum())


def _within(parts: list[str]) -> Callable[[str], bool]:
    return lambda text: any(_held(text, part) for part in parts)


def best_place(lines: list[page.Line], answer: str, params: dict[str, str],
               source_at: SourceAt) -> AnswerSource | None:
    """Where on this page ``answer`` is best read by a sibling (``source_at``'s score,
    then the earliest line); None when the page does not hold it."""
    want = page.norm(answer)
    scored = []
    for index, line in enumerate(lines):
        if values.occurs(want, page.norm(line.shown)):
            found = source_at(lines, index, answer, params)
            if found is not None:
                scored.append((found[0], -index, found[1]))
    return max(scored, key=lambda item: item[:2])[2] if scored else None


def _best_source(lines: list[page.Line], text_ok: Callable[[str], bool],
                 params: dict[str, str], source_at: SourceAt
                 ) -> tuple[str, AnswerSource] | None:
    """The longest text on the page that ``text_ok`` accepts, with its place."""
    best: tuple[int, int, str, AnswerSource] | None = None
    for index, line in enumerate(lines):
        text = line.text
        if not line.bid or not _worth_reading(text) or not text_ok(text):
            continue
        found = source_at(lines, index, text, params)
        if found is None:
            continue
        key = (len(text), found[0])
        if best is None or key > best[:2]:
            best = (*key, text, found[1])
    return (best[2], best[3]) if best else None


def learn_reads(kept: list[Step], flow_steps: list[WorkflowStep], params: dict[str, str],
                source_at: SourceAt) -> list[WorkflowStep]:
    """``flow_steps`` (``kept[i]`` made ``flow_steps[-len(kept) + i]``) with what each
    typed value read on an earlier page turned into readings of the step that saw it."""
    out = list(flow_steps)
    offset = len(out) - len(kept)
    taken = set(params) | {r.name for ws in out for r in ws.reads}
    for k in range(len(kept)):
        ws = out[offset + k]
        if not isinstance(ws.step, dict):
            continue
        data = dict(ws.step)
        for key in TYPED_KEYS:
            typed = data.get(key)
            if not isinstance(typed, str):
                continue
            for _ in range(MAX_READS):
                parts = [p for p in PARAM.split(typed)[::2] if p.strip()]
                found = None
                for earlier in range(k - 1, -1, -1):
                    lines = page.parse(kept[earlier].observation or "")
                    hit = _best_source(lines, _within(parts), params, source_at)
                    if hit is not None:
                        found = (earlier, hit)
                        break
                if found is None:
                    break
                earlier, (text, source) = found
                name = values.unique_name("read", taken)
                typed = typed.replace(text, f"{{{{{name}}}}}", 1)
                seer = out[offset + earlier]
                out[offset + earlier] = seer.model_copy(update={"reads": [
                    *seer.reads, Reading(name=name, source=source, example=text)]})
            data[key] = typed
        out[offset + k] = out[offset + k].model_copy(update={"step": data})
    return out


def anchored(source: AnswerSource) -> bool:
    """Whether a place is told by more than counting: a label, the text around it, or a
    name. An answer found on an earlier page only as "the 46th link" (a page number that
    happens to be the count asked for) is a coincidence, not where the run read it."""
    target = source.target or {}
    return bool(source.label or source.around or target.get("name") or
                str(target.get("contains") or "").strip())


def answer_read(answer: str, kept: list[Step], flow_steps: list[WorkflowStep],
                params: dict[str, str], source_at: SourceAt
                ) -> tuple[list[WorkflowStep], AnswerSource] | None:
    """An answer that is not on the last page, read on an earlier page the run saw
    (latest first) at an ``anchored`` place: the steps with that reading, and the
    answer as its value."""
    offset = len(flow_steps) - len(kept)
    for k in range(len(kept) - 1, -1, -1):
        source = best_place(page.parse(kept[k].observation or ""), answer, params, source_at)
        if source is None or not anchored(source):
            continue
        taken = set(params) | {r.name for ws in flow_steps for r in ws.reads}
        name = values.unique_name("answer", taken)
        out = list(flow_steps)
        seer = out[offset + k]
        out[offset + k] = seer.model_copy(update={"reads": [
            *seer.reads, Reading(name=name, source=source, example=answer)]})
        return out, AnswerSource(template=f"{{{{{name}}}}}")
    return None


# -- running ---------------------------------------------------------------------------
def examples(flow: Workflow) -> dict[str, str]:
    """Every reading's learned value: what steps are filled with until it is read on
    the live page (the runner reads it before any step that uses it acts)."""
    return {r.name: r.example for ws in flow.steps for r in ws.reads}


def read_on(ws: WorkflowStep, obs: Observation, params: Mapping[str, str],
            read: Callable[[AnswerSource, Observation, Mapping[str, str]], str | None]
            ) -> dict[str, str] | str:
    """This step's readings on the live page, or why one is not there."""
    got: dict[str, str] = {}
    for reading in ws.reads:
        value = read(reading.source, obs, {**params, **got})
        if not value:
            label = reading.source.label or "the recorded element"
            return f"the value to read under {label!r} is not on the page"
        got[reading.name] = value
    return got


def uses(data: Any) -> set[str]:
    """The parameter names a step's data uses."""
    return set(PARAM.findall(str(data)))
