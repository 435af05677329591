// SPDX-License-Identifier: MIT
// The CLI as a newcomer meets it (issue 36, item 8): a short --help whose examples run, --help all with every
// setting, the page's default GPU, the version in --json, and wasm/llm-memory.d.ts against the JSON the core
// writes: every key it writes is declared, every field declared required is written. Needs only the native CLI.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { PAGE_DEFAULTS } from "../../web/state.js";
import { cli, root } from "./support.mjs";

// The CLI as it is (support.mjs native() gives it the API's device instead).
const json = (args) => JSON.parse(cli(args));
const launch = join(root, "tests/cli/launch");

test("--help is short, with an example per task, each of which runs", () => {
  const help = cli(["--help"]);
  const lines = help.trimEnd().split("\n");
  assert.ok(lines.length <= 40, `--help has ${lines.length} lines`);
  const examples = lines.filter((line) => line.startsWith("    llm-memory ")).map((line) => line.trim().split(/ +/).slice(1));
  assert.ok(examples.some((a) => a.includes("inference")));
  assert.ok(examples.some((a) => a.includes("lora")));
  assert.ok(examples.some((a) => a.includes("--zero") && a[a.indexOf("--zero") + 1] === "3"));
  assert.ok(examples.some((a) => a.includes("--from")));
  for (const args of examples) {
    const file = args.indexOf("--from");
    if (file >= 0) args[file + 1] = join(launch, "vllm-serve.sh");  // the example's file name stands for any
    const out = json([...args, "--json"]);
    assert.equal(out.ok, true, `${args.join(" ")}: ${JSON.stringify(out.errors)}`);
  }
});

test("--help all lists every setting; --help=all is the same", () => {
  const all = cli(["--help", "all"]);
  for (const row of json(["--schema"])) assert.match(all, new RegExp(`^  --${row.key} `, "m"));
  assert.equal(cli(["--help=all"]), all);
});

test("without --gpu or --gpu_memory the CLI sizes the page's default GPU; --gpu \"\" the table's 80 GB", () => {
  const gpu = json(["--list-gpus", "--json"]).find((g) => g.id === PAGE_DEFAULTS.gpu);
  const out = json(["--json", "--model", "llama-3.1-8b"]);
  assert.equal(out.settings.gpu, PAGE_DEFAULTS.gpu);
  assert.equal(out.gpu_memory, gpu.memory_bytes);
  assert.equal(json(["--json", "--gpu_memory", "24GB"]).gpu_memory, 24e9);
  assert.equal(json(["--json", "--gpu="]).gpu_memory, 80e9);
  assert.equal(json(["sweep", "--batch", "1", "--seq", "256", "--json"]).gpu_memory, gpu.memory_bytes);
});

test("--json carries the version --version prints and a schema version", () => {
  const out = json(["--json"]);
  assert.deepEqual(Object.keys(out).slice(0, 3), ["ok", "version", "schema_version"]);
  assert.equal(cli(["--version"]), `llm-memory ${out.version}\n`);
  assert.equal(out.schema_version, 1);
});

// ---- wasm/llm-memory.d.ts against the JSON --------------------------------------------------------------------

/** Splits `text` at `separator` where no bracket is open. */
function splitTop(text, separator) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if ("{<([".includes(c)) ++depth;
    else if ("}>)]".includes(c)) --depth;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** An object type's body ("a: number; b?: string") as Map(name -> {type, optional}); index signatures skipped. */
function members(body) {
  const out = new Map();
  for (const member of splitTop(body, ";")) {
    const m = /^(\w+)(\??):\s*([\s\S]+)$/.exec(member);
    if (m) out.set(m[1], { type: m[3].replace(/\s+/g, " "), optional: m[2] === "?" });
  }
  return out;
}

/** Every `export interface` of the d.ts, comments removed, as name -> members. */
function interfaces(text) {
  const bare = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const out = new Map();
  for (const m of bare.matchAll(/export interface (\w+) \{/g)) {
    let depth = 1, i = m.index + m[0].length;
    for (; depth > 0; ++i) depth += bare[i] === "{" ? 1 : bare[i] === "}" ? -1 : 0;
    out.set(m[1], members(bare.slice(m.index + m[0].length, i - 1)));
  }
  return out;
}

const dts = readFileSync(join(root, "wasm/llm-memory.d.ts"), "utf8");
const types = interfaces(dts);
/** `export type X = ...;` as name -> the type text. */
const aliases = new Map([...dts.matchAll(/^export type (\w+) = ([^;]+);/gm)].map((m) => [m[1], m[2]]));
const keyList = (text) => [...text.matchAll(/"(\w+)"/g)].map((m) => m[1]);

/** The members a type names (an interface, an inline object, Omit/Pick of one, X["key"]), or null: not an object. */
function objectMembers(type) {
  if (types.has(type)) return types.get(type);
  if (type.startsWith("{") && type.endsWith("}")) return members(type.slice(1, -1));
  let m = /^(Omit|Pick)<(\w+), (.+)>$/.exec(type);
  if (m) {
    const keys = new Set(keyList(m[3]));
    return new Map([...types.get(m[2])].filter(([key]) => keys.has(key) === (m[1] === "Pick")));
  }
  m = /^(\w+)\["(\w+)"\]$/.exec(type);
  if (m) return objectMembers(types.get(m[1]).get(m[2]).type);
  return null;
}

/** Checks `value` at `path` against the type text: objects key by key, arrays item by item, primitives by kind. */
function check(value, type, path) {
  if (aliases.has(type)) return check(value, aliases.get(type), path);
  const options = splitTop(type, "|");
  if (value === null) return assert.ok(options.includes("null"), `${path}: null, declared ${type}`);
  if (options.length > 1) {
    const literals = options.filter((o) => /^".*"$/.test(o)).map((o) => JSON.parse(o));
    const kinds = options.filter((o) => !/^".*"$/.test(o) && o !== "null");
    if (kinds.length === 0) return assert.ok(literals.includes(value), `${path}: ${JSON.stringify(value)} not in ${type}`);
    if (kinds.length === 1 && literals.length === 0) return check(value, kinds[0], path);
    return;  // a mixed union (number | string): its parts are checked where they stand alone
  }
  if (type.endsWith("[]")) {
    assert.ok(Array.isArray(value), `${path}: not an array, declared ${type}`);
    return value.forEach((item, i) => check(item, type.slice(0, -2).replace(/^\((.*)\)$/, "$1"), `${path}[${i}]`));
  }
  if (/^".*"$/.test(type)) return assert.equal(value, JSON.parse(type), path);
  if (["number", "string", "boolean"].includes(type)) return assert.equal(typeof value, type, `${path}: declared ${type}`);
  if (type === "true" || type === "false") return assert.equal(value, type === "true", path);
  const fields = objectMembers(type);
  if (fields === null) return assert.equal(typeof value, "object", `${path}: declared ${type}`);  // Record, Partial
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value), `${path}: not an object, declared ${type}`);
  for (const key of Object.keys(value)) assert.ok(fields.has(key), `${path}.${key}: written by the core, not declared in ${type}`);
  for (const [key, field] of fields) {
    if (!(key in value)) assert.ok(field.optional, `${path}.${key}: declared required in ${type}, not written`);
    else check(value[key], field.type, `${path}.${key}`);
  }
}

const model = (id) => ["--model", id];
const estimates = {
  "training, every answer": [...model("llama-3.1-8b"), "--solve", "--advise", "--ways-out", "--gpu", "rtx-4090"],
  "vLLM inference": [...model("qwen3-14b"), "--mode", "inference", "--gpu", "rtx-4090", "--seq", "32768"],
  "vLLM that does not fit": [...model("llama-3.1-70b"), "--mode", "inference", "--gpu", "rtx-4090"],
  "llama.cpp inference": [...model("llama-3.1-8b"), "--mode", "inference", "--runtime", "llamacpp", "--weights_dtype", "q4_k_m"],
  "transformers inference": [...model("llama-3.2-1b"), "--mode", "inference", "--runtime", "transformers"],
  "MoE under DeepSpeed ZeRO-3": [...model("mixtral-8x7b-v0.1"), "--framework", "deepspeed", "--zero", "3", "--devices", "8", "--pp", "2"],
  "encoder config": ["--config", join(root, "tests/cli/bert-config.json")],
  "encoder-decoder": ["--architecture", "encoder_decoder", "--encoder_layers", "6", "--num_hidden_layers", "6",
                      "--hidden_size", "512", "--num_attention_heads", "8", "--vocab_size", "32000"],
  "safetensors header": ["--safetensors", join(root, "tests/cli/two-tensors.safetensors")],
  "launch command": ["--from", join(launch, "vllm-serve.sh"), "--ways-out"],
};

for (const [name, args] of Object.entries(estimates)) {
  test(`llm-memory.d.ts's Estimate declares the --json of ${name}`, () => {
    check(json([...args, "--json"]), "Estimate", "estimate");
  });
}

test("llm-memory.d.ts declares the optional parts the core writes (peak, runtime, encoder layers, MoE layers)", () => {
  const seen = (args, path) => path.split(".").reduce((node, key) => node?.[key], json([...args, "--json"])) !== undefined;
  assert.ok(seen(estimates["vLLM inference"], "runtime.kv_capacity_tokens"));
  assert.ok(seen(estimates["llama.cpp inference"], "runtime.buffers.model"));
  assert.ok(seen(estimates["MoE under DeepSpeed ZeRO-3"], "param_breakdown.moe_layer.router"));
  assert.ok(seen(estimates["encoder config"], "param_breakdown.extra"));
  assert.ok(seen(estimates["encoder-decoder"], "param_breakdown.encoder_layer"));
  assert.ok(seen(estimates["training, every answer"], "peak.phases"));
  assert.ok(seen(estimates["launch command"], "from.read"));
  assert.ok(seen(estimates["safetensors header"], "checkpoint.by_dtype"));
});

test("llm-memory.d.ts declares the other shapes: errors, --gpus, the lists, the schema", () => {
  check(json(["--json", "--batch", "0"]), "Failure", "failure");
  check(json(["--gpus", "--json", ...model("llama-3.1-8b")]), 'Omit<GpuFit, "ok">', "gpus");
  check(json(["--list-models", "--json"]), "ModelPreset[]", "models");
  check(json(["--list-gpus", "--json"]), "GpuPreset[]", "gpus");
  check(json(["--schema"]), "SettingSchema[]", "schema");
});
