"""Observation: the bid tree, element table, stability of bids, frames, shadow DOM."""

from __future__ import annotations

import json

from colorbrowser.browser.observe import observation_text, observe
from colorbrowser.testing import send_html, serve_directory

from .browser_helpers import big_page_html, find, line_of


def test_tree_prints_roles_names_and_states(env, page_url):
    obs = env.reset(page_url("basic.html"))
    assert obs.title == "Basic page"
    assert obs.url.endswith("/browser/basic.html")
    expect = {
        ("Welcome", "heading"): "heading 'Welcome' level=1",
        ("I agree", "checkbox"): "checkbox 'I agree' checked",
        ("Disabled box", "checkbox"): "checkbox 'Disabled box' unchecked disabled",
        ("Email", "textbox"): "textbox 'Email' required",
        ("City", "textbox"): "textbox 'City' value='Lyon'",
        ("Size", "combobox"): "combobox 'Size' value='Medium' options=['Small', 'Medium', 'Large']",
        ("Menu", "button"): "button 'Menu' collapsed: ☰",  # labelled; shows an icon
        ("Filters", "button"): "button 'Filters' expanded",
        ("Overview", "tab"): "tab 'Overview' selected",
        ("Custom check", "checkbox"): "checkbox 'Custom check' checked",
        ("Home", "link"): "link 'Home'",
    }
    for (name, role), text in expect.items():
        el = find(obs, name, role)
        assert line_of(obs, el.bid) == f"[{el.bid}] {text}"
    assert find(obs, "Medium", "option").states == {"selected": True}
    assert find(obs, "Disabled box").states["disabled"] is True
    assert find(obs, "Email").states["required"] is True
    assert find(obs, "Reviews", "tab").states.get("selected") is None


def test_a_long_option_list_is_cut_for_the_agent_and_kept_whole_on_request(env, pages_url,
                                                                           page_url):
    obs = env.reset(f"{pages_url}/mcp/languages.html")
    select = find(obs, "Language", "combobox")
    # The agent reads the first 50 options of 120 at each step.
    assert line_of(obs, select.bid).endswith("'Language 49', 'Language 50'] (+70 more)")
    assert obs.every_option_tree is None
    asked = observe(env.session, obs, screenshots=False, every_option=True)
    assert asked.axtree == obs.axtree  # its own tree is the same
    every = [line.strip() for line in asked.every_option_tree.splitlines()
             if line.strip().startswith(f"[{select.bid}] ")]
    assert every == [f"[{select.bid}] combobox 'Language' value='Language 1' options="
                     f"{[f'Language {i}' for i in range(1, 121)]!r}"]
    # A page whose lists are all short has one tree only.
    env.reset(page_url("basic.html"))
    assert observe(env.session, screenshots=False, every_option=True).every_option_tree is None


def test_password_values_are_masked(env, page_url):
    obs = env.reset(page_url("basic.html"))
    pw = find(obs, "Password", "textbox")
    assert "hunter2" not in obs.axtree
    assert "hunter2" not in json.dumps(obs.to_json())
    assert pw.states["password"] is True and pw.states["value"] == "•" * 7


def test_hidden_elements_are_left_out(env, page_url):
    obs = env.reset(page_url("basic.html"))
    names = {e.name for e in obs.elements.values()}
    assert "Hidden button" not in names  # display: none
    assert "Invisible button" not in names  # visibility: hidden
    assert "Aria hidden button" not in names
    assert "Hidden button" not in obs.axtree
    assert "Secret details text" not in obs.axtree  # inside a closed <details>
    assert "paragraph: Shown details text" in obs.axtree
    assert line_of(obs, find(obs, "More info").bid).endswith("button 'More info' collapsed")
    assert line_of(obs, find(obs, "Open info").bid).endswith("button 'Open info' expanded")


def test_all_visible_text_is_present_once(env, page_url):
    obs = env.reset(page_url("basic.html"))
    tree = obs.axtree
    for text in ["text: Some bold intro text with a", "text: and more.", "listitem: First item",
                 "listitem: Second item", "cell 'Socks'", "cell '$5'",
                 "paragraph: Closing words of the page.", "generic clickable: Clickable div"]:
        assert text in tree, text
    # A button's text is its name: not repeated as a text line.
    assert tree.count("Send") == 1
    assert "I agree" in tree and tree.count("I agree") == 1


def test_bids_are_attributes_in_the_dom(env, page_url):
    obs = env.reset(page_url("basic.html"))
    assert len(obs.elements) > 20
    for bid, el in obs.elements.items():
        loc = env.page.locator(f'[bid="{bid}"]')
        assert loc.count() == 1, bid
        assert loc.evaluate("e => e.localName") == el.tag
    assert env.page.locator("#email").get_attribute("bid") == find(obs, "Email").bid


def test_bids_survive_insertions_before_the_element(env, page_url):
    first = env.reset(page_url("dynamic.html"))
    target = find(first, "Target").bid
    insert = find(first, "Insert before").bid
    assert env.step(f"click('{insert}')").ok
    second = env.observe()
    assert find(second, "Target").bid == target
    new = find(second, "Inserted 1")
    assert new.is_new and new.bid not in first.elements
    assert [e.bid for e in second.elements.values() if e.is_new] == [new.bid]
    assert second.changes == f"1 new: [{new.bid}] button 'Inserted 1'"
    # The old element is still actionable by its old id.
    assert env.step(f"click('{target}')").ok
    assert find(env.observe(), "Target clicked").bid == target


def test_renamed_element_keeps_its_bid(env, page_url):
    first = env.reset(page_url("dynamic.html"))
    target = find(first, "Target").bid
    env.step(f"click('{find(first, 'Rename').bid}')")
    second = env.observe()
    assert find(second, "Renamed").bid == target
    assert second.changes == f"changed: [{target}] button 'Renamed' (was 'Target')"


def test_removed_element_is_reported_and_its_bid_never_reused(env, page_url):
    first = env.reset(page_url("dynamic.html"))
    target = find(first, "Target").bid
    env.step(f"click('{find(first, 'Remove').bid}')")
    second = env.observe()
    assert target not in second.elements
    assert second.changes == f"1 removed: [{target}] button 'Target'"
    env.step(f"click('{find(second, 'Insert before').bid}')")
    third = env.observe()
    assert find(third, "Inserted 1").bid != target


def test_cloned_element_gets_a_new_bid(env, page_url):
    first = env.reset(page_url("dynamic.html"))
    target = find(first, "Target").bid
    env.step(f"click('{find(first, 'Clone').bid}')")
    second = env.observe()
    both = [e for e in second.elements.values() if e.name == "Target"]
    assert len(both) == 2 and len({e.bid for e in both}) == 2
    assert env.page.locator("#target").count() == 2
    assert target in {e.bid for e in both}
    assert env.page.locator(f'[bid="{target}"]').count() == 1


def test_same_origin_iframe_is_included_and_clickable(env, page_url):
    obs = env.reset(page_url("frames.html"))
    frame = find(obs, "Inner frame", "iframe")
    button = find(obs, "Inner button", "button")
    assert button.frame == [frame.bid]
    assert "paragraph: Inside the frame" in obs.axtree
    lines = obs.axtree.splitlines()
    frame_line = next(i for i, line in enumerate(lines) if f"[{frame.bid}]" in line)
    assert lines[frame_line + 2].strip().startswith(f"[{button.bid}] button")
    assert lines[frame_line + 2].startswith("  ")  # nested under the iframe
    assert env.step(f"click('{button.bid}')").ok
    assert find(env.observe(), "Inner clicks: 1").bid == button.bid


def test_open_shadow_dom_is_included_and_clickable(env, page_url):
    obs = env.reset(page_url("frames.html"))
    assert "paragraph: Shadow text" in obs.axtree
    button = find(obs, "Shadow button")
    assert env.step(f"click('{button.bid}')").ok
    assert find(env.observe(), "Shadow clicked").bid == button.bid


def test_cross_origin_iframe_is_included_and_actionable(env, page_url):
    env.reset(page_url("xframe.html"))
    env.page.frame_locator("iframe").locator("#inner").wait_for()
    obs = env.observe()
    frame = find(obs, "Other origin", "iframe")
    button = find(obs, "Inner button")
    assert button.frame == [frame.bid] and button.bid.startswith(f"{frame.bid}_")
    box = env.page.frame_locator("iframe").locator("#inner").bounding_box()
    assert abs(button.bbox.x - box["x"]) <= 1.5 and abs(button.bbox.y - box["y"]) <= 1.5
    assert env.step(f"click('{button.bid}')").ok
    assert env.step(f"fill('{find(obs, 'Inner box').bid}', 'typed')").ok
    obs = env.observe()
    assert find(obs, "Inner clicks: 1").bid == button.bid
    assert find(obs, "Inner box").states["value"] == "typed"


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1.5


def _assert_same_box(el, box):
    assert box is not None and el.bbox is not None
    got = (el.bbox.x, el.bbox.y, el.bbox.width, el.bbox.height)
    want = (box["x"], box["y"], box["width"], box["height"])
    assert all(_close(a, b) for a, b in zip(got, want, strict=True)), (got, want)


def test_boxes_match_playwright_including_iframes_and_after_scrolling(env, page_url):
    obs = env.reset(page_url("frames.html"))
    page = env.page
    _assert_same_box(find(obs, "Inner button"), page.frame_locator("#same").locator("#inner")
                     .bounding_box())
    _assert_same_box(find(obs, "Inner box"), page.frame_locator("#same").locator("#innerbox")
                     .bounding_box())
    _assert_same_box(find(obs, "Shadow button"), page.locator("#sbtn").bounding_box())
    obs = env.reset(page_url("actions.html"))
    page = env.page
    _assert_same_box(find(obs, "Increment"), page.locator("#inc").bounding_box())
    assert env.step("scroll(0, 500)").ok
    obs = env.observe()
    inc = find(obs, "Increment")
    assert inc.bbox.y < 0  # scrolled above the viewport but still listed
    _assert_same_box(inc, page.locator("#inc").bounding_box())
    _assert_same_box(find(obs, "Newsletter"), page.locator("#news").bounding_box())


def test_som_png_marks_visible_controls_with_their_bids(env, page_url):
    obs = env.reset(page_url("basic.html"))
    assert obs.screenshot[:8] == b"\x89PNG\r\n\x1a\n" and obs.som[:8] == b"\x89PNG\r\n\x1a\n"
    assert obs.som != obs.screenshot
    import io

    from PIL import Image
    shot = Image.open(io.BytesIO(obs.screenshot)).convert("RGB")
    som = Image.open(io.BytesIO(obs.som)).convert("RGB")
    assert shot.size == som.size == (1280, 720)
    send = find(obs, "Send")
    x = int(send.bbox.x) + 1
    y = int(send.bbox.y + send.bbox.height / 2)
    assert som.getpixel((x, y)) != shot.getpixel((x, y))  # the box outline is on the element
    far = (1200, 700)  # an empty corner stays untouched
    assert som.getpixel(far) == shot.getpixel(far)


def test_som_skips_covered_and_offscreen_elements(env, page_url):
    from colorbrowser.browser.observe import som_marks
    obs = env.reset(page_url("covered.html"))
    under = find(obs, "Under the overlay")
    assert under.interactive and not under.visible
    assert under not in som_marks(obs.elements, (1280, 720))
    obs = env.reset(page_url("actions.html"))
    marks = {e.bid for e in som_marks(obs.elements, (1280, 720))}
    assert find(obs, "Increment").bid in marks
    hidden = [e for e in obs.elements.values() if e.interactive and e.bbox and e.bbox.y > 720]
    assert hidden == [] or not marks & {e.bid for e in hidden}


def test_interactive_only_keeps_controls_and_text(env, page_url):
    env.settings.interactive_only = True
    obs = env.reset(page_url("basic.html"))
    tree = obs.axtree
    roles = {line.split("] ", 1)[1].split(" ")[0].rstrip(":")
             for line in tree.splitlines() if line.lstrip().startswith("[")}
    assert not roles & {"list", "row", "table", "banner", "main", "navigation"}
    assert {"link", "heading", "cell", "listitem", "textbox", "button"} <= roles
    for text in ("link 'Home'", "heading 'Welcome'", "cell 'Socks'", "First item",
                 "textbox 'Email'", "Closing words of the page."):
        assert text in tree
    full = observe(env.session, interactive_only=False, screenshots=False)
    assert len(tree.splitlines()) < len(full.axtree.splitlines())
    assert set(obs.elements) == set(full.elements)  # only the text is filtered


def test_offscreen_elements_can_be_left_out(env, page_url):
    obs = env.reset(page_url("actions.html"))
    assert "Bottom of page" in obs.axtree
    near = observe(env.session, offscreen=False, screenshots=False)
    assert "Bottom of page" not in near.axtree
    assert find(near, "Increment")
    env.settings.offscreen = False  # the same through the environment's settings
    try:
        assert "Bottom of page" not in env.observe().axtree
    finally:
        env.settings.offscreen = True


def test_focus_is_reported(env, page_url):
    obs = env.reset(page_url("basic.html"))
    city = find(obs, "City")
    env.page.locator("#city").focus()
    obs = env.observe()
    assert obs.focused == city.bid
    assert line_of(obs, city.bid).endswith("focused value='Lyon'")


def test_dom_hash_and_changes_track_the_page(env, page_url):
    first = env.reset(page_url("page1.html"))
    assert first.changes is None
    same = env.observe()
    assert same.dom_hash == first.dom_hash and same.changes == "no change"
    env.step(f"click('{find(same, 'Go to page two').bid}')")
    other = env.observe()
    assert other.title == "Page two"
    assert other.dom_hash != first.dom_hash
    assert other.changes.startswith("URL changed")


def test_observation_json_and_text(env, page_url):
    obs = env.reset(page_url("basic.html"))
    data = json.loads(json.dumps(obs.to_json()))
    assert data["axtree"] == obs.axtree and "screenshot" not in data
    assert data["elements"][find(obs, "Send").bid]["role"] == "button"
    text = observation_text(obs)
    assert text.startswith(f"URL: {obs.url}\nTitle: Basic page")
    assert obs.axtree in text


def test_big_page_has_every_control_with_a_unique_bid(env):
    html = big_page_html(130)
    with serve_directory(__import__("pathlib").Path("."), {"/big": lambda r: send_html(r, html)}) \
            as base:
        obs = env.reset(f"{base}/big")
    controls = [e for e in obs.elements.values() if e.interactive and e.role != "option"]
    assert len(controls) == 12 + 130 * 4
    assert len(obs.elements) == len({e.bid for e in obs.elements.values()})
    assert env.page.locator("[bid]").count() == len(obs.elements)
    for i in (0, 77, 129):
        assert find(obs, f"Add {i} to cart", "button")
        assert find(obs, f"Quantity {i}", "textbox").states["value"] == str(i % 5)
        assert f"Description of product {i}, with details and a price of ${i}.99" in obs.axtree


def test_control_taller_than_the_viewport_is_visible_and_marked(env):
    from colorbrowser.browser.observe import som_marks
    env.reset()
    env.page.set_content("<button style='height: 2000px; width: 200px'>Tall</button>"
                         "<div style='height: 3000px'></div>")
    env.page.mouse.wheel(0, 900)
    env.page.wait_for_function("scrollY > 0")
    obs = env.observe()
    tall = find(obs, "Tall")
    assert tall.bbox.y < 0 and tall.visible
    assert tall in som_marks(obs.elements, (1280, 720))


def test_browser_env_is_an_environment(env):
    from colorbrowser.protocols import Environment
    assert isinstance(env, Environment)


def test_elements_with_script_listeners_are_interactive_and_say_so(env, page_url):
    obs = env.reset(page_url("listeners.html"))
    lines = {line.strip() for line in obs.axtree.splitlines()}
    icon = env.page.locator("#icon").get_attribute("bid")
    card = env.page.locator("#card").get_attribute("bid")
    # Their role tells the model nothing, so the line marks them clickable.
    assert f"[{icon}] generic clickable hint='icon'" in lines
    assert f"[{card}] generic clickable: Open card" in lines
    assert "link '555-1234' clickable" not in obs.axtree  # a link's role says it already
    assert obs.elements[icon].interactive and obs.elements[card].interactive
    assert "text: Just text" in lines  # no listener: plain text, no bid line
    assert env.page.locator("#plain").get_attribute("bid") is None
    assert find(obs, "555-1234", "link").interactive  # <a> without href but with a listener
    assert "generic: no listener" not in obs.axtree and "no listener" in obs.axtree
    assert env.step(f"click('{icon}')").ok
    assert "paragraph: icon clicked" in env.observe().axtree
    assert env.step(f"click('{card}')").ok
    assert "paragraph: card pressed" in env.observe().axtree


def test_lone_surrogates_in_the_page_become_replacement_characters(env):
    # JavaScript strings may hold lone surrogates; a hostile page uses them to break
    # whatever encodes the observation as UTF-8 (its hash, the run folder).
    env.reset()
    env.page.set_content("<p id=p>x</p><button id=b>y</button><script>"
                         "document.title = 'T\\ud800';"
                         "document.getElementById('p').textContent = 'a\\udc00b';"
                         "document.getElementById('b').setAttribute('aria-label', 'c\\udbff');"
                         "</script>")
    obs = env.observe()
    assert obs.title == "T\ufffd"
    assert "a\ufffdb" in obs.axtree and find(obs, "c\ufffd", "button")
    json.dumps(obs.to_json(), ensure_ascii=False).encode("utf-8")  # strict: no surrogate left
