"""Controls and pages whose names are the page's data rather than its labels.

A drop-down shows its current value as its name (an order's status list reads
"Processing" on one order and "Pending" on the next): learning finds it by its place
(its role, its order among its kind, its section heading) when its name is a goal
value. The options of such a list are drawn at the end of the page, under whatever
heading the page ends with, so no heading is recorded around an option. And a page
about one thing names it in its main heading: a goal value shown there is a value of
the goal even when no step typed it (the product whose edit page the task starts on),
so that a sibling goal about another product fits the workflow's pattern. A menu
whose list holds the goal's item is picked by that item (``by_row``).
"""

from __future__ import annotations

import re

from colorbrowser.knowledge.workflow import AnswerSource, Surroundings, WorkflowStep
from colorbrowser.steps import Step
from colorbrowser.workflows import page, spelling, values

LISTS = ("combobox", "listbox")
MAIN_LEVELS = (1, 2)


def control_target(role: str, name: str) -> dict[str, str] | None:
    """The target of a drop-down whose recorded name (goal values marked) is a goal
    value: any of its role, told apart by ``nth`` and its surroundings."""
    if role in LISTS and values.PARAM_MARK.fullmatch(name.strip()):
        return {"role": role, "contains": ""}
    return None


def around_option(role: str, found: Surroundings | None) -> Surroundings | None:
    """Surroundings of an option keep no heading (see the module's docstring)."""
    if role != "option" or found is None:
        return found
    kept = found.model_copy(update={"heading": ""})
    return kept if (kept.label or kept.row) else None


def main_headings(steps: list[Step]) -> set[str]:
    """The main headings of the pages a run saw."""
    out: set[str] = set()
    for step in steps:
        for line in page.parse(step.observation or ""):
            if line.role == "heading" and line.level in MAIN_LEVELS and line.text:
                out.add(line.text)
    return out


def named_page(params: dict[str, str], first: list[Step]) -> set[str]:
    """The parameters whose value is the main heading of the page a workflow starts on
    (one that opens no page first): the goal names that page, and a sibling's goal
    names its own."""
    shown = {page.norm(h) for h in main_headings(first)}
    return {name for name, value in params.items() if page.norm(value) in shown}


MAX_ROW_LITERAL = 40


def item_row_dropped(found: Surroundings | None) -> Surroundings | None:
    """Surroundings without a row whose text, beyond the goal's values, is long: a
    sentence that describes the item ("Harbor is a self-hosted photo library...")
    differs from one sibling to the next, where a row of short fields ("#18 defect")
    does not."""
    if found is None or not found.row:
        return found
    literal = values.PARAM_MARK.sub("", found.row)
    if len(" ".join(literal.split())) <= MAX_ROW_LITERAL:
        return found
    kept = found.model_copy(update={"row": ""})
    return kept if (kept.label or kept.heading) else None


# -- the item whose row holds the goal's value -------------------------------------------
def by_row(flow_steps: list[WorkflowStep]) -> list[WorkflowStep]:
    """A step whose target's name is none of the goal's values but whose row holds one
    (the menu "Home & Kitchen" whose list holds "Kettles") picks, on a sibling's page,
    the first element of that role in the row that holds the sibling's value. The page
    it leads to is named after the picked element, so that step expects no address,
    and later addresses have ``*`` where the example's name was spelled."""
    out = list(flow_steps)
    for index, ws in enumerate(out):
        data = ws.step if isinstance(ws.step, dict) else {}
        target = next((v for v in data.values() if isinstance(v, dict) and "role" in v),
                      None)
        row = ws.surroundings.row if ws.surroundings else ""
        name = target.get("name") if target else None
        if not (isinstance(name, str) and name and "{{" not in name and "{{" in row):
            continue
        out[index] = ws.model_copy(update={"by_row": True, "expect_url": None})
        spelled = spelling.slug(name)
        for later in range(index + 1, len(out)):
            url = out[later].expect_url
            if url and spelled:
                out[later] = out[later].model_copy(update={"expect_url": re.sub(
                    rf"(?<=/){re.escape(spelled)}(?=[/_-])[^/]*", "*", url)})
    return out


def row_head(lines: list[page.Line], role: str, row_text: str) -> tuple[str, int] | None:
    """The name of the first element of ``role`` in the innermost row (table row, list
    item) that holds ``row_text`` as words of its own, and which of that role and name
    on the page it is."""
    want = re.compile(rf"(?<!\w){re.escape(page.norm(row_text))}(?!\w)")
    rows = [i for i, line in enumerate(lines) if line.role in page.ROW_ROLES and
            want.search(page.norm(page.subtree_text(lines, i)))]
    if not rows:
        return None
    row = max(rows, key=lambda i: (lines[i].depth, i))
    for i in range(row + 1, len(lines)):
        if lines[i].depth <= lines[row].depth:
            break
        if lines[i].bid and lines[i].role == role and lines[i].text:
            return lines[i].text, page.same_targets(lines, role, lines[i].text).index(i)
    return None


# -- an answer after a text that names it ------------------------------------------------
MAX_LEAD = 40


def text_before(lines: list[page.Line], index: int) -> str:
    """The text run just before an element among its siblings ("Added by" before the
    reporter's link), or ""."""
    depth = lines[index].depth
    for i in range(index - 1, -1, -1):
        if lines[i].depth < depth:
            return ""
        if lines[i].depth == depth:
            return lines[i].text if lines[i].role == "text" else ""
    return ""


def led_answer(source: AnswerSource | None, lines: list[page.Line], answer: str,
               params: dict[str, str], candidates) -> AnswerSource | None:
    """An answer place known only by counting (``nth``, no label) told instead by the
    words just before it ("Added by" *Emma Stewart*), when the first element of its kind
    after those words holds the answer, and they hold no number (which would differ
    from one sibling to the next) and are no part of the answer (the initial a forum
    shows in a poster's avatar before their name differs with the name)."""
    if source is None or source.target is None or source.label or \
            not source.target.get("nth"):
        return source
    found = candidates(source, lines, params)
    nth = source.target["nth"]
    if nth >= len(found):
        return source
    lead = text_before(lines, found[nth][0])
    if not lead or len(lead) > MAX_LEAD or re.search(r"\d", lead) or lead.endswith(":") or \
            page.norm(lead) in page.norm(answer):
        return source  # (a lead the answer holds is drawn from it: an avatar's initial)
    target = {k: v for k, v in source.target.items() if k != "nth"}
    better = source.model_copy(update={"target": target, "label": values.substitute(
        lead, params), "label_kind": "after"})
    got = candidates(better, lines, params)
    return better if got and page.norm(got[0][1]) == page.norm(answer) else source


def counted_from_end(source: AnswerSource | None, lines: list[page.Line], answer: str,
                     params: dict[str, str], candidates) -> AnswerSource | None:
    """An answer place known only by counting, nearer the end of the page than its
    start, counted from the end: a discussion's last comment stays the last one when a
    sibling's discussion is longer or shorter."""
    if source is None or source.target is None or source.label or source.total or \
            not source.target.get("nth"):
        return source
    found = candidates(source, lines, params)
    nth = source.target["nth"]
    back = len(found) - 1 - nth
    if not 0 <= back < nth or page.norm(found[nth][1]) != page.norm(answer):
        return source
    return source.model_copy(update={"target": dict(source.target, nth=back),
                                     "from_end": True})
