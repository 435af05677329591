// SPDX-License-Identifier: MIT
// GB / GiB toggle (the `units` setting): decimal gigabytes as the seeds count, or binary as nvidia-smi and
// PyTorch report. Event: "units" {units}.
import { h } from "./dom.js";

export class UnitsToggle extends EventTarget {
  #inputs;

  constructor(container, choices = ["GB", "GiB"]) {
    super();
    this.#inputs = choices.map((units) => {
      const input = h("input", { type: "radio", name: "units", value: units });
      input.addEventListener("change", () => this.dispatchEvent(new CustomEvent("units", { detail: { units } })));
      return input;
    });
    container.replaceChildren(h("fieldset", { class: "units" },
      h("legend", { text: "Units" }),
      this.#inputs.map((input) => h("label", {}, input, input.value === "GB" ? "GB (10⁹ B)" : "GiB (2³⁰ B)"))));
  }

  update(units) {
    for (const input of this.#inputs) input.checked = input.value === units;
  }
}
