// SPDX-License-Identifier: MIT
// GPU picker: the GPU presets grouped by vendor and segment (catalogue order within a group), or a custom memory
// size (the gpu_memory setting). Event:
//   "gpu" {id}   id "" = custom memory
import { h } from "./dom.js";
import { formatCapacity } from "./format.js";

/** The picker's group: vendor and segment as the catalogue gives them ("NVIDIA data centre", "Apple unified"). */
function group(gpu) {
  if (!gpu.vendor) return "Other";
  return gpu.vendor === "Apple" ? "Apple silicon" : `${gpu.vendor} ${gpu.segment}`.trim();
}

/** What the usable figure is and the marketed size, e.g. "what PyTorch reports (total_memory); marketed 40 GB". */
function basis(gpu) {
  const marketed = gpu.marketed_bytes > 0 ? `; marketed ${Math.round(gpu.marketed_bytes / 2 ** 30)} GB` : "";
  return gpu.memory_basis ? ` — ${gpu.memory_basis}${marketed}` : "";
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
      if (!groups.has(group(gpu))) groups.set(group(gpu), []);
      groups.get(group(gpu)).push(gpu);
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
   * Shows the current GPU (id "" = custom, or an alias of a preset) and its memory in both units (GiB as GPUs are
   * sold, and GB) with the figure it is (what PyTorch reports, the driver's total or the marketed size) beside the
   * marketed size; Apple silicon says of how much unified memory the Metal working set is.
   */
  update(id, memory_bytes) {
    const gpu = this.#gpus.find((g) => g.id === id || g.aliases?.includes(id));
    this.#select.value = gpu ? gpu.id : "";
    const detail = gpu?.backend === "metal" ? ` (Metal's working set of ${formatCapacity(gpu.unified_memory_bytes)} unified memory)` : gpu ? basis(gpu) : "";
    this.#info.textContent = gpu
      ? `${formatCapacity(memory_bytes)} usable per device${detail}${gpu.note ? ` · ${gpu.note}` : ""}`
      : `${formatCapacity(memory_bytes)} per device (set gpu_memory under Device & overheads)`;
    this.#info.dataset.bytes = String(memory_bytes);
  }
}

/**
 * The name of the GPU `id` as a picker's <select> lists it ("<name> · <capacity>", GpuPicker above), or undefined
 * where it is not listed so: a link's verdict names its GPU from the start page's prerendered picker (web/app.js).
 */
export function pickedGpuName(select, id) {
  const text = [...(select?.options ?? [])].find((option) => option.value === id)?.textContent ?? "";
  const end = text.lastIndexOf(" · ");
  return id && end > 0 ? text.slice(0, end) : undefined;
}
