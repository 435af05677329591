// SPDX-License-Identifier: MIT
// GPU picker: the GPU presets by vendor, or a custom memory size (the gpu_memory setting). Event:
//   "gpu" {id}   id "" = custom memory
import { h } from "./dom.js";
import { formatCapacity } from "./format.js";

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
        list.map((gpu) => h("option", { value: gpu.id, text: `${gpu.name} · ${formatCapacity(gpu.memory_bytes)}` })))));
    this.#select.addEventListener("change", () =>
      this.dispatchEvent(new CustomEvent("gpu", { detail: { id: this.#select.value } })));
    this.#info = h("p", { class: "picker-info", id: "gpu-info" });
    container.replaceChildren(h("label", { for: "gpu-select", text: "GPU" }), h("div", { class: "control" }, this.#select), this.#info);
  }

  /**
   * Shows the current GPU (id "" = custom) and its memory in both units (GiB as GPUs are sold, and GB); Apple
   * silicon says of how much unified memory the Metal working set is.
   */
  update(id, memory_bytes) {
    this.#select.value = this.#gpus.some((g) => g.id === id) ? id : "";
    const gpu = this.#gpus.find((g) => g.id === id);
    const unified = gpu?.unified_memory_bytes > 0 ? ` (Metal's working set of ${formatCapacity(gpu.unified_memory_bytes)} unified memory)` : "";
    this.#info.textContent = gpu
      ? `${formatCapacity(memory_bytes)} usable per device${unified}${gpu.note ? ` · ${gpu.note}` : ""}`
      : `${formatCapacity(memory_bytes)} per device (set gpu_memory under Device & overheads)`;
    this.#info.dataset.bytes = String(memory_bytes);
  }
}
