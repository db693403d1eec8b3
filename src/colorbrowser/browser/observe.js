// ColorBrowser page walker: one call reads a whole document (plus its open shadow
// roots and same-origin iframes) and returns a compact JSON string.
//
// Every emitted element gets a `bid` attribute. The counter lives on the window, so
// a bid, once given, is never reused by another element of that document.
//
// Node rows: [bid, role, name, parent, flags, states, x, y, w, h, frame, tag]
//   bid ''  + role 'text' = a run of visible text (name holds the text)
//   flags: 1 interactive, 2 drawn (has a box, not transparent), 4 covered by another element
// Result: {doc, url, title, focused, nodes, frames, xframes}
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
    st = { next: 0, own: new WeakMap(), doc: Math.random().toString(36).slice(2, 10) };
    Object.defineProperty(W, '__colorbrowser', { value: st, enumerable: false });
  }

  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link',
    'title', 'base', 'param', 'source', 'track', 'datalist']);
  const WIDGET = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio',
    'combobox', 'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab',
    'switch', 'slider', 'spinbutton', 'treeitem', 'scrollbar']);
  const FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell',
    'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio',
    'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'caption', 'legend', 'term']);
  // Roles whose content is part of the control itself (ARIA "children presentational"),
  // plus named links and menu items: their text is already the name.
  const QUIET = new Set(['button', 'checkbox', 'img', 'math', 'menuitemcheckbox',
    'menuitemradio', 'meter', 'option', 'progressbar', 'radio', 'scrollbar', 'separator',
    'slider', 'switch', 'tab', 'link', 'menuitem', 'treeitem']);
  // Cells and headers that hold controls: their content is the controls, not a name.
  const CONTROLS = 'a[href],button,input,select,textarea,[tabindex],[contenteditable],'
    + '[role=button],[role=link],[role=checkbox],[role=radio],[role=textbox],[role=combobox]';
  const NAMED_BY_CONTROLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);
  const CHECKABLE = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const VALUED = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox', 'slider']);
  const INLINE = new Set(['inline', 'contents']);
  const LANDMARK_PARENTS = new Set(['article', 'aside', 'main', 'nav', 'section']);
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider',
    number: 'spinbutton', search: 'searchbox',
  };
  const TAG_ROLES = {
    button: 'button', textarea: 'textbox', option: 'option', optgroup: 'group',
    p: 'paragraph', ul: 'list', ol: 'list', menu: 'list', dl: 'list', li: 'listitem',
    dt: 'term', dd: 'definition', nav: 'navigation', main: 'main', aside: 'complementary',
    article: 'article', search: 'search', table: 'table', caption: 'caption',
    tr: 'row', fieldset: 'group', legend: 'legend', details: 'group', summary: 'button',
    hr: 'separator', progress: 'progressbar', meter: 'meter', output: 'status',
    blockquote: 'blockquote', figure: 'figure', iframe: 'iframe', frame: 'iframe',
    math: 'math', dialog: 'dialog',
  };

  const styles = new Map();
  const css = (el) => {
    let s = styles.get(el);
    if (!s) {
      const c = el.ownerDocument.defaultView.getComputedStyle(el);
      s = { display: c.display, visibility: c.visibility, opacity: c.opacity, cursor: c.cursor };
      styles.set(el, s);
    }
    return s;
  };
  const clean = (s) => s.replace(/\s+/g, ' ');
  const cap = (s) => (s.length > MAX_NAME ? s.slice(0, MAX_NAME - 1).trimEnd() + '…' : s);

  // Rendered children: the shadow tree of a host, the assigned nodes of a slot.
  const kids = (el) => {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === 'details' && !el.open) {  // only the summary of a closed details shows
      const summary = el.querySelector(':scope > summary');
      return summary ? [summary] : [];
    }
    if (el.localName === 'slot') {
      const a = el.assignedNodes({ flatten: true });
      return a.length ? a : el.childNodes;
    }
    return el.childNodes;
  };

  const hiddenTree = (el, s) => s.display === 'none' || el.getAttribute('aria-hidden') === 'true'
    || (el.hidden && el.localName !== 'option') || el.inert;

  // Text of a subtree as accessible-name computation would gather it (approximately).
  const textOf = (node, budget, skip) => {
    let out = '';
    const visit = (n) => {
      if (out.length > budget) return;
      if (n.nodeType === 3) {
        if (!n.parentElement || css(n.parentElement).visibility === 'visible') out += n.data;
        return;
      }
      if (n.nodeType !== 1 || n === skip) return;
      const tag = n.localName;
      if (SKIP.has(tag)) return;
      const s = css(n);
      if (hiddenTree(n, s)) return;
      const label = n.getAttribute('aria-label');
      if (label && label.trim() && n !== node) { out += ' ' + label + ' '; return; }
      if (tag === 'img' || tag === 'area') { out += ' ' + (n.getAttribute('alt') || '') + ' '; return; }
      if (tag === 'input') {
        const t = (n.type || '').toLowerCase();
        if (t === 'hidden') return;
        if (t === 'checkbox' || t === 'radio' || t === 'password') return;
        out += ' ' + (n.value || '') + ' ';
        return;
      }
      if (tag === 'select') {
        out += ' ' + Array.from(n.selectedOptions || []).map((o) => o.label).join(' ') + ' ';
        return;
      }
      if (tag === 'textarea') { out += ' ' + n.value + ' '; return; }
      if (tag === 'br') { out += ' '; return; }
      const block = !INLINE.has(s.display);
      if (block) out += ' ';
      for (const c of kids(n)) visit(c);
      if (block) out += ' ';
    };
    visit(node);
    return clean(out).trim();
  };

  const byIds = (el, attr) => {
    const ids = (el.getAttribute(attr) || '').trim();
    if (!ids) return '';
    const root = el.getRootNode();
    const doc = el.ownerDocument;
    return ids.split(/\s+/).map((id) => {
      const ref = (root.getElementById ? root.getElementById(id) : null) || doc.getElementById(id);
      if (!ref) return '';
      const l = ref.getAttribute('aria-label');
      return l && l.trim() ? l : textOf(ref, MAX_NAME * 2);
    }).join(' ');
  };

  const roleOf = (el, tag) => {
    const explicit = el.getAttribute('role');
    if (explicit) {
      const r = explicit.trim().split(/\s+/)[0].toLowerCase();
      if (r && r !== 'none' && r !== 'presentation') return r;
      if (r && !el.hasAttribute('tabindex')) return 'none';
    }
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'input': {
        const t = (el.getAttribute('type') || 'text').toLowerCase();
        if (t === 'hidden') return 'none';
        if (INPUT_ROLES[t]) return INPUT_ROLES[t];
        return el.hasAttribute('list') ? 'combobox' : 'textbox';
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'img':
        if (el.getAttribute('alt') === '' && !el.title && !el.hasAttribute('aria-label')) return 'none';
        return 'img';
      case 'svg':
        return el.hasAttribute('aria-label') || el.querySelector(':scope > title') ? 'img' : 'none';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': case 'footer': {
        for (let p = el.parentElement; p; p = p.parentElement) {
          if (LANDMARK_PARENTS.has(p.localName)) return 'generic';
        }
        return tag === 'header' ? 'banner' : 'contentinfo';
      }
      case 'section':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
      case 'td': {
        const t = el.closest('table');
        return t && t.getAttribute('role') === 'grid' ? 'gridcell' : 'cell';
      }
      case 'th': {
        const scope = (el.getAttribute('scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const row = el.parentElement;
        if (row && row.parentElement && row.parentElement.localName === 'thead') return 'columnheader';
        if (row && row.querySelector(':scope > td') && el === row.firstElementChild) return 'rowheader';
        return 'columnheader';
      }
      case 'dialog': return el.open ? 'dialog' : 'none';
      case 'form':
        return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
          || el.hasAttribute('title') ? 'form' : 'generic';
      default: break;
    }
    const r = TAG_ROLES[tag];
    if (r) return r;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return 'generic';
  };

  // Returns [name, fromContent].
  const nameOf = (el, tag, role) => {
    let n = byIds(el, 'aria-labelledby');
    if (n.trim()) return [clean(n).trim(), false];
    n = el.getAttribute('aria-label');
    if (n && n.trim()) return [clean(n).trim(), false];
    if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'meter'
        || tag === 'progress' || tag === 'output') {
      const t = (el.type || '').toLowerCase();
      if (t === 'button' || t === 'submit' || t === 'reset') {
        const v = el.getAttribute('value');
        if (v !== null) return [clean(v).trim(), false];
        return [t === 'button' ? '' : t === 'submit' ? 'Submit' : 'Reset', false];
      }
      if (t === 'image') return [clean(el.alt || el.value || 'Submit').trim(), false];
      if (el.labels && el.labels.length) {
        n = Array.from(el.labels).map((l) => textOf(l, MAX_NAME * 2, el)).join(' ');
        if (n.trim()) return [clean(n).trim(), false];
      }
    } else if (tag === 'img' || tag === 'area') {
      n = el.getAttribute('alt');
      if (n && n.trim()) return [clean(n).trim(), false];
    } else if (tag === 'fieldset' || tag === 'table' || tag === 'figure' || tag === 'svg') {
      const sel = { fieldset: ':scope > legend', table: ':scope > caption',
        figure: ':scope > figcaption', svg: ':scope > title' }[tag];
      const c = el.querySelector(sel);
      if (c) {
        n = tag === 'svg' ? c.textContent : textOf(c, MAX_NAME * 2);
        if (n.trim()) return [clean(n).trim(), false];
      }
    } else if (tag === 'iframe' || tag === 'frame') {
      return [clean(el.title || el.name || '').trim(), false];
    }
    if (FROM_CONTENT.has(role) && !(NAMED_BY_CONTROLS.has(role) && el.querySelector(CONTROLS))) {
      n = textOf(el, MAX_NAME * 2);
      if (n) return [n, true];
    }
    n = el.getAttribute('title') || el.getAttribute('placeholder') || el.getAttribute('aria-placeholder');
    if (n && n.trim()) return [clean(n).trim(), false];
    return ['', false];
  };

  const statesOf = (el, tag, role, focusedEl) => {
    const o = {};
    const aria = (a) => el.getAttribute(a);
    if (CHECKABLE.has(role)) {
      if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
        o.checked = el.indeterminate ? 'mixed' : el.checked;
      } else {
        const c = aria('aria-checked');
        o.checked = c === 'mixed' ? 'mixed' : c === 'true';
      }
    }
    if ((tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea'
         || tag === 'option' || tag === 'optgroup' || tag === 'fieldset') && el.matches(':disabled')) {
      o.disabled = true;
    } else if (aria('aria-disabled') === 'true') o.disabled = true;
    const ex = aria('aria-expanded');
    if (ex === 'true' || ex === 'false') o.expanded = ex === 'true';
    else if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') {
      o.expanded = el.parentElement.open;
    }
    if (tag === 'option') { if (el.selected) o.selected = true; }
    else if (aria('aria-selected') === 'true') o.selected = true;
    const pr = aria('aria-pressed');
    if (pr === 'true' || pr === 'false' || pr === 'mixed') o.pressed = pr === 'mixed' ? 'mixed' : pr === 'true';
    if (role === 'heading') {
      const lv = parseInt(aria('aria-level') || (/^h[1-6]$/.test(tag) ? tag[1] : '2'), 10);
      o.level = lv;
    }
    if (VALUED.has(role)) {
      let v = null;
      if (tag === 'select') v = Array.from(el.selectedOptions).map((x) => x.label).join(', ');
      else if (tag === 'input' || tag === 'textarea') {
        v = el.type === 'password' ? '•'.repeat(Math.min(el.value.length, 8)) : el.value;
      } else v = aria('aria-valuetext') || aria('aria-valuenow');
      if (v) o.value = cap(clean(v));
    }
    if (tag === 'select' && el.multiple) o.multiselectable = true;
    if ((tag === 'input' || tag === 'select' || tag === 'textarea') && el.required) o.required = true;
    else if (aria('aria-required') === 'true') o.required = true;
    if ((tag === 'input' || tag === 'textarea') && el.readOnly && VALUED.has(role)) o.readonly = true;
    else if (aria('aria-readonly') === 'true') o.readonly = true;
    if (aria('aria-invalid') === 'true') o.invalid = true;
    if (el === focusedEl && role !== 'iframe') o.focused = true;
    if (tag === 'input' && el.type === 'password') o.password = true;
    return o;
  };

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
    const structural = role !== 'generic' && role !== 'none';
    let emit = selfShown && (structural || interactive);
    // A legend or caption is already its container's name: neither line nor text again.
    const namesParent = (tag === 'legend' || tag === 'caption')
      && el.parentElement && !el.parentElement.hasAttribute('aria-label')
      && !el.parentElement.hasAttribute('aria-labelledby') && !interactive;
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
      if (name && QUIET.has(role)) quiet = true;
      let flags = interactive ? 1 : 0;
      if (opaque && r.width > 0 && r.height > 0) {
        flags |= 2;
        if (interactive && covered(el, r, ctx)) flags |= 4;
      }
      const states = statesOf(el, tag, role, focusedEl);
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
    nodes, frames: frameRows.map((p, i) => [p, frameBids[i]]), xframes,
  });
}
