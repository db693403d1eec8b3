"""A count of the orders placed in the goal's month, learned in real Chromium from a
loopback order history and run on sibling months with no model (``workflows/dates.py``,
``totals.by_goal``, ``totals.explained``): the page never writes "January 2026" but
dates in it, in one of a closed set of forms, and a cell that happens to say the same
number as the count is not where the answer was read."""

from __future__ import annotations

import pytest

from .siblings_app import ORDERS, orders_in
from .test_siblings_spelled_and_read import sibling, teach

GOAL = "How many orders did I place in {}?"


def history(sites, style: str) -> str:
    return f"{sites.store}/account/orders?style={style}"


def test_the_orders_of_a_month_are_its_dated_rows_counted_not_a_cell_that_says_as_many(
        sites, env, tmp_path):
    """January 2026 has 3 orders; the fourth row's "Items" cell says 3 as well, and the
    sibling's month, March 2026, has 2 orders (the order of March 2025 is not one)."""
    kb = tmp_path / "kb.db"
    assert [k for _, k, _ in ORDERS][3] == orders_in(2026, 1) == 3
    flow = teach(GOAL.format("January 2026"), f"{sites.store}/",
                 [f"goto('{history(sites, 'django')}')", {"stop": "3"}], env, tmp_path, kb)
    assert flow.goal_pattern == GOAL.format("{{month}}")
    assert (flow.answer.gather, flow.answer.label_kind) == ("count", "month")
    result = sibling(GOAL.format("March 2026"), f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == str(orders_in(2026, 3)) == "2"


def test_a_month_with_no_order_is_counted_as_none(sites, env, tmp_path):
    kb = tmp_path / "kb.db"
    teach(GOAL.format("January 2026"), f"{sites.store}/",
          [f"goto('{history(sites, 'django')}')", {"stop": "3"}], env, tmp_path, kb)
    result = sibling(GOAL.format("July 2026"), f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == "0"


@pytest.mark.parametrize(("style", "taught", "asked"), [
    ("iso", ("March 2026", 2026, 3), ("January 2026", 2026, 1)),
    ("day", ("January 2026", 2026, 1), ("February 2026", 2026, 2)),
])
def test_dates_written_in_another_form_are_counted_by_their_month(
        sites, env, tmp_path, style, taught, asked):
    """ISO dates in a table whose first "Items" cell says the taught count (2), and
    "22 January 2026" inside the items of a list, where no element says 3 alone."""
    kb = tmp_path / "kb.db"
    month, year, number = taught
    flow = teach(GOAL.format(month), f"{sites.store}/",
                 [f"goto('{history(sites, style)}')", {"stop": str(orders_in(year, number))}],
                 env, tmp_path, kb)
    assert flow.answer.label_kind == "month"
    month, year, number = asked
    result = sibling(GOAL.format(month), f"{sites.store}/", env, tmp_path, kb)
    assert result.answer == str(orders_in(year, number))
