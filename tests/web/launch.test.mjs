// SPDX-License-Identifier: MIT
// readLaunch (wasm/api.js): a pasted launch command read by the CLI's readers (docs/readers.md), the same reading
// as `llm-memory --json --from FILE` prints under "from", and its settings estimate as the same settings typed.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { loadApi, native } from "./support.mjs";

const api = await loadApi();

// vLLM's docs ("Configure memory and context length"), with tensor parallelism.
const vllm = "vllm serve mistralai/Mistral-7B-v0.1 \\\n  --gpu-memory-utilization 0.95 \\\n  --max-model-len 8192 -tp 2\n";

test("a vllm serve line reads as the CLI's --from reads it", () => {
  const read = api.readLaunch(vllm);
  assert.equal(read.ok, true);
  assert.equal(read.command, "vllm serve");
  // The command's own numbers: devices = tp x pp = 2 x 1.
  assert.deepEqual(read.settings, {
    devices: "2", gpu_memory_utilization: "0.95", mode: "inference", model: "mistral-7b-v0.1", runtime: "vllm", seq: "8192", tp: "2",
  });
  const dir = mkdtempSync(join(tmpdir(), "llm-memory-launch-"));
  try {
    writeFileSync(join(dir, "serve.sh"), vllm);
    assert.deepEqual(JSON.parse(native(["--json", "--from", join(dir, "serve.sh")])).from, read);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Training recipes go through the same binding (docs/readers.md "Training recipes"): the published torchtune
// config of tests/cli/recipes/ reads on the page as the CLI's --from reads the file.
test("a pasted torchtune recipe reads as the CLI's --from reads it", () => {
  const file = fileURLToPath(new URL("../cli/recipes/torchtune-llama3_1-8B_lora_single_device.yaml", import.meta.url));
  const read = api.readLaunch(readFileSync(file, "utf8"));
  assert.equal(read.ok, true);
  assert.equal(read.command, "torchtune config");
  // The config's own values: lora_llama3_1_8b, rank 8, batch_size 2, gradient_accumulation_steps 8.
  assert.equal(read.settings.model, "llama-3.1-8b");
  assert.equal(read.settings.lora_rank, "8");
  assert.equal(read.settings.batch, "2");
  assert.equal(read.settings.grad_accum, "8");
  assert.deepEqual(JSON.parse(native(["--json", "--from", file])).from, read);
});

test("its settings estimate as the same settings typed", () => {
  const typed = { mode: "inference", runtime: "vllm", model: "mistral-7b-v0.1", seq: "8192", gpu_memory_utilization: "0.95", tp: "2", devices: "2" };
  assert.deepEqual(api.estimate(api.readLaunch(vllm).settings), api.estimate(typed));
});

test("errors name the option or the line; bad arguments are refused, not thrown", () => {
  assert.deepEqual(api.readLaunch("llama-server -c abc").errors, [{ setting: "-c", message: 'seq: must be an integer from 1 to 100000000, got "abc"' }]);
  assert.equal(api.readLaunch("FROM qwen2.5:7b\nPARAMETER num_ctx -1\n").errors[0].setting, "line 2: PARAMETER num_ctx");
  assert.equal(api.readLaunch("").errors[0].setting, "command");
  assert.equal(api.readLaunch(42).ok, false);
  assert.equal(api.readLaunch("x".repeat((1 << 20) + 1)).errors[0].message, "longer than 1 MiB");
  // A lone surrogate is made well-formed before it reaches the core.
  assert.equal(api.readLaunch("vllm serve \ud800").ok, true);
});
