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


def streamed(pause: float):
    """A route that sends the first half of the markup at once and, ``pause`` seconds
    later, the script that renders the page."""
    def send(req) -> None:
        req.send_response(200)
        req.send_header("Content-Type", "text/html; charset=utf-8")
        req.end_headers()
        req.wfile.write(HEAD.encode() + b" " * 2048)
        req.wfile.flush()
        time.sleep(pause)
        req.wfile.write(TAIL.encode())
    return send


def test_a_page_still_being_parsed_is_observed_once_parsed(env, tmp_path):
    with serve_directory(tmp_path, routes={"/half.html": streamed(1.0)}) as url:
        env.page.goto(f"{url}/half.html", wait_until="commit")
        obs = env.observe()
        assert find(obs, "Late button", "button")
        assert obs.title == "Rendered"


def test_a_stream_that_stalls_is_read_as_far_as_it_got(env, tmp_path):
    with serve_directory(tmp_path, routes={"/stall.html": streamed(6.0)}) as url:  # > PARSE_WAIT_MS
        env.page.goto(f"{url}/stall.html", wait_until="commit")
        obs = env.observe()
        assert find(obs, "Early heading")
        assert not [e for e in obs.elements.values() if e.name == "Late button"]
        env.page.goto("about:blank")
