"""Every action changes a real page the way its description says."""

from __future__ import annotations

from colorbrowser.types import Action

from .browser_helpers import find, line_of


def _text(env, selector: str) -> str:
    return env.page.locator(selector).text_content() or ""


def test_click_increments_the_counter(env, page_url):
    obs = env.reset(page_url("actions.html"))
    button = find(obs, "Increment").bid
    assert env.step(f"click('{button}')").ok
    assert env.step(Action("click", [button])).ok
    assert _text(env, "#count") == "Count: 2"
    assert "paragraph: Count: 2" in env.observe().axtree


def test_dblclick_fires_the_double_click_handler(env, page_url):
    obs = env.reset(page_url("actions.html"))
    target = find(obs, "Double me").bid
    env.step(f"click('{target}')")
    assert _text(env, "#dblout") == "Not yet"
    assert env.step(f"dblclick('{target}')").ok
    assert _text(env, "#dblout") == "Double clicked"


def test_hover_reveals_a_menu(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert "Menu entry" not in obs.axtree
    assert env.step(f"hover('{find(obs, 'Products').bid}')").ok
    obs = env.observe()
    assert find(obs, "Menu entry", "link").is_new


def test_fill_replaces_the_value(env, page_url):
    obs = env.reset(page_url("actions.html"))
    query = find(obs, "Query").bid
    assert env.step(f"fill('{query}', 'red shoes')").ok
    assert env.step(f"fill('{query}', 'blue socks')").ok
    assert env.page.locator("#q").input_value() == "blue socks"
    assert line_of(env.observe(), query).endswith("value='blue socks'")


def test_fill_on_a_password_field_is_marked_secret(env, page_url):
    obs = env.reset(page_url("actions.html"))
    result = env.step(f"fill('{find(obs, 'Secret').bid}', 'hunter2')")
    assert result.ok and result.info == {"secret": True}
    assert "hunter2" not in repr(result)
    assert env.page.locator("#pw").input_value() == "hunter2"
    assert "hunter2" not in env.observe().axtree


def test_press_enter_submits_the_form_and_waits_for_the_new_page(env, page_url):
    obs = env.reset(page_url("actions.html"))
    query = find(obs, "Query").bid
    env.step(f"fill('{query}', 'blue socks')")
    assert env.step(f"press('{query}', 'Enter')").ok
    obs = env.observe()
    assert obs.title == "Result" and "q=blue+socks" in obs.url
    assert "paragraph: Query: blue socks" in obs.axtree


def test_press_accepts_key_combinations(env, page_url):
    obs = env.reset(page_url("actions.html"))
    query = find(obs, "Query").bid
    env.step(f"fill('{query}', 'some text')")
    assert env.step(f"press('{query}', 'Control+a')").ok
    assert env.step(f"press('{query}', 'Backspace')").ok
    assert env.page.locator("#q").input_value() == ""


def test_select_option_by_label_by_value_and_loosely(env, page_url):
    obs = env.reset(page_url("actions.html"))
    colour = find(obs, "Colour", "combobox").bid
    assert env.step(f"select_option('{colour}', 'Green')").ok
    assert _text(env, "#picked") == "Picked g"
    assert env.step(f"select_option('{colour}', 'b')").ok
    assert _text(env, "#picked") == "Picked b"
    assert env.step(f"select_option('{colour}', ' red ')").ok
    assert _text(env, "#picked") == "Picked r"
    assert find(env.observe(), "Colour", "combobox").states["value"] == "Red"


def test_clicking_an_option_of_a_closed_select_selects_it(env, page_url):
    obs = env.reset(page_url("actions.html"))
    blue = find(obs, "Blue", "option").bid
    result = env.step(f"click('{blue}')")
    assert result.ok and result.output == "selected option 'Blue'"
    assert _text(env, "#picked") == "Picked b"


def test_check_and_uncheck_a_checkbox(env, page_url):
    obs = env.reset(page_url("actions.html"))
    box = find(obs, "Newsletter").bid
    assert env.step(f"check('{box}')").ok
    assert env.page.locator("#news").is_checked()
    assert env.step(f"check('{box}')").ok  # already checked: stays checked
    assert env.page.locator("#news").is_checked()
    assert find(env.observe(), "Newsletter").states["checked"] is True
    assert env.step(f"uncheck('{box}')").ok
    assert not env.page.locator("#news").is_checked()


def test_check_a_radio_button_moves_the_choice(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert env.step(f"check('{find(obs, 'Pro').bid}')").ok
    assert env.page.locator("#r2").is_checked() and not env.page.locator("#r1").is_checked()


def test_check_works_on_an_aria_checkbox(env, page_url):
    obs = env.reset(page_url("actions.html"))
    toggle = find(obs, "Custom toggle").bid
    assert env.step(f"check('{toggle}')").ok
    assert env.page.locator("#toggle").get_attribute("aria-checked") == "true"
    assert env.step(f"check('{toggle}')").ok
    assert env.page.locator("#toggle").get_attribute("aria-checked") == "true"
    assert env.step(f"uncheck('{toggle}')").ok
    assert env.page.locator("#toggle").get_attribute("aria-checked") == "false"


def test_scroll_moves_the_page(env, page_url):
    env.reset(page_url("actions.html"))
    assert env.page.evaluate("scrollY") == 0
    assert env.step("scroll(0, 600)").ok
    assert env.page.evaluate("scrollY") == 600
    assert env.step("scroll(0, -250.5)").ok
    assert abs(env.page.evaluate("scrollY") - 349.5) <= 1


def test_goto_back_and_forward(env, page_url):
    env.reset()
    assert env.step(f"goto('{page_url('page1.html')}')").ok
    obs = env.observe()
    assert obs.title == "Page one"
    assert env.step(f"click('{find(obs, 'Go to page two').bid}')").ok
    assert env.observe().title == "Page two"
    assert env.step("go_back()").ok
    assert env.observe().title == "Page one"
    assert env.step("go_forward()").ok
    assert env.observe().title == "Page two"


def test_goto_the_address_the_tab_shows_reloads_it_keeping_the_scroll(env, pages_url):
    """A person's reload is normalised to a goto of the address the tab shows; done as
    a fresh load, the replay ended at the top of a page the person had scrolled."""
    url = f"{pages_url}/copilot/long.html"
    env.reset(url)
    assert env.step("scroll(0, 1500)").ok
    env.page.evaluate("window.loadedBefore = true")
    assert env.step(f"goto('{url}')").ok
    assert env.page.evaluate("window.loadedBefore === undefined")  # loaded again
    env.page.wait_for_function("scrollY > 0")
    assert env.page.evaluate("scrollY") == 1500


def test_goto_the_address_of_a_form_posts_answer_loads_it_without_posting(env, page_url):
    env.reset(page_url("post_form.html"))
    with env.page.expect_navigation():
        env.page.click("#send")
    assert_goto_reloads_by_get(env)


def assert_goto_reloads_by_get(env):
    shown = env.page.url
    methods: list[str] = []
    env.page.on("request", lambda r: methods.append(r.method)
                if r.is_navigation_request() else None)
    assert env.step(f"goto('{shown}')").ok
    assert env.page.url == shown
    assert methods == ["GET"]


def test_goto_the_address_of_a_post_answer_in_a_new_tab_loads_it_without_posting(env,
                                                                                page_url):
    """The tab a form posts into is announced after its post was made: how its page was
    loaded was never seen, and a reload would have posted again."""
    obs = env.reset(page_url("post_form_tab.html"))
    assert env.step(f"click('{find(obs, 'Send', 'button').bid}')").ok
    assert len(env.session.pages) == 2
    assert env.page.url.endswith("/browser/page2.html")
    assert_goto_reloads_by_get(env)


def test_goto_without_scheme_uses_http(env, page_url):
    env.reset()
    bare = page_url("page1.html").removeprefix("http://")
    assert env.step(f"goto('{bare}')").ok
    assert env.observe().title == "Page one"


def test_new_tab_focus_and_close(env, page_url):
    env.reset(page_url("page1.html"))
    result = env.step(f"new_tab('{page_url('page2.html')}')")
    assert result.ok and result.output == "opened tab 1"
    obs = env.observe()
    assert obs.title == "Page two"
    assert [(t.index, t.title, t.active) for t in obs.tabs] == [
        (0, "Page one", False), (1, "Page two", True)]
    assert env.step("tab_focus(0)").ok
    assert env.observe().title == "Page one"
    assert env.step("tab_close(1)").ok
    obs = env.observe()
    assert len(obs.tabs) == 1 and obs.title == "Page one"
    assert env.step("new_tab()").ok
    obs = env.observe()
    assert obs.url == "about:blank" and obs.tabs[1].active
    assert env.step("tab_close()").ok
    assert env.observe().title == "Page one"


def test_link_with_target_blank_opens_the_active_tab(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert env.step(f"click('{find(obs, 'Open in new tab').bid}')").ok
    obs = env.observe()
    assert obs.url.endswith("result.html?from=blank") and obs.title == "Result"
    assert len(obs.tabs) == 2 and obs.tabs[1].active
    assert obs.changes.startswith("URL changed; 2 tabs open (was 1)")


def test_window_open_popup_becomes_the_active_tab(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert env.step(f"click('{find(obs, 'Window open').bid}')").ok
    obs = env.observe()
    assert obs.url.endswith("result.html?from=open") and obs.tabs[1].active


def test_alert_is_accepted_and_reported_once(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert env.step(f"click('{find(obs, 'Alert').bid}')").ok
    obs = env.observe()
    assert obs.dialog == "alert 'Saved!' was accepted"
    assert _text(env, "#dialogout") == "after alert"
    assert env.observe().dialog is None


def test_confirm_follows_the_dialog_setting(env, page_url):
    obs = env.reset(page_url("actions.html"))
    confirm = find(obs, "Confirm").bid
    env.step(f"click('{confirm}')")
    assert _text(env, "#dialogout") == "confirmed"
    assert env.observe().dialog == "confirm 'Delete it?' was accepted"
    env.settings.dialogs = "dismiss"
    env.step(f"click('{confirm}')")
    assert _text(env, "#dialogout") == "cancelled"
    assert env.observe().dialog == "confirm 'Delete it?' was dismissed"


def test_a_new_element_can_be_used_before_it_is_observed(env, page_url):
    obs = env.reset(page_url("dynamic.html"))
    env.page.evaluate("""() => { const b = document.createElement('button');
        b.setAttribute('bid', '77'); b.onclick = () => b.textContent = 'fresh clicked';
        b.textContent = 'fresh'; document.body.appendChild(b); }""")
    assert "77" not in obs.elements
    assert env.step("click('77')").ok
    assert env.page.locator('[bid="77"]').text_content() == "fresh clicked"


def test_a_goto_to_a_page_that_redirects_as_it_loads_ends_where_the_page_sent_it(
        env, page_url):
    env.reset(page_url("page1.html"))
    assert env.step(f"goto('{page_url('moves_on.html')}')").ok
    obs = env.observe()
    assert obs.title == "Page two" and obs.url.endswith("page2.html")


def test_a_goto_to_a_page_that_opens_a_pop_up_as_it_loads_shows_the_pop_up(env, page_url):
    env.reset(page_url("page1.html"))
    assert env.step(f"goto('{page_url('moves_on.html')}#popup')").ok
    obs = env.observe()
    assert len(obs.tabs) == 2 and obs.tabs[1].active
    assert obs.url.endswith("result.html?from=load")
