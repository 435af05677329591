// SPDX-License-Identifier: MIT
// The whole "what runs on my machine" ranking, timed for five machines: natively through the CLI (llm-memory fits,
// the CLI's start, llm-memory --version, subtracted) and in WebAssembly through the JS API's fits() (dist/, the
// module node and the page's fallback load; the whole catalogue read first, one untimed ranking to warm up), the
// median of `reps` runs each, with the rows and how many fit. Not a test: figures for docs/performance.md
// ("The 'what runs on my machine' ranking"). Usage:
//   node scripts/bench-fits.mjs [path to llm-memory, default build/release/llm-memory] [reps, default 5]
//   LLM_MEMORY_WASM=path/to/llm-memory.js picks another JS API (default dist/llm-memory.js); "none" skips wasm.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";

const cli = process.argv[2] ?? "build/release/llm-memory";
const reps = Number(process.argv[3] ?? 5);
const wasm = process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js";

/** The machines: the request's keys, as the JS API takes them and as the CLI's flags (underscore as dash). */
const machines = [
  { gpu: "rtx-4090", task: "run" },
  { gpu: "rtx-3060", task: "run", ram: "64GB" },
  { gpu: "m4-16gb", task: "run" },
  { gpu: "h100-80gb", task: "run", devices: "8" },
  { gpu: "rtx-4090", task: "qlora" },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const label = (m) => Object.entries(m).filter(([k]) => k !== "gpu" && k !== "task").map(([k, v]) => `--${k} ${v}`).join(" ");

function timedCli(args) {
  const times = [];
  let out = "";
  for (let r = 0; r < reps; ++r) {
    const start = performance.now();
    out = execFileSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 26 });
    times.push(performance.now() - start);
  }
  return { ms: median(times), out };
}

function native() {
  const start = timedCli(["--version"]).ms;
  console.log(`llm-memory fits, native, median of ${reps} (CLI start ${start.toFixed(1)} ms subtracted):`);
  for (const m of machines) {
    const flags = Object.entries(m).flatMap(([k, v]) => [`--${k.replaceAll("_", "-")}`, v]);
    const { ms, out } = timedCli(["fits", ...flags, "--json"]);
    const r = JSON.parse(out);
    console.log(`  ${m.gpu} ${m.task} ${label(m)}: ${(ms - start).toFixed(1)} ms for ${r.rows.length} models, ${r.fitting} fit`);
  }
}

async function inWasm() {
  const { load } = await import(resolve(wasm));
  const api = await load();
  await api.loadPresets();
  console.log(`fits() in WebAssembly (${wasm}), median of ${reps} after one warm-up run:`);
  for (const m of machines) {
    const times = [];
    let r = api.fits(m);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    for (let i = 0; i < reps; ++i) {
      const start = performance.now();
      r = api.fits(m);
      times.push(performance.now() - start);
    }
    console.log(`  ${m.gpu} ${m.task} ${label(m)}: ${median(times).toFixed(1)} ms for ${r.rows.length} models, ${r.fitting} fit`);
  }
}

if (existsSync(cli)) native();
else console.log(`no native CLI at ${cli}: native figures skipped`);
if (wasm !== "none" && existsSync(wasm)) await inWasm();
else console.log(`no JS API at ${wasm}: wasm figures skipped (scripts/build-wasm.sh)`);
