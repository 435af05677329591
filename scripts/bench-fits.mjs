// SPDX-License-Identifier: MIT
// The whole "what runs on my machine" ranking (llm-memory fits), natively: each machine ranked `reps` times through
// the CLI, the CLI's start (llm-memory --version) subtracted, the median printed with the rows and the estimates'
// count. Not a test: figures for docs/performance.md. Usage:
//   node scripts/bench-fits.mjs [path to llm-memory, default build/release/llm-memory] [reps, default 5]
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";

const cli = process.argv[2] ?? "build/release/llm-memory";
const reps = Number(process.argv[3] ?? 5);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function timed(args) {
  const times = [];
  let out = "";
  for (let r = 0; r < reps; ++r) {
    const start = performance.now();
    out = execFileSync(cli, args, { encoding: "utf8", maxBuffer: 1 << 26 });
    times.push(performance.now() - start);
  }
  return { ms: median(times), out };
}

const start = timed(["--version"]).ms;
const machines = [
  ["rtx-4090", "run"],
  ["rtx-3060", "run", "--ram", "64GB"],
  ["m4-16gb", "run"],
  ["h100-80gb", "run", "--devices", "8"],
  ["rtx-4090", "qlora"],
];
console.log(`llm-memory fits, native, median of ${reps} (CLI start ${start.toFixed(1)} ms subtracted):`);
for (const [gpu, task, ...rest] of machines) {
  const { ms, out } = timed(["fits", "--gpu", gpu, "--task", task, ...rest, "--json"]);
  const r = JSON.parse(out);
  console.log(
    `  ${gpu} ${task} ${rest.join(" ")}: ${(ms - start).toFixed(1)} ms for ${r.rows.length} models, ${r.fitting} fit`,
  );
}
