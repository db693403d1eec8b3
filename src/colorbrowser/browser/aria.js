// ARIA semantics of one element: role, accessible name, states (after HTML-AAM and
// accname, simplified), plus the style and tree helpers they share with the walker.
// An expression: observe.py splices it into observe.js where __ARIA__ stands.
(MAX_NAME) => {
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
  // What fill() takes for the date and time inputs (the browser shows a locale format).
  const FORMATS = { date: 'yyyy-mm-dd', time: 'hh:mm', 'datetime-local': 'yyyy-mm-ddThh:mm',
    month: 'yyyy-mm', week: 'yyyy-Www' };
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
      // A label or aria-labelledby target names its field even when the page hides it.
      if (n !== node && hiddenTree(n, s)) return;
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
    if (tag === 'input' && el.type === 'color') o.value = el.value;
    if (tag === 'input' && el.type === 'file') {  // what the browser shows next to it
      const files = Array.from(el.files || []).map((f) => f.name);
      o.value = files.length ? cap(files.join(', ')) : 'No file chosen';
    }
    if (role === 'slider' || role === 'spinbutton') {
      // A slider cannot be used without its range; a number field only shows a set one.
      const native = tag === 'input';
      let lo = native ? el.getAttribute('min') : aria('aria-valuemin');
      let hi = native ? el.getAttribute('max') : aria('aria-valuemax');
      if (role === 'slider' && native) { lo = lo || '0'; hi = hi || '100'; }
      if (lo && hi) o.range = `${lo}..${hi}`;
    }
    if (tag === 'select' && el.multiple) o.multiselectable = true;
    if ((tag === 'input' || tag === 'select' || tag === 'textarea') && el.required) o.required = true;
    else if (aria('aria-required') === 'true') o.required = true;
    if ((tag === 'input' || tag === 'textarea') && el.readOnly && VALUED.has(role)) o.readonly = true;
    else if (aria('aria-readonly') === 'true') o.readonly = true;
    if (aria('aria-invalid') === 'true') o.invalid = true;
    if (el === focusedEl && role !== 'iframe') o.focused = true;
    if (tag === 'input' && el.type === 'password') o.password = true;
    if (tag === 'input' && FORMATS[el.type]) o.format = FORMATS[el.type];
    return o;
  };

  return { SKIP, WIDGET, QUIET, INLINE, css, clean, cap, kids, hiddenTree,
    textOf, roleOf, nameOf, statesOf };
}
