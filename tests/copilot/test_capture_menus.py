"""Menus and suggestion lists as the arena's apps build them (found by the capture
corpus's sessions on Redmine): real Chromium input, as a person's.

Each test is a general rule of capture, shown on one page.
"""

from __future__ import annotations


def test_a_hover_that_shows_a_menu_by_a_stylesheet_rule_is_kept(watched):
    """The opener has no aria-haspopup: only the :hover rule on the item around it shows
    the menu, so the replay needs the hover to reach the menu's link."""
    watched.open("menus.html")
    watched.page.hover("#plus")
    watched.page.wait_for_timeout(400)
    watched.page.click("#logtime")
    watched.page.wait_for_url("**/done.html")
    assert watched.texts() == ["hover(link '+')", "click(link 'Log time')"]


def test_a_hover_over_such_an_opener_before_a_click_on_a_neighbour_is_noise(watched):
    watched.open("menus.html")
    watched.page.hover("#plus")
    watched.page.wait_for_timeout(400)
    watched.page.click("#news")  # beside the opener, there before the hover
    watched.page.wait_for_url("**/next.html")
    assert watched.texts() == ["click(link 'News')"]


def test_a_click_on_a_wrapper_the_agents_tree_folds_into_its_item_is_the_items(watched):
    """jQuery UI's suggestion items: the click lands on a focusable div the agent's tree
    shows as part of its list item; it is a click on that item, not a dropped click."""
    watched.open("menus.html")
    watched.page.click("#parent")
    watched.page.keyboard.type("upl")
    watched.page.click(".ac li >> nth=1")
    assert watched.page.text_content("#said") == "picked"
    assert watched.page.input_value("#parent") == "92"
    assert watched.texts() == ["fill(textbox 'Parent task', 'upl')", "click(listitem '')"]
