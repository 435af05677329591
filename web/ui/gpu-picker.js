// SPDX-License-Identifier: MIT
// GPU picker: the GPU presets by vendor, or a custom memory size (the gpu_memory setting). Event:
//   "gpu" {id}   id "" = custom memory
import { h } from "./dom.js";
import { formatBytes } from "./format.js";

function vendor(gpu) {
  if (gpu.name.startsWith("AMD")) return "AMD";
  if (gpu.name.startsWith("Apple")) return "Apple";
  if (gpu.name.startsWith("NVIDIA")) return "NVIDIA";
  return "Other";
}

export class GpuPicker extends EventTarget {
  #select;
  #gpus;
  #info;

  constructor(container, gpus) {
    super();
    this.#gpus = gpus;
    const groups = new Map();
    for (const gpu of gpus) {
      if (!groups.has(vendor(gpu))) groups.set(vendor(gpu), []);
      groups.get(vendor(gpu)).push(gpu);
    }
    this.#select = h("select", { id: "gpu-select", "aria-describedby": "gpu-info" },
      h("option", { value: "", text: "Custom memory (gpu_memory)" }),
      [...groups].map(([name, list]) => h("optgroup", { label: name },
        list.map((gpu) => h("option", { value: gpu.id, text: gpu.name })))));
    this.#select.addEventListener("change", () =>
      this.dispatchEvent(new CustomEvent("gpu", { detail: { id: this.#select.value } })));
    this.#info = h("p", { class: "picker-info", id: "gpu-info" });
    container.replaceChildren(h("label", { for: "gpu-select", text: "GPU" }), h("div", { class: "control" }, this.#select), this.#info);
  }

  /** Shows the current GPU (id "" = custom) and its memory in `units`. */
  update(id, memory_bytes, units) {
    this.#select.value = this.#gpus.some((g) => g.id === id) ? id : "";
    const gpu = this.#gpus.find((g) => g.id === id);
    this.#info.textContent = gpu
      ? `${formatBytes(memory_bytes, units)} usable per device${gpu.note ? ` · ${gpu.note}` : ""}`
      : `${formatBytes(memory_bytes, units)} per device (set gpu_memory under Device & overheads)`;
  }
}
