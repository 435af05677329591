// SPDX-License-Identifier: MIT
// The whole "what runs on my machine" ranking, timed for five machines, before and after in one run: natively
// through the CLI (llm-memory fits, one process per ranking, so nothing is kept; the CLI's start, llm-memory
// --version, subtracted) and in WebAssembly through the JS API's fits() (the module node and the page's fallback
// load, the whole catalogue read first). In wasm, four figures per machine, each the median over `reps` fresh
// modules: the very first ranking in the module (the same machine at context 4096: the code cold, each preset
// mapped and its settings parsed then), shown apart; the first ranking of the machine (the code warm, none of the
// first one's runs kept: the context is in every kept run's key); then another device of the same task (the
// page's re-rank: fits.cpp keeps llama.cpp's and training's runs across devices); then the first machine again.
// Each machine's first ranking in wasm over the native CLI's (CPU time) is printed as the wasm / native ratio.
// Not a test: figures for docs/performance.md ("The ranking in under 100 ms"). Usage:
//   node scripts/bench-fits.mjs [path to llm-memory, default build/release/llm-memory] [reps, default 3]
//   LLM_MEMORY_WASM=path/to/llm-memory.js picks the JS API (default dist/llm-memory.js); "none" skips wasm.
//   LLM_MEMORY_BEFORE_CLI / LLM_MEMORY_BEFORE_WASM: a build to time beside it (the ratio printed).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";

const cli = process.argv[2] ?? "build/release/llm-memory";
const reps = Number(process.argv[3] ?? 3);
const wasm = process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js";
const beforeCli = process.env.LLM_MEMORY_BEFORE_CLI;
const beforeWasm = process.env.LLM_MEMORY_BEFORE_WASM;

/** The machines: the request's keys, as the JS API takes them and as the CLI's flags; `then`: the re-rank's GPU. */
const machines = [
  { gpu: "rtx-4090", task: "run", then: "rtx-3090" },
  { gpu: "rtx-3060-12gb", task: "run", ram: "64GB", then: "rtx-4060-ti-16gb" },
  { gpu: "m4-16gb", task: "run", then: "m4-pro-24gb" },
  { gpu: "h100-80gb", task: "run", devices: "8", then: "a100-80gb" },
  { gpu: "rtx-4090", task: "qlora", then: "rtx-3090" },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const request = ({ then, ...m }) => m;
const label = (m) =>
  `${m.gpu} ${m.task}` +
  Object.entries(request(m))
    .filter(([k]) => k !== "gpu" && k !== "task")
    .map(([k, v]) => ` --${k} ${v}`)
    .join("");
const ms = (x) => `${x.toFixed(1)} ms`;

/** Wall and CPU time (user + system, /usr/bin/time) of one CLI run [ms], and its output. */
function runCli(bin, args) {
  const start = performance.now();
  const run = spawnSync("/usr/bin/time", ["-f", "%U %S", bin, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  const wall = performance.now() - start;
  if (run.status !== 0) throw new Error(`${bin} ${args.join(" ")}: ${run.stderr}`);
  const [user, system] = run.stderr.trim().split("\n").pop().split(" ").map(Number);
  return { wall, cpu: (user + system) * 1000, out: run.stdout };
}

/** One CLI's ranking of `m`: the medians of `reps` runs, its start (--version) subtracted. */
function nativeMs(bin, m) {
  const flags = Object.entries(request(m)).flatMap(([k, v]) => [`--${k}`, v]);
  const runs = Array.from({ length: reps }, () => runCli(bin, ["fits", ...flags, "--json"]));
  const starts = Array.from({ length: reps }, () => runCli(bin, ["--version"]));
  const r = JSON.parse(runs[0].out);
  const less = (key) => median(runs.map((x) => x[key])) - median(starts.map((x) => x[key]));
  return { ms: less("wall"), cpu: less("cpu"), rows: r.rows.length, fitting: r.fitting };
}

/** Each machine's native first ranking, by label: the CPU ms the wasm / native ratio divides by. */
const nativeCpu = new Map();

function native() {
  console.log(`llm-memory fits, native (${cli}${beforeCli ? `; before: ${beforeCli}` : ""}), median of ${reps}:`);
  for (const m of machines) {
    const after = nativeMs(cli, m);
    nativeCpu.set(label(m), after.cpu);
    const before = beforeCli ? nativeMs(beforeCli, m) : null;
    const side = before ? `before ${ms(before.ms)} (CPU ${ms(before.cpu)}) -> ` : "";
    const ratio = before ? `; before / after ${(before.ms / after.ms).toFixed(1)}x` : "";
    console.log(`  ${label(m)}: ${side}${ms(after.ms)} (CPU ${ms(after.cpu)})${ratio}; ${after.rows} models, ${after.fitting} fit`);
  }
}

/** Wall and CPU time of one ranking [ms] (process.cpuUsage: the CPU node spent, its threads included). */
function timed(api, request) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const r = api.fits(request);
  const t = performance.now() - start;
  const used = process.cpuUsage(cpu);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return { ms: t, cpu: (used.user + used.system) / 1000, r };
}

/** The three figures of `m` on `reps` fresh modules of `path`: medians of wall and CPU ms. */
async function wasmFigures(path, m) {
  const { load } = await import(resolve(path));
  const steps = { cold: [], first: [], other: [], again: [] };
  let rows = 0, fitting = 0;
  for (let i = 0; i < reps; ++i) {
    const api = await load({});  // a fresh module: nothing kept
    await api.loadPresets();
    steps.cold.push(timed(api, { ...request(m), seq: "4096" }));  // no run of it is kept for seq 8192
    const f = timed(api, request(m));
    steps.first.push(f);
    steps.other.push(timed(api, { ...request(m), gpu: m.then }));
    steps.again.push(timed(api, request(m)));
    [rows, fitting] = [f.r.rows.length, f.r.fitting];
  }
  const figures = Object.fromEntries(Object.entries(steps).map(([step, runs]) =>
    [step, { ms: median(runs.map((x) => x.ms)), cpu: median(runs.map((x) => x.cpu)) }]));
  return { ...figures, rows, fitting };
}

async function inWasm() {
  console.log(`fits() in WebAssembly (${wasm}${beforeWasm ? `; before: ${beforeWasm}` : ""}), median of ${reps}, ` +
    "wall (CPU) ms:");
  for (const m of machines) {
    const a = await wasmFigures(wasm, m);
    const b = beforeWasm ? await wasmFigures(beforeWasm, m) : null;
    const step = (x) => (b ? `${b[x].ms.toFixed(1)} (${b[x].cpu.toFixed(1)}) -> ` : "") +
      `${a[x].ms.toFixed(1)} (${a[x].cpu.toFixed(1)})`;
    const cpu = nativeCpu.get(label(m));
    const ratio = cpu > 0 ? `; wasm / native first ${(a.first.cpu / cpu).toFixed(1)}x` : "";
    console.log(`  ${label(m)} (${a.rows} models, ${a.fitting} fit): very first, at 4096 ${step("cold")}; ` +
      `first ${step("first")}; then ${m.then} ${step("other")}; ${m.gpu} again ${step("again")}${ratio}`);
  }
}

console.log(`${cpus().length} CPUs (${cpus()[0].model}), load average ${loadavg()[0].toFixed(1)}, node ${process.version}`);
if (existsSync(cli)) native();
else console.log(`no native CLI at ${cli}: native figures skipped`);
if (wasm !== "none" && existsSync(wasm)) await inWasm();
else console.log(`no JS API at ${wasm}: wasm figures skipped (scripts/build-wasm.sh)`);
