"""Which of a goal's values become parameters, and where in a run they are found."""

from __future__ import annotations

from colorbrowser.workflows.values import goal_values, name_for, substitute, substitute_url


def named(goal: str, used: set[str] = frozenset()) -> dict[str, str]:
    found = goal_values(goal, set(used))
    taken: set[str] = set()
    return {name_for(goal, v, found, taken): v.text for v in found}


def test_quoted_strings_and_numbers_are_values_and_take_the_word_before_as_name():
    assert named('Add the comment "Fails on 1.2 too." to ticket #33.') == {
        "comment": "Fails on 1.2 too.", "ticket": "33"}  # no 1.2 inside the quote
    assert named("Show me the page of milestone 1.3.") == {"milestone": "1.3"}


def test_words_are_values_only_when_the_run_used_them_whole():
    goal = "Set the priority of ticket #36 to critical."
    assert named(goal) == {"ticket": "36"}
    assert named(goal, {"critical"}) == {"ticket": "36", "value": "critical"}


def test_a_short_value_is_replaced_only_where_it_stands_alone():
    values = {"ticket": "17", "first": "7"}
    assert substitute_url("http://h:1/search?q=fixes+%2317&changeset=on", values) == \
        "http://h:1/search?q=fixes+%23{{ticket}}&changeset=on"
    assert substitute_url("http://127.0.0.1:17/ticket/17", values) == \
        "http://127.0.0.1:17/ticket/{{ticket}}"  # never in the host
    assert substitute("Milestone: 1.7 of 17 and #7", values) == \
        "Milestone: 1.7 of 17 and #{{first}}"
    assert substitute("v1.3.2 or 1.3", {"m": "1.3"}) == "v1.3.2 or {{m}}"


def test_a_value_is_found_in_each_spelling_of_an_address():
    values = {"title": "Slow HEIC import"}
    assert substitute_url("http://h/search?q=Slow+HEIC+import", values) == \
        "http://h/search?q={{title}}"
    assert substitute_url("http://h/wiki/Slow%20HEIC%20import", values) == "http://h/wiki/{{title}}"
