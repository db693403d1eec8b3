// Page changes for the arena (pagechanges.py): rules over the DOM that break blind
// replay. Injected at the end of a page's HTML, so it runs before DOMContentLoaded (and
// again when the page's own scripts add elements, until each change found its target):
// the page the agent first observes is already changed. CONFIG = {seed, changes:
// [{kind, names: [{text, exact, ends}], nth}]}. Deterministic: the same seed and page give the
// same change. Decoys carry data-arena-wrong; acting on one is reported to WRONG.
(function (CONFIG) {
  "use strict";
  var WRONG = "/__arena_changed__/wrong";
  var squash = function (s) { return (s || "").replace(/\s+/g, " ").trim(); };

  function hash(text) {  // FNV-1a, 32 bits
    var h = 2166136261;
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function rng(seed) {  // mulberry32
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  var random = rng(hash(String(CONFIG.seed) + location.pathname));
  var pick = function (list) { return list[Math.floor(random() * list.length)]; };

  var CONTROLS = "a[href], button, input, select, textarea, [role=button], [role=link], " +
                 "[role=menuitem], [role=tab]";
  function labelOf(el) {
    if (el.id) {
      var label = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
      if (label) return label;
    }
    return el.closest("label");
  }
  function nameOf(el) {
    if (el.getAttribute("aria-label")) return squash(el.getAttribute("aria-label"));
    var tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    if (tag === "input" && ["submit", "button", "reset"].indexOf(type) >= 0) {
      return squash(el.value);
    }
    if (["input", "select", "textarea"].indexOf(tag) >= 0) {
      var label = labelOf(el);
      return squash(label ? label.textContent : el.getAttribute("title") ||
                    el.getAttribute("placeholder") || "");
    }
    return squash(el.textContent);
  }
  function wanted(el, names) {
    var name = nameOf(el).toLowerCase();
    if (!name) return false;
    if (!names || !names.length) return true;
    return names.some(function (n) {
      var text = squash(n.text).toLowerCase();
      if (n.exact) return name === text;
      if (n.ends) return text !== "" && name.slice(-text.length) === text;
      return text !== "" && name.indexOf(text) >= 0;
    });
  }
  function targets(names) {
    return Array.prototype.filter.call(document.querySelectorAll(CONTROLS), function (el) {
      return !el.closest("[data-arena-wrong]") && !el.closest("[data-arena-changed]") &&
             el.getAttribute("type") !== "hidden" && wanted(el, names);
    });
  }

  // -- renaming: a word replaced by a synonym, else the label decorated --------------------
  var SYNONYMS = {
    submit: "Save", save: "Store", create: "Add", "new": "Add", add: "Insert",
    search: "Find", find: "Look up", view: "Show", open: "Show", modify: "Edit",
    edit: "Change", "delete": "Remove", remove: "Drop", login: "Sign in", log: "Sign",
    priority: "Urgency", summary: "Title", ticket: "Issue", issue: "Ticket",
    comment: "Note", reply: "Respond", post: "Publish", cart: "Basket", basket: "Cart",
    status: "State", keywords: "Tags", description: "Details", roadmap: "Plan",
    milestone: "Target", wiki: "Docs", changes: "edits", history: "Revisions",
    preview: "Check", update: "Refresh", checkout: "Pay", category: "Section"
  };
  function renamed(text) {
    var words = text.split(/(\W+)/);
    for (var i = 0; i < words.length; i++) {
      var key = words[i].toLowerCase();
      if (Object.prototype.hasOwnProperty.call(SYNONYMS, key)) {
        var word = SYNONYMS[key];
        if (words[i][0] === words[i][0].toLowerCase()) word = word.toLowerCase();
        words[i] = word;
        return words.join("");
      }
    }
    return pick(["", "Go: "]) + text + pick([" \u203a", " (new)"]);
  }
  function renameText(node) {  // the longest text node keeps the element's other children
    var best = null;
    var walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      if (!best || squash(walker.currentNode.data).length > squash(best.data).length) {
        best = walker.currentNode;
      }
    }
    if (best && squash(best.data)) best.data = renamed(squash(best.data));
  }
  function rename(el) {
    var tag = el.tagName.toLowerCase(), type = (el.getAttribute("type") || "").toLowerCase();
    if (el.getAttribute("aria-label")) el.setAttribute("aria-label", renamed(nameOf(el)));
    else if (tag === "input" && ["submit", "button", "reset"].indexOf(type) >= 0) {
      el.value = renamed(squash(el.value));
      el.setAttribute("value", el.value);
    } else if (["input", "select", "textarea"].indexOf(tag) >= 0) {
      var label = labelOf(el);
      if (label) renameText(label);
      else if (el.getAttribute("title")) el.setAttribute("title", renamed(el.getAttribute("title")));
    } else renameText(el);
    el.setAttribute("data-arena-changed", "rename");
  }

  // -- swapping: the target's row or menu item trades places with a sibling --------------
  function swap(el) {
    var row = el.closest("tr, li, option") || el;
    var siblings = Array.prototype.filter.call(row.parentNode.children, function (s) {
      return s !== row && s.tagName === row.tagName;
    });
    if (!siblings.length) return false;
    var other = pick(siblings);
    var mark = document.createComment("swap");
    row.parentNode.replaceChild(mark, row);
    other.parentNode.replaceChild(row, other);
    mark.parentNode.replaceChild(other, mark);
    row.setAttribute("data-arena-changed", "swap");
    other.setAttribute("data-arena-changed", "swap");
    return true;
  }

  // -- an extra element before the target: a decoy of the same role and name in a box of
  // its own (another heading), placed where it comes first on the page --------------------
  var counter = 0;
  function decoyOf(el) {
    var copy = el.cloneNode(true);
    var name = nameOf(el);
    [copy].concat(Array.prototype.slice.call(copy.querySelectorAll("*"))).forEach(function (n) {
      n.removeAttribute("id");
      n.removeAttribute("name");
      n.removeAttribute("form");
      n.removeAttribute("for");
    });
    var tag = copy.tagName.toLowerCase();
    if (tag === "a") copy.setAttribute("href", WRONG + "?via=nav");
    if (tag === "button" || (tag === "input" && /submit|reset|image/i.test(copy.type))) {
      copy.setAttribute("type", "button");
    }
    if (["input", "select", "textarea"].indexOf(tag) >= 0 && !copy.getAttribute("aria-label")) {
      copy.setAttribute("aria-label", name);
    }
    copy.setAttribute("data-arena-wrong", String(++counter));
    return copy;
  }
  function extra(el) {
    var box = document.createElement("div");
    box.setAttribute("data-arena-changed", "extra");
    var heading = document.createElement("h4");
    heading.textContent = pick(["Recently viewed", "Sponsored", "You may also like"]);
    box.appendChild(heading);
    box.appendChild(decoyOf(el));
    // Before the target's list, table or heading: a box cannot sit inside a <tr>, <ul>
    // or <h3>.
    var anchor = el.closest("table, ul, ol, dl, select, h1, h2, h3, h4, h5, h6") || el;
    if (anchor.tagName.toLowerCase() === "select") anchor = anchor.closest("table") || anchor;
    anchor.parentNode.insertBefore(box, anchor);
    // Where the target can be seen, so can the decoy: a box hidden with a folded section
    // (whose header is the target) moves out, one level at a time.
    var shown = function (node) { return node.getClientRects().length > 0; };
    while (shown(el) && !shown(box) && anchor.parentNode && anchor.parentNode !== document.body) {
      anchor = anchor.parentNode;
      anchor.parentNode.insertBefore(box, anchor);
    }
  }

  // -- removal: the target is gone, and with it its label -------------------------------
  function remove(el) {
    var label = ["input", "select", "textarea"].indexOf(el.tagName.toLowerCase()) >= 0 &&
                labelOf(el);
    if (label && !label.contains(el)) label.remove();
    el.remove();
  }

  // -- the target's twins: the other controls the rule's names match, of the target's
  // tag. The change is aimed at the nth (the step's own), so acting on a twin is acting
  // on the wrong element: a look-alike taken by its place once the target was removed,
  // renamed or moved --------------------------------------------------------------------
  function markTwins(el, change) {
    if (!(change.names || []).length) return;  // a random control has no twins
    targets(change.names).forEach(function (other) {
      if (other !== el && other.tagName === el.tagName) {
        other.setAttribute("data-arena-wrong", "twin-" + (++counter));
      }
    });
  }

  var KINDS = {rename: rename, swap: swap, extra: extra, remove: remove};
  var done = [];
  function apply() {
    (CONFIG.changes || []).forEach(function (change, i) {
      if (done[i]) return;
      var found = targets(change.names);
      if (!found.length) return;
      // the nth as a plan counts it: among the shown controls, when any is shown
      var shown = found.filter(function (e) { return e.getClientRects().length > 0; });
      var pool = shown.length ? shown : found;
      var el = (change.names && change.names.length)
        ? pool[Math.min(change.nth || 0, pool.length - 1)] : pick(found);
      markTwins(el, change);
      KINDS[change.kind](el);
      done[i] = true;
      document.documentElement.setAttribute("data-arena-changes",
        (document.documentElement.getAttribute("data-arena-changes") || "") + change.kind + " ");
    });
  }
  function report(event) {
    var decoy = event.target.closest && event.target.closest("[data-arena-wrong]");
    if (!decoy) return;
    var url = WRONG + "?via=" + event.type + "&decoy=" + decoy.getAttribute("data-arena-wrong") +
              "&page=" + encodeURIComponent(location.pathname);
    fetch(url, {method: "POST", keepalive: true}).catch(function () {});
  }
  ["click", "input", "change"].forEach(function (type) {
    document.addEventListener(type, report, true);
  });
  // Now, then again whenever the page's own scripts add to the page (a folding header
  // built on ready, a menu): a change not applied yet is applied to what they made.
  apply();
  var pending = function () {
    return (CONFIG.changes || []).some(function (c, i) { return !done[i]; });
  };
  if (pending() && window.MutationObserver) {
    var watcher = new MutationObserver(function () {
      apply();
      if (!pending()) watcher.disconnect();
    });
    watcher.observe(document.documentElement, {childList: true, subtree: true});
    window.addEventListener("load", function () {
      setTimeout(function () { watcher.disconnect(); }, 2000);
    });
  }
})(__CONFIG__);
