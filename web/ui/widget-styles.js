// SPDX-License-Identifier: MIT
// The stylesheet of <llm-memory>'s shadow root. The widget renders with the page's own render functions
// (results-table.js, stacked-bar.js, knobs.js, settings-form.js), so these rules style the same class names
// as web/styles.css, scoped to the shadow root: nothing leaks in from the host page or out to it.
// The colours are the page's palette (palette.css, matched here by :host), each overridable by its
// --llm-memory-* custom property (they inherit through the shadow boundary); theming goes through those and
// the parts (docs/embedding.md, "Theming"). Light or dark is the widget's `theme` (widget.js): DARK_CSS is
// adopted over WIDGET_CSS when it shows dark. The widget lays itself out by its own width (container queries),
// not the viewport's, because a blog column can be narrow on a wide screen.

import PALETTE_CSS from "./palette.css";
import RESULTS_CSS from "./results.css";

/**
 * palette.css as two parts: its light palette (before the prefers-color-scheme block), and the rules inside that
 * block. The widget picks the palette itself (its `theme` attribute, or for auto the host page's scheme:
 * widget.js hostScheme), so neither part depends on the reader's media query.
 */
function splitPalette(text) {
  const at = text.indexOf("@media");
  const open = text.indexOf("{", at);
  if (at < 0 || open < 0 || !/prefers-color-scheme:\s*dark/.test(text.slice(at, open))) throw new Error("palette.css: no dark block");
  return { light: text.slice(0, at), dark: text.slice(open + 1, text.lastIndexOf("}")) };
}

const PALETTE = splitPalette(PALETTE_CSS);

/** The dark palette, a second stylesheet adopted over WIDGET_CSS when the widget shows dark. */
export const DARK_CSS = `${PALETTE.dark}
:host { color-scheme: dark; }
`;

export const WIDGET_CSS = `
${PALETTE.light}
:host {
  all: initial;
  display: block;
  container-type: inline-size;
  color-scheme: light;
  background: var(--bg);
  color: var(--fg);
  border: 1px solid var(--line);
  border-radius: var(--radius);
  padding: 0.75rem;
  margin: 1rem 0;
  font-family: var(--llm-memory-font, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif);
  font-size: var(--llm-memory-font-size, 15px);
  line-height: 1.45;
  text-align: left;
  overflow-wrap: normal;
}

:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
[hidden] { display: none !important; }
p { margin: 0.25rem 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.muted { color: var(--muted); }
.visually-hidden {
  position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
}

.title { margin: 0 0 0.25rem; font-size: 1em; font-weight: 700; }
.problems {
  border-left: 4px solid var(--bad); background: var(--bad-bg); padding: 0.35rem 0.6rem; margin: 0 0 0.5rem;
  font-size: 0.9em; overflow-wrap: anywhere;
}
.problems ul { margin: 0; padding-left: 1.1rem; }
.status { color: var(--muted); }
.field-error { color: var(--bad); margin: 0.25rem 0 0; font-size: 0.9em; overflow-wrap: anywhere; }

/* Controls: the page's pickers and settings form, flattened into a grid. */
button, input, select, textarea { font: inherit; color: inherit; }
button {
  background: var(--accent); color: var(--bg); border: 1px solid var(--accent); border-radius: var(--radius);
  padding: 0.25rem 0.7rem; cursor: pointer; min-height: 2rem;
}
button.secondary { background: transparent; color: var(--accent); }
input[type="text"], input[type="search"], select {
  background: var(--bg); border: 1px solid var(--line); border-radius: var(--radius);
  padding: 0.25rem 0.45rem; min-height: 2rem; min-width: 0;
}
[aria-invalid] { border-color: var(--bad); box-shadow: 0 0 0 1px var(--bad); }
.controls { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: 0.5rem 0.75rem; margin-bottom: 0.5rem; }
.controls:empty { display: none; }
.controls .form { display: contents; }
.picker > label, .field > label { display: block; font-weight: 600; font-size: 0.9em; }
.picker .control, .field .control { display: flex; gap: 0.4rem; align-items: center; margin: 0.1rem 0; }
.picker input, .picker select, .field .control input[type="text"], .field .control select { flex: 1 1 auto; width: 100%; }
.picker .control button { display: none; }
.picker-info { margin: 0.1rem 0 0; color: var(--muted); font-size: 0.8em; overflow-wrap: anywhere; }
.picker-info strong { color: var(--fg); }
details.group { display: contents; }
details.group > summary { display: none; }
fieldset { display: contents; border: 0; margin: 0; padding: 0; }
.field { min-width: 0; }
.field .unit { color: var(--muted); font-size: 0.85em; white-space: nowrap; }
.field .help { margin: 0; color: var(--muted); font-size: 0.8em; }
.field input[type="checkbox"] { width: 1.2rem; height: 1.2rem; }
button.reset { min-height: 1.6rem; padding: 0 0.4rem; background: transparent; color: var(--accent); }

/* Results: the rules shared with the page (web/ui/results.css), then the widget's sizes. */
${RESULTS_CSS}
.summary-line { color: var(--muted); margin: 0.25rem 0; }
.notes { margin: 0.25rem 0; padding-left: 1.25rem; font-size: 0.85em; color: var(--muted); }
.verdict { padding: 0.4rem 0.65rem; margin: 0.4rem 0; }
.bar { width: calc(100% - 0.25rem); height: 1.75rem; margin: 1.6rem 0.25rem 0.5rem 0; }
.capacity-label { font-size: 0.78em; }
.legend { gap: 0.2rem 0.9rem; margin: 0 0 0.5rem; font-size: 0.82em; }
.swatch { width: 0.75rem; height: 0.75rem; margin-right: 0.3rem; }

table { font-size: 0.9em; color: inherit; background: transparent; }
th, td { padding: 0.25rem 0.45rem; border: 0; border-bottom: 1px solid var(--line); color: inherit; background: transparent; font-size: inherit; }
tr.item th { padding-left: 1.5rem; }
.knobs-table .knob-note { font-size: 0.8em; }

/* The heatmap (heatmap.js): the canvas takes the figure's width. */
.heatmap { margin: 0.5rem 0; }
.heatmap figcaption, .heatmap details { font-size: 0.85em; }
:host([compact]) .heatmap details { display: none; }

.footer { margin: 0.4rem 0 0; font-size: 0.78em; color: var(--muted); }
.footer a { color: var(--accent); }

/* compact: buckets and total only, no formulas, no help text. */
:host([compact]) { padding: 0.5rem; }
:host([compact]) tr.item, :host([compact]) .how, :host([compact]) .help, :host([compact]) .picker-info,
:host([compact]) .legend, :host([compact]) .notes, :host([compact]) caption,
:host([compact]) .results-table thead th:nth-child(4) { display: none; }

/* Narrow columns (a phone reading a blog): drop the formula column, keep bytes and shares. */
@container (max-width: 560px) {
  .how, .results-table thead th:nth-child(4), .knobs-table td:nth-child(2), .knobs-table th:nth-child(2) { display: none; }
  .controls { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); }
}
@container (max-width: 360px) {
  .controls { grid-template-columns: minmax(0, 1fr); }
  .share, .knobs-table td:nth-child(4), .knobs-table th:nth-child(4) { display: none; }
  th, td { padding: 0.25rem 0.3rem; }
}
`;
