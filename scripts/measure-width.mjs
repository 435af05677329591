#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Time and peak memory of the core's JSON readers on wide inputs (issue 37, "width is unbounded"): a 100 MB
// safetensors header whose shape lists ~50 M entries, one with ~1.8 M tiny tensors, a 16 MiB config.json that is
// one long array; natively (the CLI under /usr/bin/time -v: wall time, peak RSS) and in wasm (node: wall time,
// the module's memory after the call). Prints one line per case; figures go to docs/robustness.md's limits table.
//
//   node scripts/measure-width.mjs [CLI] [JS API]   (defaults: build/release/llm-memory, dist/llm-memory.js)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// A safetensors file: the 8-byte little-endian header length, the header, then `data` bytes of tensor data.
function safetensors(header, data) {
  const text = Buffer.from(header, "utf8");
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length));
  return Buffer.concat([length, text, Buffer.alloc(data)]);
}

// One F32 tensor of shape [1, 1, ..., 1] (elements 1, 4 bytes) whose header is ~100 MB: ~50 M shape entries.
function wideShape() {
  const entries = 49_999_900;
  const header = `{"w":{"dtype":"F32","shape":[${"1,".repeat(entries - 1)}1],"data_offsets":[0,4]}}`;
  return safetensors(header, 4);
}

// As many one-byte U8 tensors as a ~100 MB header holds (~1.8 M).
function manyTensors() {
  const parts = [];
  let length = 2;
  let k = 0;
  for (; length < 99_999_000; ++k) {
    const part = `"t${k}":{"dtype":"U8","shape":[1],"data_offsets":[${k},${k + 1}]}`;
    length += part.length + 1;
    parts.push(part);
  }
  return safetensors(`{${parts.join(",")}}`, k);
}

// A `bytes`-long config.json: a real architecture's keys, then one array of zeros (8 M in 16 MiB).
function wideConfig(bytes) {
  const head = '{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,' +
    '"intermediate_size":14336,"vocab_size":128256,"wide":[';
  const zeros = Math.floor((bytes - head.length - 3) / 2);
  return Buffer.from(`${head}${"0,".repeat(zeros - 1)}0]}`);
}

// The CLI's address space is capped (MEASURE_CAP_GB, default 4): the old reader took 11 GB for the wide shape,
// more than a shared machine should give it; a run past the cap is killed and says so.
const cap_bytes = Number(process.env.MEASURE_CAP_GB ?? 4) * 2 ** 30;

function native(cli, flag, file) {
  const run = spawnSync("prlimit", [`--as=${cap_bytes}`, "/usr/bin/time", "-v", cli, flag, file, "--json"],
    { encoding: "utf8", maxBuffer: 1 << 28 });
  const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1] ?? NaN) / 1024;
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/.exec(run.stderr)?.[1] ?? "?";
  const seconds = wall.split(":").reduce((s, part) => s * 60 + Number(part), 0);
  const said = (run.stdout.match(/"message": ?"([^"]*)"/)?.[1] ?? (run.stdout.includes('"ok": true') ? "ok" : run.stdout.slice(0, 80))).slice(0, 110);
  const killed = /Command terminated by signal (\d+)/.exec(run.stderr)?.[1];
  const end = killed ? `killed by signal ${killed} (over the ${cap_bytes / 2 ** 30} GiB cap?)` : `exit ${run.status}: ${said}`;
  return `${seconds.toFixed(2)} s, peak RSS ${rss.toFixed(0)} MiB, ${end}`;
}

// In a child process (a fresh instance per case): the call's time and the wasm memory's size after it.
const child = `
const [api_path, kind, file] = process.argv.slice(1);
const { readFileSync } = await import("node:fs");
let memory = null;
const instantiate = WebAssembly.instantiate;
WebAssembly.instantiate = async (...args) => {
  const out = await instantiate(...args);
  const exports = (out.instance ?? out).exports;
  memory ??= Object.values(exports).find((v) => v instanceof WebAssembly.Memory);
  return out;
};
const { load } = await import(api_path);
const api = await load();
const bytes = readFileSync(file);
const before = memory.buffer.byteLength;
const start = performance.now();
let answer;
try {
  answer = kind === "config" ? await api.parseConfig(bytes.toString("utf8"))
    : await api.readCheckpoint("safetensors", new Uint8Array(bytes), bytes.length, "wide.safetensors");
} catch (e) {
  answer = { ok: false, errors: [{ message: "threw: " + String(e?.message ?? e) }] };
}
const seconds = (performance.now() - start) / 1000;
const said = answer.ok ? "ok" : String(answer.errors?.[0]?.message ?? JSON.stringify(answer)).slice(0, 110);
const mib = (bytes) => Math.round(bytes / 2 ** 20);
console.log(seconds.toFixed(2) + " s, wasm memory " + mib(before) + " -> " + mib(memory.buffer.byteLength) + " MiB: " + said);
`;

function wasm(api, kind, file) {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", child, pathToFileURL(api).href, kind, file],
    { encoding: "utf8", maxBuffer: 1 << 24 });
  return (run.stdout.trim() || run.stderr.trim().split("\n").slice(-1)[0] || `exit ${run.status}`).slice(0, 200);
}

const cli = resolve(process.argv[2] ?? "build/release/llm-memory");
const api = resolve(process.argv[3] ?? "dist/llm-memory.js");
const dir = mkdtempSync(join(tmpdir(), "llm-memory-width-"));
try {
  const cases = [
    ["a ~50 M-entry shape (100 MB header)", "--safetensors", "wide-shape.safetensors", wideShape, "safetensors"],
    ["~1.8 M tensors (100 MB header)", "--safetensors", "many-tensors.safetensors", manyTensors, "safetensors"],
    ["a 16 MiB config.json (the CLI's cap), one 8 M-value array", "--config", "wide-config.json", () => wideConfig(16 << 20), "config"],
    ["a 4 MiB config.json (wasm/api.js's cap), one 2 M-value array", "--config", "config.json", () => wideConfig(4 << 20), "config"],
  ];
  console.log(`CLI ${cli}\nAPI ${api}`);
  // MEASURE_ONLY=text: only the cases whose label holds it.
  for (const [label, flag, name, make, kind] of cases.filter(([label]) => label.includes(process.env.MEASURE_ONLY ?? ""))) {
    const file = join(dir, name);
    writeFileSync(file, make());
    console.log(`${label} [${(statSync(file).size / 1e6).toFixed(1)} MB]`);
    console.log(`  native: ${native(cli, flag, file)}`);
    console.log(`  wasm:   ${wasm(api, kind, file)}`);
    rmSync(file);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
