// SPDX-License-Identifier: MIT
// "Copy launch command": the command or config a user would run for the estimate's settings, in their stack's own
// words (the engine's emitFormats and emitLaunch, the CLI's --emit; docs/readers.md, "Emit"). Which formats apply
// is the core's answer (emit.hpp's emit_table: an inference run's runtime's command, a training run's framework's
// config): one is copied at once; several are offered as a choice, the first copied. The text is shown too (so it
// can be selected where the clipboard is not available), with the settings it cannot carry by name.
// This module and the emit code are loaded when the button is first pressed (app.js; docs/web.md, "Start-up").
import { h } from "./dom.js";
import { copyText } from "./copy-text.js";

/** The errors of a failed answer, as one line naming each setting. */
const errorsText = (answer) => (answer?.errors ?? []).map((e) => `${e.setting}: ${e.message}`).join("; ");

export class EmitCopy {
  #out;
  #formats;
  #emit;

  /**
   * `box`: the element under the button to write into; `formats()` -> the engine's emitFormats answer for the
   * current settings; `emit(format)` -> its emitLaunch answer.
   */
  constructor(box, { formats, emit }) {
    this.#formats = formats;
    this.#emit = emit;
    this.#out = box;
  }

  /** Asks the core which formats apply, then copies the first and offers the others; says so when none does. */
  async copy() {
    const answer = await this.#formats();
    if (!answer?.ok) return this.#error(answer);
    const formats = answer.formats;
    if (!formats.length) {
      this.#out.replaceChildren(h("p", { role: "status", id: "emit-status",
        text: `No launch command or config is written for this run (${answer.run}): the core writes them for vLLM, SGLang, llama.cpp and Ollama serving, and DeepSpeed, FSDP (accelerate), torchtune and Hugging Face (TRL) training.` }));
      return answer;
    }
    return this.copyFormat(formats[0], formats);
  }

  /** Writes `row.format`'s text, shows it and copies it; `formats`: the choice to offer beside it (several). */
  async copyFormat(row, formats = [row]) {
    const answer = await this.#emit(row.format);
    if (!answer?.ok) return this.#error(answer);
    const copied = await copyText(answer.text);
    const missing = answer.not_carried.length ? `Not carried by this ${row.label}: ${answer.not_carried.join(", ")}.` : "";
    const choice = formats.length > 1
      ? [h("div", { class: "control emit-choice", role: "group", "aria-label": "Other formats for this run" },
          formats.map((other) => {
            const button = h("button", { type: "button", dataset: { format: other.format }, text: `Copy the ${other.label}`,
                                         "aria-pressed": String(other.format === row.format) });
            button.addEventListener("click", () => this.copyFormat(other, formats));
            return button;
          }))]
      : [];
    this.#out.replaceChildren(...choice,
      h("p", { role: "status", id: "emit-status", dataset: { format: row.format },
               text: `${copied ? "Copied" : "Select and copy"} the ${row.label} for these settings. ${missing}`.trim() }),
      h("pre", { class: "emit-text", id: "emit-text", tabindex: "0", "aria-label": row.label }, answer.text));
    return answer;
  }

  #error(answer) {
    this.#out.replaceChildren(h("p", { class: "field-error", role: "alert", text: errorsText(answer) }));
    return answer;
  }
}
