"""Drive BrowserGym's observation functions for benchmarks/observation.py.

Runs in the reference venv (browsergym-core over the same Playwright version), in
its own process and browser, because both projects write a ``bid`` attribute on the
page. Protocol: one JSON command per stdin line, JSON replies on stdout.

    {"cmd": "launch", "launch": {...}, "viewport": [w, h]}  -> {"ok": true}
    {"cmd": "open", "setup": [[op, ...], ...]}  -> {"first": ms}   (load, first observation)
    {"cmd": "observe"}                          -> {"ms": ms, "parts": {step: ms}}
    {"cmd": "close"}  -> the last observation's text, bid paths, visible and clickable bids
    {"cmd": "quit"}

What one timed observation is (the work BrowserGym's env does in ``_get_obs``, plus
the text and Set-of-Marks image an agent builds from it): mark elements, DOM
snapshot, merged AX tree of all frames, focused element, extra properties, unmark,
screenshot, ``flatten_axtree_to_str`` with its defaults, ``overlay_som``. Left out:
the 0.5 s pre-observation sleep, ``slow_mo`` and the chat window, which are not part
of observing; the SoM image is left as the numpy array BrowserGym returns (no PNG
encoding, which our side does pay).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from browsergym.core.observation import (
    _post_extract,
    _pre_extract,
    extract_dom_extra_properties,
    extract_dom_snapshot,
    extract_focused_element_bid,
    extract_merged_axtree,
    extract_screenshot,
)
from browsergym.utils.obs import flatten_axtree_to_str, overlay_som
from playwright.sync_api import sync_playwright

from bench_shared import bid_paths, run_setup


def observe(page: Any) -> tuple[str, dict[str, Any], dict[str, float]]:
    parts: dict[str, float] = {}
    t = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal t
        now = time.perf_counter()
        parts[name] = parts.get(name, 0.0) + (now - t) * 1000
        t = now

    _pre_extract(page, tags_to_mark="standard_html", lenient=False)
    lap("mark")
    dom = extract_dom_snapshot(page)
    lap("dom snapshot")
    axtree = extract_merged_axtree(page)
    lap("ax tree")
    extract_focused_element_bid(page)
    extra = extract_dom_extra_properties(dom, scale_factor=1.0)
    _post_extract(page)
    lap("mark")
    screenshot = extract_screenshot(page)
    lap("screenshot")
    text = flatten_axtree_to_str(axtree, extra_properties=extra)
    lap("flatten")
    overlay_som(screenshot, extra)
    lap("som")
    return text, extra, parts


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    pw = sync_playwright().start()
    browser = context = page = None
    last: tuple[str, dict[str, Any]] = ("", {})
    try:
        for line in sys.stdin:
            cmd = json.loads(line)
            if cmd["cmd"] == "launch":
                browser = pw.chromium.launch(**cmd["launch"])
                w, h = cmd["viewport"]
                context = browser.new_context(viewport={"width": w, "height": h})
                send({"ok": True})
            elif cmd["cmd"] == "open":
                assert context is not None, "launch first"
                page = context.new_page()
                run_setup(page, cmd["setup"])
                started = time.perf_counter()
                text, extra, _ = observe(page)  # the first call also gives out the bids
                last = (text, extra)
                send({"first": (time.perf_counter() - started) * 1000})
            elif cmd["cmd"] == "observe":
                assert page is not None, "open a page first"
                started = time.perf_counter()
                text, extra, parts = observe(page)
                elapsed = (time.perf_counter() - started) * 1000
                last = (text, extra)
                send({"ms": elapsed, "parts": parts})
            elif cmd["cmd"] == "close":
                assert page is not None, "open a page first"
                text, extra = last
                send({"text": text, "paths": bid_paths(page),
                      "visible": sorted(b for b, p in extra.items()
                                        if (p["visibility"] or 0) >= 0.5),
                      "clickable": sorted(b for b, p in extra.items() if p["clickable"])})
                page.close()
                page = None
            elif cmd["cmd"] == "quit":
                break
    finally:
        if browser is not None:
            browser.close()
        pw.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
