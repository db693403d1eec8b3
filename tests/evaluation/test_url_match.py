"""url_match: WebArena's "GOLD in PRED" rule on host+path, query keys and |OR|."""

from __future__ import annotations

import pytest

from colorbrowser.evaluation.evaluators import url_match

SHOP = "http://127.0.0.1:7770"


@pytest.mark.parametrize(
    ("gold", "page", "score"),
    [
        # trailing slashes do not matter
        (f"{SHOP}/electronics.html", f"{SHOP}/electronics.html/", 1.0),
        # the gold host+path is looked for inside the page's host+path
        (f"{SHOP}/catalog", f"{SHOP}/catalog/product/view", 1.0),
        (f"{SHOP}/catalog/product", f"{SHOP}/catalog", 0.0),
        # the scheme is not compared
        ("https://127.0.0.1:7770/sales", f"{SHOP}/sales", 1.0),
        # gold query parameters must be present with a gold value
        (f"{SHOP}/search?q=shoes", f"{SHOP}/search?q=shoes&page=2", 1.0),
        (f"{SHOP}/search?q=shoes", f"{SHOP}/search?q=boots", 0.0),
        (f"{SHOP}/search?q=shoes", f"{SHOP}/search", 0.0),
        # parameter order and extra page parameters do not matter
        (f"{SHOP}/s?a=1&b=2", f"{SHOP}/s?b=2&x=9&a=1", 1.0),
        # a repeated page parameter counts if any of its values is the gold one
        (f"{SHOP}/s?tag=red", f"{SHOP}/s?tag=blue&tag=red", 1.0),
        # the path of a query URL still has to match
        (f"{SHOP}/search?q=shoes", f"{SHOP}/other?q=shoes", 0.0),
    ],
)
def test_gold_in_pred(gold, page, score):
    assert url_match(gold, page).score == score


def test_or_alternatives_any_path_is_enough():
    gold = "http://r/f/deeplearning |OR| http://r/f/MachineLearning"
    assert url_match(gold, "http://r/f/MachineLearning").score == 1.0
    assert url_match(gold, "http://r/f/deeplearning/").score == 1.0
    assert url_match(gold, "http://r/f/technology").score == 0.0


def test_or_alternatives_pool_their_query_keys_as_webarena_does():
    # Query keys of all alternatives are required together; their values pool.
    gold = "http://s/search?q=shoes |OR| http://s/search?q=sneakers"
    assert url_match(gold, "http://s/search?q=sneakers").score == 1.0
    gold2 = "http://s/search?q=shoes |OR| http://s/find?cat=7"
    assert url_match(gold2, "http://s/search?q=shoes").score == 0.0  # cat is missing
    assert url_match(gold2, "http://s/search?q=shoes&cat=7").score == 1.0


def test_path_is_compared_case_sensitively():
    assert url_match("http://r/f/MachineLearning", "http://r/f/machinelearning").score == 0.0


def test_outcome_says_what_did_not_match():
    outcome = url_match(f"{SHOP}/search?q=shoes&sort=price", f"{SHOP}/search?q=shoes")
    assert outcome.info["path_ok"] is True
    assert outcome.info["query_mismatch"] == ["sort"]
