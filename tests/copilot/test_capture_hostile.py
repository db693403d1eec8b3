"""Capture on a page that attacks it, in real Chromium: the page's own scripts may
replace globals and call Playwright's binding, but cannot read the session's nonce off
a record, re-time the person's input, or post a person's visit to a ``file:`` address
or another site (records it forges stay on its own origin)."""

from __future__ import annotations

import time

from colorbrowser.copilot.normalize import normalise

HOSTILE = "http://hostile.test/"

STEAL_BY_SETTER = """
window.stolen = [];
Object.defineProperty(Object.prototype, 'nonce', {
  set(v) { window.stolen.push(v); }, configurable: true });
"""

# Playwright's binding serialises its argument with the page's JSON.stringify.
STEAL_BY_JSON = """
window.stolen = [];
const real = JSON.stringify;
JSON.stringify = function (value, ...rest) {
  const text = real.call(JSON, value, ...rest);
  const found = /([0-9a-f]{32})/.exec(text);
  if (found) window.stolen.push(found[1]);
  return text;
};
window.forge = (url) => window.__playwright__binding__controller__.callBinding(
  '__colorbrowserCapture', { kind: 'doc', nav: 'navigate', url, top: true, seq: 7,
                             t: Date.now(), nonce: window.stolen[window.stolen.length - 1] });
"""

FROZEN_CLOCK = "Date.now = () => 1000;"


def hostile(watched, script: str) -> None:
    body = f"<html><body><button id=b>Go</button><script>{script}</script></body></html>"
    watched.page.route(HOSTILE + "**", lambda route: route.fulfill(
        status=200, content_type="text/html", body=body))
    watched.page.goto(HOSTILE)
    watched.page.wait_for_timeout(100)
    watched.mark()


def test_a_setter_on_object_prototype_does_not_get_the_nonce(watched):
    hostile(watched, STEAL_BY_SETTER)
    watched.page.click("#b")
    assert watched.texts() == ["click(button 'Go')"]
    assert watched.page.evaluate("window.stolen") == []


def test_a_page_that_learns_the_nonce_cannot_post_a_visit_off_its_origin(watched):
    hostile(watched, STEAL_BY_JSON)
    watched.page.click("#b")
    watched.page.wait_for_timeout(200)
    assert watched.page.evaluate("window.stolen")  # the nonce is not secret from it
    dropped = watched.capture.dropped
    for url in ("file:///etc/passwd", "http://evil.example/", "chrome://settings/"):
        watched.page.evaluate("(url) => window.forge(url)", url)
    texts = watched.texts()
    assert texts == ["click(button 'Go')"]
    assert watched.capture.dropped == dropped + 3


def test_a_page_that_replaces_the_clock_does_not_retime_the_input(watched):
    hostile(watched, FROZEN_CLOCK)
    before = time.time() * 1000
    watched.page.click("#b")
    done = watched.actions()
    assert [a.label() for a in done.actions] == ["click(button 'Go')"]
    clicks = [e for e in watched.capture.all() if e.kind == "click"]
    assert clicks and clicks[-1].t >= before - 1000
    assert normalise(watched.capture.all(), keep=lambda e: e.t >= before - 1000).actions
