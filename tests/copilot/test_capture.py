"""A person's real mouse and keyboard input in Chromium becomes the agent's actions.

Each test acts through Playwright's mouse and keyboard (trusted CDP input, as a
person's hand), then reads what the capture script and the normaliser made of it.
"""

from __future__ import annotations

import json

from colorbrowser.browser.observe import observe


def test_typing_with_backspaces_becomes_one_fill_with_the_final_value(watched):
    watched.open("form.html")
    watched.page.click("#name")
    watched.page.keyboard.type("Adx")
    watched.page.keyboard.press("Backspace")
    watched.page.keyboard.type("a Lovelace")
    assert watched.texts() == ["fill(textbox 'Name', 'Ada Lovelace')"]


def test_a_burst_of_wheel_events_becomes_one_scroll(watched):
    watched.open("form.html")
    watched.page.mouse.move(300, 500)
    for _ in range(6):
        watched.page.mouse.wheel(0, 100)
        watched.page.wait_for_timeout(40)
    assert watched.texts() == ["scroll(0, 600)"]


def test_two_scrolls_in_opposite_directions_stay_two(watched):
    watched.open("form.html")
    watched.page.mouse.move(300, 500)
    watched.page.mouse.wheel(0, 300)
    watched.page.wait_for_timeout(100)
    watched.page.mouse.wheel(0, -200)
    assert watched.texts() == ["scroll(0, 300)", "scroll(0, -200)"]


def test_choosing_an_option_with_the_keyboard_is_one_select_option(watched):
    watched.open("form.html")
    watched.page.focus("#size")
    watched.page.keyboard.press("ArrowDown")
    watched.page.keyboard.press("ArrowDown")
    assert watched.texts() == ["select_option(combobox 'Size', 'Large')"]


def test_ticking_and_unticking_a_checkbox_are_check_and_uncheck(watched):
    watched.open("form.html")
    watched.page.click("#gift")
    watched.page.click("text=Gift wrap")  # the label passes its click to the box
    assert watched.texts() == ["check(checkbox 'Gift wrap')", "uncheck(checkbox 'Gift wrap')"]


def test_enter_in_a_field_is_a_press_and_the_page_load_is_credited_to_it(watched):
    watched.open("form.html")
    watched.page.click("#notes")
    watched.page.keyboard.type("hi")
    watched.page.keyboard.press("Enter")
    watched.page.wait_for_url("**/done.html*")
    done = watched.actions()
    assert [a.label() for a in done.actions] == ["fill(textbox 'Notes', 'hi')",
                                                 "press(textbox 'Notes', 'Enter')"]
    assert "done.html" in done.actions[-1].led_to[0]


def test_clicking_a_link_is_one_click_that_led_to_the_next_page(watched):
    watched.open("form.html")
    watched.page.click("#next")
    watched.page.wait_for_url("**/next.html")
    done = watched.actions()
    assert [a.label() for a in done.actions] == ["click(link 'Next page')"]
    assert "next.html" in done.actions[0].led_to[0]


def test_a_typed_address_is_a_goto_and_the_back_button_is_go_back(watched):
    watched.open("form.html")
    watched.page.goto(watched.url("next.html"))  # the address bar: no click before it
    watched.page.go_back()
    assert watched.texts() == [f"goto('{watched.url('next.html')}')", "go_back()"]


def test_a_link_opening_a_tab_is_one_click_and_a_new_empty_tab_is_new_tab(watched):
    watched.open("form.html")
    with watched.page.context.expect_page() as opened:
        watched.page.click("#popup")
    opened.value.wait_for_load_state()
    clicked = watched.actions()
    assert [a.label() for a in clicked.actions] == ["click(link 'Open in new tab')"]
    assert "opened tab 1" in clicked.actions[0].led_to[0]
    watched.mark()  # a new turn: the click before it is not this turn's
    fresh = watched.session.context.new_page()
    fresh.goto(watched.url("done.html"))
    fresh.wait_for_timeout(300)
    assert watched.texts() == [f"new_tab('{watched.url('done.html')}')"]


def test_a_click_inside_an_iframe_names_the_id_the_agent_sees(watched):
    watched.open("form.html")
    watched.page.frame_locator("#frame").locator("#inner").click()
    done = watched.actions()
    assert [a.label() for a in done.actions] == ["click(button 'Inner button')"]
    obs = observe(watched.session)
    bid = done.actions[0].action.args[0]
    assert obs.elements[bid].name == "Pressed"  # the same element, as the agent sees it


def test_passwords_card_numbers_and_codes_are_masked_and_handed_to_the_redactor(watched):
    watched.open("form.html")
    for field, text in (("#pw", "hunter22"), ("#card", "4111 1111 1111 1111"),
                        ("#otp", "123456"), ("#notes", "4012888888881881")):
        watched.page.click(field)
        watched.page.keyboard.type(text)
    watched.page.click("#name")  # leaving the last field commits its value
    done = watched.actions()
    assert [a.label() for a in done.actions] == [
        "fill(textbox 'Password', '********')", "fill(textbox 'Card number', '********')",
        "fill(textbox 'One-time code', '********')", "fill(textbox 'Notes', '********')",
        "click(textbox 'Name')"]
    raw = json.dumps([e.model_dump() for e in watched.capture.all()])
    for secret in ("hunter22", "4111 1111 1111 1111", "123456", "4012888888881881", "hunter"):
        assert secret not in raw
    watched.capture.flush_secrets()
    assert set(watched.secrets) == {"hunter22", "4111 1111 1111 1111", "123456",
                                    "4012888888881881"}


def test_events_a_page_script_fakes_are_not_captured(watched):
    watched.open("form.html")
    watched.page.evaluate("""() => {
        document.querySelector('#gift').click();
        const f = document.querySelector('#name');
        f.value = 'forged'; f.dispatchEvent(new Event('input', {bubbles: true}));
        for (const k of Object.getOwnPropertyNames(window))
            if (k.startsWith('__colorbrowserCapture') && typeof window[k] === 'function')
                try { window[k]({kind: 'click', t: Date.now(), bid: '2'}); } catch (e) {}
    }""")
    assert watched.texts() == []


def test_a_hover_that_opens_a_menu_is_kept_and_a_stray_one_is_dropped(watched):
    watched.open("form.html")
    watched.page.hover("#menu")  # rests on it: stray, the person moves on
    watched.page.wait_for_timeout(400)
    watched.page.mouse.move(5, 5)
    watched.page.click("#gift")
    watched.page.hover("#menu")
    watched.page.wait_for_timeout(400)
    watched.page.click("#settings")
    watched.page.wait_for_url("**/next.html")
    assert watched.texts() == ["check(checkbox 'Gift wrap')", "hover(button 'Account')",
                               "click(menuitem 'Settings')"]


def test_typing_into_a_contenteditable_is_one_fill(watched):
    watched.open("form.html")
    watched.page.click("#note")
    watched.page.keyboard.type("hello worlx")
    watched.page.keyboard.press("Backspace")
    watched.page.keyboard.type("d")
    assert watched.texts() == ["fill(textbox 'Comment', 'hello world')"]


def test_a_double_click_is_one_dblclick(watched):
    watched.open("form.html")
    watched.page.dblclick("#word")
    assert watched.texts() == ["dblclick(button 'Pick word')"]


def test_closing_a_tab_the_person_opened_is_tab_close(watched):
    watched.open("form.html")
    watched.page.wait_for_timeout(5200)  # nothing of the page opening is credited
    watched.mark()
    fresh = watched.session.context.new_page()
    fresh.goto(watched.url("next.html"))
    fresh.wait_for_timeout(300)
    fresh.close()
    assert watched.texts() == [f"new_tab('{watched.url('next.html')}')", "tab_close(1)"]


def test_going_back_to_the_first_tab_is_tab_focus_even_where_no_tab_says_it_is_shown(watched):
    watched.open("form.html")
    first = watched.page
    with first.context.expect_page() as opened:
        first.click("#popup")
    opened.value.wait_for_load_state()
    first.bring_to_front()  # headless Chromium fires no visibility or focus event here
    first.click("#word")
    assert watched.texts() == ["click(link 'Open in new tab')", "tab_focus(0)",
                               "click(button 'Pick word')"]
    watched.mark()
    first.click("#word")  # still in the same tab: no second switch
    assert watched.texts() == ["click(button 'Pick word')"]
