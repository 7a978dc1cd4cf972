/**
 * A tiny DOM builder. Every string becomes a text node or an attribute value, never HTML, so
 * data from runs (names, inputs, error messages) is always shown as text.
 */

/**
 * `h('a', { href, class: 'x', dataset: { testid: 'y' }, onclick }, 'text', child)`.
 * Props left `undefined`, `null` or `false` are skipped; `true` sets an empty attribute.
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on')) {
      // Handlers are functions only: an inline `on…` attribute would be code from a string.
      if (typeof value !== 'function') throw new TypeError(`${key}: expected a function`);
      el.addEventListener(key.slice(2), value);
    } else if (key === 'value') el.value = String(value);
    else el.setAttribute(key === 'className' ? 'class' : key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children: nodes as they are, strings and numbers as text; nullish and `false` skipped. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces the children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/**
 * Re-renders `el` with `render()` while keeping what the user typed: fields marked
 * `data-keep="<key>"` get their value back, and the focused one its focus and selection.
 */
export function rerender(el, render) {
  const kept = new Map();
  for (const field of el.querySelectorAll('[data-keep]')) kept.set(field.dataset.keep, field.value);
  const active = document.activeElement;
  const focusKey = active && el.contains(active) ? active.dataset.keep : undefined;
  const selection = focusKey && 'selectionStart' in active ? [active.selectionStart, active.selectionEnd] : undefined;
  replace(el, render());
  for (const field of el.querySelectorAll('[data-keep]')) {
    if (kept.has(field.dataset.keep)) field.value = kept.get(field.dataset.keep);
    if (field.dataset.keep === focusKey) {
      field.focus();
      if (selection) field.setSelectionRange(selection[0], selection[1]);
    }
  }
}
