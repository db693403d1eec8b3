"""The month a goal names, the dates a page writes in it (``workflows/dates.py``), and
the rows dated in it counted as an answer (``instantiate.read_source``)."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge.workflow import AnswerSource
from colorbrowser.types import Observation
from colorbrowser.workflows.dates import goal_months, in_month, month_of
from colorbrowser.workflows.instantiate import read_source


@pytest.mark.parametrize("text", ["2024-03-14", "March 14, 2024, 8:06 a.m.",
                                  "Mar. 14, 2024", "14 March 2024", "placed on 14 Mar 2024"])
def test_a_date_in_any_of_the_known_forms_falls_in_its_month(text):
    assert in_month(text, "March 2024") and in_month(text, "march")
    assert not in_month(text, "March 2025") and not in_month(text, "May 2024")


def test_a_text_with_no_date_or_a_goal_with_no_month_matches_nothing():
    assert not in_month("3 items, $39.99", "March 2024")
    assert not in_month("2024-03-14", "Marching")
    assert month_of("Lily Lewis") is None and month_of("May 2024") == (5, 2024)


def test_a_goal_names_its_months_with_the_year_that_follows():
    assert goal_months("How many orders did I place in March 2024?") == ["March 2024"]
    assert goal_months("Orders of June and of July, 2023") == ["June", "July, 2023"]
    assert goal_months("How many comments mention marching bands?") == []
    assert goal_months("Orders placed on April 19, 2024 or on 3 May 2024") == []


ORDERS_PAGE = """[1] heading 'Order History' level=1
[2] table
  [3] row
    [4] columnheader 'Order number'
    [5] columnheader 'Date submitted'
  [6] row
    [7] link '100314'
    [8] cell 'June 25, 2024, 9:30 a.m.'
  [9] row
    [10] link '100175'
    [11] cell 'March 31, 2024, 3:59 p.m.'
"""
BY_MONTH = AnswerSource(target={"role": "row", "contains": ""}, gather="count",
                        label="{{month}}", label_kind="month")


def page_of(tree: str) -> Observation:
    return Observation(url="http://127.0.0.1/orders/", title="Orders", axtree=tree)


@pytest.mark.parametrize(("month", "count"), [("March 2024", "1"), ("June", "1"),
                                              ("July 2024", "0"), ("March 2023", "0")])
def test_the_rows_dated_in_the_month_are_counted(month, count):
    assert read_source(BY_MONTH, page_of(ORDERS_PAGE), {"month": month}) == count


def test_no_count_without_a_month_or_without_a_dated_row():
    """A goal that fit the pattern with no month ("in the last week"), or a page whose
    rows write no date (not the list the orders are counted in), gives no answer, not
    0."""
    assert read_source(BY_MONTH, page_of(ORDERS_PAGE), {"month": "the last week"}) is None
    undated = "\n".join(line for line in ORDERS_PAGE.splitlines() if "2024" not in line)
    assert read_source(BY_MONTH, page_of(undated), {"month": "March 2024"}) is None
