#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The page's module in two (docs/wasm.md, "The page's module in two"). CMake runs this after linking
// llm-memory.js + llm-memory.wasm with function names (--profiling-funcs); it writes, beside them:
//   llm-memory.first.wasm  every function the page can reach before it asks for an answer listed in LAZY
//   llm-memory.rest.wasm   the functions only those answers reach, in Binaryen's wasm-split secondary form: it
//                          imports the first part's memory, table and functions, and fills the table slots that
//                          hold placeholders in the first part (web/engine.js instantiates both); and the strings
//                          only those functions name, which it writes into the memory (split-data.mjs)
// and strips the names from llm-memory.wasm, which stays the whole module (node, the JS API, and the fallback of
// the page and the widget).
// The first part keeps every function reachable by direct calls from its exports and from every table entry
// but LAZY's bindings, the family readers (READS_CONFIG) and the lambdas whose maker it never reaches
// (lambdaOwner): whatever JS or an indirect call may reach stays in it, so only those bindings' calls can meet a
// placeholder, and the script checks that they, and only they, became placeholders.
// Usage: node scripts/split-wasm.mjs MODULE_DIR WASM_DIS WASM_SPLIT
// With LLM_MEMORY_SPLIT_SIZES=FILE it also writes FILE, each function's code size [bytes], part and name, biggest
// first (what to move next: docs/performance.md), and FILE.wasm, the module with its names, to split again by hand
// (copied over MODULE_DIR/llm-memory.wasm) without a relink.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { dataPointers, lineAddresses, mapObjects, moveRestStrings } from "./split-data.mjs";
import { readU32 } from "./wasm-binary.mjs";

/**
 * The bindings (wasm/bindings.cpp) whose code the page loads after its first result: the solver, the knob search
 * and the ways out (the default page's are prerendered), "Which GPUs fit", "What runs on my machine" (the
 * ranking), the heatmap, checkpoints, launch commands read and written (and which formats apply), startup logs set
 * beside the estimate, the page's one box for either (read_paste), a config.json handed in (the presets come with
 * their settings written out: wasm/preset_settings.cpp), and the list of every preset with its exact count
 * (list_models: the model picker's list, which Engine.models asks for once the catalogue and the rest are in).
 */
const LAZY = ["solve_json", "advise_json", "ways_out_json", "gpu_fit_json", "fits_json", "sweep_js", "sweep_kernel_ms",
              "read_checkpoint", "read_launch_json", "parse_config_json", "reconcile_log_json", "read_paste_json",
              "emit_launch_json", "emit_formats_json", "list_models"];

/**
 * Table entries only the reading of a config.json can call: the family readers (core/src/families/, rows of the
 * families' tables), each given the `llm_memory::detail::reader` that only the config.json readers build. They
 * go to the rest with parse_config's binding; the script checks that the first part builds no reader, so none of
 * them can be called before the rest is in (docs/performance.md, issue 31).
 */
const READS_CONFIG = /\(llm_memory::detail::reader&/;
const READER_BUILT = "llm_memory::detail::reader::reader(";

/**
 * Functions that only the rest's bindings call and that LTO inlined into them, so that no function of theirs is
 * left to reach: their lambdas are made by the rest's code (the streaming safetensors reader's member callback,
 * checkpoint.cpp, inlined into read_checkpoint; the ranking's fast look-ups, core/src/fast_lookups.cpp, which fits()
 * installs and the first part calls only once they are). Should a first-part call ever make and call one, it meets a
 * placeholder and the engine loads the rest and asks again (web/engine.js Engine#awaitRest).
 */
const INLINED_MAKERS = ["llm_memory::parse_safetensors_header(", "llm_memory::detail::install_fast_lookups("];

/**
 * Table entries only a model with a recurrent layer kind calls: those kinds' rows (core/src/layers/ linear_attention,
 * mamba, mamba1, short_conv, attention_mamba, lightning_attention, kda: add_params, saved, kv_cache; not state_bytes, which
 * layers/table.cpp state_bytes_per_sequence calls for every kind). The start page's model has none. An estimate
 * of such a model meets their placeholders until the rest is in: the engine then loads the rest and asks again
 * (web/engine.js Engine#awaitRest). One that a first-part function calls directly stays in the first part.
 */
const RECURRENT_ROWS = /^llm_memory::detail::(?:\(anonymous namespace\)::)?(?:add_(?:gdn|mamba1?|conv|parallel|lightning|kda|shared_mamba)_params|(?:gdn|mamba1?|conv|parallel|lightning|kda|shared_mamba)_(?:saved|kv_cache))\(/;

/**
 * Table entries only a run on a runtime other than vLLM and transformers, or a training run under a framework other
 * than the HF Trainer and the generic one, calls: the rows of core/src/runtimes/{sglang,tgi,llamacpp,ollama}.cpp and
 * core/src/frameworks/{deepspeed,fsdp,torchtune,litgpt,megatron,unsloth,torchtitan,llamafactory,axolotl}.cpp, whose
 * functions are in an `inline namespace rest_rows` for this, and DeepSpeed's ZeRO-3 window (the row of deepspeed,
 * llamafactory and axolotl). Not `picked_for`: runtime=auto asks every runtime's (runtimes/table.cpp auto_runtime).
 * Also core/src/estimate.cpp's training row (`training_buckets`: gradients, optimizer state, saved activations, every
 * phase of a training step; `stage_rows`), so the code only a training estimate runs is in the rest too.
 * The start page (vLLM) and a link's usual first answer (vLLM inference) reach none of them; another runtime's or
 * framework's estimate, or any training one, meets their placeholders until the rest is in, and the engine then loads
 * it and asks again (web/engine.js Engine#awaitRest), as for a recurrent layer kind. Resolve reaches none of
 * HF's and generic's rows, so a training link's settings are checked before the rest is in.
 */
const RUNTIME_ROWS = /^llm_memory::detail::(?:\(anonymous namespace\)::rest_rows::(?!picked_for\()|deepspeed_zero3_window\()/;

/**
 * Table entries only training's saved activations call (estimate/activations.cpp layer_saved, reached from the
 * training row only): the attention kinds' saved widths and the MLP kinds' saved rows (core/src/layers/). A training
 * estimate meets the training row's placeholder before any of them.
 */
const SAVED_ROWS = /^llm_memory::detail::(?:\(anonymous namespace\)::)?(?:(?:attention|sliding|mla|dsa)_saved_widths|(?:dense|moe)_saved)\(/;

/** The table entries left to the rest as rows: a recurrent layer kind's, another runtime's or framework's, training's. */
const REST_ROWS = { test: (name) => RECURRENT_ROWS.test(name) || RUNTIME_ROWS.test(name) || SAVED_ROWS.test(name) };

const fail = (message) => {
  console.error(`split-wasm: ${message}`);
  process.exit(1);
};

/** The module's sections as [id, name (custom sections), bytes of the whole section]. */
function sections(bytes) {
  const out = [];
  let at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    const [size, body] = readU32(bytes, at);
    let name = "";
    if (id === 0) {
      const [length, name_at] = readU32(bytes, body);
      name = bytes.subarray(name_at, name_at + length).toString();
    }
    at = body + size;
    out.push([id, name, bytes.subarray(start, at)]);
  }
  return out;
}

/** The code section's function bodies' sizes [bytes], in the defined functions' order. */
function bodySizes(bytes) {
  const code = sections(bytes).find(([id]) => id === 10)[2];
  const [, body] = readU32(code, 1);
  let [count, at] = readU32(code, body);
  const sizes = [];
  for (; count > 0; count--) {
    const [size, start] = readU32(code, at);
    sizes.push(size);
    at = start + size;
  }
  return sizes;
}

/** `bytes` without its "name" section (function names: the page needs none). */
const stripNames = (bytes) =>
  Buffer.concat([bytes.subarray(0, 8), ...sections(bytes).filter(([id, name]) => !(id === 0 && name === "name")).map(([, , s]) => s)]);

/**
 * The function a lambda's table entry belongs to (its name up to the lambda's `$_N`), or null for a table entry
 * that is no lambda's or a lambda made outside a function (a global's initialiser).
 */
function lambdaOwner(entry) {
  const func = /^std::__2::__function::__func<(.+?)::\$_\d+,/.exec(entry);
  if (func) return func[1];
  const invoke = /^(.+?)::\$_\d+::__invoke\(/.exec(entry);
  return invoke && invoke[1].includes("(") ? invoke[1] : null;
}

const unescape = (name) => name.replace(/\\([0-9a-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));

/**
 * The functions to keep in the first part, as indices among the defined functions (Binaryen names a module's
 * functions by these once it has no names), the table entries left out (LAZY's bindings), and the memory
 * addresses each part names (split-data.mjs).
 */
function firstPart(wat) {
  const calls = new Map();
  const named = new Map();
  const globals = [];
  const rodata = new Set();
  const roots = new Set();
  const table = [];
  let body = null;
  let addresses = null;
  for (const line of wat.split("\n")) {
    const func = /^ \(func \$(\S+)/.exec(line);
    if (func) {
      calls.set(unescape(func[1]), (body = new Set()));
      named.set(unescape(func[1]), (addresses = []));
    } else if (line.startsWith(" (")) {
      body = null;
      if (line.startsWith(" (global ")) globals.push(...lineAddresses(line));
      // The read-only segments, by their address: the linker's .rodata sections (split-data.mjs).
      const data = /^ \(data \$(\S+) \(i32\.const (\d+)\)/.exec(line);
      if (data && data[1].startsWith(".rodata")) rodata.add(Number(data[2]));
      if (line.startsWith(" (export ")) {
        const exported = /\(func \$([^\s)]+)\)/.exec(line);
        if (exported) roots.add(unescape(exported[1]));
      } else if (line.startsWith(" (elem ")) {
        for (const entry of line.matchAll(/\$([^\s)]+)/g)) table.push(unescape(entry[1]));
      } else if (line.startsWith(" (start ")) {
        roots.add(unescape(/\$([^\s)]+)/.exec(line)[1]));
      }
    } else if (body) {
      for (const callee of line.matchAll(/\((?:call|return_call|ref\.func) \$([^\s)]+)/g)) body.add(unescape(callee[1]));
      addresses.push(...lineAddresses(line));
    }
  }
  const lazy = (name) => LAZY.some((binding) => name.startsWith(`(anonymous namespace)::${binding}(`));
  const left_out = table.filter(lazy);
  const readers = table.filter((name) => READS_CONFIG.test(name));
  const rows = table.filter((name) => REST_ROWS.test(name));
  // A lambda's entry (its std::function's methods, its function pointer) is a root once the function that makes
  // it is reached: before, nothing can hold it (the solver's and the knob search's lambdas).
  const owned = new Map();
  for (const entry of table) {
    if (lazy(entry) || READS_CONFIG.test(entry) || REST_ROWS.test(entry)) continue;
    const owner = lambdaOwner(entry);
    const inlined = owner && INLINED_MAKERS.some((maker) => owner.startsWith(maker));
    if (owner && (inlined || [...calls.keys()].some((name) => name.startsWith(owner)))) owned.set(entry, owner);
    else roots.add(entry);
  }
  const reached = new Set();
  const stack = [...roots];
  for (;;) {
    while (stack.length) {
      const name = stack.pop();
      if (reached.has(name)) continue;
      reached.add(name);
      for (const callee of calls.get(name) ?? []) stack.push(callee);
    }
    const made = [...owned].filter(([entry, owner]) => !reached.has(entry) && [...reached].some((name) => name.startsWith(owner)));
    if (!made.length) break;
    stack.push(...made.map(([entry]) => entry));
  }
  const lambdas = [...owned.keys()].filter((entry) => !reached.has(entry));
  const rest_rows = rows.filter((entry) => !reached.has(entry));
  const keep = [...calls.keys()].flatMap((name, index) => (reached.has(name) ? [index] : []));
  const first_refs = [...globals, ...[...named].flatMap(([name, list]) => (reached.has(name) ? list : []))];
  const rest_refs = [...named].flatMap(([name, list]) => (reached.has(name) ? [] : list));
  return { keep, left_out, readers, lambdas, rest_rows, reached, functions: calls.size, first_refs, rest_refs, rodata };
}

/** The defined functions' names, in their order (the wat's). */
const definedNames = (wat) => [...wat.matchAll(/^ \(func \$(\S+)/gm)].map(([, name]) => unescape(name));

const [dir, wasm_dis, wasm_split] = process.argv.slice(2);
if (!wasm_split) fail("usage: node scripts/split-wasm.mjs MODULE_DIR WASM_DIS WASM_SPLIT");
const whole = join(dir, "llm-memory.wasm");
const named = readFileSync(whole);
if (!sections(named).some(([id, name]) => id === 0 && name === "name")) fail(`${whole} has no function names: link it with --profiling-funcs`);

const wat = execFileSync(wasm_dis, [whole], { maxBuffer: 1 << 28 }).toString();
const { keep, left_out, readers, lambdas, rest_rows, reached, functions, first_refs, rest_refs, rodata } = firstPart(wat);
if (left_out.length !== LAZY.length || new Set(left_out).size !== LAZY.length) {
  fail(`expected the ${LAZY.length} bindings ${LAZY.join(", ")} once each in the table, found ${left_out.length}: ${left_out.join("; ")}`);
}
for (const entry of [...left_out, ...readers, ...lambdas]) if (reached.has(entry)) fail(`${entry} is reachable from the first part`);
for (const name of reached) if (name.startsWith(READER_BUILT)) fail(`the first part builds a config.json reader (${name})`);
if (!rest_rows.some((name) => RUNTIME_ROWS.test(name))) fail("no runtime's or framework's rest_rows entry in the table: RUNTIME_ROWS is out of date");
if (!readers.length || ![...wat.matchAll(/^ \(func \$(\S+)/gm)].some(([, name]) => unescape(name).startsWith(READER_BUILT))) {
  fail(`no family reader in the table, or no ${READER_BUILT}...) to check: READS_CONFIG is out of date`);
}

const work = mkdtempSync(join(tmpdir(), "llm-memory-split-"));
try {
  const stripped = stripNames(named);
  writeFileSync(join(work, "whole.wasm"), stripped);
  writeFileSync(join(work, "keep.txt"), `${keep.join("\n")}\n`);
  execFileSync(wasm_split, [join(work, "whole.wasm"), `--keep-funcs=@${join(work, "keep.txt")}`, "--all-features",
                            "-o1", join(work, "first.wasm"), "-o2", join(work, "rest.wasm")], { stdio: ["ignore", "ignore", "pipe"] });
  if (!rodata.size) fail("wasm-dis names no .rodata data segment: split-data.mjs cannot tell the read-only strings");
  // The link map (wasm/CMakeLists.txt: the link's --print-map): the data objects' extents.
  const map = readFileSync(join(dir, "llm-memory.map"), "utf8");
  const objects = mapObjects(map);
  if (!objects.length) fail("llm-memory.map lists no data object: link with -Wl,--print-map (wasm/CMakeLists.txt)");
  // Where the data holds an address: the relocations of the link's LTO object (-Wl,--save-temps), placed by the map.
  const pointers = dataPointers(readFileSync(join(dir, "llm-memory.wasm.lto.o")), map);
  if (pointers.error) fail(pointers.error);
  const strings = moveRestStrings(stripNames(readFileSync(join(work, "first.wasm"))), stripNames(readFileSync(join(work, "rest.wasm"))),
                                  first_refs, rest_refs, rodata, objects, pointers);
  if (strings.error) fail(strings.error);
  const { first, rest } = strings;
  // Each lazy binding, and nothing else, must have become a placeholder the first part imports.
  const placeholders = WebAssembly.Module.imports(new WebAssembly.Module(first)).filter((i) => i.module === "placeholder");
  const expected = LAZY.length + readers.length + lambdas.length + rest_rows.length;
  if (placeholders.length !== expected) fail(`the first part imports ${placeholders.length} placeholders, expected ${expected}`);
  writeFileSync(join(dir, "llm-memory.first.wasm"), first);
  writeFileSync(join(dir, "llm-memory.rest.wasm"), rest);
  writeFileSync(whole, stripped);
  if (process.env.LLM_MEMORY_SPLIT_SIZES) {
    writeFileSync(`${process.env.LLM_MEMORY_SPLIT_SIZES}.wasm`, named);
    const sizes = bodySizes(named);
    const rows = [...definedNames(wat)].map((name, i) => [sizes[i], reached.has(name) ? "first" : "rest", name]);
    writeFileSync(process.env.LLM_MEMORY_SPLIT_SIZES, rows.sort((a, b) => b[0] - a[0]).map((row) => row.join("\t")).join("\n") + "\n");
  }
  const size = (bytes) => `${bytes.length} B raw, ${gzipSync(bytes, { level: 9 }).length} B gzip`;
  console.log(`split-wasm: ${LAZY.length} bindings, ${readers.length} family readers, ${lambdas.length} lambdas only the rest makes and ` +
              `${rest_rows.length} rows (recurrent layer kinds, other runtimes and frameworks, training) left out; ` +
              `${functions} functions, ${keep.length} in the first part (${size(first)}), ` +
              `${functions - keep.length} in the rest (${size(rest)}), with ${strings.moved} B of strings only it names; ` +
              `whole ${size(stripped)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
