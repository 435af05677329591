// SPDX-License-Identifier: MIT
// "Paste a launch command": a `vllm serve`, `llama-server`, SGLang, TGI (or its docker run), Ollama command or a
// Modelfile, read by the core's readers (the engine's readLaunch, the CLI's --from; docs/readers.md) into
// settings that apply over the user's own. What each option became, what was ignored and why, and the readers'
// notes are listed; errors name the option or the line. Text goes in as textContent only (dom.js).
// This module and the readers' code are loaded when the box is first opened (app.js; docs/web.md, "Start-up").
// Events:
//   "launch" {settings, command, note}   the settings the command gives (key -> text), to apply as an edit
import { h } from "./dom.js";

/** At most this many lines of each list are shown; the rest are counted. */
const MAX_LINES = 40;

/** `items` as list items (text only), capped at MAX_LINES. */
function lines(items) {
  const shown = items.slice(0, MAX_LINES).map((text) => h("li", { text }));
  if (items.length > MAX_LINES) shown.push(h("li", { text: `… and ${items.length - MAX_LINES} more` }));
  return shown;
}

export class LaunchPaste extends EventTarget {
  #text;
  #error;
  #report;
  #read;

  /** `details`: the page's <details> box (its <summary> kept); `read(text)` -> the engine's readLaunch answer. */
  constructor(details, read) {
    super();
    this.#read = read;
    this.#text = h("textarea", {
      id: "launch-text", rows: 5, spellcheck: "false", autocomplete: "off",
      placeholder: "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 -tp 2",
      "aria-describedby": "launch-help launch-error",
    });
    const apply = h("button", { type: "button", id: "launch-apply", text: "Apply" });
    apply.addEventListener("click", () => this.apply());
    this.#error = h("div", { class: "field-error", id: "launch-error", role: "alert", hidden: true });
    this.#report = h("div", { class: "picker-info", id: "launch-report", role: "status" });
    details.append(h("div", { class: "drop-zone" },
      h("label", { for: "launch-text", text: "Launch command or Modelfile" }),
      this.#text,
      h("p", { class: "help", id: "launch-help",
               text: "vllm serve, python -m vllm.entrypoints.openai.api_server, llama-server, llama-cli, python -m sglang.launch_server, text-generation-launcher, docker run (TGI, vLLM, llama.cpp, Ollama images), ollama serve / run with OLLAMA_* variables, or a Modelfile. Its settings apply over yours; nothing leaves this page." }),
      h("div", { class: "control" }, apply),
      this.#error, this.#report));
  }

  /** Reads the text; on success fires "launch" and lists what was read, else shows the errors. */
  async apply() {
    const answer = await this.#read(this.#text.value);
    const errors = answer?.errors ?? [];
    this.#error.hidden = errors.length === 0;
    this.#error.replaceChildren(...lines(errors.map((e) => `${e.setting}: ${e.message}`)));
    if (!answer?.ok) {
      this.#report.replaceChildren();
      return;
    }
    const read = answer.read.map((r) => `${r.option} → ${r.setting} ${r.value}`);
    const ignored = answer.ignored.map((i) => `${i.option}: ${i.why}`);
    const list = (title, name, items) => (items.length ? [h("p", { text: title }), h("ul", { class: name }, lines(items))] : []);
    this.#report.replaceChildren(...list(`Read as ${answer.command}:`, "launch-read", read),
      ...list("Ignored:", "launch-ignored", ignored), ...list("Notes:", "launch-notes", answer.notes));
    const note = `Read from ${answer.command}: ${answer.read.map((r) => `${r.setting} ${r.value}`).join(", ")}.`;
    this.dispatchEvent(new CustomEvent("launch", { detail: { settings: answer.settings, command: answer.command, note } }));
  }
}
