// SPDX-License-Identifier: MIT
// The page's verdict, kept in view (sticky) above the result tabs: the task in one sentence (model · task
// with runtime or framework · context × batch · N × GPU), "Fits: X of Y" or "Does not fit: needs …", and the
// nearest ways out, each with an Apply button, in the core's groups: first on the user's own devices and stack
// (another split of them, knobs, the Knobs tab's cheapest combination, a weights format, a shorter context or
// micro-batch), then more of the same device, then another GPU preset (the core's waysOut, which the page asks
// for once input pauses). Render functions of the core's answers; scripts/prerender.mjs draws
// the sentence, the verdict and the default page's ways out into index.html at build time with the same
// functions.
import { h } from "./dom.js";
import { formatBytes, formatCount, requestsText } from "./format.js";
import { STACK_NAMES, TASKS, taskOf } from "./task-picker.js";

/** The bytes the verdict compares with the device: what `fits` compares (the peak on the device, else the total). */
export function neededBytes(estimate) {
  return estimate.peak?.device ?? estimate.bytes.total;
}

/** "HF Trainer + peft", "vLLM", ...: the framework (training) or runtime (inference) that answers. */
export function stackName(estimate) {
  const s = estimate.settings;
  if (s.mode === "inference") {
    const id = s.runtime && s.runtime !== "auto" ? s.runtime : estimate.runtime?.name ?? s.runtime;
    return STACK_NAMES.runtime[id] ?? id;
  }
  const name = STACK_NAMES.framework[s.framework] ?? s.framework;
  return s.framework === "hf" && s.finetune !== "full" ? `${name} + peft` : name;
}

/** "8 × NVIDIA H100 80GB SXM (ZeRO-3, tensor parallel 2)": the devices, and their split when there are several. */
export function devicesText(settings, { gpuName, units = "GB", capacity } = {}) {
  const devices = Number(settings.devices);
  const device = gpuName ?? `${formatBytes(capacity ?? Number(settings.gpu_memory), units)} device`;
  const split = [];
  if (settings.mode !== "inference" && Number(settings.zero) > 0) split.push(`ZeRO-${settings.zero}`);
  if (Number(settings.tp) > 1) split.push(`tensor parallel ${settings.tp}`);
  if (Number(settings.pp) > 1) split.push(`${settings.pp} pipeline stages`);
  return `${formatCount(devices)} × ${device}${split.length ? ` (${split.join(", ")})` : ""}`;
}

/**
 * The task in one sentence, e.g. "Llama 3.1 8B · LoRA with HF Trainer + peft · 4,096 tokens × 8 · 1 × H100 80GB".
 * `modelName`, `gpuName`: display names where known (else the preset id, or the memory of a custom device).
 */
export function taskSentence(estimate, { modelName, gpuName } = {}) {
  const s = estimate.settings;
  const task = taskOf(s);
  const label = task === "inference" ? "Run" : TASKS.find(([id]) => id === task)?.[1] ?? task;
  const model = modelName ?? (s.model || "Custom architecture");
  return [
    model,
    `${label} with ${stackName(estimate)}`,
    `${formatCount(Number(s.seq))} tokens × ${formatCount(Number(s.batch))}`,
    devicesText(s, { gpuName, units: s.units, capacity: estimate.gpu_memory }),
  ].join(" · ");
}

/** Draws the sentence and the verdict line of `estimate` into `container` (the sticky box's head). */
export function renderVerdict(container, estimate, names = {}) {
  const units = estimate.settings.units;
  const needed = neededBytes(estimate);
  const capacity = estimate.gpu_memory;
  const line = estimate.fits
    ? h("p", { class: "verdict-line fits", elementtiming: "verdict", dataset: { fits: "true" } }, h("strong", { text: "Fits:" }),
      ` ${formatBytes(needed, units)} of ${formatBytes(capacity, units)} per device · ${formatBytes(capacity - needed, units)} to spare`)
    : h("p", { class: "verdict-line does-not-fit", elementtiming: "verdict", dataset: { fits: "false" } }, h("strong", { text: "Does not fit:" }),
      ` needs ${formatBytes(needed, units)} per device, ${formatBytes(needed - capacity, units)} more than the ${formatBytes(capacity, units)} it has`);
  container.replaceChildren(h("p", { class: "task-sentence", id: "task-sentence", text: taskSentence(estimate, names) }), line);
}

/**
 * Draws the ways out (does not fit) or the room left (fits: the largest micro-batch and context) into
 * `container`. `ways`: the core's waysOut answer (which ways, their order and text are the core's:
 * docs/solve-and-advise.md, "Ways out"); `solve`: the solver's. Each way's Apply button carries its change
 * (data-delta on its item), read by the listener onApplyWay installs, so ways out prerendered into index.html apply
 * as drawn ones do. `solve` null: the answers are still being computed; an answer that failed (the rest of the
 * core could not be loaded) says why.
 */
export function renderWaysOut(container, { estimate, solve, ways }) {
  const units = estimate.settings.units;
  const failed = [solve, ways].find((answer) => answer?.failed);
  if (failed) {
    container.replaceChildren(h("p", { class: "room", text: `No ways out: ${failed.errors[0]?.message ?? "the answers failed"}.` }));
    return;
  }
  if (estimate.fits) {
    const room = [];
    const inference = estimate.settings.mode === "inference";
    // Inference: the concurrent requests, worded as the runtime line and the solver word them (one figure).
    const batch = (n) => (inference ? requestsText(n, estimate.settings.seq) : `micro-batch up to ${formatCount(n)}`);
    if (solve?.ok && solve.max_batch.found) room.push(`${batch(solve.max_batch.value)}${solve.max_batch.at_limit ? "+" : ""}`);
    if (solve?.ok && solve.max_seq.found) room.push(`${inference ? "context" : "sequences"} up to ${formatCount(solve.max_seq.value)} tokens${solve.max_seq.at_limit ? "+" : ""}`);
    container.replaceChildren(room.length ? h("p", { class: "room", text: `Room on this device: ${room.join(" · ")}.` }) : "");
    return;
  }
  const list = ways?.ok ? ways.ways : [];
  if (!list.length) {
    container.replaceChildren(h("p", { class: "room", text: solve ? "No single change found that fits; see What fits and Knobs." : "" }));
    return;
  }
  // The core lists the groups in order (own hardware and stack, more of the same device, another device); the first
  // way of each starts with its group's heading, inline so the box stays as short as one line per way (the result
  // tabs stay in view), as the CLI's --ways-out and --advise head them (cli/print.cpp group_heading).
  container.replaceChildren(h("ul", { class: "ways-out", "aria-label": "Nearest ways out" }, list.map((w, i) =>
    h("li", { dataset: { way: w.way, group: w.group, fits: String(w.fits), delta: JSON.stringify(w.delta), text: w.text } },
      h("span", { class: "way-text" },
        i === 0 || list[i - 1].group !== w.group ? h("strong", { class: "ways-group", dataset: { group: w.group }, text: `${GROUP_HEADINGS[w.group] ?? w.group}: ` }) : "",
        w.text, " ", h("span", { class: `way-total ${w.fits ? "fits" : "does-not-fit"}`,
          text: `→ ${formatBytes(w.total, units)}${w.fits ? " ✓" : " ✗"}` })),
      h("button", { type: "button", class: "secondary", "aria-label": `Apply: ${w.text}`, text: "Apply" })))));
}

/** The ways-out groups in the core's order, with their headings (the CLI prints the same words). */
export const GROUP_HEADINGS = {
  own: "On your own devices and stack",
  more: "With more of the same device",
  other: "On another device",
};

/** Calls `onApply(delta, text)` when an Apply button of the ways out drawn in `container` is pressed. */
export function onApplyWay(container, onApply) {
  container.addEventListener("click", (event) => {
    const item = event.target.closest?.("button")?.closest("li[data-delta]");
    if (!item || !container.contains(item)) return;
    onApply(JSON.parse(item.dataset.delta), item.dataset.text);
  });
}
