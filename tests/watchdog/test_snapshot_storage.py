"""The browser snapshot taken after every action (what a dead browser or a resumed run
comes back to) holds the local storage of every origin the session used: the origins
the tabs show are read again, the others are kept as last read, and a storage a page
cleared is not brought back."""

from __future__ import annotations

from pathlib import Path

import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import StaticServer, send_html

PAGES = Path(__file__).resolve().parents[1] / "pages"


def page(request, title: str) -> None:
    send_html(request, f"<title>{title}</title><p>{title}</p>")


@pytest.fixture(scope="module")
def sites():
    with StaticServer(PAGES, token="", routes={"/a": lambda r: page(r, "A")}) as first, \
            StaticServer(PAGES, token="", routes={"/b": lambda r: page(r, "B")}) as second:
        yield first.url, second.url


def origins(snapshot: dict) -> dict[str, dict[str, str]]:
    return {o["origin"]: {i["name"]: i["value"] for i in o["localStorage"]}
            for o in snapshot["storage"]["origins"]}


def test_storage_of_an_origin_no_tab_shows_is_kept_and_restored(sites):
    a, b = sites
    with BrowserEnv(BrowserSettings()) as env:
        env.reset(f"{a}/a")
        env.page.evaluate("localStorage.setItem('cart', 'socks')")
        assert env.step(f"goto('{b}/b')").ok
        env.page.evaluate("localStorage.setItem('lang', 'fr')")
        assert env.step(f"goto('{a}/a')").ok  # b's storage is no tab's now
        snap = env.snapshot()
        assert origins(snap) == {a: {"cart": "socks"}, b: {"lang": "fr"}}
    with BrowserEnv(BrowserSettings()) as second:
        second.restore(snap)
        assert second.page.evaluate("localStorage.getItem('cart')") == "socks"
        assert second.step(f"goto('{b}/b')").ok
        assert second.page.evaluate("localStorage.getItem('lang')") == "fr"


def test_a_storage_the_page_cleared_is_not_brought_back(sites):
    a, _ = sites
    with BrowserEnv(BrowserSettings()) as env:
        env.reset(f"{a}/a")
        env.page.evaluate("localStorage.setItem('cart', 'socks')")
        assert env.step("scroll(0, 10)").ok
        assert origins(env.snapshot()) == {a: {"cart": "socks"}}
        env.page.evaluate("localStorage.clear()")
        assert env.step("scroll(0, 0)").ok
        assert origins(env.snapshot()) == {}


def test_the_snapshot_carries_the_cookies_the_action_left(sites):
    a, _ = sites
    with BrowserEnv(BrowserSettings()) as env:
        env.reset(f"{a}/a")
        env.page.evaluate("document.cookie = 'session=abc123; path=/'")
        step = env.step("scroll(0, 10)")
        assert step.ok
        cookies = {c["name"]: c["value"] for c in env.snapshot()["storage"]["cookies"]}
        assert cookies == {"session": "abc123"}
