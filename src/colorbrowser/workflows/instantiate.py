"""A workflow made concrete for one goal: parameters filled, steps parsed, and the
checks the runner makes on the live page (surroundings before a step, the answer at
the end).

Values are filled into the step's data, never into action text, so a value with
quotes or parentheses stays a value; in an address a value is percent-encoded, so it
can change a path segment or a query value but never the host. Every address is
checked against the workflow's site once filled.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from colorbrowser.errors import UserError
from colorbrowser.knowledge.workflow import (
    NAVIGATING,
    PARAM,
    SECRET_MARK,
    AnswerSource,
    Workflow,
    WorkflowStep,
    check_address,
)
from colorbrowser.linear_regex import LinearRegex, compile_linear
from colorbrowser.plan.format import Step, Target, fill, parse_step
from colorbrowser.types import ElementInfo, Observation
from colorbrowser.workflows import dates, forms, page, reads, sites, spelling, totals, values

MAX_VALUE = 2000


def fill_text(text: str, params: Mapping[str, str], *, address: bool = False) -> str:
    """``{{name}}`` replaced by its value (percent-encoded in an address). A value (the
    goal's, or text read on a page) never makes a secret's placeholder: the runner types
    without a model, so a page showing ``{{secret:NAME}}`` would otherwise choose what
    of yours it types, and where."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in params:
            raise UserError(f"no value for the parameter {{{{{name}}}}}")
        got = str(params[name])
        return quote(got, safe="") if address else got

    filled = PARAM.sub(value, text)
    if len(SECRET_MARK.findall(filled)) > len(SECRET_MARK.findall(text)):
        raise UserError("a value filled into a workflow step would name a secret "
                        "({{secret:NAME}}); a workflow types only the secrets its own steps "
                        "name")
    return filled


def _check_values(flow: Workflow, params: Mapping[str, str]) -> None:
    for name, value in params.items():
        if not isinstance(value, str):
            raise UserError(f"workflow {flow.id}: the value of {name} must be text")
        if len(value) > MAX_VALUE:
            raise UserError(f"workflow {flow.id}: the value of {name} is too long")


def as_mapping(raw: str | dict[str, Any]) -> dict[str, Any]:
    """A step in its mapping form, so values are filled as data, not spliced into code."""
    if isinstance(raw, dict):
        return raw
    step = parse_step(raw, "workflow step")
    if step.action in NAVIGATING or step.target is None:
        value: Any = (step.args[0] if len(step.args) == 1 else list(step.args) if step.args
                      else None)
        return {step.action: value}
    data = step.to_data()
    assert isinstance(data, dict)
    return data


def _fill_data(data: Any, params: Mapping[str, str]) -> Any:
    if isinstance(data, str):
        return fill_text(data, params)
    if isinstance(data, dict):
        return {k: _fill_data(v, params) for k, v in data.items()}
    if isinstance(data, list):
        return [_fill_data(v, params) for v in data]
    return data


def concrete_step(flow: Workflow, ws: WorkflowStep, params: Mapping[str, str],
                  env: Mapping[str, str] | None = None, where: str = "step") -> Step:
    data = as_mapping(ws.step)
    filled: dict[str, Any] = {}
    for key, value in data.items():
        if key in NAVIGATING and isinstance(value, str):
            url = fill(fill_text(value, params, address=True), env)
            try:  # a named other site's page: on the site its placeholder names
                site = sites.crossing_to(value, flow.site, env) or flow.site
                check_address(url, site, f"workflow {flow.id} {where}", placeholders=False)
            except ValueError as exc:
                raise UserError(str(exc)) from None
            filled[key] = url
        else:
            filled[key] = _fill_data(value, params)
    try:
        return parse_step(filled, f"workflow {flow.id} {where}")
    except ValueError as exc:
        raise UserError(str(exc)) from None


def instantiate(flow: Workflow, params: Mapping[str, str],
                env: Mapping[str, str] | None = None) -> list[tuple[Step, WorkflowStep]]:
    """Each step with this goal's values filled in, parsed, its address checked.

    ``env`` fills site placeholders (``__TRAC__``); the process environment by default.
    Raises UserError (one line) for a missing value or an address off the site."""
    _check_values(flow, params)
    env = os.environ if env is None else env
    # Values read on a page fill their steps once read (the runner); until then, and in
    # a listing, the learned run's own.
    params = {**reads.examples(flow), **spelling.with_spellings(flow, params)}
    return [(concrete_step(flow, ws, params, env, f"step {n}"), ws)
            for n, ws in enumerate(flow.steps, 1)]


def goal_for(flow: Workflow, params: Mapping[str, str]) -> str:
    """The goal this workflow solves with these values."""
    _check_values(flow, params)
    return fill_text(flow.goal_pattern, params)


def check_surroundings(ws: WorkflowStep, element: ElementInfo, obs: Observation,
                       params: Mapping[str, str]) -> str | None:
    """None when the element still sits where it sat when the workflow was learned;
    otherwise why not (a renamed label, a missing section, another row)."""
    want = ws.surroundings
    if want is None or not (want.label or want.heading or want.row or want.no_heading):
        return None
    lines = page.parse(obs.axtree)
    index = page.index_of(lines, element.bid)
    if index is None:
        return f"element {element.bid} is not in the page's tree"
    if want.label:
        label, got = fill_text(want.label, params), page.label_of(lines, index)
        if page.norm(got) != page.norm(label):
            return (f"its label is {got!r}, not {label!r}" if got
                    else f"it has no label {label!r} beside it")
    if want.heading:
        heading = fill_text(want.heading, params)
        # The nearest section heading, as learning recorded it: a same-named control in a
        # box of its own (an extra element before the target) sits under the box's heading.
        above = page.headings_above(lines, index)
        if not above or page.norm(above[-1]) != page.norm(heading):
            return f"it is not under the heading {heading!r}"
    if want.no_heading and (above := page.headings_above(lines, index)):
        return (f"it is under the heading {above[-1]!r}, where it had no section heading "
                "above it")
    if want.row:
        row_text = fill_text(want.row, params)
        row = page.row_of(lines, index)
        if row is None or page.norm(row_text) not in page.norm(page.subtree_text(lines, row)):
            return f"its row does not hold {row_text!r}"
    return None


def check_effect(ws: WorkflowStep, obs: Observation, params: Mapping[str, str]) -> str | None:
    """None when the page shows what this step led to when the workflow was learned
    (its address, ``*`` standing for any run of characters, and its title); else why
    not. Values are compared as they are written in an address (percent-encoded) and as
    they are."""
    if ws.expect_url:
        plain = fill_text(ws.expect_url, params)
        encoded = fill_text(ws.expect_url, params, address=True)
        spaced = {fill_text(ws.expect_url, forms) for forms in spelling.spaced_forms(params)}
        if not any(_glob(p).fullmatch(obs.url) for p in {plain, encoded, *spaced}):
            return f"the page is {obs.url[:200]}, not {encoded[:200]}"
    if ws.expect_title:
        title = fill_text(ws.expect_title, params)
        if not _glob(title).fullmatch(obs.title):
            return f"the page's title is {obs.title[:200]!r}, not {title[:200]!r}"
    return None


def _glob(pattern: str) -> LinearRegex:
    """``*`` for any run of characters, on RE2: a file's pattern of many stars against
    an address the page chooses would otherwise backtrack for hours."""
    return compile_linear("(?s)" + ".*".join(re.escape(part) for part in pattern.split("*")),
                          name="expected page")


def read_answer(flow: Workflow, obs: Observation, params: Mapping[str, str]) -> str | None:
    """The answer for this goal: built from its values, or read on the page where the
    learned run read its own (None when that place is not on this page)."""
    source = flow.answer
    if source is None:
        return None
    _check_values(flow, params)
    if source.template is not None:
        return fill_text(source.template, params)
    return _read(source, obs, params)


def read_source(source: AnswerSource, obs: Observation, params: Mapping[str, str]
                ) -> str | None:
    """The value at an answer's place on this page (a reading's, too), or None."""
    return _read(source, obs, params)


def total_expression(source: AnswerSource, obs: Observation, params: Mapping[str, str]
                     ) -> str:
    """The sum a total answer is, written out ("27 + 14 + 6"); a count's, one for each
    place counted ("1 + 1 + 1"), and a count of none "1 - 1": the calculator has no
    empty sum, and the verifier holds a result whose operands the pages showed, which
    a bare "0" need not be (no order placed in July)."""
    found = answer_candidates(source, page.parse(obs.axtree), params)
    if source.gather == "count":
        return " + ".join("1" for _ in found[_target(source, params).nth:]) or "1 - 1"
    return " + ".join(text for _, text in found)


def _target(source: AnswerSource, params: Mapping[str, str]) -> Target:
    step = parse_step({"click": _fill_data(source.target, params)}, "answer target")
    assert step.target is not None
    return step.target


def _read(source: AnswerSource, obs: Observation, params: Mapping[str, str]) -> str | None:
    target = _target(source, params)
    answers = answer_candidates(source, page.parse(obs.axtree), params)
    if source.total:
        return totals.total([text for _, text in answers])
    if source.label_kind == "month" and dates.month_of(fill_text(source.label, params)) \
            is None:
        return None  # the goal fit the pattern with no month ("in the last week")
    if source.gather is not None:
        if not answers and source.label_kind == "month" and \
                not _dated(target, page.parse(obs.axtree)):
            return None  # no dated place at all: not the list the month's are counted in
        return totals.gather(source.gather, [text for _, text in answers], target.nth)
    if source.from_end:
        answers = answers[::-1]
    return answers[target.nth][1] if len(answers) > target.nth else None


def _dated(target: Target, lines: list[page.Line]) -> bool:
    """Whether a place of the target's kind on this page writes a date."""
    return any(_matches(target, line) and dates.dates_in(page.subtree_text(lines, i))
               for i, line in enumerate(lines))


def answer_candidates(source: AnswerSource, lines: list[page.Line],
                      params: Mapping[str, str]) -> list[tuple[int, str]]:
    """(line, answer) for every place on the page that fits the answer source, in the
    order its ``nth`` counts (learning uses it to find that ``nth``)."""
    target = _target(source, params)
    found = [i for i, line in enumerate(lines) if _matches(target, line)]
    label = page.norm(fill_text(source.label, params)) if source.label else ""
    if label and source.label_kind == "after":
        found = [i for i in found if page.norm(forms.text_before(lines, i)) == label]
    elif label and source.label_kind == "heading":
        found = [i for i in found if page.norm(page.section_heading(lines, i)) == label]
    elif label and source.label_kind == "row":
        held = re.compile(rf"(?<!\w){re.escape(label)}(?!\w)")
        found = [i for i in found if held.search(page.norm(page.subtree_text(lines, i)))]
    elif label and source.label_kind == "month":
        found = [i for i in found if dates.in_month(page.subtree_text(lines, i), label)]
    elif label and source.label_kind == "beside":
        found = [i for i in found if page.norm(page.label_of(lines, i)) == label]
    elif label:
        found = _in_column(lines, found, label, params)
    pattern = around_pattern(fill_text(source.around, params)) if source.around else \
        values.shape_pattern(source.shape) if source.shape else None
    answers = []
    for i in found:
        # a place gathered with others may be a row of cells, named by what it holds
        text = lines[i].shown or (" ".join(page.subtree_text(lines, i).split())
                                  if source.gather else "")
        if pattern is not None:
            match = pattern.search(text)
            if match is None:
                continue
            text = match.group(1).strip()
        if text:
            answers.append((i, text))
    return answers


def around_pattern(around: str) -> LinearRegex:
    """``before*after`` as a pattern whose group is the answer: from the text just
    before it (or the start) to what follows it (or the end). On RE2: both the text
    (a page's) and the pattern (a file's) come from outside."""
    before, after = (" ".join(part.split()) if part.strip() else part
                     for part in around.split("*", 1))
    head = re.escape(before) if before else "^"
    tail = re.escape(after) if after else "$"
    return compile_linear(head + r"(.+?)" + tail, name="answer's surrounding text")


def _matches(target: Target, line: page.Line) -> bool:
    if line.role.lower() != target.role.lower():
        return False
    if target.name is not None:
        return line.text == " ".join(target.name.split())
    return target.contains is None or " ".join(target.contains.split()).lower() in \
        line.text.lower()


def _in_column(lines: list[page.Line], found: list[int], header: str,
               params: Mapping[str, str]) -> list[int]:
    """Cells under this column header; the row that holds one of the goal's values
    first (the row the goal is about), then the others in page order."""
    cells = []
    for i in found:
        spot = page.column_of(lines, i)
        if spot and page.norm(page.header_of(lines, *spot)) == header:
            row_text = page.subtree_text(lines, spot[0])
            about = any(re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", row_text)
                        for v in params.values() if v)
            cells.append((not about, i))
    return [i for _, i in sorted(cells)]
