"""The answer's place in a learned workflow: where on its pages the run read its answer,
so that a sibling task reads its own value there (by label, column, heading or the
words around it), or how the answer is made (a template of the goal's values, texts
joined, a column added up, places counted)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow import AnswerSource, WorkflowStep
from colorbrowser.steps import Step
from colorbrowser.workflows import forms, page, reads, totals, values
from colorbrowser.workflows.instantiate import answer_candidates
from colorbrowser.workflows.run_folder import last_page


def place(answer: str, steps: list[Step], kept: list[Step], flow_steps: list[WorkflowStep],
          params: dict[str, str], run_dir: Path
          ) -> tuple[list[WorkflowStep], AnswerSource | None]:
    """The workflow's steps and where its answer comes from: an element of the last
    page (by what leads it, or counted from the end), else made from that page's texts
    or read on an earlier page (which may add a step). UserError when none holds it."""
    try:
        last = page.parse(last_page(steps))
        source = forms.led_answer(_answer_source(answer, steps, params, run_dir), last,
                                  answer, params, answer_candidates)
        source = forms.counted_from_end(source, last, answer, params, answer_candidates)
        source = totals.explained(source, last, answer, params, answer_candidates)
    except UserError:  # not on the last page as it is written
        found = _not_written(answer, steps, kept, flow_steps, params)
        if found is None:
            raise
        return found
    return flow_steps, source


def _answer_source(answer: str, steps: list[Step], params: dict[str, str], run_dir: Path
                   ) -> AnswerSource | None:
    """A template of the goal's values, or the best place on the last page."""
    if not answer.strip():
        return None
    template = values.substitute(answer, params, whole=True)
    if "{{" in template:
        return AnswerSource(template=template)
    source = reads.best_place(page.parse(last_page(steps)), answer, params, source_at)
    if source is None:
        raise UserError(f"run {run_dir}: its answer {answer[:60]!r} is not on its last page, "
                        "so a sibling task could not read its own there")
    return source


def _not_written(answer: str, steps: list[Step], kept: list[Step],
                 flow_steps: list[WorkflowStep], params: dict[str, str]
                 ) -> tuple[list[WorkflowStep], AnswerSource] | None:
    """An answer no element of the last page holds whole, strongest proof first: the
    texts of the last page's places joined; read on an earlier page where the run saw
    it; a column of the last page added up; places of the last page counted
    (``totals.py``)."""
    last = page.parse(last_page(steps))
    joined = totals.joined(answer, last, params, answer_candidates)
    if joined is not None:
        return flow_steps, joined
    earlier = reads.answer_read(answer, kept, flow_steps, params, source_at)
    if earlier is not None:
        return earlier
    gathered = totals.column_total(answer, last, params, answer_candidates) or \
        totals.counted(answer, last, params, answer_candidates)
    return (flow_steps, gathered) if gathered is not None else None


def source_at(lines: list[page.Line], index: int, answer: str, params: dict[str, str]
              ) -> tuple[int, AnswerSource] | None:
    """The answer source at this line and how well it should carry over to a sibling's
    page: a label beats none, the whole text beats a part, a "Label: value" text beats
    other surrounding text, and counting elements (``nth``) is the last resort."""
    line = lines[index]
    if line.role == "text":  # a text run has no element to find again
        return None
    data: dict[str, Any] = {"target": {"role": line.role, "contains": ""}}
    score = 0
    shown = line.shown
    if page.norm(shown) == page.norm(answer):
        score += 2
    else:
        at = values.find(answer, shown)
        if at < 0:
            return None
        before, after = shown[:at], shown[at + len(answer):]
        shape = values.shape_of(answer)
        if shape and len(values.shape_pattern(shape).findall(shown)) == 1:
            # a date among other words: read by its shape, the words may differ
            data["shape"], before, after = shape, "", ""
        after = after[:len(after) - len(after.lstrip(" ([{:;,.-/]})#→"))] or after[:0]
        # A number in the words before it differs from one sibling to the next ("over 2
        # years late (" here, "about 3 years late (" there): only what follows it stays.
        before = re.split(r"\S*\d\S*", before)[-1]
        before = values.substitute(before, params)
        if not data.get("shape"):
            data["around"] = f"{before}*{values.substitute(after, params)}"
        literal = re.sub(r"\{\{[a-z_]+\}\}", "", before)
        if before.strip() and not re.search(r"\d", literal):
            data["target"]["contains"] = before.strip()
        score += 2 if before.rstrip().endswith(":") else 0
        score -= bool(re.search(r"\d", literal)) + (len(literal) > 30)
    label = page.label_of(lines, index)
    section = values.substitute(page.section_heading(lines, index), params)
    if label:
        data["label"] = values.substitute(label, params)
    elif (spot := page.column_of(lines, index)) and (header := page.header_of(lines, *spot)):
        data |= {"label": values.substitute(header, params), "label_kind": "column"}
    elif values.PARAM_MARK.fullmatch(section.strip()):
        # the section titled by the goal's value (version 1.3 of a roadmap)
        data |= {"label": section, "label_kind": "heading"}
    score += 3 if data.get("label") else 0
    source = AnswerSource.model_validate(data)
    found = answer_candidates(source, lines, params)
    where = [i for i, _ in found]
    if index not in where or page.norm(found[where.index(index)][1]) != page.norm(answer):
        return None
    if where.index(index):
        target = dict(data["target"], nth=where.index(index))
        source = AnswerSource.model_validate(data | {"target": target})
        score -= 3
    return score, source
