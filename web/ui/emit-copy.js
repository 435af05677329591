// SPDX-License-Identifier: MIT
// "Copy launch command": the command a user would run for the estimate's settings, in the chosen runtime's own
// words (the engine's emitLaunch, the CLI's --emit; docs/readers.md, "Emit"). The command is copied and shown as
// text (so it can be selected where the clipboard is not available), with the settings it cannot carry by name.
// This module and the emit code are loaded when the button is first pressed (app.js; docs/web.md, "Start-up").
import { h } from "./dom.js";
import { copyText } from "./copy-text.js";

/** The runtime ids the core writes a launch command for, and how the page names each command. */
export const EMIT_NAMES = { vllm: "vllm serve", sglang: "SGLang launch_server", llamacpp: "llama-server", ollama: "Ollama Modelfile" };

export class EmitCopy {
  #out;
  #emit;

  /** `box`: the element under the button to write into; `emit(format)` -> the engine's emitLaunch answer. */
  constructor(box, emit) {
    this.#emit = emit;
    this.#out = box;
  }

  /** Writes the command for `format`, shows it and copies it; errors are shown, naming the setting. */
  async copy(format) {
    const answer = await this.#emit(format);
    if (!answer?.ok) {
      const errors = (answer?.errors ?? []).map((e) => `${e.setting}: ${e.message}`).join("; ");
      this.#out.replaceChildren(h("p", { class: "field-error", role: "alert", text: errors }));
      return answer;
    }
    const copied = await copyText(answer.text);
    const missing = answer.not_carried.length ? `Not carried by this command: ${answer.not_carried.join(", ")}.` : "";
    this.#out.replaceChildren(
      h("p", { role: "status", id: "emit-status",
               text: `${copied ? "Copied" : "Select and copy"} the ${EMIT_NAMES[format] ?? format} command for these settings. ${missing}`.trim() }),
      h("pre", { class: "emit-text", id: "emit-text", tabindex: "0", "aria-label": `${EMIT_NAMES[format] ?? format} command` }, answer.text));
    return answer;
  }
}
