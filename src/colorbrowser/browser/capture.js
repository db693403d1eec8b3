// ColorBrowser capture: what a person does in the page, as raw events for the
// normaliser (copilot/normalize.py). An init script: runs first in every document of
// every frame. capture.py fills in the placeholders.
//
// Only trusted events count (real mouse and keyboard input, CDP input included); a
// page script cannot fake one. The binding is taken and removed from the window before
// any page script runs, and every record carries a nonce no page can read, so a page
// cannot post records of its own either.
//
// Values of sensitive fields (passwords, card numbers, codes) never leave the page as
// text: the record says "********"; the real value travels apart, once, only so the
// run's redactor can mask it wherever else the page shows it.
(() => {
  const NONCE = '__NONCE__';
  const BINDING = '__BINDING__';
  if (window[BINDING + 'Installed']) return;
  Object.defineProperty(window, BINDING + 'Installed', { value: true, enumerable: false });
  const send = window[BINDING];
  const clock = Date.now.bind(Date);  // taken before a page script can replace the clock
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  const own = (obj, key) => (hasOwn(obj, key) ? obj[key] : undefined);
  try { delete window[BINDING]; } catch (e) { /* not configurable: still nonce-checked */ }
  if (typeof send !== 'function') return;

  const ARIA = __ARIA__;
  const WALK = __WALKER__;
  const MASK = '********';
  const POPUP = '[aria-haspopup]:not([aria-haspopup="false"]),[aria-expanded],[role=menuitem]';
  const ACTIONABLE = 'a[href],button,input,select,textarea,summary,option,label,'
    + '[role=button],[role=link],[role=checkbox],[role=radio],[role=menuitem],[role=tab],'
    + '[role=option],[role=switch],[role=combobox],[role=textbox],[onclick],[tabindex],'
    + '[contenteditable=""],[contenteditable=true]';
  const KEYS = new Set(['Enter', 'Tab', 'Escape', 'ArrowUp', 'ArrowDown']);
  const EDITING = new Set(['a', 'c', 'v', 'x', 'z', 'y']);
  // Fields whose arrow keys step the value itself (its input or change is the action).
  const STEPPED = new Set(['radio', 'number', 'range', 'date', 'time', 'datetime-local',
    'month', 'week']);
  const SENSITIVE_NAME = /pass(word|wd|code)?\b|\bpin\b|otp|one.?time|2fa|totp|verif\w*.?code|security.?code|cvv|cvc|csc|card.?(num|no)|cc.?(num|number)|credit.?card|\bssn\b|social.?sec|iban|routing|account.?(num|no)|secret/i;
  const SENSITIVE_AUTO = /cc-number|cc-csc|cc-exp|one-time-code|current-password|new-password/i;
  const HUMAN_MS = 1500;
  let seq = 0;

  // The record is a new object whose fields are its own: an assignment would run a
  // setter the page put on Object.prototype ("nonce") and hand it the nonce.
  const post = (record) => {
    const full = { ...record, nonce: NONCE, seq: own(record, 'seq') || ++seq,
      t: own(record, 't') || clock(), url: location.href, top: window === window.top };
    try { send(full); } catch (e) { /* the page is going away */ }
  };

  // -- bids: the same ids the agent's walker gives, given now if the element has none --
  const walkRoot = () => {
    let w = window;
    while (w !== w.parent) {
      try { void w.parent.document.documentElement; w = w.parent; } catch (e) { break; }
    }
    return w;
  };
  const walkHere = () => {
    const st = window.__colorbrowser;
    const top = window === window.top;
    if (!top && !(st && typeof st.prefix === 'string')) return;  // prefix unknown yet
    const prefix = top ? '' : st.prefix;
    try {
      WALK({ offscreen: true, maxName: 150, vw: innerWidth, vh: innerHeight, prefix });
    } catch (e) { /* a half-built document: no bid this time */ }
  };
  Object.defineProperty(window, BINDING + 'Walk', { value: walkHere, enumerable: false });
  const ensureBid = (el) => {
    if (!el || el.getAttribute('bid')) return;
    const root = walkRoot();
    const walk = root === window ? walkHere : root[BINDING + 'Walk'];
    if (typeof walk === 'function') walk();
  };

  // -- what an element is, as the agent's tree names it ----------------------------
  const sensitive = (el) => {
    if (!el || el.nodeType !== 1) return false;
    if (el.localName === 'input' && el.type === 'password') return true;
    const auto = el.getAttribute('autocomplete') || '';
    if (SENSITIVE_AUTO.test(auto)) return true;
    const label = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    const words = [el.name, el.id, el.getAttribute('aria-label'), el.placeholder, label]
      .filter(Boolean).join(' ');
    return SENSITIVE_NAME.test(words);
  };
  const luhn = (digits) => {
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return sum % 10 === 0;
  };
  const cardLike = (v) => {
    const digits = (v || '').replace(/[\s-]/g, '');
    return /^\d{13,19}$/.test(digits) && luhn(digits);
  };
  const valueOf = (el) => {
    if (!el || el.nodeType !== 1) return null;
    const tag = el.localName;
    if (tag === 'select') return Array.from(el.selectedOptions).map((o) => o.label || o.text);
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return null;
    if (tag === 'input' || tag === 'textarea') return el.value;
    if (el.isContentEditable) return el.innerText.replace(/\n$/, '');
    return null;
  };
  const ancestors = (el) => {
    const out = [];
    for (let a = el && el.parentElement; a && out.length < 12; a = a.parentElement) {
      const bid = a.getAttribute('bid');
      if (bid) out.push(bid);
    }
    return out;
  };
  const describe = (el) => {
    if (!el || el.nodeType !== 1) return {};
    ensureBid(el);
    const tag = el.localName;
    let role = '';
    let name = '';
    try {
      const A = ARIA(150);
      role = A.roleOf(el, tag);
      name = A.cap(A.nameOf(el, tag, role)[0]);
    } catch (e) { /* keep what we have */ }
    if (!name) name = namedBefore.get(el) || '';
    const r = el.getBoundingClientRect();
    const out = {
      bid: el.getAttribute('bid') || '', role, name, tag, itype: el.type || '',
      ancestors: ancestors(el), bbox: [r.left, r.top, r.width, r.height],
      popup: !!el.closest(POPUP),
    };
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      out.checked = el.checked;
      if (el.type === 'radio' && el.name) out.group = (el.form ? el.form.id + '#' : '') + el.name;
    }
    const value = valueOf(el);
    if (value !== null) {
      if (typeof value === 'string' && (sensitive(el) || cardLike(value))) {
        out.value = value ? MASK : '';
        out.sensitive = true;
        if (value) out.secret = value;
      } else out.value = value;
    }
    return out;
  };

  // The name an element had when the pointer or focus reached it, before the page's
  // own handlers ran: a tooltip library moves a button's title into a tooltip on hover,
  // leaving the button nameless by the time it is clicked.
  const namedBefore = new WeakMap();
  const remember = (e) => {
    const el = targetOf(e);
    if (!el || el.nodeType !== 1 || namedBefore.has(el) || !el.matches(ACTIONABLE)) return;
    try {
      const A = ARIA(150);
      const name = A.cap(A.nameOf(el, el.localName, A.roleOf(el, el.localName))[0]);
      if (name) namedBefore.set(el, name);
    } catch (err) { /* no name to keep */ }
  };

  // The element a person meant: the closest actionable one (a span inside a button is
  // the button), a label's control, else the closest element with an id at all.
  const targetOf = (e) => {
    let el = e.composedPath ? e.composedPath()[0] : e.target;
    if (el && el.nodeType !== 1) el = el.parentElement;
    if (!el) return null;
    const hit = el.closest(ACTIONABLE);
    if (hit && hit.localName === 'label' && hit.control) return hit.control;
    return hit || el;
  };

  // The element the agent's tree shows for a focusable target: itself, or the item
  // around it when the tree folded it in (a wrapper with no role or name of its own, as
  // jQuery UI's menu items are), which the agent would click instead.
  const shownAs = (el) => {
    if (!el || el.nodeType !== 1 || !el.matches(ACTIONABLE)) return el;
    ensureBid(el);
    if (el.getAttribute('bid')) return el;
    let a = el.parentElement;
    for (let up = 0; a && up < 3; up += 1, a = a.parentElement) {
      if (a.getAttribute('bid')) return a;
    }
    return el;
  };

  // -- listeners (capture phase, before the page's own handlers change anything) -------
  const on = (type, fn) => window.addEventListener(type, (e) => {
    if (!e.isTrusted) return;
    try { fn(e); } catch (err) { /* never break the page */ }
  }, true);

  const clicked = (e) => {
    const raw = e.composedPath ? e.composedPath()[0] : e.target;
    const label = raw && raw.nodeType === 1 ? raw.closest('label') : null;
    // A click on a label's text, which the browser passes on to its control as a
    // second click; a click on the control itself (even inside its label) is not.
    const control = label && label.control;
    const viaLabel = !!control && raw !== control && !control.contains(raw);
    const target = shownAs(targetOf(e));
    // A click in a menu that a hover opened: the hover is part of the way there.
    let opener = target && hoverOpener(target);
    const styled = !opener && target && styledOpener(target);
    if (styled) {  // its hover, dated when the pointer reached it
      post({ kind: 'hover', t: styled.at, ...describe(styled.el) });
      opener = styled.el;
    }
    const openedBy = opener ? (opener.getAttribute('bid') || '') : '';
    // A link the browser opens in another tab: its new tab is this click's doing.
    const link = target && target.closest('a[href]');
    const opensTab = !!link && (e.button === 1 || e.ctrlKey || e.metaKey || e.shiftKey
      || (!!link.target && !['_self', '_top', '_parent'].includes(link.target)));
    post({ kind: 'click', ...describe(target), button: e.button, detail: e.detail,
      via_label: viaLabel, opened_by: openedBy, opens_tab: opensTab, x: e.clientX,
      y: e.clientY });
  };
  on('mouseover', remember);
  on('focusin', remember);
  on('click', clicked);
  // A middle click fires no click, only auxclick (a right click's menu is the browser's).
  on('auxclick', (e) => { if (e.button === 1) clicked(e); });
  on('dblclick', (e) => post({ kind: 'dblclick', ...describe(targetOf(e)) }));
  on('input', (e) => {
    const el = e.composedPath ? e.composedPath()[0] : e.target;
    const host = el.isContentEditable ? (el.closest('[contenteditable]') || el) : el;
    if (host.localName === 'input' && (host.type === 'checkbox' || host.type === 'radio')) return;
    post({ kind: 'input', ...describe(host) });
  });
  // A page script's el.click() on a checkbox fires a change the browser marks as
  // trusted; only a change soon after real input counts as the person's.
  let lastHuman = 0;
  for (const type of ['pointerdown', 'mousedown', 'keydown']) on(type, () => { lastHuman = clock(); });
  on('change', (e) => {
    if (clock() - lastHuman > HUMAN_MS) return;
    const el = e.target;
    if (!el || !['input', 'select', 'textarea'].includes(el.localName)) return;
    post({ kind: 'change', ...describe(el) });
  });
  // -- the view a key moved: Tab to a control out of sight, Space, PageDown, End or an
  // arrow on the page scroll it, and no wheel event says so. The page's position is
  // read when the key comes and again once its default action is done (a task later,
  // or at the next input, whichever is first), so the move is the key's by order, not
  // by a time window. A key in a field (typing, a caret, a step) moves only the field.
  let viewKey = null;
  const viewMoved = () => {
    const k = viewKey;
    viewKey = null;
    if (!k) return;
    const dx = scrollX - k.x;
    const dy = scrollY - k.y;
    if (dx || dy) post({ kind: 'scroll', dx, dy, t: k.t });
  };
  const watchView = (e, el) => {
    if (window !== window.top) return;
    const field = el && el.nodeType === 1 && (el.isContentEditable
      || ['input', 'textarea', 'select'].includes(el.localName));
    const tab = e.key === 'Tab';
    if (field && !tab && !(el.localName === 'input' && ['checkbox', 'radio', 'button',
      'submit', 'reset', 'image', 'file', 'color', 'range'].includes(el.type))) return;
    if (!tab && inPlace(el, e.key)) return;
    viewKey = { x: scrollX, y: scrollY, t: clock() };
    setTimeout(viewMoved, 0);
  };
  for (const type of ['keyup', 'pointerdown', 'wheel']) on(type, viewMoved);
  on('keydown', (e) => {
    viewMoved();  // the key before this one: its default action is done by now
    if (e.isComposing || ['Control', 'Shift', 'Alt', 'Meta'].includes(e.key)) return;
    keyRecord(e);
    const at = e.composedPath ? e.composedPath()[0] : e.target;
    watchView(e, at === document.body ? document.activeElement : at);  // after its record
  });
  function keyRecord(e) {
    const combo = e.ctrlKey || e.metaKey || e.altKey;
    const editable = e.target && (e.target.isContentEditable
      || ['input', 'textarea'].includes(e.target.localName));
    if (!KEYS.has(e.key) && !combo) return;
    if (combo && editable && EDITING.has(e.key.toLowerCase())) return;  // value edits
    const mods = ['Control', 'Alt', 'Meta', 'Shift'].filter(
      (m) => e.getModifierState(m) && (combo || m !== 'Shift'));
    let el = e.composedPath ? e.composedPath()[0] : e.target;
    if (el === document.body || el === document.documentElement) el = document.activeElement;
    const record = { kind: 'key', key: [...mods, e.key].join('+'), ...describe(el) };
    if (!combo && inPlace(el, e.key)) {
      // A new line or a step of the value, unless the page took the key for itself
      // (a chat box that sends on Enter): known once every handler has run.
      const timed = { ...record, t: clock(), seq: ++seq };
      setTimeout(() => { if (e.defaultPrevented) post(timed); }, 0);
      return;
    }
    post(record);
  }
  // A key whose default changes the focused field's value in place: Enter in a
  // multi-line field, arrows in one (caret moves) or in a field they step.
  function inPlace(el, key) {
    if (!el || el.nodeType !== 1) return false;
    const multi = el.localName === 'textarea' || el.isContentEditable;
    if (key === 'Enter') return multi;
    if (!key.startsWith('Arrow')) return false;
    return multi || (el.localName === 'input' && STEPPED.has(el.type));
  }
  let hoverTimer = 0;
  let hovered = null;
  const dwelt = [];  // the last pop-up openers the mouse rested on
  on('mouseover', (e) => {
    const raw = e.composedPath ? e.composedPath()[0] : e.target;
    const el = raw && raw.nodeType === 1 ? raw.closest(POPUP) : null;
    if (el === hovered) return;
    clearTimeout(hoverTimer);
    hovered = el;
    if (!el) return;
    const at = clock();
    hoverTimer = setTimeout(() => {
      if (hovered === el && el.matches(':hover')) {
        dwelt.push(el);
        if (dwelt.length > 4) dwelt.shift();
        post({ kind: 'hover', t: at, ...describe(el) });
      }
    }, 250);
  });
  // What appeared in the page while a pop-up opener was under the mouse (inserted
  // anywhere, a portal at the end of the body included, or shown by a class or style
  // change): the element that was hovered then.
  const appearedWith = new WeakMap();
  new MutationObserver((records) => {
    if (!hovered) return;
    for (const r of records) {
      const nodes = r.type === 'childList' ? Array.from(r.addedNodes) : [r.target];
      for (const n of nodes) if (n.nodeType === 1) appearedWith.set(n, hovered);
    }
  }).observe(document, { childList: true, subtree: true, attributes: true,
    attributeFilter: ['style', 'class', 'hidden', 'open', 'aria-hidden'] });
  // Shown by a stylesheet's :hover rule (a CSS menu) on the way from el up to stop.
  const HIDING = ['display', 'visibility', 'opacity', 'max-height', 'height', 'clip-path',
    'transform', 'left', 'top'];
  // ``deep``: only rules whose :hover is on an ancestor of what they show (`li:hover ul`),
  // not on the element itself (`a:hover` fading a link the pointer is on).
  const shownByHover = (el, stop, deep = false) => {
    const rules = [];
    const below = (part) => /[\s>~+]/.test(part.slice(part.indexOf(':hover')).trim());
    const collect = (list) => {
      for (const rule of Array.from(list || [])) {
        if (rules.length > 5000) return;
        if (rule.selectorText && rule.selectorText.includes(':hover')
          && HIDING.some((p) => rule.style.getPropertyValue(p))) {
          const sel = deep ? rule.selectorText.split(',').filter(
            (part) => part.includes(':hover') && below(part)).join(',') : rule.selectorText;
          if (sel) rules.push(sel);
        }
        if (rule.cssRules) collect(rule.cssRules);
      }
    };
    for (const sheet of Array.from(document.styleSheets)) {
      try { collect(sheet.cssRules); } catch (e) { /* another origin's sheet */ }
    }
    for (let a = el; a && a !== stop; a = a.parentElement) {
      for (const sel of rules) {
        try { if (a.matches(sel)) return true; } catch (e) { /* a selector we cannot test */ }
      }
    }
    return false;
  };
  // The hovered element whose hover made the click's target appear, if any; a
  // neighbour that was there before the hover is not one.
  function hoverOpener(target) {
    const fine = (d) => d && dwelt.includes(d) && d !== target && !d.contains(target);
    for (let a = target; a; a = a.parentElement) {
      if (fine(appearedWith.get(a))) return appearedWith.get(a);
    }
    return dwelt.slice().reverse().find((d) => fine(d) && d.parentElement
      && d.parentElement.contains(target) && shownByHover(target, d.parentElement));
  }
  // Links and buttons the pointer entered lately that open no pop-up by their markup:
  // one may still open a menu that a stylesheet shows on :hover of the item around it
  // (a CSS menu whose opener says nothing of it). Its hover is posted only when a click
  // lands in such a menu.
  const passed = [];
  on('mouseover', (e) => {
    const raw = e.composedPath ? e.composedPath()[0] : e.target;
    if (!raw || raw.nodeType !== 1 || raw.closest(POPUP)) return;
    const el = raw.closest('a[href],button,[role=button]');
    if (!el || (passed.length && passed[passed.length - 1].el === el)) return;
    passed.push({ el, at: clock() });
    if (passed.length > 4) passed.shift();
  });
  function styledOpener(target) {
    const now = clock();
    return passed.slice().reverse().find(({ el, at }) => el !== target && !el.contains(target)
      && now - at >= 250 && el.parentElement && el.parentElement.contains(target)
      && shownByHover(target, el.parentElement, true));
  }
  on('wheel', (e) => {
    const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? innerHeight : 1;
    post({ kind: 'wheel', dx: e.deltaX * unit, dy: e.deltaY * unit });
  });
  on('popstate', () => post({ kind: 'history' }));
  on('hashchange', () => post({ kind: 'history' }));
  // A tab coming to the front: shown again, or (headless, no visibility change) focused.
  let shownAt = 0;
  const shown = () => {
    if (window !== window.top || clock() - shownAt < 200) return;
    shownAt = clock();
    post({ kind: 'visible' });
  };
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') shown();
  }, true);
  window.addEventListener('focus', (e) => { if (e.target === window) shown(); }, true);

  // -- this document leaving: only a navigation the page itself starts (a link, a form,
  // a script) fires the navigate event; the address bar, reload and history buttons of
  // the browser do not, so a load without one is the person's own goto or reload.
  if (window === window.top && window.navigation) {
    navigation.addEventListener('navigate', (e) => {
      // A move within the document (pushState, a fragment) and a download load nothing:
      // the document stays, so it is not leaving.
      if ((e.destination && e.destination.sameDocument) || e.downloadRequest) return;
      try { post({ kind: 'leave', nav: e.navigationType || '' }); } catch (err) { /* */ }
    }, true);
  }

  // -- this document itself: how it was reached ---------------------------------------
  if (window === window.top) {
    let how = 'navigate';
    try {
      const entry = performance.getEntriesByType('navigation')[0];
      if (entry) how = entry.type;
    } catch (e) { /* old engine */ }
    // Stamped now, not at the load's start: it must come after the leave of the page
    // before it (the cause is read from that order, not from a time window).
    post({ kind: 'doc', nav: how });
  }
})();
