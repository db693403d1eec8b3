// Runs before any page script in every frame: remembers which elements get a
// pointer listener (addEventListener), so the walker can list clickable <div>s and
// <span>s that have no role, tabindex or onclick attribute (jQuery handlers, etc.).
(() => {
  if (window.__colorbrowserClicks) return;
  const marked = new WeakSet();
  const kinds = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown',
    'pointerup', 'touchstart']);
  Object.defineProperty(window, '__colorbrowserClicks', { value: marked, enumerable: false });
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function addEventListener(type, listener, options) {
    if (this && this.nodeType === 1 && kinds.has(type)) marked.add(this);
    return original.call(this, type, listener, options);
  };
})();
