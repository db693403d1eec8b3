// ColorBrowser page walker: one call reads a whole document (plus its open shadow
// roots and same-origin iframes) and returns a compact JSON string.
//
// Every emitted element gets a `bid` attribute. The counter lives on the window, so
// a bid, once given, is never reused by another element of that document.
//
// Node rows: [bid, role, name, parent, flags, states, x, y, w, h, frame, tag]
//   bid ''  + role 'text' = a run of visible text (name holds the text)
//   flags: 1 interactive, 2 drawn (has a box, not transparent), 4 covered by another element
// Result: {doc, url, title, focused, nodes, frames, xframes, pending, parsing}
//   pending: same-origin frames caught between documents (the caller waits, walks again)
//   parsing: the document's HTML is still being parsed (the caller waits, walks again)
(opts) => {
  const MAX_NAME = opts.maxName || 150;
  const PREFIX = opts.prefix || '';
  const KEEP_OFFSCREEN = opts.offscreen !== false;
  const VW = opts.vw || window.innerWidth;
  const VH = opts.vh || window.innerHeight;

  const OURS = new RegExp('^' + PREFIX + '\\d+$');
  const W = window;
  let st = W.__colorbrowser;
  if (!st) {
    // prefix: what capture.js needs to give ids in a cross-origin frame the same way.
    st = { next: 0, own: new WeakMap(), doc: Math.random().toString(36).slice(2, 10),
      prefix: PREFIX };
    Object.defineProperty(W, '__colorbrowser', { value: st, enumerable: false });
  }

  const { SKIP, WIDGET, QUIET, INLINE, css, clean, cap, kids, hiddenTree, textOf, roleOf,
    nameOf, statesOf } = (__ARIA__)(MAX_NAME);

  const deepActive = () => {
    let a = document.activeElement;
    for (let i = 0; a && i < 32; i++) {
      if (a.shadowRoot && a.shadowRoot.activeElement) { a = a.shadowRoot.activeElement; continue; }
      if (a.localName === 'iframe' || a.localName === 'frame') {
        let d = null;
        try { d = a.contentDocument; } catch (e) { d = null; }
        if (d && d.activeElement && d.activeElement !== d.body) { a = d.activeElement; continue; }
      }
      break;
    }
    return a;
  };

  // A cross-origin frame keeps its activeElement after focus leaves it; trust it only
  // while the frame has focus.
  const focusedEl = !PREFIX || document.hasFocus() ? deepActive() : null;
  const nodes = [];
  const frames = [[]];
  const xframes = [];
  let pendingFrames = 0;
  const fresh = [];  // element rows that still need a bid
  const used = new Set();
  let lastText = -1;  // row index of a text run that may still grow

  const emitText = (raw, parent) => {
    if (!raw) return;
    const t = clean(raw);
    if (!t.trim()) {
      if (lastText >= 0) nodes[lastText][2] += ' ';
      return;
    }
    if (lastText >= 0 && nodes[lastText][3] === parent) {
      nodes[lastText][2] += t;
      return;
    }
    nodes.push(['', 'text', t, parent, 0, 0, 0, 0, 0, 0, 0, '']);
    lastText = nodes.length - 1;
  };

  // Hit-test the middle of the element's visible part: is something else on top?
  // Only answerable on screen; elements scrolled away count as not covered.
  const covered = (el, r, ctx) => {
    const win = el.ownerDocument.defaultView;
    const left = Math.max(r.left, 0, -ctx.ox);
    const top = Math.max(r.top, 0, -ctx.oy);
    const right = Math.min(r.right, win.innerWidth, VW - ctx.ox);
    const bottom = Math.min(r.bottom, win.innerHeight, VH - ctx.oy);
    if (right <= left || bottom <= top) return false;
    return !hitOk(el, (left + right) / 2, (top + bottom) / 2);
  };

  const hitOk = (el, cx, cy) => {
    const root = el.getRootNode();
    const hit = root.elementFromPoint ? root.elementFromPoint(cx, cy) : null;
    if (!hit) return false;
    if (hit === el || el.contains(hit) || (hit.shadowRoot && hit.contains(el))) return true;
    if (el.labels) for (const l of el.labels) if (l === hit || l.contains(hit)) return true;
    return false;
  };

  // ctx: {parent, frame, ox, oy, quiet (text already used as a name), shown, opaque}
  const walk = (el, ctx) => {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    const s = css(el);
    if (hiddenTree(el, s)) return;
    let role = roleOf(el, tag);
    const selfShown = s.visibility === 'visible';
    const opaque = ctx.opaque && s.opacity !== '0';
    const block = !INLINE.has(s.display);
    let interactive = WIDGET.has(role);
    if (!interactive && tag !== 'body' && tag !== 'html') {
      const clicks = el.ownerDocument.defaultView.__colorbrowserClicks;
      if (el.hasAttribute('tabindex') && el.tabIndex >= 0) interactive = true;
      else if (el.onclick || el.onmousedown || role === 'textbox') interactive = true;
      else if (clicks && clicks.has(el)) interactive = true;
      else if (s.cursor === 'pointer' && el.parentElement
               && css(el.parentElement).cursor !== 'pointer' && tag !== 'label') interactive = true;
    }
    if (interactive && tag === 'a' && role === 'generic') role = 'link';  // as Chromium does
    // Clickable only through a script (a listener, onclick, tabindex, a pointer cursor):
    // its role says nothing of it, so the line must (BrowserGym's "clickable").
    const scripted = interactive && !WIDGET.has(role) && role !== 'textbox';
    const structural = role !== 'generic' && role !== 'none';
    let emit = selfShown && (structural || interactive);
    // A legend, caption or figcaption is already its container's name: neither line
    // nor text again (unless it is too long to fit in a name whole).
    const namesParent = (tag === 'legend' || tag === 'caption' || tag === 'figcaption')
      && el.parentElement && !el.parentElement.hasAttribute('aria-label')
      && !el.parentElement.hasAttribute('aria-labelledby') && !interactive
      && textOf(el, MAX_NAME + 1).length <= MAX_NAME;
    if (namesParent) emit = false;
    if (emit && ctx.quiet && !interactive) emit = false;
    let r = null;
    let outside = false;
    if (emit || !KEEP_OFFSCREEN || tag === 'iframe' || tag === 'frame') r = el.getBoundingClientRect();
    if (!KEEP_OFFSCREEN && r.width + r.height > 0 && (r.bottom + ctx.oy < 0
        || r.top + ctx.oy > VH || r.right + ctx.ox < 0 || r.left + ctx.ox > VW)) {
      outside = true;
      emit = false;
    }

    let parent = ctx.parent;
    let quiet = ctx.quiet;
    if (block) lastText = -1;
    if (emit) {
      let [name, fromContent] = nameOf(el, tag, role);
      if (fromContent) {
        if (name.length <= MAX_NAME) quiet = true;
        else name = interactive ? cap(name) : '';
      } else name = cap(name);
      // The content of a button-like control is its name, so it is not printed again,
      // unless an aria-label or label named it and the content says something else
      // (a switch labelled 'Dark mode' that shows 'Off').
      if (name && QUIET.has(role) && (fromContent || !el.firstChild
          || name.toLowerCase().includes(textOf(el, MAX_NAME).toLowerCase()))) quiet = true;
      let flags = interactive ? 1 : 0;
      if (opaque && r.width > 0 && r.height > 0) {
        flags |= 2;
        if (interactive && covered(el, r, ctx)) flags |= 4;
      }
      const states = statesOf(el, tag, role, focusedEl);
      if (scripted) states.clickable = true;
      if (interactive && !name && !el.firstElementChild && !el.textContent.trim()) {
        // A bare clickable icon: its id or class is the only clue to what it does.
        const hint = (el.id || (el.getAttribute('class') || '').trim().split(/\s+/).slice(0, 2).join(' '));
        if (hint) states.hint = hint.slice(0, 40);
      }
      nodes.push([el.getAttribute('bid'), role, name, ctx.parent, flags, states,
        r.left + ctx.ox, r.top + ctx.oy, r.width, r.height, ctx.frame, tag, el]);
      parent = nodes.length - 1;
      fresh.push(parent);
      lastText = -1;
    } else if (namesParent
               || (tag === 'label' && el.control && el.control.getClientRects().length)) {
      quiet = true;  // the label text is the control's name; do not print it twice
    }
    const sub = { parent, frame: ctx.frame, ox: ctx.ox, oy: ctx.oy, quiet, opaque };

    if (tag === 'iframe' || tag === 'frame') {
      if (!emit) return;
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { doc = null; }
      const fc = el.ownerDocument.defaultView.getComputedStyle(el);
      const ox = ctx.ox + r.left + el.clientLeft + parseFloat(fc.paddingLeft || '0');
      const oy = ctx.oy + r.top + el.clientTop + parseFloat(fc.paddingTop || '0');
      if (doc && doc.documentElement) {
        frames.push({ parentFrame: ctx.frame, row: parent });
        const fi = frames.length - 1;
        walk(doc.documentElement, { parent, frame: fi, ox, oy, quiet: false, opaque });
      } else if (doc) {
        pendingFrames += 1;  // same-origin, but its document is still being created
      } else {
        xframes.push({ row: parent, ox, oy, frame: ctx.frame });
      }
      return;
    }
    if (tag === 'svg') return;
    if (tag === 'select') {
      // Options of a closed select have no box but are part of the control.
      for (const o of el.querySelectorAll('option')) {
        if (o.hidden) continue;
        nodes.push([o.getAttribute('bid'), 'option', cap(clean(o.label || o.textContent).trim()),
          parent, 1, statesOf(o, 'option', 'option', focusedEl), 0, 0, 0, 0, ctx.frame,
          'option', o]);
        fresh.push(nodes.length - 1);
      }
      lastText = -1;
      return;
    }
    if (tag === 'textarea') return;
    const textHidden = !selfShown || outside;
    for (const c of kids(el)) {
      if (c.nodeType === 3) {
        if (!quiet && !textHidden) emitText(c.data, parent);
      } else if (c.nodeType === 1) {
        if (c.localName === 'br') { lastText = -1; continue; }
        walk(c, sub);
      }
    }
    if (block) lastText = -1;
  };

  const root = document.documentElement;
  if (root) walk(root, { parent: -1, frame: 0, ox: opts.ox || 0, oy: opts.oy || 0, quiet: false, opaque: true });

  // Bids: keep the ones this window gave out; give new ones to everything else.
  // An element that carries a bid it was not given (a clone, copied markup) gets a
  // fresh one if its bid belongs to a live element of this walk.
  const pending = [];
  for (const i of fresh) {
    const row = nodes[i];
    const el = row[12];
    const attr = row[0];
    if (attr && st.own.get(el) === attr && !used.has(attr)) used.add(attr);
    else pending.push(i);
  }
  for (const i of pending) {
    const row = nodes[i];
    const el = row[12];
    let bid = row[0];
    if (!bid || used.has(bid) || !OURS.test(bid)) {
      do { st.next += 1; bid = PREFIX + st.next; } while (used.has(bid));
      el.setAttribute('bid', bid);
    } else {
      const n = parseInt(PREFIX ? bid.slice(PREFIX.length) : bid, 10);
      if (n > st.next) st.next = n;
    }
    st.own.set(el, bid);
    used.add(bid);
    row[0] = bid;
  }
  let focused = null;
  for (const i of fresh) {
    const row = nodes[i];
    if (row[12] === focusedEl) focused = row[0];
    row.length = 12;
  }
  const frameRows = frames.map((f, i) => (i === 0 ? -1 : f.parentFrame));
  const frameBids = frames.map((f, i) => (i === 0 ? '' : nodes[f.row][0]));
  for (const x of xframes) x.bid = nodes[x.row][0];
  return JSON.stringify({
    doc: st.doc, url: location.href, title: document.title, focused,
    nodes, frames: frameRows.map((p, i) => [p, frameBids[i]]), xframes, pending: pendingFrames,
    parsing: document.readyState === 'loading',
  });
}
