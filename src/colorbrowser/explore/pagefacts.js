// What the rules need to know about the page that the observation does not carry:
// where links lead, which form a button submits and how, what a toggle controls,
// which options a select offers; and label/value pairs and table cells that page
// questions can be asked about. Main document only; read-only.
() => {
  const clean = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 200);
  const els = {};
  for (const el of document.querySelectorAll("[bid]")) {
    const bid = el.getAttribute("bid");
    const tag = el.localName;
    const f = {tag, type: (el.getAttribute("type") || "").toLowerCase()};
    if (tag === "a" && el.hasAttribute("href")) {
      f.href = el.href; f.raw_href = el.getAttribute("href");
      f.target = el.getAttribute("target") || ""; f.download = el.hasAttribute("download");
    }
    const form = el.form || (tag === "form" ? el : null);
    if (form) {
      const submitter = (tag === "button" && (f.type === "" || f.type === "submit"))
        || (tag === "input" && (f.type === "submit" || f.type === "image"));
      // getAttribute, not form.action: a field named "action" shadows the property.
      const own = new URL(form.getAttribute("action") || location.href, location.href).href;
      f.form = {action: (submitter && el.getAttribute("formaction")) ? el.formAction : own,
                method: ((submitter && el.getAttribute("formmethod")) || form.getAttribute("method")
                         || "get").toLowerCase(),
                id: Array.from(document.forms).indexOf(form),
                password: !!form.querySelector("input[type=password]")};
      f.submits = submitter;
      if (f.form.method === "get" && submitter) {
        try {
          const data = new FormData(form, el.name ? el : undefined);
          const q = new URLSearchParams();
          for (const [k, v] of data) if (typeof v === "string") q.append(k, v);
          const u = new URL(f.form.action, location.href); u.search = q.toString(); u.hash = "";
          f.form.url = u.href;
        } catch (e) { f.form.url = null; }
      }
      f.field = el.name || "";
    }
    if (el.hasAttribute("aria-expanded")) f.expanded = el.getAttribute("aria-expanded") === "true";
    if (tag === "summary" && el.parentElement && el.parentElement.localName === "details") {
      f.expanded = el.parentElement.open;
    }
    if (el.hasAttribute("aria-controls")) f.controls = el.getAttribute("aria-controls");
    if (tag === "select") {
      f.options = Array.from(el.options).map(o => [o.value, clean(o.label)]).slice(0, 50);
      f.selected = el.value; f.onchange = !!el.getAttribute("onchange");
    }
    if (tag === "input" || tag === "textarea") {
      f.empty = !el.value; f.required = el.required; f.readonly = el.readOnly;
    }
    if (el.getAttribute("onclick")) f.onclick = true;
    els[bid] = f;
  }
  const pairs = [];
  const add = (label, value, where) => {
    label = clean(label).replace(/:$/, ""); value = clean(value);
    if (label && value && label.length <= 60 && value.length <= 120 && label !== value) {
      pairs.push({label, value, where});
    }
  };
  for (const dt of document.querySelectorAll("dl > dt")) {
    const dd = dt.nextElementSibling;
    if (dd && dd.localName === "dd") add(dt.innerText, dd.innerText, "dl");
  }
  for (const tr of document.querySelectorAll("tr")) {
    const th = tr.querySelector(":scope > th"); const td = tr.querySelector(":scope > td");
    if (th && td && tr.children.length <= 4) add(th.innerText, td.innerText, "row");
  }
  for (const el of document.querySelectorAll("p, li")) {
    if (el.children.length > 3) continue;
    const m = clean(el.innerText).match(/^([A-Z][\w ]{1,30}):\s+(\S.{0,100})$/);
    if (m) add(m[1], m[2], "text");
  }
  const tables = [];
  for (const table of Array.from(document.querySelectorAll("table")).slice(0, 5)) {
    const heads = Array.from(table.querySelectorAll("thead th")).map(th => clean(th.innerText));
    if (heads.length < 2) continue;
    const rows = Array.from(table.querySelectorAll("tbody tr")).slice(0, 6)
      .map(tr => Array.from(tr.children).map(td => clean(td.innerText)));
    tables.push({heads: heads.slice(0, 10), rows: rows.filter(r => r.length === heads.length)});
  }
  const h1 = document.querySelector("h1");
  return JSON.stringify({elements: els, pairs: pairs.slice(0, 40), tables,
                         h1: h1 ? clean(h1.innerText) : "", text: clean(document.body ? document.body.innerText : "")
                         .slice(0, 200)});
}
