"""Lint: one finding per problem, for each category of bad tip, and none for good tips."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge import Tip, lint

GOOD = [
    Tip(id="gitlab-members", site="code.local", url_patterns=["http://code.local/*/-/members*"],
        text='To add project members, open Manage > Members and press the blue "Invite members" '
             "button at the top right; pick the role before confirming."),
    Tip(id="shop-orders", site="shop.local", url_patterns=["/customer/*"],
        text="To find previous purchases, go to My Account > My Orders and find the order by "
             "date, order number or status."),
    Tip(id="shop-size", site="shop.local", url_patterns=["http://shop.local/product/*"],
        text="To add any item to the cart, select a size first, even if only one size exists; "
             "click the blue button only after that."),
]


def categories(tip: Tip) -> list[str]:
    return [f.category for f in lint([tip])]


def test_site_level_tips_written_like_the_guideline_have_no_findings():
    assert lint(GOOD) == []


@pytest.mark.parametrize("text", [
    "Click the blue button to buy the red socks.",
    "Open order #000123 and press Reorder.",
    "The mug costs $12.99, so add two of them.",
    "Filter the report from 2023-01-01 to 2023-03-31.",
    "I need to find the cheapest blender, so sort by price.",
    "For this task, open the second result.",
    'Search for "Sony WH-1000XM4" in the header box.',
    "Write to jane.doe@example.com from the contact form.",
])
def test_query_specific_tips_are_flagged(text):
    tip = Tip(id="t", site="shop.local", text=text)
    assert "query-specific" in categories(tip), text


@pytest.mark.parametrize("text", [
    "The benchmark evaluates only the final page, so stop there.",
    "The grader checks the order total; type it exactly.",
    "To pass the test, leave the answer in lower case.",
    "The answer must be an exact_match, so copy the title verbatim.",
    "WebArena counts this as done when the URL changes.",
])
def test_tips_written_for_a_grader_are_flagged(text):
    tip = Tip(id="t", site="shop.local", text=text)
    assert "grader" in categories(tip), text


def test_duplicates_on_the_same_site_are_flagged_once_on_the_later_tip():
    a = Tip(id="a", site="shop.local", text="Select a size before Add to Cart.")
    b = Tip(id="b", site="shop.local", text="select a SIZE before add-to-cart!")
    c = Tip(id="c", site="shop.local", text="Select a size before Add to Cart, always.")
    d = Tip(id="d", site="other.local", text="Select a size before Add to Cart.")
    findings = [f for f in lint([a, b, c, d]) if f.category == "duplicate"]
    assert [(f.tip_id, f.message) for f in findings] == [
        ("b", "same text as tip a"),
        ("c", "near-identical to tip a (word overlap 0.83)"),
    ]


def test_rewordings_count_as_duplicates_but_a_negation_never_does():
    a = Tip(id="a", site="shop.local",
            text="On product pages choose a size before pressing Add to cart, or nothing is added.")
    b = Tip(id="b", site="shop.local", text="On product pages, choose a size before you press "
                                            "Add to cart; otherwise nothing is added.")
    c = Tip(id="c", site="shop.local", text="On product pages do not choose a size before "
                                            "pressing Add to cart, or nothing is added.")
    findings = [(f.tip_id, f.message) for f in lint([a, b, c]) if f.category == "duplicate"]
    assert findings == [("b", "near-identical to tip a (word overlap 0.90)")]


def test_duplicates_by_meaning_are_found_with_the_real_model(embedder):
    a = Tip(id="a", site="shop.local",
            text="Choose a size option before pressing Add to Cart on product pages.")
    b = Tip(id="b", site="shop.local",
            text="Before pressing Add to Cart on product pages, choose a size option.")
    c = Tip(id="c", site="shop.local", text="Reviews are listed under the Reviews tab.")
    assert [f.tip_id for f in lint([a, b, c], embedder=embedder)
            if f.category == "duplicate"] == ["b"]


@pytest.mark.parametrize(("patterns", "message"), [
    (["re:(unclosed"], "invalid regex"),
    (["re:.*"], "matches every URL"),
    (["*://*/*"], "matches every URL of every site"),
    (["http://forum.local/*"], "pattern host 'forum.local' is not the tip's site 'shop.local'"),
    (["http://*.forum.local/*"], "never matches site"),
    (["admin/orders"], "must be absolute"),
])
def test_broken_patterns_are_flagged(patterns, message):
    tip = Tip(id="t", site="shop.local", url_patterns=patterns, text="Fine text.")
    findings = lint([tip])
    assert [f.category for f in findings] == ["pattern"]
    assert message in findings[0].message


def test_findings_print_as_one_line_each():
    tip = Tip(id="t", site="shop.local", url_patterns=["re:("],
              text="The grader wants order #12345.")
    lines = [str(f) for f in lint([tip])]
    assert lines[0].startswith("t: error: pattern: invalid regex")
    assert any(line.startswith("t: warning: grader: ") for line in lines)
    assert any(line.startswith("t: warning: query-specific: ") for line in lines)
    assert all("\n" not in line for line in lines)
