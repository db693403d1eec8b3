// Element fingerprints for the coverage check: the same code runs against both
// observations (each in its own browser), so an element is matched by where it sits
// in the DOM, whatever id each side gave it.
//
// Called with an element: its path in its document. Called with nothing: a map
// {bid attribute value: path} for every element of the document (open shadow roots too).
(target) => {
  const step = (el) => {
    const parent = el.parentNode;
    const siblings = parent ? Array.from(parent.children || []) : [];
    return `${el.localName}[${siblings.indexOf(el)}]`;
  };
  const pathOf = (el) => {
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1) {
      parts.push(step(node));
      const parent = node.parentNode;
      if (parent && parent.nodeType === 11 && parent.host) {  // crossing a shadow root
        parts.push('#shadow');
        node = parent.host;
      } else {
        node = parent;
      }
    }
    return parts.reverse().join('/');
  };
  if (target) return pathOf(target);
  const out = {};
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const bid = el.getAttribute('bid');
      if (bid !== null) out[bid] = pathOf(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return out;
}
