// SPDX-License-Identifier: MIT
// The page's verdict, kept in view (sticky) above the result tabs: the task in one sentence (model · task
// with runtime or framework · context × batch · N × GPU), "Fits: X of Y" or "Does not fit: needs …", and the
// nearest ways out, each with an Apply button: more devices with the solver's parallel split, another GPU
// preset, a weights format, a shorter context or smaller micro-batch, a knob (from solve and advise, which
// the page computes once input pauses). Render functions of the core's answers; scripts/prerender.mjs draws
// the sentence, the verdict and the default page's ways out into index.html at build time with the same
// functions.
import { h } from "./dom.js";
import { formatBytes, formatCount } from "./format.js";
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

/** What a solver answer's delta splits: "with ZeRO-3, tensor parallel 2". */
function splitOf(delta, current) {
  const parts = [];
  if (delta.zero !== undefined && delta.zero !== current.zero && Number(delta.zero) > 0) parts.push(`ZeRO-${delta.zero}`);
  if (Number(delta.tp) > 1) parts.push(`tensor parallel ${delta.tp}`);
  if (Number(delta.pp) > 1) parts.push(`${delta.pp} pipeline stages`);
  return parts.length ? ` with ${parts.join(", ")}` : "";
}

/**
 * The nearest ways out of a "does not fit", in the issue's order: more devices (the solver's split), another
 * GPU, a weights format, a shorter context or micro-batch, a knob. Each {way, text, total, fits, delta}.
 * `otherGpu`: {id, name, total} the smallest GPU preset that fits (App finds it), or null; `moreDevices`: a
 * solver answer to use instead of solve.min_devices (App's, with ZeRO-3 where ZeRO 0 cannot fit on any count).
 */
export function waysOut({ estimate, solve, advice, otherGpu, moreDevices, gpuName }) {
  const s = estimate.settings;
  const out = [];
  const changes = (delta) => Object.entries(delta ?? {}).some(([key, value]) => s[key] !== value);
  const devices = moreDevices ?? (solve?.ok ? solve.min_devices : null);
  if (devices?.found && changes(devices.delta)) {
    out.push({ way: "devices", text: `${formatCount(devices.value)} × ${gpuName ?? "device"}${splitOf(devices.delta, s)}`,
               total: devices.total, fits: true, delta: devices.delta });
  }
  if (otherGpu) {
    out.push({ way: "gpu", text: `${formatCount(Number(s.devices))} × ${otherGpu.name}`, total: otherGpu.total, fits: true,
               delta: { gpu: otherGpu.id, gpu_memory: null } });
  }
  const knobs = advice?.ok ? advice.knobs.filter((k) => k.saved > 0 && changes(k.delta)) : [];
  const pick = (list) => list.find((k) => k.fits) ?? list[0];
  const weights = pick(knobs.filter((k) => k.delta.weights_dtype !== undefined && k.delta.finetune === undefined));
  if (weights) out.push({ way: "weights", text: weights.name, total: weights.total, fits: weights.fits, delta: weights.delta });
  const seq = solve?.ok ? solve.max_seq : null;
  const what = s.mode === "inference" ? "context" : "sequences";
  if (seq?.found && seq.value < Number(s.seq)) {
    out.push({ way: "context", text: `${what} of ${formatCount(seq.value)} tokens (from ${formatCount(Number(s.seq))})`,
               total: seq.total, fits: true, delta: seq.delta });
  }
  const batch = solve?.ok ? solve.max_batch : null;
  if (batch?.found && batch.value < Number(s.batch)) {
    out.push({ way: "batch", text: `micro-batch ${formatCount(batch.value)} (from ${formatCount(Number(s.batch))})`,
               total: batch.total, fits: true, delta: batch.delta });
  }
  const knob = pick(knobs.filter((k) => k !== weights));
  if (knob) out.push({ way: "knob", text: knob.name, total: knob.total, fits: knob.fits, delta: knob.delta, note: knob.note });
  return out;
}

/**
 * The ways out the solver and the knob table do not give, for a `estimate` of `inputs` that does not fit ({}
 * when it fits): more devices with ZeRO-3 when ZeRO 0 cannot fit on any count (every device holds a full
 * replica), and the smallest GPU preset the settings fit on (at most four estimates, tried from the smallest
 * preset larger than what is needed). `core`: {solve, estimate, gpus} (the page's Engine, or the API at build
 * time: scripts/prerender.mjs).
 */
export function moreWaysOut(core, inputs, estimate, solve) {
  if (estimate.fits) return {};
  let moreDevices = null;
  const s = estimate.settings;
  if (solve?.ok && !solve.min_devices.found && s.mode !== "inference" && Number(s.zero) < 3) {
    const zero3 = core.solve({ ...inputs, zero: "3" });
    if (zero3.ok && zero3.min_devices.found) moreDevices = { ...zero3.min_devices, delta: { ...zero3.min_devices.delta, zero: "3" } };
  }
  let otherGpu = null;
  const needed = neededBytes(estimate);
  const candidates = core.gpus.filter((g) => g.memory_bytes >= needed && g.id !== s.gpu)
    .sort((a, b) => a.memory_bytes - b.memory_bytes).slice(0, 4);
  const { gpu_memory: _, ...rest } = inputs;
  for (const gpu of candidates) {
    const answer = core.estimate({ ...rest, gpu: gpu.id });
    if (answer.ok && answer.fits) {
      otherGpu = { id: gpu.id, name: gpu.name, total: neededBytes(answer) };
      break;
    }
  }
  return { moreDevices, otherGpu };
}

/**
 * Draws the ways out (does not fit) or the room left (fits: the largest micro-batch and context) into
 * `container`. Each way's Apply button carries its change (data-delta on its item), read by the listener
 * onApplyWay installs, so ways out prerendered into index.html apply as drawn ones do. `solve` null: the answers
 * are still being computed; an answer that failed (the rest of the core could not be loaded) says why.
 */
export function renderWaysOut(container, { estimate, solve, advice, otherGpu, moreDevices, gpuName }) {
  const units = estimate.settings.units;
  const failed = [solve, advice].find((answer) => answer?.failed);
  if (failed) {
    container.replaceChildren(h("p", { class: "room", text: `No ways out: ${failed.errors[0]?.message ?? "the answers failed"}.` }));
    return;
  }
  if (estimate.fits) {
    const room = [];
    if (solve?.ok && solve.max_batch.found) room.push(`micro-batch up to ${formatCount(solve.max_batch.value)}${solve.max_batch.at_limit ? "+" : ""}`);
    if (solve?.ok && solve.max_seq.found) room.push(`${estimate.settings.mode === "inference" ? "context" : "sequences"} up to ${formatCount(solve.max_seq.value)} tokens${solve.max_seq.at_limit ? "+" : ""}`);
    container.replaceChildren(room.length ? h("p", { class: "room", text: `Room on this device: ${room.join(" · ")}.` }) : "");
    return;
  }
  const ways = waysOut({ estimate, solve, advice, otherGpu, moreDevices, gpuName });
  if (!ways.length) {
    container.replaceChildren(h("p", { class: "room", text: solve ? "No single change found that fits; see What fits and Knobs." : "" }));
    return;
  }
  container.replaceChildren(h("p", { class: "ways-title", id: "ways-title", text: "Nearest ways out:" }),
    h("ul", { class: "ways-out", "aria-labelledby": "ways-title" }, ways.map((w) =>
      h("li", { dataset: { way: w.way, fits: String(w.fits), delta: JSON.stringify(w.delta), text: w.text } },
        h("span", { class: "way-text" }, w.text, " ", h("span", { class: `way-total ${w.fits ? "fits" : "does-not-fit"}`,
          text: `→ ${formatBytes(w.total, units)}${w.fits ? " ✓" : " ✗"}` })),
        h("button", { type: "button", class: "secondary", "aria-label": `Apply: ${w.text}`, text: "Apply" })))));
}

/** Calls `onApply(delta, text)` when an Apply button of the ways out drawn in `container` is pressed. */
export function onApplyWay(container, onApply) {
  container.addEventListener("click", (event) => {
    const item = event.target.closest?.("button")?.closest("li[data-delta]");
    if (!item || !container.contains(item)) return;
    onApply(JSON.parse(item.dataset.delta), item.dataset.text);
  });
}
