// SPDX-License-Identifier: MIT
// dist/embed.html: the calculator for an <iframe>, for hosts that allow no scripts (docs/embedding.md).
// The query is the page's (state.js: ?v=1&model=llama-2-7b&seq=4096) plus the widget's own attributes
// (controls, compact, show); it becomes one <llm-memory> element. The frame reports its height to the
// parent on every change, as {type: "llm-memory:height", height} (CSS pixels), so the host can size it.
import { readQuery, writeQuery } from "./state.js";
import { Notice } from "./ui/notice.js";
import { h } from "./ui/dom.js";
import PALETTE_CSS from "./ui/palette.css";
import { LlmMemoryElement, WIDGET_ATTRIBUTES, sharedEngine } from "./widget-define.js";

/** The reader's controls when the link names none (`controls=` with no value: read-only). */
export const EMBED_CONTROLS = "model,gpu,mode,finetune,batch,seq";

// The notice takes its colour from the page's palette (ui/palette.css, matched here by :root).
const EMBED_CSS = `${PALETTE_CSS}
html, body { margin: 0; padding: 0; background: transparent; }
main { display: flow-root; }
llm-memory { margin: 0; }
.notice { font: 14px system-ui, sans-serif; color: var(--bad); margin: 0 0 0.5rem; display: flex; gap: 0.5rem; }
.notice[hidden] { display: none; }
.notice ul, .notice p { margin: 0.15rem 0; }
.notice button { font: inherit; color: inherit; background: none; border: 1px solid; border-radius: 4px; cursor: pointer; }
.open { font: 13px system-ui, sans-serif; margin: 0.35rem 0 0; text-align: right; }
`;

function reportHeight(main) {
  if (window.parent === window) return;
  let last = -1;
  new ResizeObserver(() => {
    const height = Math.ceil(main.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: "llm-memory:height", height }, "*");
  }).observe(main);
}

async function main() {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(EMBED_CSS);
  document.adoptedStyleSheets = [sheet];
  const container = document.getElementById("embed");
  reportHeight(container);
  const engine = await sharedEngine().catch(() => null);
  const widget = new LlmMemoryElement();
  const params = new URLSearchParams(location.search);
  widget.setAttribute("controls", params.get("controls") ?? EMBED_CONTROLS);
  for (const name of ["compact", "show", "theme"]) if (params.has(name)) widget.setAttribute(name, params.get(name));
  const notice = h("div", { class: "notice", role: "status", hidden: true });
  let query = "";
  if (engine) {
    const { overrides, problems } = readQuery(location.search, new Set([...engine.keys, ...WIDGET_ATTRIBUTES]));
    for (const name of WIDGET_ATTRIBUTES) delete overrides[name];
    widget.settings = overrides;
    new Notice(notice).show("Ignored in this link:", problems);
    query = writeQuery(overrides, engine.keys);
  }
  const open = h("p", { class: "open" },
    h("a", { href: `index.html${query}`, target: "_blank", rel: "noopener", text: "Open in the full calculator ↗" }));
  container.replaceChildren(notice, widget, open);
}

main();
