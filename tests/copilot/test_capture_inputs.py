"""Inputs that change a value in place, focus noise, navigation credit, middle clicks,
hovers that open portal menus and tab identity: real Chromium input, as a person's.

Each test is a general rule of capture (issue 26), shown on one page.
"""

from __future__ import annotations


# -- keys that change a value in place --------------------------------------------------
def test_enter_and_shift_enter_in_a_textarea_are_new_lines_in_one_fill(watched):
    watched.open("inputs.html")
    watched.page.click("#msg")
    watched.page.keyboard.type("first line")
    watched.page.keyboard.press("Enter")
    watched.page.keyboard.type("second")
    watched.page.keyboard.press("Shift+Enter")
    watched.page.keyboard.type("third")
    assert watched.texts() == ["fill(textbox 'Message', 'first line\\nsecond\\nthird')"]


def test_arrow_keys_in_a_radio_group_are_one_check_of_the_radio_chosen(watched):
    watched.open("inputs.html")
    watched.page.click("#std")
    watched.page.keyboard.press("ArrowDown")
    watched.page.keyboard.press("ArrowDown")
    watched.page.keyboard.press("ArrowUp")
    assert watched.texts() == ["check(radio 'Express')"]


def test_arrow_keys_and_typing_in_a_number_field_are_one_fill_of_the_final_value(watched):
    watched.open("inputs.html")
    watched.page.click("#qty")
    for key in ("ArrowUp", "ArrowUp", "ArrowUp", "ArrowDown"):
        watched.page.keyboard.press(key)
    assert watched.texts() == ["fill(spinbutton 'Quantity', '3')"]
    watched.mark()
    watched.page.keyboard.press("Backspace")
    watched.page.keyboard.type("12")
    assert watched.texts() == ["fill(spinbutton 'Quantity', '12')"]


def test_a_click_on_a_slider_track_is_one_fill_of_the_value_it_took(watched):
    watched.open("inputs.html")
    box = watched.page.locator("#vol").bounding_box()
    watched.page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
    value = watched.page.eval_on_selector("#vol", "e => e.value")
    assert value != "50"
    assert watched.texts() == [f"fill(slider 'Volume', '{value}')"]


# -- focus noise ----------------------------------------------------------------------
def test_a_double_click_that_selects_a_word_before_retyping_is_dropped(watched):
    watched.open("inputs.html")
    watched.page.locator("#title").dblclick(position={"x": 12, "y": 8})  # on "Draft"
    watched.page.keyboard.type("Final")
    value = watched.page.eval_on_selector("#title", "e => e.value")
    assert value == "Final title"
    assert watched.texts() == ["fill(textbox 'Title', 'Final title')"]


def test_a_double_click_on_plain_text_in_an_inline_element_gives_no_empty_id(watched):
    watched.open("inputs.html")
    watched.page.locator("#para em").dblclick()
    done = watched.actions().actions
    assert all(a.action.args and a.action.args[0] for a in done)
    assert [a.label() for a in done] == []


def test_a_suggestion_picked_with_the_keyboard_is_not_filled_again_on_leaving(watched):
    watched.open("inputs.html")
    watched.page.click("#town")
    watched.page.keyboard.type("Par")
    watched.page.keyboard.press("ArrowDown")
    watched.page.keyboard.press("Enter")
    watched.page.click("#ok")
    assert watched.page.eval_on_selector("#town", "e => e.value") == "Paris"
    assert watched.texts() == ["fill(combobox 'Town', 'Par')",
                               "press(combobox 'Town', 'ArrowDown')",
                               "press(combobox 'Town', 'Enter')", "click(button 'OK')"]


# -- navigation credit ----------------------------------------------------------------
def test_a_reload_soon_after_typing_is_the_persons_own_not_the_fills_doing(watched):
    watched.open("inputs.html")
    watched.page.click("#title")
    watched.page.keyboard.press("End")
    watched.page.keyboard.type("!")
    watched.page.reload()
    assert watched.texts() == ["fill(textbox 'Title', 'Draft title!')",
                               f"goto('{watched.url('inputs.html')}')"]


def test_a_typed_address_soon_after_a_tick_is_a_goto(watched):
    watched.open("inputs.html")
    watched.page.click("#agree")
    watched.page.goto(watched.url("next.html"))
    assert watched.texts() == ["check(checkbox 'I agree')",
                               f"goto('{watched.url('next.html')}')"]


def test_a_typed_address_after_an_in_page_move_is_a_goto_not_the_moves_load(watched):
    """A script's pushState moves within the page: it starts no load, so the person's
    own goto that follows is theirs."""
    watched.open("inputs.html")
    watched.page.click("#spa")
    watched.page.wait_for_function("location.hash === '#details'")
    watched.page.goto(watched.url("next.html"))
    texts = watched.texts()
    assert texts[0] == "click(button 'Details')"
    assert texts[-1] == f"goto('{watched.url('next.html')}')"


def test_a_new_tab_soon_after_a_tick_is_new_tab_with_its_address(watched):
    watched.open("inputs.html")
    watched.page.click("#agree")
    fresh = watched.session.context.new_page()
    fresh.goto(watched.url("next.html"))
    fresh.wait_for_timeout(200)
    assert watched.texts() == ["check(checkbox 'I agree')",
                               f"new_tab('{watched.url('next.html')}')"]


def test_a_link_a_script_and_enter_in_a_form_field_are_credited_with_their_loads(watched):
    watched.open("inputs.html")
    watched.page.click("#jump")  # its handler sets location
    watched.page.wait_for_url("**/next.html")
    done = watched.actions().actions
    assert [a.label() for a in done] == ["click(button 'Jump')"]
    assert "next.html" in done[0].led_to[0]
    watched.open("inputs.html")
    watched.page.click("#title")
    watched.page.keyboard.press("Enter")
    watched.page.wait_for_url("**/done.html*")
    done = watched.actions().actions
    assert [a.label() for a in done] == ["press(textbox 'Title', 'Enter')"]
    assert "done.html" in done[0].led_to[0]


# -- missing inputs -------------------------------------------------------------------
def test_a_middle_click_on_a_link_is_a_middle_click_that_opened_a_tab(watched):
    watched.open("inputs.html")
    with watched.page.context.expect_page() as opened:
        watched.page.click("#next", button="middle")
    opened.value.wait_for_load_state()
    done = watched.actions().actions
    assert [a.label() for a in done] == ["click(link 'Next page', 'middle')"]
    assert "opened tab 1" in done[0].led_to[0]


# -- hover that matters ---------------------------------------------------------------
def test_a_hover_that_opens_a_menu_at_the_end_of_the_body_is_kept(watched):
    watched.open("inputs.html")
    watched.page.hover("#more")
    watched.page.wait_for_timeout(400)
    watched.page.click("#archive")  # rendered in a portal, far from its button in the DOM
    assert watched.page.text_content("#said") == "archived"
    assert watched.texts() == ["hover(button 'More')", "click(menuitem 'Archive')"]


def test_a_hover_before_a_click_on_a_neighbour_already_there_is_noise(watched):
    watched.open("inputs.html")
    watched.page.hover("#more")
    watched.page.wait_for_timeout(400)
    watched.page.click("#help")  # beside the hovered button, there before the hover
    assert watched.texts() == ["click(button 'Help')"]


# -- tab order ------------------------------------------------------------------------
def test_a_pop_up_right_after_another_tab_closed_is_credited_to_its_click(watched):
    watched.open("inputs.html")
    helper = watched.session.context.new_page()  # the agent's tab, opened and closed
    helper.goto(watched.url("done.html"))         # just before the person's turn
    helper.close()
    watched.mark()
    with watched.page.context.expect_page() as opened:
        watched.page.click("#popup")
    opened.value.wait_for_load_state()
    done = watched.actions().actions
    assert [a.label() for a in done] == ["click(link 'Open in new tab')"]
    assert "opened tab 1" in done[0].led_to[0]


def test_tab_away_at_the_end_of_the_turn_only_moves_focus(watched):
    """Tab that leaves a field with nothing done after it (the person typed, then tabbed
    on past a control or two) is focus, not an action: found on Trac's new-ticket form."""
    watched.open("inputs.html")
    watched.page.click("#title")
    watched.page.keyboard.press("End")
    watched.page.keyboard.type("!")
    watched.page.keyboard.press("Tab")
    watched.page.keyboard.press("Tab")
    assert watched.texts() == ["fill(textbox 'Title', 'Draft title!')"]


def test_a_button_named_by_a_title_a_tooltip_took_away_keeps_its_name(watched):
    """Found on Redmine's editor toolbar (jQuery UI tooltips empty the title on hover):
    the click must name the button as the agent saw it, not ''."""
    watched.open("inputs.html")
    watched.page.click("#bold")
    assert watched.page.get_attribute("#bold", "title") == ""  # the page took it away
    assert watched.texts() == ["click(button 'Strong (Ctrl+B)')"]


# -- the view keys move -----------------------------------------------------------------
def test_tab_to_a_control_out_of_sight_keeps_the_scroll_it_made(watched):
    """Found on Trac's new-ticket form: Tab past the last field brought a control far
    below into view; with the Tab dropped as focus, the replay ended at the top."""
    from colorbrowser.actions import parse_action
    from colorbrowser.browser.env import BrowserEnv
    from colorbrowser.config import BrowserSettings

    watched.open("long.html")
    watched.page.click("#first")
    watched.page.keyboard.type("Ada")
    watched.page.keyboard.press("Tab")
    assert watched.page.evaluate("document.activeElement.id") == "later"
    moved = watched.page.evaluate("scrollY")
    assert moved > 1000  # the browser brought the checkbox into view
    done = watched.actions().actions
    assert [a.label() for a in done] == ["fill(textbox 'First', 'Ada')", f"scroll(0, {moved})"]
    with BrowserEnv(BrowserSettings(action_timeout_ms=3000)) as env:
        env.reset(watched.url("long.html"))
        for act in done:
            env.observe()
            assert env.step(parse_action(act.text())).ok
        env.page.wait_for_function("window.scrollY > 0")
        assert env.page.evaluate("scrollY") == moved
        assert env.page.eval_on_selector("#first", "e => e.value") == "Ada"


def test_page_keys_that_move_the_view_one_way_are_one_scroll(watched):
    watched.open("long.html")
    assert watched.page.evaluate("document.activeElement === document.body")
    watched.page.keyboard.press("PageDown")
    watched.page.keyboard.press("Space")
    watched.page.keyboard.press("ArrowDown")
    down = watched.page.evaluate("scrollY")
    assert down > 1000
    assert watched.texts() == [f"scroll(0, {down})"]
    watched.mark()
    watched.page.keyboard.press("Home")
    assert watched.page.evaluate("scrollY") == 0
    assert watched.texts() == [f"scroll(0, {-down})"]


def test_keys_in_a_field_move_no_view(watched):
    """Typing, Space, Home and End in a text field change the field (its caret) only,
    though on the page they would move the view."""
    watched.open("long.html")
    watched.page.click("#first")
    watched.page.keyboard.type("Ada Lovelace")
    watched.page.keyboard.press("Home")
    watched.page.keyboard.press("End")
    assert watched.page.evaluate("scrollY") == 0
    assert watched.texts() == ["fill(textbox 'First', 'Ada Lovelace')"]


# -- a busy machine: events that arrive late -----------------------------------------------
def test_wheel_events_one_way_far_apart_are_still_one_scroll(watched):
    """Found under --stress: a loaded machine spaced a burst's wheel events out by up to
    1.4 s, which a time window split into two scrolls; nothing else came between."""
    watched.open("long.html")
    watched.page.mouse.move(600, 300)
    for _ in range(3):
        watched.page.mouse.wheel(0, 100)
        watched.page.wait_for_timeout(900)
    watched.page.mouse.wheel(0, -50)
    assert watched.texts() == ["scroll(0, 300)", "scroll(0, -50)"]


def test_a_double_click_whose_clicks_the_page_heard_late_is_one_dblclick(watched):
    """The browser fires dblclick only for a double click, so the two clicks before it
    are its own even when a busy page dated them far apart."""
    watched.open("form.html")
    box = watched.page.locator("#word").bounding_box()
    watched.page.mouse.move(box["x"] + 5, box["y"] + 5)
    watched.page.mouse.down(click_count=1)
    watched.page.mouse.up(click_count=1)
    watched.page.wait_for_timeout(900)
    watched.page.mouse.down(click_count=2)
    watched.page.mouse.up(click_count=2)
    assert watched.texts() == ["dblclick(button 'Pick word')"]
