"""A page caught while its HTML is still being parsed is read once parsing is done: an
observation of half a document would be a page state that does not exist (an explorer
counted such half-read pages as new states)."""

from __future__ import annotations

import time

from colorbrowser.testing import serve_directory

from .browser_helpers import find

HEAD = ("<!doctype html><title>Loading</title><h1>Early heading</h1>"
        "<main id='main'></main>")
TAIL = ("<script>document.title = 'Rendered';"
        "document.getElementById('main').innerHTML = '<button>Late button</button>';"
        "</script>")


def half_then_rest(req) -> None:
    """The first half of the markup at once, the script that renders the page later."""
    req.send_response(200)
    req.send_header("Content-Type", "text/html; charset=utf-8")
    req.end_headers()
    req.wfile.write(HEAD.encode() + b" " * 2048)
    req.wfile.flush()
    time.sleep(1.0)
    req.wfile.write(TAIL.encode())


def test_a_page_still_being_parsed_is_observed_once_parsed(env, tmp_path):
    with serve_directory(tmp_path, routes={"/half.html": half_then_rest}) as url:
        env.page.goto(f"{url}/half.html", wait_until="commit")
        obs = env.observe()
        assert find(obs, "Late button", "button")
        assert obs.title == "Rendered"


def stalls(req) -> None:
    """The first half at once, the rest long after any wait would give up."""
    req.send_response(200)
    req.send_header("Content-Type", "text/html; charset=utf-8")
    req.end_headers()
    req.wfile.write(HEAD.encode() + b" " * 2048)
    req.wfile.flush()
    time.sleep(6.0)
    req.wfile.write(TAIL.encode())


def test_a_stream_that_stalls_is_read_as_far_as_it_got(env, tmp_path):
    with serve_directory(tmp_path, routes={"/stall.html": stalls}) as url:
        env.page.goto(f"{url}/stall.html", wait_until="commit")
        obs = env.observe()
        assert find(obs, "Early heading")
        assert not [e for e in obs.elements.values() if e.name == "Late button"]
        env.page.goto("about:blank")
