// SPDX-License-Identifier: MIT
// Times the core's estimate, resolve, solve and gpuFit, and load() (compiling the module and reading every preset
// of the catalogue), in two builds of the wasm module, interleaved in one node process (median of 15 rounds), so
// that both see the same machine load (docs/performance.md).
//   node scripts/perf-core-compare.mjs BEFORE_DIST AFTER_DIST   (folders holding llm-memory.js + .wasm)
import { pathToFileURL } from "node:url";
const [a, b] = process.argv.slice(2);
if (!a || !b) throw new Error("usage: node scripts/perf-core-compare.mjs BEFORE_DIST AFTER_DIST");
const load = async (dir) => (await import(pathToFileURL(`${dir}/llm-memory.js`).href)).load();
const apis = { before: await load(a), after: await load(b) };
const cases = {
  "default (Llama 3 8B full FT, 1 x H100)": { model: "meta-llama-3-8b", gpu: "h100-80gb" },
  "torchtune on an RTX 4090": { model: "meta-llama-3-8b", framework: "torchtune", gpu: "rtx-4090" },
  "vLLM Llama 2 70B 32K x 4 on H100": { model: "llama-2-70b", mode: "inference", seq: "32768", batch: "4", gpu: "h100-80gb" },
};
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
const loads = { before: [], after: [] };
for (let round = 0; round < 15; round++)
  for (const [side, dir] of [["before", a], ["after", b]]) {
    const start = performance.now();
    await (await import(pathToFileURL(`${dir}/llm-memory.js`).href)).load({}); // a fresh instance each time
    loads[side].push(performance.now() - start);
  }
console.log(`load() with the catalogue: ${median(loads.before).toFixed(2)} -> ${median(loads.after).toFixed(2)} ms`);
for (const [name, s] of Object.entries(cases)) {
  for (const fn of ["estimate", "resolve", "solve", "gpuFit"]) {
    const t = { before: [], after: [] };
    for (let round = 0; round < 15; round++)
      for (const side of ["before", "after"]) {
        const start = performance.now();
        apis[side][fn](s);
        t[side].push(performance.now() - start);
      }
    console.log(`${fn.padEnd(8)} ${name}: ${median(t.before).toFixed(2)} -> ${median(t.after).toFixed(2)} ms`);
  }
}
