// SPDX-License-Identifier: MIT
// The JS API itself: the same answers as the native CLI for every entry point, errors as values for any
// input, plain numbers for bytes, and the single-file variant identical to the split one.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";

import { loadApi, native } from "./support.mjs";

const api = await loadApi();
const nativeJson = (args) => JSON.parse(native(args));

test("load() without options shares one instance", async () => {
  assert.equal(await loadApi(), api);
});

test("settingsSchema, listModels and listGpus equal the CLI's --schema and --list-*", () => {
  assert.deepEqual(api.settingsSchema(), nativeJson(["--schema"]));
  assert.deepEqual(api.listModels(), nativeJson(["--list-models", "--json"]));
  // The module leaves the devices' sources out (core/embed_data.cmake; docs/devices.md lists them).
  const withoutSource = (gpus) => gpus.map(({ source, ...gpu }) => gpu);
  assert.deepEqual(withoutSource(api.listGpus()), withoutSource(nativeJson(["--list-gpus", "--json"])));
  assert.ok(api.listGpus().every((g) => g.source === ""));
  assert.ok(api.listModels().length > 0 && api.listGpus().length > 0);
});

test("gpuFit equals the CLI's --gpus --json; errors name the setting", () => {
  for (const [settings, args] of [
    [{ model: "meta-llama-3-8b" }, ["--model", "meta-llama-3-8b"]],
    [{ model: "llama-2-7b", mode: "inference", seq: "8192" }, ["--model", "llama-2-7b", "--mode", "inference", "--seq", "8192"]],
    [{ model: "llama-2-7b", zero: "3", gpu_memory: "24GB" }, ["--model", "llama-2-7b", "--zero", "3", "--gpu_memory", "24GB"]],
  ]) {
    const fit = api.gpuFit(settings);
    assert.deepEqual(fit, { ok: true, ...nativeJson(["--gpus", "--json", ...args]) });
    assert.deepEqual(fit.gpus.map((g) => g.id), api.listGpus().map((g) => g.id));
  }
  const bad = api.gpuFit({ batch: "0" });
  assert.equal(bad.ok, false);
  assert.equal(bad.errors[0].setting, "batch");
});

test("returned objects are fresh copies", () => {
  api.settingsSchema().pop();
  assert.deepEqual(api.settingsSchema(), nativeJson(["--schema"]));
});

test("estimate equals llm-memory --json text for text", () => {
  const text = native(["--json", "--model", "llama-2-7b", "--seq", "4096"]);
  assert.equal(api.estimateJson({ model: "llama-2-7b", seq: 4096 }) + "\n", text);
});

test("numbers and strings are the same input", () => {
  assert.deepEqual(api.estimate({ model: "llama-2-7b", seq: 4096, batch: 2, fused_ce: true }),
                   api.estimate({ model: "llama-2-7b", seq: "4096", batch: "2", fused_ce: "true" }));
});

test("byte counts are plain numbers", () => {
  const out = api.estimate({ model: "llama-2-7b" });
  assert.equal(out.ok, true);
  for (const value of [out.params, out.gpu_memory, out.cpu_bytes, ...Object.values(out.bytes)])
    assert.equal(typeof value, "number");
  assert.ok(Number.isSafeInteger(out.bytes.total));
});

test("bad input comes back as errors naming the setting, never as an exception", () => {
  assert.deepEqual(api.estimate({ batch: 0 }), nativeJson(["--json", "--batch", "0"]));
  const odd = api.estimate({ seq: {}, batch: [], gpu_memory: NaN, unknown_knob: 1, vocab_size: -1 });
  assert.equal(odd.ok, false);
  assert.deepEqual(odd.errors.map((e) => e.setting).sort(), ["batch", "gpu_memory", "seq", "unknown_knob", "vocab_size"]);
  for (const input of [undefined, null, 7, "text", []]) assert.equal(api.estimate(input).ok, true);
  assert.equal(api.estimate({ batch: null, seq: undefined }).settings.batch, "1");
  for (const config of ["", "{", "[]", "null", { hidden_size: "wide" }]) assert.equal(api.parseConfig(config).ok, false);
  assert.equal(api.advise({ tp: 3 }).ok, false);
  assert.equal(api.solve({ devices: 0 }).errors[0].setting, "devices");
});

test("parseConfig + estimate equal the CLI's --config", () => {
  const config = {
    model_type: "llama", hidden_size: 2048, intermediate_size: 5632, num_hidden_layers: 22, num_attention_heads: 32,
    num_key_value_heads: 4, vocab_size: 32000, tie_word_embeddings: false, max_position_embeddings: 2048,
  };
  const parsed = api.parseConfig(JSON.stringify(config));
  assert.equal(parsed.ok, true, JSON.stringify(parsed));
  assert.deepEqual(api.parseConfig(config), parsed);
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-"));
  try {
    writeFileSync(join(dir, "config.json"), JSON.stringify(config));
    const expected = nativeJson(["--json", "--config", join(dir, "config.json"), "--batch", "4"]);
    assert.deepEqual(api.estimate({ batch: 4 }, parsed.settings), expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("advise and solve equal the CLI's --advise and --solve", () => {
  for (const args of [["--model", "llama-2-7b"], ["--model", "llama-2-7b", "--mode", "inference", "--gpu_memory", "24GB"]]) {
    const expected = nativeJson(["--json", "--advise", "--solve", ...args]);
    const settings = Object.fromEntries(args.map((a, i) => (i % 2 ? null : [a.slice(2), args[i + 1]])).filter(Boolean));
    assert.deepEqual(api.advise(settings), { ok: true, ...expected.advice });
    assert.deepEqual(api.solve(settings), { ok: true, ...expected.solve });
  }
});

test("waysOut equals the CLI's --ways-out with --solve and --advise; errors name the setting", () => {
  for (const args of [["--model", "meta-llama-3-8b", "--gpu", "h100-80gb"], ["--model", "llama-2-7b", "--mode", "inference", "--gpu_memory", "12GB"],
    ["--model", "llama-2-7b", "--batch", "2"]]) {
    const expected = nativeJson(["--json", "--ways-out", "--advise", "--solve", ...args]);
    const settings = Object.fromEntries(args.map((a, i) => (i % 2 ? null : [a.slice(2), args[i + 1]])).filter(Boolean));
    assert.deepEqual(api.waysOut(settings), {
      ok: true, ...expected.ways_out, solve: { ok: true, ...expected.solve }, advice: { ok: true, ...expected.advice },
    });
  }
  // The page's default (a full fine-tune of Llama 3 8B on one H100) does not fit: the ways on its own device come
  // first (issue 36 item 1); then more of it, where ZeRO 0 fits on no device count, so the devices way is the ZeRO-3
  // search's, named so.
  const ways = api.waysOut({ model: "meta-llama-3-8b", gpu: "h100-80gb" });
  assert.equal(ways.fits, false);
  assert.equal(ways.ways[0].group, "own");
  const more = ways.ways.find((way) => way.group === "more");
  assert.match(more.text, /^\d+ × NVIDIA H100 80GB SXM5 with ZeRO-3/);
  assert.equal(more.delta.zero, "3");
  const bad = api.waysOut({ batch: "0" });
  assert.equal(bad.ok, false);
  assert.equal(bad.errors[0].setting, "batch");
});

test("the single-file variant gives the same answers", async () => {
  const single = await loadApi("single");
  assert.notEqual(single, api);
  for (const settings of [{ model: "llama-2-7b" }, { mode: "inference", seq: 32768 }, { batch: "x" }])
    assert.equal(single.estimateJson(settings), api.estimateJson(settings));
  assert.deepEqual(single.settingsSchema(), api.settingsSchema());
});

// Aliases (docs/models.md, "Aliases"): a module handed only the preset file an alias names (models/<alias>.json,
// the preset's entry written again under the alias) estimates as the native CLI does for that alias, and lists
// the preset once under its own id.
test("a preset loaded by an alias answers to it, as natively", async () => {
  const { load } = await import(new URL("../../dist/llm-memory.js", import.meta.url).href);
  const only = await load({ presets: ["llama-3.1-8b-instruct"] });
  assert.equal(only.presetsComplete, false);
  assert.deepEqual(only.listModels().map((m) => [m.id, m.aliases]), [["llama-3.1-8b", ["llama-3.1-8b-instruct"]]]);
  const settings = { model: "llama-3.1-8b-instruct", mode: "inference", seq: "8192" };
  const args = ["--model", "llama-3.1-8b-instruct", "--mode", "inference", "--seq", "8192", "--json"];
  assert.deepEqual(only.estimate(settings), nativeJson(args));
  assert.equal(only.estimate(settings).params, 8030261248);
});

// A module whose preset files cannot be read (here: absent beside it, as for a page on another origin without
// CORS) says so in an unknown model's error, in estimateJson's text as in estimate's object (docs/embedding.md);
// other answers are the core's text unchanged.
test("an unknown model says when the presets could not be read, in every form", async () => {
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-no-presets-"));
  try {
    const dist = new URL("../../dist/", import.meta.url);
    for (const file of ["llm-memory.js", "llm-memory.wasm"])
      writeFileSync(join(dir, file), readFileSync(new URL(file, dist)));
    writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
    const { load } = await import(pathToFileURL(join(dir, "llm-memory.js")).href);
    const bare = await load({ presets: ["llama-2-7b"] });
    const note = /: not a preset .*; the model presets could not be read \(llm-memory\.models\.json/;
    assert.match(bare.estimate({ model: "llama-2-7b" }).errors[0].message, note);
    const text = JSON.parse(bare.estimateJson({ model: "llama-2-7b" }));
    assert.equal(text.ok, false);
    assert.equal(text.errors[0].setting, "model");
    assert.match(text.errors[0].message, note);
    const api = await loadApi();
    assert.equal(bare.estimateJson({ seq: "x" }), api.estimateJson({ seq: "x" }));
    assert.equal(bare.estimateJson({ mode: "inference" }), api.estimateJson({ mode: "inference" }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
