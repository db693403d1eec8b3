"""Before a click or key press runs: would it make the page change something on a
server (a request with a method other than GET)?

Three looks, cheapest first:

1. the form it would submit, and that form's method;
2. the event handlers that would run (on the element, its ancestors, the document
   and the window: delegation included), read through DevTools: a handler whose
   code sends a POST, PUT, PATCH or DELETE with fetch, XMLHttpRequest, a beacon or a
   form submission;
3. a spy in every page (an init script wrapping fetch, XMLHttpRequest and form
   submission) that remembers which elements led to such a request once before, for
   handlers that hide the request behind other functions.

A hostile page can defeat a look by hiding its code; the checks can only add
caution, never remove a rule's ``always``.
"""

from __future__ import annotations

import contextlib
import re
import secrets

from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

from colorbrowser.types import ElementInfo

_READ_MS = 1000
_BID = re.compile(r"^[\w-]{1,40}$")
ACTIVATING = {"click", "mousedown", "mouseup", "pointerdown", "pointerup", "keydown",
              "keyup", "keypress", "submit", "dblclick"}
_WRITES = re.compile(
    r"""method\s*[:=]\s*['"`](?:post|put|patch|delete)['"`]"""
    r"""|\.open\s*\(\s*['"`](?:post|put|patch|delete)['"`]"""
    r"""|sendBeacon\s*\(|\.submit\s*\(|requestSubmit\s*\("""
    r"""|\$\.(?:post|ajax)\s*\(|axios\.(?:post|put|patch|delete)\s*\(""", re.I)

# Whether activating this element submits a form, and with which method.
_SUBMITS = """(el, key) => {
  const form = el.form || el.closest('form');
  if (!form) return null;
  const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
  const button = (tag === 'button' && type !== 'button' && type !== 'reset')
    || (tag === 'input' && (type === 'submit' || type === 'image'));
  const enter = key === 'Enter' && tag === 'input'
    && !['button', 'checkbox', 'radio', 'reset', 'file'].includes(type);
  if (!button && !enter) return null;
  return ((button && el.getAttribute('formmethod')) || form.getAttribute('method')
    || 'get').toLowerCase();
}"""

_SPY = """(() => {
  const KEY = '__KEY__';
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const sent = new WeakSet();
  let last = null, lastAt = 0;
  const mark = (e) => {
    last = e.composedPath ? e.composedPath()[0] : e.target;
    lastAt = Date.now();
  };
  for (const t of ['pointerdown', 'keydown', 'click']) addEventListener(t, mark, true);
  const note = (method) => {
    if (/^(get|head|options)?$/i.test(String(method || '')) || !last) return;
    if (Date.now() - lastAt > 3000) return;
    for (let el = last, n = 0; el && el.nodeType === 1 && n < 4; el = el.parentElement, n++) {
      sent.add(el);
      if (el.hasAttribute('bid') && n > 0) break;
    }
  };
  const fetch0 = window.fetch;
  if (fetch0) window.fetch = function (input, init) {
    try { note((init && init.method) || (input && input.method) || 'GET'); } catch (e) {}
    return fetch0.apply(this, arguments);
  };
  const open0 = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method) {
    try { note(method); } catch (e) {}
    return open0.apply(this, arguments);
  };
  const submit0 = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function () {
    try { note(this.method); } catch (e) {}
    return submit0.apply(this, arguments);
  };
  addEventListener('submit', (e) => { try { note(e.target.method); } catch (x) {} }, true);
  Object.defineProperty(window, KEY, { value: (el) => sent.has(el), enumerable: false });
})()"""

# DevTools' console helper getEventListeners (only with includeCommandLineAPI): every
# listener that activating the element would run, with its code.
_LISTENERS = """(() => {
  const el = document.querySelector('[bid="__BID__"]');
  if (!el) return [];
  const out = [];
  const targets = [];
  for (let a = el; a; a = a.parentElement) targets.push(a);
  targets.push(document, window);
  for (const t of targets) {
    const found = getEventListeners(t);
    for (const type of Object.keys(found)) {
      for (const l of found[type]) out.push([type, String(l.listener).slice(0, 20000)]);
    }
  }
  return out;
})()"""


class Preflight:
    """The three looks for one browser context (install before its pages load)."""

    def __init__(self) -> None:
        self.key = "__cb_spy_" + secrets.token_hex(6)

    def install(self, context: BrowserContext) -> Preflight:
        context.add_init_script(script=_SPY.replace("__KEY__", self.key))
        return self

    def check(self, page: Page, element: ElementInfo, key: str = "") -> str | None:
        """Why activating ``element`` (with ``key``: a key press) writes, or None."""
        if not _BID.match(element.bid):
            return None
        scope = page.main_frame
        for frame_bid in element.frame:
            with contextlib.suppress(PlaywrightError):
                handle = scope.locator(f"[bid='{frame_bid}']").first.element_handle(
                    timeout=_READ_MS)
                scope = handle.content_frame() if handle else None
            if scope is None:
                return None
        locator = scope.locator(f"[bid='{element.bid}']").first
        try:
            method = locator.evaluate(_SUBMITS, key, timeout=_READ_MS)
            if method and method != "get":
                return f"it would submit a form with {method.upper()}"
            if locator.evaluate(f"(el) => !!(window['{self.key}'] && window['{self.key}'](el))",
                                timeout=_READ_MS):
                return "it sent a request that changes data when used before"
        except PlaywrightError:
            return None
        if not element.frame:  # DevTools reads listeners of the top document here
            return self._listeners(page, element.bid)
        return None

    @staticmethod
    def _listeners(page: Page, bid: str) -> str | None:
        try:
            cdp = page.context.new_cdp_session(page)
        except PlaywrightError:
            return None
        try:
            found = cdp.send("Runtime.evaluate", {
                "expression": _LISTENERS.replace("__BID__", bid),
                "includeCommandLineAPI": True, "returnByValue": True, "timeout": _READ_MS})
            listeners = found.get("result", {}).get("value") or []
            for kind, code in listeners:
                if kind in ACTIVATING and _WRITES.search(str(code)):
                    return f"a {kind} handler sends a request that changes data"
            return None
        except (PlaywrightError, ValueError, TypeError):
            return None
        finally:
            with contextlib.suppress(PlaywrightError):
                cdp.detach()
