"""URL scopes (globs and re: regexes) and the validation of tips."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge import InvalidTip, PatternError, compile_pattern, make_tip, match


@pytest.mark.parametrize(("pattern", "url", "expected"), [
    ("http://shop.local/admin/*", "http://shop.local/admin/orders?page=2", True),
    ("http://shop.local/admin/*", "http://shop.local/admin", True),
    ("http://shop.local/admin/*", "http://shop.local/administrator", False),
    ("http://shop.local/admin/*", "http://other.local/admin/x", False),
    ("http://shop.local/admin/*", "HTTP://Shop.Local/admin/x#section", True),
    ("*://shop.local/*", "https://shop.local/cart", True),
    ("http://shop.local/search?q=*", "http://shop.local/search?q=red+mug", True),
    ("http://shop.local/search?q=*", "http://shop.local/searchXq=1", False),  # ? is literal
    ("http://*.shop.local/*", "http://admin.shop.local/x", True),
    ("/checkout/*", "http://shop.local/checkout/payment", True),
    ("/checkout/*", "http://shop.local/cart", False),
    (r"re:^https?://shop\.local/product/\d+$", "http://shop.local/product/42", True),
    (r"re:^https?://shop\.local/product/\d+$", "http://shop.local/product/42/reviews", False),
    (r"re:/order/view/id/\d+", "http://admin.shop.local/order/view/id/7/", True),
])
def test_url_patterns_match_as_documented(pattern, url, expected):
    assert match(pattern, url) is expected


def test_more_specific_patterns_score_higher():
    site_wide = compile_pattern("http://shop.local/*").specificity
    section = compile_pattern("http://shop.local/admin/*").specificity
    page = compile_pattern("http://shop.local/admin/sales/order/view/*").specificity
    assert site_wide == 0 < section < page <= 1


@pytest.mark.parametrize(("pattern", "message"), [
    ("re:(unclosed", r"invalid regex 're:\(unclosed': missing \), unterminated subpattern"),
    ("re:", "empty regex"),
    ("", "empty URL pattern"),
    ("shop.local/admin", "must be absolute"),
    ("http://shop.local/a b", "contains spaces"),
])
def test_broken_patterns_raise_a_readable_error(pattern, message):
    with pytest.raises(PatternError, match=message):
        compile_pattern(pattern)


def test_a_tip_with_a_bad_regex_is_refused_with_a_clear_message():
    with pytest.raises(InvalidTip, match=r"^tip t1: invalid regex 're:\[a-'"):
        make_tip(id="t1", site="shop.local", text="x", url_patterns=["re:[a-"])


@pytest.mark.parametrize(("fields", "message"), [
    ({"text": ""}, "^tip t1: text: tip text is empty$"),
    ({"text": " \n\t "}, "tip text is empty"),
    ({"site": "not a host!"}, "site must be a host name"),
    ({"kind": "recipe"}, r"unknown kind 'recipe' \(use tip or shortcut\)"),
    ({"kind": "shortcut"}, "a shortcut needs a url_template"),
    ({"url_template": "http://shop.local/s?q={q}"}, "only for kind 'shortcut'"),
    ({"kind": "shortcut", "url_template": "http://other.local/s?q={q}"},
     "not the tip's site"),
    ({"kind": "shortcut", "url_template": "http://{host}/s"}, "not allowed in the host"),
    ({"kind": "shortcut", "url_template": "http://shop.local/s?q={q"}, "url_template"),
    ({"kind": "shortcut", "url_template": "/relative?q={q}"}, "absolute http"),
    ({"keywords": ["a,b"]}, "must not contain commas"),
    ({"id": "has space"}, "tip id 'has space' must be"),
])
def test_invalid_tips_are_refused_with_one_line(fields, message):
    base = {"id": "t1", "site": "shop.local", "text": "Some tip."}
    with pytest.raises(InvalidTip, match=message) as info:
        make_tip(**(base | fields))
    assert "\n" not in str(info.value)


def test_site_is_normalized_from_a_pasted_url_and_ids_are_generated():
    tip = make_tip(site="HTTP://Shop.Local:8080/admin", text="x")
    assert tip.site == "shop.local:8080"
    assert tip.id.startswith("shop-local-8080-")
