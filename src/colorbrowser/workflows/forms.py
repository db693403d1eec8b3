"""Controls and pages whose names are the page's data rather than its labels.

A drop-down shows its current value as its name (an order's status list reads
"Processing" on one order and "Pending" on the next): learning finds it by its place
(its role, its order among its kind, its section heading) when its name is a goal
value. The options of such a list are drawn at the end of the page, under whatever
heading the page ends with, so no heading is recorded around an option. And a page
about one thing names it in its main heading: a goal value shown there is a value of
the goal even when no step typed it (the product whose edit page the task starts on),
so that a sibling goal about another product fits the workflow's pattern.
"""

from __future__ import annotations

from colorbrowser.knowledge.workflow import Surroundings
from colorbrowser.steps import Step
from colorbrowser.workflows import page, values

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
