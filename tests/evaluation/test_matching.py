"""Answer cleaning and string comparisons behave as WebArena's StringEvaluator does."""

from __future__ import annotations

import pytest

from colorbrowser.evaluation.matching import (
    clean_answer,
    exact_match,
    must_include,
    must_include_any,
    tokens,
)


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("  Quest Lumaflex™ Band \n", "quest lumaflex™ band"),
        ('"Yes"', "yes"),
        ("'No'", "no"),
        ("\"'both'\"", "'both'"),  # only one pair of quotes goes
        ("'mismatched\"", "'mismatched\""),  # quotes must match to be stripped
        ("Done.", "done."),  # trailing punctuation is kept, as in WebArena
        ('"', ""),  # a lone quote is both ends of the pair
        ("", ""),
    ],
)
def test_answer_cleaning_strips_space_one_quote_pair_and_case(raw, cleaned):
    assert clean_answer(raw) == cleaned


def test_exact_match_ignores_case_space_and_surrounding_quotes():
    assert exact_match("Quest Lumaflex™ Band", '  "quest lumaflex™ band" ')
    assert exact_match("N/A", "n/a")


def test_exact_match_rejects_extra_words_and_punctuation():
    assert not exact_match("Yes", "Yes, it is")
    assert not exact_match("Yes", "yes.")


def test_must_include_is_a_case_insensitive_substring_test():
    assert must_include("Hyatt Regency", "It is the hyatt regency pittsburgh")
    assert not must_include("Hyatt Regency", "It is the Hyatt")


def test_must_include_of_a_multi_character_reference_is_a_plain_substring():
    # Only one-character references get token matching; "16" matches inside "160".
    assert must_include("16", "160 orders", as_token=True)


@pytest.mark.parametrize(
    ("prediction", "found"),
    [
        ("0", True),
        ("There are 0 items.", True),
        ("0.", True),
        ("$0", True),
        ("(0)", True),
        ("0%", True),
        ("0's", True),
        ('"0"', True),
        ("10 items", False),
        ("1.0", False),
        ("0,1", False),
        ("-0", False),
        ("0s", False),
        ("2020", False),
    ],
)
def test_single_character_reference_must_stand_as_its_own_token(prediction, found):
    assert must_include("0", prediction, as_token=True) is found


def test_single_character_reference_is_a_substring_when_the_list_has_several_items():
    # WebArena tokenizes only when the must_include list has exactly one entry.
    assert must_include("0", "10 items", as_token=False)


def test_tokens_keep_numbers_whole_and_split_punctuation():
    assert tokens("I have 2 cats, 0 dogs and 1,000 fish (3.5 kg).") == [
        "I", "have", "2", "cats", ",", "0", "dogs", "and", "1,000", "fish", "(", "3.5",
        "kg", ")", "."]


def test_or_alternatives_need_only_one_hit():
    assert must_include_any("Approved |OR| Accepted", "Status: accepted")
    assert not must_include_any("Approved |OR| Accepted", "Status: pending")
    # without the spaced separator the text is one literal alternative
    assert not must_include_any("Approved|OR|Accepted", "approved")
