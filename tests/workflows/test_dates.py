"""The month a goal names and the dates a page writes in it (``workflows/dates.py``)."""

from __future__ import annotations

import pytest

from colorbrowser.workflows.dates import goal_months, in_month, month_of


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
