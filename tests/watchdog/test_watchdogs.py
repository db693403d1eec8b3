"""Each watchdog notices its failure on a real Chromium and recovers, telling the Operator."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import psutil
import pytest

from colorbrowser.browser.env import BrowserEnv
from colorbrowser.config import BrowserSettings
from colorbrowser.static_server import StaticServer, hang, send_html

PAGES = Path(__file__).resolve().parents[1] / "pages"


def settings(**kw) -> BrowserSettings:
    base = dict(action_timeout_ms=1000, navigation_timeout_ms=1500, hang_timeout_ms=2500,
                network_retries=2)
    return BrowserSettings(**{**base, **kw})


@pytest.fixture(scope="module")
def site():
    routes = {"/hang": hang, "/ok": lambda r: send_html(r, "<title>OK</title><p>fine</p>")}
    with StaticServer(PAGES, token="", routes=routes) as server:
        yield server.url


@pytest.fixture
def env():
    with BrowserEnv(settings()) as env:
        yield env


def bid(obs, name: str) -> str:
    for el in obs.elements.values():
        if el.name == name:
            return el.bid
    raise AssertionError(f"{name!r} not in the observation")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_script_that_never_returns_is_cut_off_and_the_tab_reloaded(env, site):
    obs = env.reset(f"{site}/watchdog/busy.html")
    start = time.monotonic()
    result = env.step(f"click('{bid(obs, 'Freeze')}')")
    assert time.monotonic() - start < 15
    assert not result.ok and "hung for more than 2.5 s" in result.error
    obs = env.observe()
    assert obs.url.endswith("/watchdog/busy.html") and "Clicks: 0" in obs.axtree
    assert "reopened at" in (obs.last_error or "")
    assert env.step(f"click('{bid(obs, 'Count')}')").ok  # the page works again


def test_a_server_that_never_answers_does_not_hang_the_step(env, site):
    env.reset(f"{site}/ok")
    start = time.monotonic()
    result = env.step(f"goto('{site}/hang')")
    assert time.monotonic() - start < 10
    assert not result.ok and "did not load within 1.5 s" in result.error
    obs = env.observe()  # the browser still answers
    assert obs.url.startswith("http://127.0.0.1")


def test_a_crashed_tab_comes_back_at_its_url(env, site):
    env.reset(f"{site}/watchdog/busy.html")
    renderer_pids = [p.pid for p in psutil.Process(env.session.browser_pid).children(True)
                     if "--type=renderer" in p.cmdline()]
    for pid in renderer_pids:
        psutil.Process(pid).kill()
    time.sleep(0.3)
    obs = env.observe()
    assert obs.url.endswith("/watchdog/busy.html") and "Freeze" in obs.axtree
    assert "crashed" in obs.last_error and "reopened" in obs.last_error


def test_a_closed_tab_is_replaced_and_the_operator_told(env, site):
    env.reset(f"{site}/ok")
    env.step(f"new_tab('{site}/watchdog/busy.html')")
    env.page.close()
    obs = env.observe()
    assert obs.url.endswith("/ok") and "closed" in obs.last_error


def test_a_network_error_page_is_retried_and_recovers_when_the_site_returns(env, site):
    port = free_port()
    target = f"http://127.0.0.1:{port}/ok"
    env.reset(f"{site}/ok")
    assert not env.step(f"goto('{target}')").ok  # connection refused
    server = StaticServer(PAGES, token="", port=port,
                          routes={"/ok": lambda r: send_html(r, "<p>back</p>")})
    # The site comes back while the watchdog is between its retries.
    t = threading.Timer(0.2, server.start)
    t.start()
    try:
        obs = env.observe()
    finally:
        t.join()
        server.stop()
    assert obs.url == target and "back" in obs.axtree
    assert "loaded on retry" in obs.last_error


def test_a_site_that_stays_down_sends_the_agent_back_to_the_last_good_page(env, site):
    env.reset(f"{site}/ok")
    env.step(f"goto('http://127.0.0.1:{free_port()}/gone')")
    obs = env.observe()
    assert obs.url == f"{site}/ok"
    assert "could not be reached" in obs.last_error and "went back to" in obs.last_error


def test_actions_that_change_nothing_lead_to_a_reload(site):
    with BrowserEnv(settings(stall_steps=3)) as env:
        obs = env.reset(f"{site}/watchdog/busy.html")
        env.page.evaluate("document.title = 'changed in memory only'")
        notes = []
        for _ in range(5):  # the first click focuses the button: that is a change
            assert env.step(f"click('{bid(obs, 'Does nothing')}')").ok
            obs = env.observe()
            notes.append(obs.last_error or "")
        reloads = [i for i, n in enumerate(notes) if "nothing changed for 3 actions" in n]
        assert reloads == [3], notes  # after clicks 2, 3 and 4 changed nothing
        assert "the page was reloaded" in notes[3]


def test_a_stalled_page_that_answers_a_form_post_is_not_reloaded():
    """Reloading the answer to a post sends the post again: a second order, comment..."""
    posts = []

    def save(req):
        posts.append(req.rfile.read(int(req.headers.get("Content-Length") or 0)))
        send_html(req, "<title>Saved</title><p>Saved</p><button>Does nothing</button>")

    form = "<title>Form</title><form method='post' action='/save'><input name='t' value='x'>" \
           "<button>Save</button></form>"
    routes = {"/form": lambda r: send_html(r, form), "/save": save}
    with StaticServer(PAGES, token="", routes=routes) as server, \
            BrowserEnv(settings(stall_steps=2)) as env:
        obs = env.reset(f"{server.url}/form")
        assert env.step(f"click('{bid(obs, 'Save')}')").ok
        notes = []
        for _ in range(4):
            obs = env.observe()
            notes.append(obs.last_error or "")
            assert env.step(f"click('{bid(obs, 'Does nothing')}')").ok
    assert len(posts) == 1, notes
    assert any("so it was not reloaded" in n for n in notes), notes


def test_a_dead_browser_is_restarted_with_tabs_cookies_and_storage(site):
    with BrowserEnv(settings()) as env:
        env.reset(f"{site}/watchdog/store.html")
        env.step(f"new_tab('{site}/ok')")
        psutil.Process(env.session.browser_pid).kill()
        time.sleep(0.5)
        obs = env.observe()
        assert "restarted" in obs.last_error and "2 tab(s)" in obs.last_error
        assert [t.url for t in obs.tabs] == [f"{site}/watchdog/store.html", f"{site}/ok"]
        assert obs.url == f"{site}/ok"
        env.step("tab_focus(0)")
        cookie = env.page.evaluate("document.cookie")
        assert "session=abc123" in cookie
        assert env.page.evaluate("localStorage.getItem('cart')") == "socks"


def test_snapshot_and_restore_move_a_browser_into_a_new_process(site):
    with BrowserEnv(settings()) as first:
        first.reset(f"{site}/watchdog/store.html")
        first.step(f"new_tab('{site}/ok')")
        snap = first.snapshot()
    with BrowserEnv(settings()) as second:
        obs = second.restore(snap)
        assert [t.url for t in obs.tabs] == [f"{site}/watchdog/store.html", f"{site}/ok"]
        second.step("tab_focus(0)")
        assert second.page.evaluate("localStorage.getItem('cart')") == "socks"
