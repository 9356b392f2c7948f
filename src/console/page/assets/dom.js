/** Small DOM helpers: elements are built with `h`, and text is only ever set as text, never as HTML. */

/**
 * @typedef {string | number | boolean | null | undefined | ((event: any) => void)} PropValue
 * @typedef {Node | string | number | null | undefined | false} Child
 */

/**
 * Creates an element. `on…` props are listeners; `value`, `checked` and `selected` are set as
 * properties; `true` sets an empty attribute; `false`, `null` and `undefined` set nothing.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, PropValue>} [props]
 * @param {(Child | Child[])[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'value' || name === 'checked' || name === 'selected') {
      /** @type {any} */ (element)[name] = value;
    } else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {(Child | Child[])[]} children
 */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'number' ? String(child) : child);
  }
}

/**
 * Replaces an element's content.
 * @param {Element} parent
 * @param {(Child | Child[])[]} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

let counter = 0;

/** A fresh id for `for`, `aria-describedby` and friends. @param {string} prefix */
export const uid = (prefix) => `${prefix}-${++counter}`;

/**
 * Finds an element the page's HTML is known to have.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}

/** A date from unix seconds, as people read it here. @param {number} seconds */
export const when = (seconds) =>
  new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
