"""URL shortcuts: safe expansion of templates, and finding the ones for a page."""

from __future__ import annotations

import pytest

from colorbrowser.knowledge import ShortcutError, Tip, expand_shortcut

SEARCH = Tip(id="shop-search", site="shop.local", kind="shortcut", url_patterns=["/*"],
             url_template="http://shop.local/search?q={query}&sort={order}",
             text="Search results by URL.")
PROFILE = Tip(id="forum-user", site="forum.local", kind="shortcut",
              url_template="http://forum.local/user/{name}/posts#{anchor}",
              text="A member's posts by URL.")


def test_query_values_are_encoded_with_quote_plus():
    url = expand_shortcut(SEARCH, query="red mug & saucer?=100%", order="price")
    assert url == "http://shop.local/search?q=red+mug+%26+saucer%3F%3D100%25&sort=price"


def test_path_values_cannot_add_segments_or_parameters():
    url = expand_shortcut(PROFILE, name="../admin?x=1 a/b", anchor="top part")
    assert url == "http://forum.local/user/..%2Fadmin%3Fx%3D1%20a%2Fb/posts#top%20part"


def test_missing_and_unknown_placeholders_are_clear_errors():
    with pytest.raises(ShortcutError, match=r"needs a value for \{order\}"):
        expand_shortcut(SEARCH, query="mug")
    with pytest.raises(ShortcutError, match=r"has no placeholder \{colour\}"):
        expand_shortcut(SEARCH, query="mug", order="price", colour="red")
    plain = Tip(id="plain", site="shop.local", text="Not a shortcut.")
    with pytest.raises(ShortcutError, match="not a URL shortcut"):
        expand_shortcut(plain, query="x")


def test_numbers_are_accepted_as_values():
    assert expand_shortcut(SEARCH, query=42, order="new").endswith("q=42&sort=new")


def test_shortcuts_for_a_url_lists_that_sites_shortcuts_matching_first(kb):
    wide = SEARCH.model_copy(update={"id": "a-wide", "url_patterns": ["http://shop.local/x/*"]})
    kb.add_many([SEARCH, PROFILE, wide,
                 Tip(id="not-shortcut", site="shop.local", text="A normal tip.")])
    assert [t.id for t in kb.shortcuts_for("http://shop.local/cart")] == ["shop-search", "a-wide"]
    assert [t.id for t in kb.shortcuts_for("http://forum.local/")] == ["forum-user"]
    assert kb.shortcuts_for("http://elsewhere.local/") == []
