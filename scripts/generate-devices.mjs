// SPDX-License-Identifier: MIT
// Writes docs/devices.md's table from the device catalogue itself (core/data/gpus.json), so no figure is typed twice:
//   node scripts/generate-devices.mjs [--check]
// --check writes nothing and exits 1 when the table differs from the catalogue.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const DOC = resolve(root, "docs/devices.md");
const BEGIN = "<!-- devices:begin (scripts/generate-devices.mjs) -->";
const END = "<!-- devices:end -->";

const GiB = 2 ** 30;
const figure = (value, digits = 0) => (value === null || value === undefined ? "—" : value.toLocaleString("en-US", { maximumFractionDigits: digits }));

/** The memory an estimate compares with and its basis, as core/src/presets.cpp pick_memory() chooses it. */
function used(gpu) {
  if (gpu.backend === "metal") {
    const fraction = gpu.marketed_gb <= 36 ? 2 / 3 : 3 / 4;  // metal_working_set_bytes()
    return `${(gpu.marketed_gb * fraction).toFixed(2)} GiB (working set)`;
  }
  if (gpu.visible_bytes) return `${(gpu.visible_bytes / GiB).toFixed(2)} GiB (framework)`;
  if (gpu.reported_bytes) return `${(gpu.reported_bytes / GiB).toFixed(2)} GiB (driver)`;
  return `${gpu.marketed_gb} GiB (nominal)`;
}

/** One table row per device: the columns of docs/devices.md. */
export function deviceTable(gpus) {
  const rows = gpus.map((g) =>
    `| \`${g.id}\` | ${g.name} | ${g.marketed_gb} GB | ${used(g)} | ${figure(g.bandwidth_gb_s, 2)} | ` +
    `${figure(g.bf16_tflops, 1)} | ${figure(g.fp8_tflops, 1)} | ${g.interconnect} | ${g.backend} |`);
  return [
    "| id | device | marketed | estimate uses | GB/s | BF16 TFLOPS | FP8 TFLOPS | interconnect | stack |",
    "| --- | --- | ---: | --- | ---: | ---: | ---: | --- | --- |",
    ...rows,
  ].join("\n");
}

function generated(text, gpus) {
  const begin = text.indexOf(BEGIN), end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${DOC}: the devices markers are missing`);
  return `${text.slice(0, begin + BEGIN.length)}\n${deviceTable(gpus)}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const gpus = JSON.parse(readFileSync(resolve(root, "core/data/gpus.json"), "utf8")).gpus;
  const text = readFileSync(DOC, "utf8");
  const next = generated(text, gpus);
  if (process.argv.includes("--check")) {
    if (next !== text) {
      console.error("docs/devices.md differs from core/data/gpus.json: run node scripts/generate-devices.mjs");
      process.exit(1);
    }
  } else {
    writeFileSync(DOC, next);
  }
}
