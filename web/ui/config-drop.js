// SPDX-License-Identifier: MIT
// "Paste or drop your config.json": a text area that also takes a dropped, pasted or chosen file; config.json text
// pasted into the field applies at once. The text is parsed by the core (parseConfig); a .safetensors or .gguf
// file's header alone (File.slice, bounded by the core's limits) is read by the core's checkpoint readers, as the
// CLI's --safetensors and --gguf read it. Errors show next to the field. On the page it is built when first needed
// (drop-target.js, which holds the page-wide drop and paste listeners and hands it what they take).
// Events:
//   "config"     {settings}                       architecture settings read from a valid config.json
//   "checkpoint" {settings, checkpoint, kind, name} what a checkpoint header gives (checkpoint: readCheckpoint's
//                                                 object; settings: params, and a GGUF's architecture settings)
// The reading code (checkpoint-read.js) is imported on the first file dropped, pasted or chosen: a chunk of its
// own on the hosted page (docs/web.md, "Start-up").
import { h, replace } from "./dom.js";
import { formatCount } from "./format.js";
import { noticeLines } from "./notice.js";

export class ConfigDrop extends EventTarget {
  #text;
  #error;
  #status;
  #parse;
  #checkpoint;
  #details;
  #zone;

  /**
   * Builds the zone into `details` (the closed group drop-target.js shows). `parse(text)` -> (a promise of)
   * {ok: true, settings} | {ok: false, errors} (the engine's parseConfig); `checkpoint` the engine's
   * readCheckpoint (kind, bytes, size, name), for .safetensors and .gguf files (none: they are refused).
   */
  constructor(details, parse, { checkpoint = null } = {}) {
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
    this.#details = details;
    details.append(this.#zone);
  }

  /** Marks the zone while a drag is over the page. */
  dragging(on) {
    this.#zone.classList.toggle("dragging", on);
  }

  /** Shows `text` (a config.json dropped or pasted on the page) in the field and applies it. */
  take(text) {
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
