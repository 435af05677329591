// SPDX-License-Identifier: MIT
// index.html holds the default settings' result, prerendered at build time (scripts/prerender.mjs), hidden
// until this module has seen that the link carries no settings (html[data-default]; styles.css). It is listed
// with blocking="render", so where that is supported (Chromium) it runs before the first paint and the result
// is on the first frame; elsewhere the result shows a moment later. Never on a link with settings: that one
// waits for app.js to draw its own.
if (![...new URLSearchParams(location.search).keys()].some((key) => key !== "v")) {
  document.documentElement.dataset.default = "";
}
