// SPDX-License-Identifier: MIT
// reconcileLog, readPaste and emitLaunch (wasm/api.js), issue 33 on the page: a pasted startup log read by the
// CLI's log readers and set beside the estimate as `llm-memory --log FILE --json` sets it (docs/readers.md,
// "Logs"), the page's one box sending a text to the log or the launch readers ("The page's box"), and the launch
// command for the current settings as `llm-memory --emit FORMAT` writes it ("Emit").
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { loadApi, native, root } from "./support.mjs";

const api = await loadApi();

const logs = join(root, "tests/cli/log");
const llamacpp = join(logs, "llamacpp-llama-3-8b-q4_k_m.log");
const vllm = join(logs, "vllm-0.15.1-llama-3.1-8b.log");

const rowOf = (answer, item) => answer.log.rows.find((r) => r.item === item);

test("a llama.cpp log: its KV buffer beside ours, derived by hand", () => {
  // The log names no preset (a Llama 3 8B fine-tune): the page's model fills in, as --model does for the CLI.
  const answer = api.reconcileLog(readFileSync(llamacpp, "utf8"), { model: "meta-llama-3-8b", gpu: "h100-80gb" });
  assert.equal(answer.ok, true, JSON.stringify(answer.errors));
  assert.equal(answer.log.format, "llamacpp");
  // Line 57 n_ctx = 512, line 63 "CUDA0 KV buffer size = 64.00 MiB". Ours, llama.cpp's f16 cache:
  // 2 (K, V) x 32 layers x 512 tokens x 8 KV heads x 128 head dim x 2 bytes = 67,108,864 B = 64 MiB.
  const kv = rowOf(answer, "kv_memory");
  assert.deepEqual([kv.label, kv.line, kv.unit, kv.log, kv.ours, kv.difference], ["CUDA0 KV buffer size", 63, "MiB", 64, 64, 0]);
  assert.equal(answer.settings.seq, "512");
  assert.equal(answer.settings.runtime, "llamacpp");
});

test("the comparison and the record are the CLI's --log --json and --as-record", () => {
  for (const [file, given] of [[llamacpp, ["--model", "meta-llama-3-8b"]], [vllm, ["--gpu_memory", "39.39GiB"]]]) {
    const settings = Object.fromEntries([[given[0].slice(2), given[1]]]);
    const answer = api.reconcileLog(readFileSync(file, "utf8"), settings);
    assert.equal(answer.ok, true, `${file}: ${JSON.stringify(answer.errors)}`);
    const cli = JSON.parse(native(["--log", file, ...given, "--json"]));
    // The CLI's flags win over the log, the page's settings lie under it: neither file states what is given here.
    assert.deepEqual(answer.log, cli.log, file);
    const record = JSON.parse(native(["--log", file, ...given, "--as-record"]));
    assert.ok(record.length > 0, file);
    assert.deepEqual(answer.record, record.map((r) => ({ ...r, source: "a startup log pasted on the page",
      settings: answer.settings })), file);
  }
});

test("the log's settings lie over the page's; a log naming a model drops the page's architecture", () => {
  // The vLLM log names Meta-Llama-3.1-8B-Instruct (the llama-3.1-8b preset) and max_seq_len 131072.
  const answer = api.reconcileLog(readFileSync(vllm, "utf8"), { model: "", hidden_size: "1024", num_hidden_layers: "2", seq: "4096", batch: "3" });
  assert.equal(answer.ok, true, JSON.stringify(answer.errors));
  assert.equal(answer.settings.model, "llama-3.1-8b");
  assert.equal(answer.settings.seq, "131072");
  assert.equal(answer.settings.batch, "3", "a setting the log does not state stays");
  assert.equal(answer.settings.hidden_size, undefined);
  assert.equal(answer.settings.num_hidden_layers, undefined);
  // The same settings typed give the same estimate.
  assert.deepEqual(api.estimate(answer.settings), api.estimate({ batch: "3", ...answer.log.from.settings }));
});

test("bad logs and arguments get errors naming the line or the argument, never a throw", () => {
  const bad = api.reconcileLog(readFileSync(join(logs, "bad-n-ctx.log"), "utf8"), {});
  assert.equal(bad.ok, false);
  assert.match(bad.errors[0].setting, /^line 2\b/);
  assert.deepEqual(api.reconcileLog(42).errors, [{ setting: "log", message: "the log must be text" }]);
  assert.equal(api.reconcileLog("x".repeat((16 << 20) + 1)).errors[0].message, "larger than 16 MiB");
  assert.equal(api.reconcileLog("INFO hello\n", { seq: "abc" }).ok, false);
  // A log the readers do not know is no error: no figures, no rows.
  const plain = api.reconcileLog("hello\n\ud800\n", { model: "meta-llama-3-8b" });
  assert.equal(plain.ok, false, "a text that is no startup log is refused, naming the log");
  assert.equal(plain.errors[0].setting, "log");
});

test("readPaste, the page's one box: a log goes to the log readers, anything else to the launch readers", () => {
  const settings = { gpu_memory: "39.39GiB" };
  const text = readFileSync(vllm, "utf8");
  const { kind, ...log } = api.readPaste(text, settings);
  assert.equal(kind, "log");
  assert.deepEqual(log, api.reconcileLog(text, settings));
  for (const file of ["launch/vllm-serve.sh", "launch/llama-server.sh", "recipes/torchtune-llama3_1-8B_lora_single_device.yaml",
                      "recipes/axolotl-llama-3-lora-8b.yml", "recipes/ds_z3_config.json"]) {
    const command = readFileSync(join(root, "tests/cli", file), "utf8");
    const { kind: read_as, ...read } = api.readPaste(command, settings);
    assert.equal(read_as, "launch", file);
    assert.deepEqual(read, api.readLaunch(command), file);
  }
  // "a", LF, "b", NUL: the NUL is byte 4 (from 1), on line 2.
  assert.deepEqual(api.readPaste("a\nb\0c").errors,
    [{ setting: "line 2", message: "holds a NUL byte (byte 4): a binary file, not a command, recipe or log" }]);
  assert.deepEqual(api.readPaste(42).errors, [{ setting: "paste", message: "the pasted text must be text" }]);
  assert.equal(api.readPaste("x".repeat((16 << 20) + 1)).errors[0].message, "larger than 16 MiB");
});

test("emitLaunch writes the CLI's --emit command, which readLaunch reads back to the same settings", () => {
  const settings = { mode: "inference", model: "meta-llama-3-8b", seq: "16384", tp: "2", devices: "2", gpu: "h100-80gb" };
  for (const format of ["vllm", "sglang", "llamacpp", "ollama"]) {
    const out = api.emitLaunch(format, { ...settings, runtime: format });
    assert.equal(out.ok, true, `${format}: ${JSON.stringify(out.errors)}`);
    const cli = native(["--emit", format, ...Object.entries({ ...settings, runtime: format }).flatMap(([k, v]) => [`--${k}`, v])]);
    const comment = out.not_carried.length ? `# not carried by this command: ${out.not_carried.join(", ")}\n` : "";
    assert.equal(out.text + comment, cli, format);
    const read = api.readLaunch(out.text);
    assert.equal(read.ok, true, format);
    assert.equal(read.settings.model, "meta-llama-3-8b", format);
    assert.equal(read.settings.seq, "16384", format);
  }
  assert.equal(api.emitLaunch("tgi", settings).errors[0].setting, "emit");
  // A DeepSpeed config (a training stack's), through the same binding, reads back as --from reads it.
  const ds = api.emitLaunch("deepspeed", { mode: "train", framework: "deepspeed", zero: "2", batch: "4", devices: "2" });
  assert.equal(ds.ok, true, JSON.stringify(ds.errors));
  const back = api.readLaunch(ds.text);
  assert.deepEqual([back.settings.framework, back.settings.zero, back.settings.batch], ["deepspeed", "2", "4"]);
  assert.equal(api.emitLaunch("vllm", { ...settings, seq: "-1" }).errors[0].setting, "seq");
});

test("emitFormats: the formats that apply to the run, from the core's table: the runtime's command, the framework's config", () => {
  // One row per runtime or framework the core writes for (emit.hpp emit_table), by hand: vllm serve, SGLang's
  // launch_server, llama-server and an Ollama Modelfile for those runtimes; a DeepSpeed JSON and the trl command that
  // uses it for deepspeed, an accelerate config for fsdp, torchtune overrides for torchtune, trl sft flags for hf, the
  // axolotl and LLaMA-Factory configs for their own frameworks, the pretrain_gpt.py command for megatron, the Python
  // script for unsloth.
  const formats = (settings) => {
    const out = api.emitFormats(settings);
    assert.equal(out.ok, true, JSON.stringify(out.errors));
    return [out.run, out.formats.map((f) => f.format)];
  };
  const model = { model: "llama-3.1-8b" };
  for (const [runtime, format] of [["vllm", "vllm"], ["sglang", "sglang"], ["llamacpp", "llamacpp"], ["ollama", "ollama"]])
    assert.deepEqual(formats({ ...model, mode: "inference", runtime }), [`runtime ${runtime}`, [format]], runtime);
  for (const [framework, list] of [
    ["deepspeed", ["deepspeed", "deepspeed-trl"]],
    ["fsdp", ["accelerate"]],
    ["torchtune", ["torchtune"]],
    ["hf", ["trl"]],
    ["axolotl", ["axolotl"]],
    ["llamafactory", ["llama-factory"]],
    ["megatron", ["megatron"]],
    ["unsloth", ["unsloth"]],
  ])
    assert.deepEqual(formats({ ...model, mode: "train", framework }), [`framework ${framework}`, list], framework);
  // None for a runtime or framework no format is written for, nor for evaluation.
  assert.deepEqual(formats({ ...model, mode: "inference", runtime: "tgi" }), ["runtime tgi", []]);
  assert.deepEqual(formats({ ...model, mode: "eval", framework: "hf" }), ["mode eval", []]);
  // runtime auto: the one it chose (a GGUF weights type: llama.cpp).
  assert.deepEqual(formats({ ...model, mode: "inference", runtime: "auto", weights_dtype: "q4_k_m" }), ["runtime llamacpp", ["llamacpp"]]);
  // Each format it names is one emitLaunch writes for those settings.
  const ds = api.emitFormats({ ...model, mode: "train", framework: "deepspeed" }).formats[0];
  assert.deepEqual(ds, { format: "deepspeed", label: "DeepSpeed config" });
  assert.equal(api.emitLaunch(ds.format, { ...model, mode: "train", framework: "deepspeed" }).ok, true);
  assert.equal(api.emitFormats({ ...model, seq: "-1" }).errors[0].setting, "seq");
});
