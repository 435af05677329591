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
export function embedSnippets({ overrides, keys, base, controls = DEFAULT_EMBED_CONTROLS, theme = "auto" }) {
  // The widget's defaults are the page's; naming the model and GPU anyway makes the snippet read on its own.
  const settings = { ...PAGE_DEFAULTS, ...overrides };
  /** The element's attributes as [name, value] (the preview sets the same). */
  const pairs = keys.filter((key) => Object.hasOwn(settings, key)).map((key) => [key, String(settings[key])]);
  if (controls !== "") pairs.push(["controls", controls]);
  if (theme !== "auto") pairs.push(["theme", theme]);
  const attributes = pairs.map(([name, value]) => ` ${name}="${attribute(value)}"`);
  const element = `<script type="module" src="${attribute(new URL("widget.js", base))}"></script>\n` +
    `<llm-memory${attributes.join("")}></llm-memory>`;
  const query = new URLSearchParams(writeQuery(overrides, keys));
  query.set("controls", controls);
  if (theme !== "auto") query.set("theme", theme);
  // Commas may stand in a query as they are; the snippet reads better with them.
  const src = new URL(`embed.html?${String(query).replace(/%2C/g, ",")}`, base);
  const iframe = `<iframe class="llm-memory" src="${attribute(src)}" title="GPU memory calculator (llm-memory)" ` +
    `loading="lazy" style="width: 100%; height: 640px; border: 0"></iframe>\n${RESIZE_SCRIPT}`;
  return { element, iframe, attributes: pairs };
}

/**
 * The Embed dialog, added to `container` (which holds the page's Embed button: app.js imports this module on its
 * first click). `current()` returns {overrides, keys} when the dialog opens.
 */
export class EmbedDialog {
  #dialog;
  #fields;
  #controls;
  #current;
  #base;
  #theme;
  #preview;
  #preview_status;

  constructor(container, current, { base = new URL(".", location.href) } = {}) {
    this.#current = current;
    this.#base = base;
    const controls_id = uid("embed-controls");
    this.#controls = h("input", { type: "text", id: controls_id, value: DEFAULT_EMBED_CONTROLS, spellcheck: "false",
                                  autocomplete: "off", "aria-describedby": `${controls_id}-help` });
    this.#controls.addEventListener("input", () => this.#fill());
    const theme_id = uid("embed-theme");
    this.#theme = h("select", { id: theme_id },
      ["auto", "light", "dark"].map((value) => h("option", { value, text: value === "auto" ? "auto (the host page's, then the reader's)" : value })));
    this.#theme.addEventListener("change", () => this.#fill());
    this.#preview_status = h("p", { class: "help", role: "status" });
    this.#preview = h("div", { class: "embed-preview" });
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
      h("div", { class: "field" }, h("label", { for: theme_id, text: "Colours (theme)" }), this.#theme),
      location.protocol === "http:" || location.protocol === "https:" ? null
        : h("p", { class: "help", text: "This copy of the calculator is not on a web server: host the dist/ folder (widget.js, llm-memory.wasm, embed.html) and put its address in the snippets." }),
      this.#fields.element.block, this.#fields.iframe.block,
      h("section", { class: "embed-preview-section", "aria-label": "Preview of the embedded calculator" },
        h("h3", { text: "Preview" }), this.#preview_status, this.#preview),
      h("div", { class: "dialog-actions" }, close));
    container.append(this.#dialog);
  }

  /** Shows the dialog with the snippets for the current state. */
  open() {
    this.#fill();
    this.#dialog.showModal();
  }

  #fill() {
    const snippets = embedSnippets({ ...this.#current(), base: this.#base, controls: this.#controls.value.trim(), theme: this.#theme.value });
    this.#fields.element.text.value = snippets.element;
    this.#fields.iframe.text.value = snippets.iframe;
    this.#showPreview(snippets.attributes);
  }

  /**
   * The snippet rendered: an <llm-memory> with the snippet's attributes, from the widget.js the snippet loads
   * (so it is what a host page will show), updated on every edit of the dialog.
   */
  async #showPreview(attributes) {
    const widget_url = new URL("widget.js", this.#base);
    if (widget_url.protocol !== "http:" && widget_url.protocol !== "https:") {
      this.#preview_status.textContent = "The preview needs the calculator on a web server (widget.js beside the page).";
      return;
    }
    try {
      await import(/* the widget's own bundle, as the snippet loads it */ String(widget_url));
    } catch {
      this.#preview_status.textContent = `The preview could not load ${widget_url}.`;
      return;
    }
    this.#preview_status.textContent = "";
    let widget = this.#preview.querySelector("llm-memory");
    if (!widget) {
      widget = document.createElement("llm-memory");
      this.#preview.replaceChildren(widget);
    }
    const wanted = new Map(attributes);
    for (const { name } of [...widget.attributes]) if (!wanted.has(name)) widget.removeAttribute(name);
    for (const [name, value] of wanted) if (widget.getAttribute(name) !== value) widget.setAttribute(name, value);
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
