"""The corpus of ``capture.py``: the scripted person, who acts with real (CDP) mouse and
keyboard input, and the sessions on the local pages (``capture_pages/`` and the tests'
``inputs.html``) with the actions a person reading them would write. The sessions on
the arena's apps are in ``capture_arena.py`` and ``capture_arena_inputs.py``; how a
session is performed, its end state and its replay are in ``capture_run.py``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

PAGES = Path(__file__).parent / "capture_pages"
# One copy of the issue-26 page, shared with the tests (its links are relative).
INPUTS = Path(__file__).parents[1] / "tests" / "pages" / "copilot" / "inputs.html"


# -- the scripted person ---------------------------------------------------------------
class Person:
    """Real (CDP) mouse and keyboard input, with human-like timing and mistakes."""

    def __init__(self, page: Page, base: str, rng: random.Random) -> None:
        self.page, self.base, self.rng = page, base, rng

    def pause(self, low: int = 40, high: int = 160) -> None:
        self.page.wait_for_timeout(self.rng.randint(low, high))

    def type(self, text: str, typos: int = 1) -> None:
        wrong = set(self.rng.sample(range(len(text)), min(typos, len(text)))) if text else set()
        for i, ch in enumerate(text):
            if i in wrong:
                self.page.keyboard.type(self.rng.choice("xqzj"))
                self.pause(80, 350)  # noticed the mistake
                self.page.keyboard.press("Backspace")
            self.page.keyboard.type(ch)
            self.page.wait_for_timeout(self.rng.randint(15, 110))

    def click(self, selector: str, page: Page | None = None) -> None:
        (page or self.page).click(selector)
        self.pause()

    def scroll(self, dy: int, bursts: int) -> None:
        self.page.mouse.move(640, 400)
        for _ in range(bursts):
            self.page.mouse.wheel(0, dy)
            self.page.wait_for_timeout(self.rng.randint(20, 60))
        self.pause(300, 500)

    def hover(self, selector: str) -> None:
        self.page.hover(selector)
        self.page.wait_for_timeout(self.rng.randint(350, 500))


    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
            self.pause()


@dataclass
class Session:
    """One scripted person's turn and the actions a person reading it would write.

    ``start`` is a page of the local server, or a path on the arena app ``app`` (logged
    in as ``user``); ``{base}`` in ``expected`` is that server's address. A session
    that writes to its app (``writes``) starts from a reset app, and so does its replay.
    ``heldout`` marks the sessions labelled before the normaliser ever ran on them."""

    name: str
    kind: str
    act: Callable[[Person], None]
    expected: list[str]
    start: str = "form.html"
    app: str = ""
    user: str = ""
    writes: bool = False
    heldout: bool = False


def local_sessions() -> list[Session]:
    """22 kinds of session, three variants each, and issue 26's ten kinds, two variants
    each; expected actions written by hand."""
    out: list[Session] = []
    names = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]
    emails = ["ada@example.org", "grace@navy.example", "alan@bletchley.example"]
    queries = ["rain jacket", "green tea", "wool socks"]
    sizes = [(1, "Medium"), (2, "Large"), (3, "Huge")]
    notes = ["leave at the door", "ring twice", "gift for mum"]
    cities = ["Paris", "Lagos", "Kyoto"]
    frame = "#frame"

    def add(kind: str, act: Callable[[Person], None], expected: list[str]) -> None:
        out.append(Session(f"{kind}-{sum(s.kind == kind for s in out) + 1}", kind, act,
                           expected))

    for v in range(3):
        name, email, query, (downs, size) = names[v], emails[v], queries[v], sizes[v]
        note, city, bursts = notes[v], cities[v], 3 + 2 * v

        def typed(p, name=name, v=v):
            p.click("#name")
            p.type(name, typos=v + 1)
        add("fill with typos", typed, [f"fill(textbox 'Name', '{name}')"])

        def two(p, name=name, email=email):
            p.click("#name")
            p.type(name, typos=1)
            p.page.keyboard.press("Tab")
            p.type(email, typos=0)
        add("two fields, Tab", two, [f"fill(textbox 'Name', '{name}')",
                                     f"fill(textbox 'Email', '{email}')"])

        def search(p, query=query):
            p.click("#q")
            p.type(query, typos=1)
            p.page.keyboard.press("Enter")
            p.page.wait_for_url("**/done.html*")
        add("search + Enter", search, [f"fill(searchbox 'Search', '{query}')",
                                       "press(searchbox 'Search', 'Enter')"])

        def select(p, downs=downs):
            p.page.focus("#size")
            for _ in range(downs):
                p.page.keyboard.press("ArrowDown")
                p.pause()
        add("select by keys", select, [f"select_option(combobox 'Size', '{size}')"])

        def tick(p, v=v):
            p.page.mouse.move(10 + v * 5, 10)
            p.click("#gift")
        add("checkbox", tick, ["check(checkbox 'Gift wrap')"])

        def tick_untick(p):
            p.click("#news")
            p.pause(200, 400)
            p.click("text=Newsletter")
        add("check, uncheck by label", tick_untick,
            ["check(checkbox 'Newsletter')", "uncheck(checkbox 'Newsletter')"])

        def radio(p):
            p.click("text=Express")
        add("radio", radio, ["check(radio 'Express')"])

        def burst(p, bursts=bursts):
            p.scroll(100, bursts)
        add("scroll burst", burst, [f"scroll(0, {100 * bursts})"])

        def down_up(p, bursts=bursts):
            p.scroll(120, bursts)
            p.scroll(-120, 2)
        add("scroll down, up", down_up, [f"scroll(0, {120 * bursts})", "scroll(0, -240)"])

        def link(p):
            p.click("#next")
            p.page.wait_for_url("**/next.html")
        add("link", link, ["click(link 'Next page')"])

        def double(p):
            p.page.dblclick("#word")
            p.pause()
        add("double click", double, ["dblclick(button 'Pick word')"])

        def menu(p):
            p.hover("#menu")
            p.click("#settings")
            p.page.wait_for_url("**/settings.html")
        add("hover menu", menu, ["hover(button 'Account')", "click(menuitem 'Settings')"])

        def stray(p):
            p.hover("#menu")
            p.page.mouse.move(900, 300)
            p.pause()
            p.click("#gift")
        add("stray hover", stray, ["check(checkbox 'Gift wrap')"])

        def editable(p, note=note):
            p.click("#note")
            p.type(note, typos=1)
        add("contenteditable", editable, [f"fill(textbox 'Comment', '{note}')"])

        def inner_click(p):
            p.page.frame_locator(frame).locator("#inner").click()
            p.pause()
        add("iframe click", inner_click, ["click(button 'Inner button')"])

        def inner_type(p, city=city):
            p.page.frame_locator(frame).locator("#city").click()
            p.type(city, typos=1)
        add("iframe typing", inner_type, [f"fill(textbox 'City', '{city}')"])

        def popup(p):
            with p.page.context.expect_page() as opened:
                p.click("#popup")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
        add("link to new tab", popup, ["click(link 'Open in new tab')"])

        def first_tab_again(p):
            with p.page.context.expect_page() as opened:
                p.click("#popup")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
            p.page.bring_to_front()  # headless: no page hears that it is shown
            p.click("#word")
            p.pause()
        add("back to the first tab", first_tab_again,
            ["click(link 'Open in new tab')", "tab_focus(0)", "click(button 'Pick word')"])

        def blank_tab(p):
            p.page.wait_for_timeout(5200)  # well after anything that could have opened it
            fresh = p.page.context.new_page()
            fresh.goto(p.base + "/next.html")
            fresh.wait_for_timeout(300)
        add("new tab, typed URL", blank_tab, ["new_tab('{base}/next.html')"])

        def typed_url(p):
            p.page.wait_for_timeout(100)
            p.page.goto(p.base + "/next.html")
            p.pause()
        add("typed URL", typed_url, ["goto('{base}/next.html')"])

        def back(p):
            p.click("#next")
            p.page.wait_for_url("**/next.html")
            p.pause(300, 500)
            p.page.go_back()
            p.pause(200, 300)
        add("back button", back, ["click(link 'Next page')", "go_back()"])

        def password(p, v=v):
            p.click("#pw")
            p.type(f"hunter{v}2{v}", typos=1)
            p.click("#name")
        add("password", password, ["fill(textbox 'Password', '********')",
                                   "click(textbox 'Name')"])
    out.extend(inputs_sessions())
    return out


def inputs_sessions() -> list[Session]:
    """Issue 26's kinds on ``inputs.html``, two variants each: keys that change a value
    in place, focus noise, navigations the person made soon after an action, a middle
    click, a portal menu and a hover before a neighbour's click."""
    out: list[Session] = []

    def add(kind: str, act: Callable[[Person], None], expected: list[str]) -> None:
        out.append(Session(f"{kind}-{sum(s.kind == kind for s in out) + 1}", kind, act,
                           expected, start="inputs.html"))

    for v in range(2):
        line, town = ("two lines", "Par") if v == 0 else ("ok then", "Lag")

        def textarea(p, line=line, v=v):
            p.click("#msg")
            p.type(line, typos=1)
            p.page.keyboard.press("Enter" if v == 0 else "Shift+Enter")
            p.type("end", typos=0)
        add("textarea new line", textarea, [f"fill(textbox 'Message', '{line}\\nend')"])

        def radio_keys(p, v=v):
            p.click("#std")
            for _ in range(v + 1):
                p.page.keyboard.press("ArrowDown")
                p.pause()
        add("radio by arrow keys", radio_keys,
            [f"check(radio '{('Express', 'Overnight')[v]}')"])

        def number_keys(p, v=v):
            p.click("#qty")
            for _ in range(v + 2):
                p.page.keyboard.press("ArrowUp")
                p.pause()
        add("number by arrow keys", number_keys, [f"fill(spinbutton 'Quantity', '{v + 3}')"])

        def retype_word(p):
            p.page.locator("#title").dblclick(position={"x": 12, "y": 8})
            p.pause()
            p.type("Final", typos=0)
        add("double click a word, retype", retype_word, ["fill(textbox 'Title', 'Final title')"])

        def suggestion(p, town=town):
            p.click("#town")
            p.type(town, typos=0)
            p.page.keyboard.press("ArrowDown")
            p.pause()
            p.page.keyboard.press("Enter")
            p.pause()
            p.click("#ok")
        add("suggestion picked by keys", suggestion,
            [f"fill(combobox 'Town', '{town}')", "press(combobox 'Town', 'ArrowDown')",
             "press(combobox 'Town', 'Enter')", "click(button 'OK')"])

        def reload_after(p):
            p.click("#title")
            p.page.keyboard.press("End")
            p.type("!", typos=0)
            p.page.reload()
            p.pause()
        add("reload soon after typing", reload_after,
            ["fill(textbox 'Title', 'Draft title!')", "goto('{base}/inputs.html')"])

        def tab_after(p):
            p.click("#agree")
            fresh = p.page.context.new_page()
            fresh.goto(p.base + "/next.html")
            fresh.wait_for_timeout(300)
        add("new tab soon after a tick", tab_after,
            ["check(checkbox 'I agree')", "new_tab('{base}/next.html')"])

        def middle(p):
            with p.page.context.expect_page() as opened:
                p.page.click("#next", button="middle")
            opened.value.wait_for_load_state()
            p.pause(200, 300)
        add("middle click on a link", middle, ["click(link 'Next page', 'middle')"])

        def portal(p):
            p.hover("#more")
            p.click("#archive")
        add("portal menu by hover", portal, ["hover(button 'More')", "click(menuitem 'Archive')"])

        def neighbour(p):
            p.hover("#more")
            p.click("#help")
        add("hover, then a neighbour", neighbour, ["click(button 'Help')"])
    return out

