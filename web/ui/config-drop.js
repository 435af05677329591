// SPDX-License-Identifier: MIT
// "Paste or drop your config.json": a text area that also takes a dropped or chosen file. The text is parsed
// by the core (parseConfig); its errors are shown next to the field. Event:
//   "config" {settings}   architecture settings read from a valid config.json
import { h } from "./dom.js";
import { noticeLines } from "./notice.js";

export class ConfigDrop extends EventTarget {
  #text;
  #error;
  #status;
  #parse;

  /** `parse(text)` -> {ok: true, settings} | {ok: false, errors} (the engine's parseConfig). */
  constructor(container, parse) {
    super();
    this.#parse = parse;
    this.#text = h("textarea", {
      id: "config-text", rows: 6, spellcheck: "false", autocomplete: "off",
      placeholder: '{"hidden_size": 4096, "num_hidden_layers": 32, …}', "aria-describedby": "config-help config-error",
    });
    const file = h("input", { type: "file", id: "config-file", accept: ".json,application/json" });
    file.addEventListener("change", async () => {
      if (file.files?.[0]) await this.#load(file.files[0]);
      file.value = "";
    });
    const apply = h("button", { type: "button", text: "Use this config" });
    apply.addEventListener("click", () => this.#apply());
    this.#error = h("div", { class: "field-error", id: "config-error", role: "alert", hidden: true });
    this.#status = h("p", { class: "picker-info", role: "status" });
    const zone = h("div", { class: "drop-zone" },
      h("label", { for: "config-text", text: "config.json (Hugging Face)" }),
      this.#text,
      h("p", { class: "help", id: "config-help",
               text: "Paste the text, drop the file here, or choose it. The architecture settings it holds replace the model preset; nothing leaves this page." }),
      h("div", { class: "control" }, apply, h("label", { class: "file-button" }, "Choose file…", file)),
      this.#error, this.#status);
    zone.addEventListener("dragover", (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    });
    zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
    zone.addEventListener("drop", async (event) => {
      event.preventDefault();
      zone.classList.remove("dragging");
      const dropped = event.dataTransfer?.files?.[0];
      if (dropped) await this.#load(dropped);
      else if (event.dataTransfer?.getData("text/plain")) {
        this.#text.value = event.dataTransfer.getData("text/plain");
        this.#apply();
      }
    });
    container.replaceChildren(h("details", { class: "group config" },
      h("summary", {}, h("h3", { text: "Paste or drop a config.json" })), zone));
  }

  async #load(file) {
    this.#text.value = await file.text();
    this.#apply();
  }

  #apply() {
    const result = this.#parse(this.#text.value);
    if (!result.ok) {
      // Capped as the notice is: a hostile file cannot fill the page.
      const lines = noticeLines(result.errors.map((e) => ({ message: `${e.setting}: ${e.message}` })));
      this.#error.replaceChildren(...lines.map((text) => {
        const line = document.createElement("p");
        line.textContent = text;
        return line;
      }));
      this.#error.hidden = false;
      this.#text.setAttribute("aria-invalid", "true");
      this.#status.textContent = "";
      return;
    }
    this.#error.hidden = true;
    this.#text.removeAttribute("aria-invalid");
    const count = Object.keys(result.settings).length;
    this.#status.textContent = `Read ${count} architecture setting${count === 1 ? "" : "s"} from config.json.`;
    this.dispatchEvent(new CustomEvent("config", { detail: { settings: result.settings } }));
  }
}
