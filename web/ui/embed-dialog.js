// SPDX-License-Identifier: MIT
// The page's "Embed" button: a dialog with the two snippets that put the current settings into a blog post or
// docs page (docs/embedding.md): the script tag + <llm-memory> element, and the <iframe> of embed.html for
// hosts that allow no scripts. The widget and the embed read the same keys as the page's URL, over the same
// PAGE_DEFAULTS, so both snippets show exactly what the page shows.
import { PAGE_DEFAULTS, writeQuery } from "../state.js";
import { h, uid } from "./dom.js";

/** What the reader of the embedded calculator may change, unless the author edits the list. */
export const DEFAULT_EMBED_CONTROLS = "model,gpu,mode,batch,seq";

/** An attribute value as HTML text (inside double quotes). */
const attribute = (text) => String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** Sizes the iframe to the height the embed reports (optional; the frame works without it). */
const RESIZE_SCRIPT = '<script>addEventListener("message", (e) => { if (e.data?.type !== "llm-memory:height") return; ' +
  'for (const f of document.querySelectorAll("iframe.llm-memory")) if (f.contentWindow === e.source) f.style.height = e.data.height + "px"; });</script>';

/**
 * The two snippets for `overrides` (the page state's overrides; key -> text). `keys`: settings keys in table
 * order; `base`: URL of the folder holding widget.js and embed.html; `controls`: settings the reader may
 * change ("" = read-only). Returns {element, iframe} as HTML text.
 */
export function embedSnippets({ overrides, keys, base, controls = DEFAULT_EMBED_CONTROLS }) {
  // The widget's defaults are the page's; naming the model and GPU anyway makes the snippet read on its own.
  const settings = { ...PAGE_DEFAULTS, ...overrides };
  const attributes = keys.filter((key) => Object.hasOwn(settings, key)).map((key) => ` ${key}="${attribute(settings[key])}"`);
  if (controls !== "") attributes.push(` controls="${attribute(controls)}"`);
  const element = `<script type="module" src="${attribute(new URL("widget.js", base))}"></script>\n` +
    `<llm-memory${attributes.join("")}></llm-memory>`;
  const query = new URLSearchParams(writeQuery(overrides, keys));
  query.set("controls", controls);
  // Commas may stand in a query as they are; the snippet reads better with them.
  const src = new URL(`embed.html?${String(query).replace(/%2C/g, ",")}`, base);
  const iframe = `<iframe class="llm-memory" src="${attribute(src)}" title="GPU memory calculator (llm-memory)" ` +
    `loading="lazy" style="width: 100%; height: 640px; border: 0"></iframe>\n${RESIZE_SCRIPT}`;
  return { element, iframe };
}

/** The Embed button and its dialog. `current()` returns {overrides, keys} when the dialog opens. */
export class EmbedDialog {
  #dialog;
  #fields;
  #controls;
  #current;
  #base;

  constructor(container, current, { base = new URL(".", location.href) } = {}) {
    this.#current = current;
    this.#base = base;
    const controls_id = uid("embed-controls");
    this.#controls = h("input", { type: "text", id: controls_id, value: DEFAULT_EMBED_CONTROLS, spellcheck: "false",
                                  autocomplete: "off", "aria-describedby": `${controls_id}-help` });
    this.#controls.addEventListener("input", () => this.#fill());
    this.#fields = {
      element: this.#snippet("Script and element (pages that allow scripts)", 4),
      iframe: this.#snippet("iframe (hosts that allow no scripts; the script line is optional and fits the frame to its content)", 7),
    };
    const close = h("button", { type: "button", class: "secondary", text: "Close", on: { click: () => this.#dialog.close() } });
    this.#dialog = h("dialog", { class: "embed-dialog", "aria-labelledby": `${controls_id}-title` },
      h("h2", { id: `${controls_id}-title`, text: "Embed this calculator" }),
      h("div", { class: "field" },
        h("label", { for: controls_id, text: "Settings readers may change" }),
        this.#controls,
        h("p", { class: "help", id: `${controls_id}-help`, text: "Comma-separated settings keys; empty = read-only." })),
      location.protocol === "http:" || location.protocol === "https:" ? null
        : h("p", { class: "help", text: "This copy of the calculator is not on a web server: host the dist/ folder (widget.js, llm-memory.wasm, embed.html) and put its address in the snippets." }),
      this.#fields.element.block, this.#fields.iframe.block,
      h("div", { class: "dialog-actions" }, close));
    const open = h("button", { type: "button", id: "embed-open", class: "secondary", text: "Embed",
                               on: { click: () => this.open() } });
    container.replaceChildren(open, this.#dialog);
  }

  /** Shows the dialog with the snippets for the current state. */
  open() {
    this.#fill();
    this.#dialog.showModal();
  }

  #fill() {
    const snippets = embedSnippets({ ...this.#current(), base: this.#base, controls: this.#controls.value.trim() });
    this.#fields.element.text.value = snippets.element;
    this.#fields.iframe.text.value = snippets.iframe;
  }

  #snippet(title, rows) {
    const id = uid("embed-snippet");
    const text = h("textarea", { id, readonly: true, rows, spellcheck: "false", class: "snippet" });
    const status = h("span", { class: "muted", role: "status" });
    const copy = h("button", { type: "button", text: "Copy", on: { click: async () => {
      try {
        await navigator.clipboard.writeText(text.value);
        status.textContent = "Copied.";
      } catch {
        text.select();
        status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
      }
    } } });
    return { text, block: h("div", { class: "field snippet-field" }, h("label", { for: id, text: title }), text,
                            h("div", { class: "control" }, copy, status)) };
  }
}
