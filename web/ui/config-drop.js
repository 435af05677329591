// SPDX-License-Identifier: MIT
// "Paste or drop your config.json": a text area that also takes a dropped, pasted or chosen file. A file dropped
// anywhere on the page is read (the browser would otherwise open it in place of the app), and config.json text
// pasted into the field, or anywhere outside another field, applies at once. The text is parsed by the core
// (parseConfig); a .safetensors or .gguf file's header alone (File.slice, bounded by the core's limits) is read
// by the core's checkpoint readers, as the CLI's --safetensors and --gguf read it. Errors show next to the field.
// Events:
//   "config"     {settings}                       architecture settings read from a valid config.json
//   "checkpoint" {settings, checkpoint, kind, name} what a checkpoint header gives (checkpoint: readCheckpoint's
//                                                 object; settings: params, and a GGUF's architecture settings)
// The reading code (checkpoint-read.js) is imported on the first file dropped, pasted or chosen: a chunk of its
// own on the hosted page (docs/web.md, "Start-up"); the listeners are installed at start.
import { h, replace } from "./dom.js";
import { formatCount } from "./format.js";
import { noticeLines } from "./notice.js";

/** True for a form field or editable text, where a drop or a paste belongs to the field. */
const editable = (node) => node instanceof Element && (node.closest("input, textarea, select, [contenteditable]") !== null);

export class ConfigDrop extends EventTarget {
  #text;
  #error;
  #status;
  #parse;
  #checkpoint;
  #details;
  #zone;

  /**
   * `parse(text)` -> (a promise of) {ok: true, settings} | {ok: false, errors} (the engine's parseConfig);
   * `checkpoint` the engine's readCheckpoint (kind, bytes, size, name), for .safetensors and .gguf files (none:
   * they are refused).
   * `page`: where a file dropped or text pasted outside any field is taken (default: the document).
   */
  constructor(container, parse, { checkpoint = null, page = globalThis.document } = {}) {
    super();
    this.#parse = parse;
    this.#checkpoint = checkpoint;
    this.#text = h("textarea", {
      id: "config-text", rows: 6, spellcheck: "false", autocomplete: "off",
      placeholder: '{"hidden_size": 4096, "num_hidden_layers": 32, …}', "aria-describedby": "config-help config-error",
    });
    // Pasting a whole config.json applies it at once; typed text waits for the button.
    this.#text.addEventListener("input", (event) => {
      if (event.inputType === "insertFromPaste" || event.inputType === "insertFromDrop") this.#apply();
    });
    const file = h("input", { type: "file", id: "config-file", accept: ".json,application/json,.safetensors,.gguf" });
    file.addEventListener("change", async () => {
      if (file.files?.[0]) await this.load(file.files[0]);
      file.value = "";
    });
    const apply = h("button", { type: "button", text: "Use this config" });
    apply.addEventListener("click", () => this.#apply());
    this.#error = h("div", { class: "field-error", id: "config-error", role: "alert", hidden: true });
    this.#status = h("div", { class: "picker-info", id: "config-status", role: "status" });
    this.#zone = h("div", { class: "drop-zone" },
      h("label", { for: "config-text", text: "config.json (Hugging Face)" }),
      this.#text,
      h("p", { class: "help", id: "config-help",
               text: "Paste the text, drop the file anywhere on the page, or choose it. The architecture settings it holds replace the model preset. A .safetensors or .gguf file gives the exact parameter count and bytes by type (only its header is read). Nothing leaves this page." }),
      h("div", { class: "control" }, apply, h("label", { class: "file-button" }, "Choose file…", file)),
      this.#error, this.#status);
    this.#details = h("details", { class: "group config" },
      h("summary", {}, h("h3", { text: "Paste or drop a config.json, .safetensors or .gguf" })), this.#zone);
    container.replaceChildren(this.#details);
    if (page) this.#listen(page);
  }

  /** Drops and pastes anywhere on `page`. */
  #listen(page) {
    const has_files = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
    page.addEventListener("dragover", (event) => {
      // Without this the browser opens a dropped file in place of the app.
      if (!has_files(event) && editable(event.target)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
      this.#zone.classList.add("dragging");
    });
    page.addEventListener("dragleave", (event) => {
      if (event.relatedTarget === null) this.#zone.classList.remove("dragging");
    });
    page.addEventListener("drop", async (event) => {
      this.#zone.classList.remove("dragging");
      const dropped = event.dataTransfer?.files?.[0];
      if (!dropped && editable(event.target) && event.target !== this.#text) return;
      event.preventDefault();
      if (dropped) await this.load(dropped);
      else if (event.dataTransfer?.getData("text/plain").trim().startsWith("{")) this.#take(event.dataTransfer.getData("text/plain"));
    });
    page.addEventListener("paste", async (event) => {
      if (editable(event.target)) return;  // the field's own paste (this one's applies through "input")
      const pasted = event.clipboardData?.files?.[0];
      const text = event.clipboardData?.getData("text/plain") ?? "";
      if (!pasted && !text.trim().startsWith("{")) return;
      event.preventDefault();
      if (pasted) await this.load(pasted);
      else this.#take(text);
    });
  }

  /** Shows `text` in the field and applies it. */
  #take(text) {
    this.#details.open = true;
    this.#text.value = text;
    this.#apply();
  }

  /** Reads a file: a config.json's text, or a checkpoint's header. */
  async load(file) {
    this.#details.open = true;
    let reader;
    try {
      reader = await import("./checkpoint-read.js");
    } catch {
      this.#showErrors([{ setting: file.name, message: "the page's file reader could not be fetched (no network?)" }]);
      return;
    }
    const { MAX_CONFIG_BYTES, describeCheckpoint, fileKind, readCheckpointHeader } = reader;
    const kind = await fileKind(file);
    if (kind === "json") {
      if (file.size > MAX_CONFIG_BYTES) {
        this.#showErrors([{ setting: "config.json", message: `${file.name} has ${formatCount(file.size)} bytes; a config.json is read up to ${formatCount(MAX_CONFIG_BYTES)}` }]);
        return;
      }
      this.#text.value = await file.text();
      this.#apply();
      return;
    }
    if (!this.#checkpoint) {
      this.#showErrors([{ setting: kind, message: `${file.name}: checkpoint files are not read here` }]);
      return;
    }
    this.#status.textContent = `Reading the header of ${file.name}…`;
    const result = await readCheckpointHeader(this.#checkpoint, {
      kind, size: file.size, name: file.name,
      read: async (start, end) => new Uint8Array(await file.slice(start, end).arrayBuffer()),
    });
    if (!result.ok) {
      this.#showErrors(result.errors);
      return;
    }
    this.#clearErrors();
    const format = kind === "gguf" ? `GGUF (${result.architecture})` : "safetensors";
    replace(this.#status, h("strong", { text: file.name }), `: ${format} header · ${describeCheckpoint(result.checkpoint)}`);
    this.dispatchEvent(new CustomEvent("checkpoint", { detail: { settings: result.settings, checkpoint: result.checkpoint, kind, name: file.name } }));
  }

  #showErrors(errors) {
    // Capped as the notice is: a hostile file cannot fill the page.
    const lines = noticeLines(errors.map((e) => ({ setting: e.setting, message: `${e.setting}: ${e.message}` })));
    this.#error.replaceChildren(...lines.map((text) => h("p", { text })));
    this.#error.hidden = false;
    this.#text.setAttribute("aria-invalid", "true");
    this.#status.textContent = "";
  }

  #clearErrors() {
    this.#error.hidden = true;
    this.#text.removeAttribute("aria-invalid");
  }

  async #apply() {
    const result = await this.#parse(this.#text.value);
    if (!result.ok) {
      this.#showErrors(result.errors);
      return;
    }
    this.#clearErrors();
    const count = Object.keys(result.settings).length;
    this.#status.textContent = `Read ${count} architecture setting${count === 1 ? "" : "s"} from config.json.`;
    this.dispatchEvent(new CustomEvent("config", { detail: { settings: result.settings } }));
  }
}
