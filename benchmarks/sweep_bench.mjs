// SPDX-License-Identifier: MIT
// The sweep kernel in the browser engine: wasm scalar, wasm SIMD128, and the same formula in plain JavaScript
// (what a peer writing the page in JS would do), one run, ratios printed. Usage (scripts/bench.sh runs it):
//   node benchmarks/sweep_bench.mjs [path to llm-memory.js built by scripts/build-wasm.sh, default dist/]
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const modulePath = resolve(process.argv[2] ?? "dist/llm-memory.js");
const { load } = await import(pathToFileURL(modulePath).href);
const api = await load();
const n = 1024;
const reps = 20;

// The kernel's input for the same grid as the native benchmark: batch 1..n, seq evenly spaced 256..131072.
const sweep = api.sweep({}, { batch: `1:${n}:${n}`, seq: `256:131072:${n}` });
if (!sweep.ok) throw new Error(JSON.stringify(sweep.errors));
const { fixed, slope, batch } = sweep;
const seqCount = slope.length / fixed.length;

// Plain JavaScript: total[b][s] = max over stages of fixed + b x bytes per sequence (the lowered formula).
function plainJs(out) {
  for (let i = 0; i < batch.length; ++i) {
    const b = batch[i];
    const row = i * seqCount;
    for (let j = 0; j < seqCount; ++j) out[row + j] = fixed[0] + b * slope[j];
    for (let st = 1; st < fixed.length; ++st) {
      const base = st * seqCount;
      for (let j = 0; j < seqCount; ++j) {
        const t = fixed[st] + b * slope[base + j];
        if (t > out[row + j]) out[row + j] = t;
      }
    }
  }
}

const out = new Float64Array(batch.length * seqCount);
plainJs(out);
for (let k = 0; k < out.length; ++k)
  if (out[k] !== sweep.total[k]) throw new Error(`plain JS differs from wasm at ${k}: ${out[k]} vs ${sweep.total[k]}`);
for (let w = 0; w < 3; ++w) plainJs(out);  // warm up the JIT
const start = performance.now();
for (let r = 0; r < reps; ++r) plainJs(out);
const jsMs = (performance.now() - start) / reps;

api.sweepKernelMs({}, n, n, "scalar", 3);  // warm up
const scalarMs = api.sweepKernelMs({}, n, n, "scalar", reps);
const simdMs = api.sweepKernelMs({}, n, n, "simd", reps);

const points = n * n;
const rate = (ms) => `${(points / ms / 1e6).toFixed(3)} G points/s`;
console.log(`sweep kernel, ${n} x ${n} grid, mean of ${reps} runs (node ${process.versions.node}, wasm ${sweep.isa})`);
console.log(`  wasm scalar  ${scalarMs.toFixed(3).padStart(8)} ms  ${rate(scalarMs)}`);
console.log(`  wasm SIMD    ${simdMs.toFixed(3).padStart(8)} ms  ${rate(simdMs)}`);
console.log(`  plain JS     ${jsMs.toFixed(3).padStart(8)} ms  ${rate(jsMs)}`);
console.log(`  wasm SIMD / wasm scalar = ${(scalarMs / simdMs).toFixed(2)}x`);
console.log(`  wasm SIMD / plain JS    = ${(jsMs / simdMs).toFixed(2)}x   (goal >= 3x)`);
