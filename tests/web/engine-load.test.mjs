// SPDX-License-Identifier: MIT
// What web/engine.js loads on demand. The page's core in two parts (docs/wasm.md, "The page's module in two"; scripts/split-wasm.mjs):
// llm-memory.first.wasm answers everything the page asks before the solver, the knob search, "Which GPUs fit",
// the heatmap or a checkpoint exactly as the whole llm-memory.wasm does, without reaching the rest but for the
// estimate of a model with a recurrent layer kind (the engine then loads the rest and asks again); the rest's
// bindings meet a placeholder until llm-memory.rest.wasm is instantiated, and answer as the whole module does after. Also web/engine.js's
// createEngine over the two parts: its ready() loads the rest once, a failed load is an error that says so and
// the next ask tries again. And the widget's engine, which reads the model presets its elements name, each once,
// not the whole catalogue (Engine.loadPresets).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { goldenCases, importEngine, loadApi, root } from "./support.mjs";

const glue = join(root, process.env.LLM_MEMORY_WASM ?? "dist/llm-memory.js");
const first_bytes = readFileSync(join(dirname(glue), "llm-memory.first.wasm"));
const rest_bytes = readFileSync(join(dirname(glue), "llm-memory.rest.wasm"));
const whole = await loadApi();
const { load } = await import(pathToFileURL(glue).href);

/** The JS API over the first part alone, and a function that instantiates the rest into it. */
async function firstPart() {
  const module = new WebAssembly.Module(first_bytes);
  let instance;
  const placeholder = Object.fromEntries(WebAssembly.Module.imports(module).filter((i) => i.module === "placeholder")
    .map((i) => [i.name, () => {
      throw new Error("placeholder reached");
    }]));
  const instantiateWasm = (imports, done) => {
    WebAssembly.instantiate(module, { ...imports, placeholder }).then((made) => done((instance = made), module));
    return {};
  };
  const api = await load({ instantiateWasm });
  return { api, placeholders: Object.keys(placeholder).length, rest: () => WebAssembly.instantiate(rest_bytes, { primary: instance.exports }) };
}

const same = (a, b, what) => assert.equal(JSON.stringify(a), JSON.stringify(b), what);

/** Every golden case's settings, then taskGrid's. */
const allCases = () => [...goldenCases().map(({ body }) => body.settings), ...taskGrid(whole)];

/**
 * Whether `settings` name a model with a recurrent layer kind (linear_attention, mamba, mamba1, conv,
 * attention_mamba), whose rows are in the rest (scripts/split-wasm.mjs REST_ROWS): its layer_types as the whole
 * module resolves them.
 */
function recurrent(settings) {
  const resolved = whole.resolve(settings);
  return resolved.ok && /(?:^|[,*])\s*(?:linear_attention|mamba1?|conv|attention_mamba)\s*(?:\+|,|$)/.test(resolved.settings.layer_types);
}

/** The runtimes and frameworks whose rows are in the rest (scripts/split-wasm.mjs RUNTIME_ROWS: their files' `rest_rows`). */
const REST_RUNTIMES = ["sglang", "tgi", "llamacpp", "ollama"];
const REST_FRAMEWORKS = ["deepspeed", "fsdp", "torchtune", "litgpt", "megatron", "unsloth", "torchtitan", "llamafactory", "axolotl"];

/**
 * Whether `settings` run on a runtime (inference: the one the whole module's estimate answers with, auto included)
 * or under a framework (training, eval) whose rows are in the rest.
 */
function restRuntime(settings) {
  const estimate = whole.estimate(settings);
  if (!estimate.ok) return false;
  if (estimate.settings.mode === "inference") return REST_RUNTIMES.includes(estimate.runtime?.name);
  return REST_FRAMEWORKS.includes(estimate.settings.framework);
}

/**
 * Whether `settings` train or evaluate (mode train or eval, as the whole module resolves them): their buckets are
 * estimate.cpp's training row, whose code is in the rest (scripts/split-wasm.mjs RUNTIME_ROWS); resolve is not.
 */
function training(settings) {
  const resolved = whole.resolve(settings);
  return resolved.ok && resolved.settings.mode !== "inference";
}

/** Settings that walk every task, runtime and framework over a few presets (the profiles' code paths). */
function taskGrid(api) {
  const schema = api.settingsSchema();
  const choices = (key) => schema.find((row) => row.key === key).choices;
  const grid = [];
  for (const model of ["meta-llama-3-8b", "llama-2-70b", "gpt-oss-20b", "deepseek-v2-lite", "gemma-3-12b-it", "qwen2.5-7b"]) {
    for (const runtime of choices("runtime")) grid.push({ model, mode: "inference", runtime, seq: "32768", gpu: "rtx-4090" });
    for (const framework of choices("framework")) {
      for (const finetune of ["full", "lora", "qlora"]) grid.push({ model, mode: "train", framework, finetune, devices: "2" });
    }
  }
  return grid;
}

test("the first part answers as the whole module does; only an estimate with a recurrent layer kind, another runtime than vLLM or transformers, another framework than HF and generic, or of a training run reaches the rest", async () => {
  const { api, placeholders } = await firstPart();
  // The 15 bindings of scripts/split-wasm.mjs's LAZY (solve, advise, ways_out, gpu_fit, fits, sweep, sweep_kernel_ms,
  // read_checkpoint, read_launch_json, parse_config, reconcile_log, read_paste, emit_launch, emit_formats,
  // list_models), the family readers
  // left out with parse_config (READS_CONFIG: the script checks that the first part builds no config.json reader),
  // the lambdas only the rest makes and the rows REST_ROWS names (reached below by the hybrid models' estimates and
  // the runs on another runtime or framework only). split-wasm.mjs also fails the build unless the first part
  // imports exactly LAZY + family readers + those lambdas + those rows placeholders.
  // At this commit: 15 bindings + 36 family readers (zamba2 the 36th) + 24 lambdas + 64 rows (24 recurrent layer
  // kinds' — zamba2's shared_attention_mamba adds three — + 40 of the other runtimes and frameworks: sglang 6, tgi 8,
  // llama.cpp 9 less picked_for, ollama 3, the frameworks' profiles, stated, model_overrides and op rules and
  // DeepSpeed's ZeRO-3 window) = 139; + estimate.cpp's training row (training_buckets) and the 6 saved rows of the
  // dense layer kinds (SAVED_ROWS: attention, sliding, mla and dsa saved widths, dense and moe saved) = 146; + Ollama's
  // notes row (the assumed Q4_K_M weights in Ollama's words) = 147; + the ranking's 4 fast look-ups
  // (core/src/fast_lookups.cpp: lambdas only fits() installs) = 151; + SGLang's, Megatron's and torchtitan's `check`
  // rows (tp and the KV heads or query groups) = 154, split-wasm.mjs's own count.
  assert.equal(placeholders, 154, `${placeholders} placeholders`);
  same(api.settingsSchema(), whole.settingsSchema(), "settingsSchema");
  same(api.listGpus(), whole.listGpus(), "listGpus");
  // The list computes every preset's exact count, the hybrid ones' too: after the rest (Engine.models waits for it).
  assert.throws(() => api.listModels(), /placeholder reached/);
  // One preset of each recurrent layer kind (mamba, linear_attention, conv, mamba1, attention_mamba, a pure
  // Mamba-2), served and trained: 6 x 2 = 12 estimates that meet the rest.
  const hybrid_models = ["granite-4.0-h-small", "qwen3.5-9b", "lfm2-1.2b", "jamba-v0.1", "falcon-h1-1.5b-instruct", "mamba2-2.7b"];
  const cases = [...allCases(), ...hybrid_models.flatMap((model) => [{ model, mode: "inference" }, { model, mode: "train", finetune: "lora" }])];
  assert.ok(cases.length > 200, `${cases.length} cases`);
  let hybrids = 0;
  let others = 0;
  let trained = 0;
  for (const settings of cases) {
    const what = JSON.stringify(settings);
    // A model with a recurrent layer kind meets the rest's placeholder of that kind's rows as its parameters are
    // counted, a run on another runtime or framework its profile's (the engine then loads the rest and asks again:
    // a test below); every other is the first part's alone.
    const kind = recurrent(settings);
    const other = restRuntime(settings);
    if (kind || other) {
      if (kind) hybrids++;
      else others++;
      assert.throws(() => api.resolve(settings), /placeholder reached/, `resolve ${what} meets the rest`);
      assert.throws(() => api.estimate(settings), /placeholder reached/, `estimate ${what} meets the rest`);
    } else if (training(settings)) {
      // A training run on HF or generic resolves in the first part (a link's check needs no rest); its buckets
      // are the training row's, in the rest.
      trained++;
      same(api.resolve(settings), whole.resolve(settings), `resolve ${what}`);
      assert.throws(() => api.estimate(settings), /placeholder reached/, `estimate ${what} meets the rest`);
    } else {
      same(api.resolve(settings), whole.resolve(settings), `resolve ${what}`);
      same(api.estimate(settings), whole.estimate(settings), `estimate ${what}`);
    }
  }
  assert.equal(hybrids, 12, "the golden cases and the grid are dense; the 12 hybrid ones");
  // The grid's 6 models x (4 such runtimes + 9 such frameworks x 3 finetunes) = 6 x 31 = 186, plus the one golden
  // case on such a runtime or framework (the others are vLLM, transformers, HF or generic): 187, each of which met a
  // placeholder in resolve and estimate above.
  assert.equal(others, 187, "the runs on another runtime or framework");
  // The golden training cases (tests/golden/seeds.json 10, training.json 15: framework generic, dense) less the two
  // training.json refuses (lora_targets "qkv", full training of q4_k_m weights: their errors are the first part's,
  // the else branch above) = 23, and the grid's 6 models x 2 frameworks (HF, generic) x 3 finetunes = 36: 59.
  assert.equal(trained, 59, "the training runs on HF or generic");
});

test("the rest's bindings meet a placeholder until the rest is instantiated, then answer as the whole module", async () => {
  const { api, rest } = await firstPart();
  const settings = { model: "meta-llama-3-8b", mode: "inference", seq: "8192" };
  assert.throws(() => api.solve(settings), /placeholder reached/);
  assert.throws(() => api.advise(settings), /placeholder reached/);
  assert.throws(() => api.waysOut(settings), /placeholder reached/);
  assert.throws(() => api.gpuFit(settings), /placeholder reached/);
  assert.throws(() => api.fits({ gpu: "rtx-4090" }), /placeholder reached/);
  assert.throws(() => api.sweep(settings), /placeholder reached/);
  // The presets come with their settings written out: only a config.json handed in reaches its readers.
  assert.throws(() => api.parseConfig({ hidden_size: 64 }), /placeholder reached/);
  // A startup log and a launch command written: the log readers and emit are the rest's too.
  assert.throws(() => api.reconcileLog(LOG, settings), /placeholder reached/);
  assert.throws(() => api.readPaste(LOG, settings), /placeholder reached/);
  assert.throws(() => api.emitLaunch("vllm", settings), /placeholder reached/);
  assert.throws(() => api.emitFormats(settings), /placeholder reached/);
  // The throw crossed wasm frames: the API put the stack back, and the first part goes on answering.
  same(api.estimate(settings), whole.estimate(settings), "estimate after the throw");
  await rest();
  same(api.listModels(), whole.listModels(), "listModels");
  const cases = allCases();
  for (const settings of cases) same(api.solve(settings), whole.solve(settings), `solve ${JSON.stringify(settings)}`);
  // The knob search (the page's ways out) on fewer cases: each is dozens of estimates.
  for (const settings of cases.filter((_, i) => i % 7 === 0)) same(api.advise(settings), whole.advise(settings), `advise ${JSON.stringify(settings)}`);
  same(api.waysOut(settings), whole.waysOut(settings), "waysOut");
  same(api.gpuFit(settings), whole.gpuFit(settings), "gpuFit");
  const machine = { gpu: "rtx-3060", ram: "64GB", family: "llama" };
  same(api.fits(machine), whole.fits(machine), "fits");
  const configs = join(root, "tests/data/configs");
  for (const file of readdirSync(configs).filter((f) => f.endsWith(".json"))) {
    const text = readFileSync(join(configs, file), "utf8");
    same(api.parseConfig(text), whole.parseConfig(text), `parseConfig ${file}`);
  }
  same(api.sweep(settings, { batch: "1:64", seq: "512:16384" }), whole.sweep(settings, { batch: "1:64", seq: "512:16384" }), "sweep");
  // A safetensors file of one bf16 tensor (2 x 3): the 8-byte header length, the header, 12 bytes of data.
  const header = Buffer.from(JSON.stringify({ w: { dtype: "BF16", shape: [2, 3], data_offsets: [0, 12] } }));
  const file = Buffer.concat([Buffer.alloc(8), header, Buffer.alloc(12)]);
  file.writeBigUInt64LE(BigInt(header.length), 0);
  const read = api.readCheckpoint("safetensors", file, file.length, "m.safetensors");
  same(read, whole.readCheckpoint("safetensors", file, file.length, "m.safetensors"), "readCheckpoint");
  assert.equal(read.checkpoint.params, 6);
  // The launch readers: their option and note strings came with the rest (scripts/split-data.mjs).
  for (const command of LAUNCHES) same(api.readLaunch(command), whole.readLaunch(command), `readLaunch ${command}`);
  same(api.reconcileLog(LOG, settings), whole.reconcileLog(LOG, settings), "reconcileLog");
  assert.equal(api.reconcileLog(LOG, settings).log.rows[0].label, "Available KV cache memory");
  same(api.readPaste(LOG, settings), whole.readPaste(LOG, settings), "readPaste of a log");
  same(api.readPaste(LAUNCHES[0], settings), whole.readPaste(LAUNCHES[0], settings), "readPaste of a command");
  for (const format of ["vllm", "sglang", "llamacpp", "ollama"]) same(api.emitLaunch(format, settings), whole.emitLaunch(format, settings), `emitLaunch ${format}`);
  same(api.emitFormats(settings), whole.emitFormats(settings), "emitFormats");
  // Two of them carry notes whose strings only the rest holds (the next test).
  const said = JSON.stringify(LAUNCHES.map((command) => api.readLaunch(command)));
  for (const note of ["llama-cli runs one sequence", "a docker option: no memory setting depends on it"]) assert.ok(said.includes(note), note);
});

/** A vLLM startup log's lines: its settings and one figure (docs/readers.md, "Logs"). */
const LOG = "INFO non-default args: {'model': 'meta-llama/Meta-Llama-3-8B', 'max_model_len': 4096}\n" +
  "INFO [gpu_worker.py:298] Available KV cache memory: 19.28 GiB\n";

/** Launch commands that reach each reader's options, notes and refusals (docs/readers.md). */
const LAUNCHES = [
  "vllm serve meta-llama/Meta-Llama-3-8B extra --tensor-parallel-size 2 --max-model-len 8k --kv-cache-dtype fp8_e5m2 --quantization awq --swap-space 4",
  "python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B -tp 4 --gpu-memory-utilization 0.8 --kv-cache-dtype int8",
  "llama-server -m models/llama-2-7b.Q4_K_M.gguf -c 4096 -ngl 99 -np 4 --flash-attn -ctk q8_0 --mlock",
  "llama-cli -hf bartowski/Llama-3.2-3B-Instruct-GGUF -c 0 -b 512 -np 2",
  "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 2 --mem-fraction-static 0.8 --context-length 8192",
  "text-generation-launcher --model-id mistralai/Mistral-7B-v0.1 --num-shard 2 --max-total-tokens 8192 --quantize bitsandbytes",
  "docker run --gpus all --shm-size 8g vllm/vllm-openai --model meta-llama/Meta-Llama-3-8B --max-num-seqs 64",
  "FROM llama3.1:8b\nPARAMETER num_ctx 16384\nPARAMETER num_gpu 20\nSYSTEM hello",
  "ollama run qwen2.5:7b",
  "not a launch command at all",
];

test("the strings only the rest's code names are in the rest, not in the first part", () => {
  // Notes of the launch readers (core/src/readers/llama_server.cpp, docker.cpp; tgi.cpp, vllm_serve.cpp and
  // sglang.cpp), whose code is in the rest only. Whole messages, not a tail such as "... choice": the linker may fold
  // a first-part literal into a rest string that ends with it (tail merging), which keeps that string first.
  for (const text of ["llama-cli runs one sequence", "a docker option: no memory setting depends on it", "a second positional argument: vllm serve takes one model"]) {
    assert.equal(first_bytes.includes(text), false, `${text} is not in the first part`);
    assert.equal(rest_bytes.includes(text), true, `${text} is in the rest`);
  }
  // A message resolve gives, which the first part needs before the rest is in.
  assert.equal(first_bytes.includes("unknown model"), true);
});

const { Engine, createEngine } = await importEngine();

test("load({docs: false}) reads the help texts on the first settingDocs(), which equal the schema's", async () => {
  const lazy = await load({ docs: false, presets: [] });
  assert.ok(lazy.settingsSchema().every((row) => row.doc === ""), "no help text before settingDocs()");
  const expected = Object.fromEntries(whole.settingsSchema().map((row) => [row.key, row.doc]));
  assert.ok(Object.values(expected).every((doc) => doc.length > 0), "the whole module's schema has every doc");
  same(await lazy.settingDocs(), expected, "settingDocs of the lazy instance");
  same(await whole.settingDocs(), expected, "settingDocs of an instance that read them at load");
  // The engine's never rejects (a form's first pointer asks it): a core that throws gives no texts.
  const stopped = new Proxy({}, { get: (_, key) => (key === "settingDocs" ? () => Promise.reject(new Error("stopped")) : lazy[key]) });
  same(await new Engine(stopped).settingDocs(), {}, "Engine.settingDocs over a core that stopped");
  same(await new Engine(lazy).settingDocs(), expected, "Engine.settingDocs");
});

test("an estimate that meets a recurrent layer kind's placeholder: the engine loads the rest, draws again once, then answers as the whole module", async () => {
  let fetches = 0;
  globalThis.llmMemoryBoot = {
    module: WebAssembly.compile(first_bytes),
    presets: ["granite-4.0-h-small", "meta-llama-3-8b"],
    rest: async () => {
      fetches++;
      return new Response(rest_bytes, { status: 200 });
    },
  };
  try {
    const engine = await createEngine();
    let draws = 0;
    const drawn = new Promise((resolve) => engine.onRestIn(() => resolve(++draws)));
    const dense = { model: "meta-llama-3-8b", mode: "inference", seq: "8192" };
    same(engine.estimate(dense), whole.estimate(dense), "a dense model needs no rest");
    assert.equal(fetches, 0);
    // Granite 4.0-H: Mamba-2 layers (their params, KV-cache and saved rows) in inference and in training.
    const hybrids = [{ model: "granite-4.0-h-small", mode: "inference", seq: "8192" }, { model: "granite-4.0-h-small", mode: "train", finetune: "lora" }];
    for (const settings of hybrids) {
      const waiting = engine.estimate(settings);
      assert.equal(waiting.ok, false);
      assert.equal(waiting.waiting, true);
      assert.match(waiting.errors[0].message, /^this run's code \(llm-memory\.rest\.wasm\) is loading; the answer follows$/);
    }
    // A link's settings are kept, with no problem to show, while the rest is on its way.
    same(engine.sanitise({}, hybrids[0]), { overrides: hybrids[0], problems: [] }, "sanitise while the rest loads");
    assert.equal(await drawn, 1);
    assert.equal(engine.complete, true);
    for (const settings of hybrids) same(engine.estimate(settings), whole.estimate(settings), `estimate ${JSON.stringify(settings)} once the rest is in`);
    // The throws left the first part whole: a dense estimate still answers as before.
    same(engine.estimate({ ...dense, seq: "4096" }), whole.estimate({ ...dense, seq: "4096" }), "estimate after the rest");
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(draws, 1, "one draw for every call that met a placeholder before the rest came in");
    assert.equal(fetches, 1);
  } finally {
    delete globalThis.llmMemoryBoot;
  }
});

test("a hybrid estimate whose rest cannot be fetched: one draw says so, and the next call fetches again", async () => {
  const fetches = [];
  let status = 404;
  globalThis.llmMemoryBoot = {
    module: WebAssembly.compile(first_bytes),
    presets: ["granite-4.0-h-small"],
    rest: async () => {
      fetches.push(status);
      return new Response(status === 200 ? rest_bytes : "not found", { status });
    },
  };
  try {
    const engine = await createEngine();
    const settings = { model: "granite-4.0-h-small", mode: "inference" };
    let drawn = new Promise((resolve) => engine.onRestIn(resolve));
    assert.equal(engine.estimate(settings).waiting, true);
    await drawn;
    // The draw after the failure: no new fetch, the reason.
    const failed = engine.estimate(settings);
    assert.equal(failed.waiting, undefined);
    assert.match(failed.errors[0].message, /^this run's code \(llm-memory\.rest\.wasm\) could not be loaded \(HTTP 404\); reload the page if it persists$/);
    assert.deepEqual(fetches, [404]);
    // The next call (an edit) tries again.
    status = 200;
    drawn = new Promise((resolve) => engine.onRestIn(resolve));
    assert.equal(engine.estimate(settings).waiting, true);
    await drawn;
    same(engine.estimate(settings), whole.estimate(settings), "estimate once the rest is in");
    assert.deepEqual(fetches, [404, 200]);
  } finally {
    delete globalThis.llmMemoryBoot;
  }
});

test("createEngine over the two parts: the rest is fetched once, when an answer needs it; a failed fetch says so", async () => {
  const fetches = [];
  let status = 404;
  globalThis.llmMemoryBoot = {
    module: WebAssembly.compile(first_bytes),
    presets: ["meta-llama-3-8b"],
    rest: async () => {
      fetches.push(status);
      return new Response(status === 200 ? rest_bytes : "not found", { status });
    },
  };
  try {
    const engine = await createEngine();
    const settings = { model: "meta-llama-3-8b", mode: "inference", seq: "8192" };
    assert.equal(engine.estimate(settings).ok, true);
    assert.deepEqual(fetches, [], "nothing fetched before an answer of the rest is asked for");
    assert.equal(engine.complete, false);
    for (const before of [engine.sweep(settings), engine.solve(settings), engine.advise(settings)]) {
      assert.equal(before.ok, false);
      assert.match(before.errors[0].message, /llm-memory\.rest\.wasm\) is not loaded yet/);
    }
    const failed = await engine.gpuFit(settings);
    assert.match(failed.errors[0].message, /llm-memory\.rest\.wasm\) could not be loaded \(HTTP 404\)/);
    status = 200;
    same(await engine.gpuFit(settings), whole.gpuFit(settings), "gpuFit once the rest is in");
    await engine.ready();
    assert.equal(engine.complete, true);
    same(engine.sweep(settings), whole.sweep(settings), "sweep");
    same(engine.solve(settings), whole.solve(settings), "solve");
    same(engine.advise(settings), whole.advise(settings), "advise");
    assert.deepEqual(fetches, [404, 200], "one more fetch after the failure, then none");
  } finally {
    delete globalThis.llmMemoryBoot;
  }
});

test("createEngine over a first part that does not fit the glue falls back to the whole module", async () => {
  // The rest compiled in the first part's place: its imports ("primary") are not the glue's, so it cannot be
  // instantiated; the engine then loads llm-memory.wasm whole, and every answer is there at once.
  globalThis.llmMemoryBoot = { module: WebAssembly.compile(rest_bytes), presets: ["meta-llama-3-8b"], rest: async () => assert.fail("no rest to fetch") };
  try {
    const engine = await createEngine();
    const settings = { model: "meta-llama-3-8b", mode: "inference", seq: "8192" };
    same(engine.estimate(settings), whole.estimate(settings), "estimate");
    same(engine.sweep(settings), whole.sweep(settings), "sweep, with no rest to wait for");
  } finally {
    delete globalThis.llmMemoryBoot;
  }
});

test("the widget's engine reads each preset its elements name once, and the catalogue only for a model list", async () => {
  // The API as createEngine({presets: []}) loads it, its preset reads counted.
  const api = await load({ presets: [] });
  const reads = [];
  const counted = new Proxy({}, {
    get: (_, key) => (key === "loadPresets" ? (ids) => {
      reads.push(ids === undefined ? "catalogue" : [...ids]);
      return api.loadPresets(ids);
    } : api[key]),
  });
  const engine = new Engine(counted, null, []);
  const wanted = ["llama-2-7b", "Meta-Llama-3-8B "];
  assert.equal(engine.hasPresets(wanted), false);
  await Promise.all([engine.loadPresets(wanted), engine.loadPresets(["llama-2-7b"]), engine.loadPresets(wanted)]);
  assert.deepEqual(reads, [["llama-2-7b"], ["meta-llama-3-8b"]], "each id read once, as the API names its file");
  assert.equal(engine.hasPresets(wanted), true);
  assert.equal(engine.hasPresets(["qwen2.5-7b"]), false);
  same(engine.estimate({ model: "llama-2-7b", seq: "4096" }), whole.estimate({ model: "llama-2-7b", seq: "4096" }), "estimate");
  // An id that is no preset is read once too; its estimate then says the model is unknown.
  await engine.loadPresets(["no-such-model"]);
  await engine.loadPresets(["no-such-model"]);
  assert.equal(engine.hasPresets(["no-such-model"]), true);
  assert.match(engine.estimate({ model: "no-such-model" }).errors[0].message, /^unknown model "no-such-model"/);
  // The model list reads the catalogue: every preset is then in, and nothing more is read.
  const models = await engine.models;
  assert.equal(models.length, whole.listModels().length);
  assert.equal(engine.hasPresets(["qwen2.5-7b"]), true);
  await engine.loadPresets(["qwen2.5-7b"]);
  assert.deepEqual(reads, [["llama-2-7b"], ["meta-llama-3-8b"], ["no-such-model"], "catalogue"]);
});

test("coreParts: the first part is fetched when first asked for, once; prefetchRest fetches the rest at once, once; the next rest() takes that response, a later one fetches again", async () => {
  const { coreParts } = await import(pathToFileURL(join(root, "web/core-parts.js")).href);
  const asked = [];
  const real = globalThis.fetch;
  globalThis.fetch = async (url) => {
    asked.push(url.pathname);
    const bytes = url.pathname.endsWith("first.wasm") ? first_bytes : rest_bytes;
    return new Response(bytes, { headers: { "content-type": "application/wasm" } });
  };
  try {
    const parts = coreParts("https://example.org/app/boot.js");
    // The start page reads `module` at its wake (web/app.js): nothing is fetched before.
    assert.deepEqual(asked, [], "nothing before the first part is asked for");
    await parts.module;
    await parts.module;
    assert.deepEqual(asked, ["/app/llm-memory.first.wasm"], "the first part, from the folder of the base");
    parts.prefetchRest();
    parts.prefetchRest();
    assert.deepEqual(asked, ["/app/llm-memory.first.wasm", "/app/llm-memory.rest.wasm"], "one fetch however often asked");
    assert.equal((await parts.rest()).ok, true);
    assert.equal(asked.length, 2, "rest() took the prefetched response");
    await parts.rest();
    assert.equal(asked.length, 3, "a later rest() fetches again: a response is read once");
  } finally {
    globalThis.fetch = real;
  }
});
