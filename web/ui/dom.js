// SPDX-License-Identifier: MIT
// The only way the page makes elements: text goes in through textContent (Node text), never as markup, so a
// preset name, a config.json string or a URL value can never become HTML (docs/web.md, "Security").

/**
 * Creates an element. `props`: `class`, `text`, `dataset` (object), `on` (event -> handler), any other key
 * is set as an attribute (false/null/undefined skip it, true sets it empty). Children: nodes or strings
 * (strings become text nodes); null/false children are skipped; arrays are flattened.
 */
export function h(tag, props = {}, ...children) {
  return build(document.createElement(tag), props, children);
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Creates an SVG element, with the props and children of h(). Geometry goes in attributes, never in a style
 * attribute: the page's Content-Security-Policy blocks inline styles in prerendered markup (docs/web.md).
 */
export function svg(tag, props = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

function build(element, props, children) {
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") element.setAttribute("class", value);
    else if (key === "text") element.textContent = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "on") for (const [type, handler] of Object.entries(value)) element.addEventListener(type, handler);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent` with `children` (same rules as h). */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

let next_id = 0;
/** A document-unique id for label/aria wiring. */
export function uid(prefix) {
  next_id += 1;
  return `${prefix}-${next_id}`;
}
