// SPDX-License-Identifier: MIT
// The page's config drop before its code is in: the closed "Paste or drop a config.json…" group and the page-wide
// drop and paste listeners. A file dropped anywhere is taken (the browser would otherwise open it in place of the
// app), and so is config.json text pasted outside any field. The drop zone itself (config-drop.js: the text area,
// the file reading, the errors) is imported when the group is first opened or a file or config.json text first
// arrives, a chunk of its own (docs/web.md, "Start-up"), so the page's first load goes without it.
import { h } from "./dom.js";

/** True for a form field or editable text, where a drop or a paste belongs to the field. */
const editable = (node) => node instanceof Element && node.closest("input, textarea, select, [contenteditable]") !== null;

/** Whether a drag carries files. */
const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");

/**
 * Shows the closed group in `container` and listens on `page` (the document). `make(details)` resolves to the drop
 * zone built inside that group (config-drop.js ConfigDrop); it is called on the group's first opening or the first
 * file or text taken, and again after a failed import.
 */
export function lazyConfigDrop(container, make, page = globalThis.document) {
  const details = h("details", { class: "group config" },
    h("summary", {}, h("h3", { text: "Paste or drop a config.json, .safetensors or .gguf" })));
  container.replaceChildren(details);
  let zone = null;
  const drop = () => (zone ??= make(details).catch(() => {
    zone = null;
    details.open = true;
    details.append(h("p", { class: "field-error", role: "alert", text: "The page's file reader could not be fetched (no network?)." }));
    return null;
  }));
  details.addEventListener("toggle", () => details.open && drop());
  const marked = (on) => zone?.then((taken) => taken?.dragging(on));
  page.addEventListener("dragover", (event) => {
    if (!hasFiles(event) && editable(event.target)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    drop();
    marked(true);
  });
  page.addEventListener("dragleave", (event) => {
    if (event.relatedTarget === null) marked(false);
  });
  page.addEventListener("drop", (event) => {
    marked(false);
    // Read now: a drag's data is readable only while its event is dispatched.
    const file = event.dataTransfer?.files?.[0];
    const text = event.dataTransfer?.getData("text/plain") ?? "";
    if (!file && editable(event.target) && event.target.id !== "config-text") return;
    event.preventDefault();
    if (file) drop().then((taken) => taken?.load(file));
    else if (text.trim().startsWith("{")) drop().then((taken) => taken?.take(text));
  });
  page.addEventListener("paste", (event) => {
    if (editable(event.target)) return;  // the field's own paste (the config text area's applies through "input")
    const file = event.clipboardData?.files?.[0];
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (!file && !text.trim().startsWith("{")) return;
    event.preventDefault();
    drop().then((taken) => (file ? taken?.load(file) : taken?.take(text)));
  });
}
