// SPDX-License-Identifier: MIT
// Issue 33's page done-when, in headless Chromium: the one box "Paste a command, config or log"
// (web/ui/paste-box.js). A pasted `vllm serve` line, `llama-server` line, torchtune YAML, axolotl YAML, DeepSpeed
// JSON, vLLM log and llama.cpp log each give the settings and the total of the same settings typed into the URL
// by hand, over the user's own; a log shows the side-by-side table with signed differences and copies a
// validation record; hostile input (binary, 5 MB, deeply nested YAML) gets an error naming the line; text stays
// text; at phone width the table scrolls inside its box, not the page.
// Run after `npm run build`: node --test --test-concurrency=1 tests/browser/paste-box.test.mjs
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { bucketBytes, open, root, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
  await session.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(session.url).origin });
});
after(() => session?.close());

const PHONE = { width: 390, height: 844 };
const fixture = (path) => readFileSync(`${root}tests/cli/${path}`, "utf8");
const resolved = (page) => page.evaluate(() => window.llmMemoryApp.last.settings);

/** Opens the box with the keyboard (once), puts `text` in it and presses Read with the keyboard. */
async function paste(page, text) {
  if (!(await page.evaluate(() => document.getElementById("paste-box").open))) {
    await page.focus("#paste-box > summary");
    await page.keyboard.press("Enter");
  }
  await page.waitForSelector("#paste-text");
  await page.fill("#paste-text", text);
  await page.focus("#paste-text");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "paste-apply", "Read follows the text box");
  await page.keyboard.press("Enter");
}

/**
 * Pastes `text` on a page opened with `own` (the user's settings), waits for `typed.seq`-style proof that it
 * applied (`applied`: a setting and its value), then checks the settings and the total against a page whose URL
 * holds `own` and `typed`, the settings written out by hand.
 */
async function sameAsTyped({ text, own, typed, applied }) {
  const page = await open(session.context, `${session.url}?${new URLSearchParams(own)}`);
  await settled(page);
  await paste(page, text);
  const [key, value] = applied;
  await page.waitForFunction(([k, v]) => window.llmMemoryApp.state.overrides[k] === v, [key, value]);
  await settled(page);
  const by_hand = await open(session.context, `${session.url}?${new URLSearchParams({ ...own, ...typed })}`);
  await settled(by_hand);
  assert.deepEqual(await resolved(page), await resolved(by_hand));
  assert.equal(await bucketBytes(page, "total"), await bucketBytes(by_hand, "total"));
  assert.ok(await bucketBytes(page, "total") > 0);
  await by_hand.close();
  return page;
}

test("a vllm serve line: the settings typed by hand, the user's batch kept; what was read listed by name", async () => {
  // vLLM's docs ("Configure memory and context length"), with tensor parallelism; devices = tp x pp
  // (docs/readers.md).
  const page = await sameAsTyped({
    text: "vllm serve mistralai/Mistral-7B-v0.1 \\\n  --gpu-memory-utilization 0.95 \\\n  --max-model-len 8192 -tp 2 --port 8000",
    own: { batch: "4" },
    typed: { mode: "inference", runtime: "vllm", model: "mistral-7b-v0.1", seq: "8192", gpu_memory_utilization: "0.95", tp: "2", devices: "2" },
    applied: ["seq", "8192"],
  });
  assert.match(await page.textContent("#paste-report"), /Read as vllm serve:/);
  assert.match(await page.textContent("#paste-report ul.paste-read"), /--max-model-len → seq 8192/);
  assert.match(await page.textContent("#paste-report ul.paste-ignored"), /--port/);
  assert.equal(await page.$$eval("#log-table", (n) => n.length), 0, "a command has no log table");
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("a llama-server line: -c over -np slots, the GGUF name as preset and format", async () => {
  // -m Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf: the 8B preset in Q4_K_M; -c 32768 over -np 4 slots: seq 32768 / 4 =
  // 8192 per slot, batch 4; -ngl 99: every layer on the GPU; -fa: flash attention; -ctk / -ctv q8_0.
  const page = await sameAsTyped({
    text: fixture("launch/llama-server.sh"),
    own: { gpu: "rtx-4090" },
    typed: { mode: "inference", runtime: "llamacpp", model: "llama-3.1-8b", weights_dtype: "q4_k_m", seq: "8192", batch: "4",
             n_gpu_layers: "99", attention: "flash", cache_type_k: "q8_0", cache_type_v: "q8_0" },
    applied: ["seq", "8192"],
  });
  assert.match(await page.textContent("#paste-report ul.paste-notes"), /seq = -c \/ -np/);
  await page.close();
});

test("a torchtune YAML: the recipe's LoRA run typed by hand", async () => {
  // torchtune's recipes/configs/llama3_1/8B_lora_single_device.yaml (tests/cli/recipes/README.md): lora_llama3_1_8b,
  // rank 8, q/v/output_proj + the MLP (w1, w2, w3), dropout 0, batch 2, accumulation 8, checkpointing, no
  // offloading, no compile, AdamW fused, the chunked cross-entropy, bf16 (tests/cli/CMakeLists.txt's recipe test).
  const page = await sameAsTyped({
    text: fixture("recipes/torchtune-llama3_1-8B_lora_single_device.yaml"),
    own: { gpu: "h100-80gb" },
    typed: { mode: "train", framework: "torchtune", model: "llama-3.1-8b", finetune: "lora", lora_rank: "8", lora_dropout: "0",
             lora_targets: "down_proj,gate_proj,o_proj,q_proj,up_proj,v_proj", batch: "2", grad_accum: "8", recompute: "full",
             activation_offload: "none", compile: "off", optimizer: "adamw", optimizer_impl: "fused", loss_impl: "torchtune_chunked",
             weights_dtype: "bf16" },
    applied: ["framework", "torchtune"],
  });
  assert.match(await page.textContent("#paste-report"), /Read as torchtune config:/);
  await page.close();
});

test("an axolotl YAML: the 8-bit LoRA example typed by hand", async () => {
  // axolotl's examples/llama-3/lora-8b.yml: Meta-Llama-3-8B loaded in 8 bits, sequence_len 4096, LoRA r 32,
  // dropout 0.05 on every linear layer, accumulation 4, micro-batch 2, adamw_bnb_8bit, bf16 autocast,
  // checkpointing, flash attention.
  const page = await sameAsTyped({
    text: fixture("recipes/axolotl-llama-3-lora-8b.yml"),
    own: { gpu: "h100-80gb" },
    typed: { mode: "train", framework: "axolotl", model: "meta-llama-3-8b", weights_dtype: "int8", seq: "4096", finetune: "lora", lora_rank: "32",
             lora_dropout: "0.05", lora_targets: "all-linear", grad_accum: "4", batch: "2", optimizer: "adamw_8bit", autocast: "bf16",
             recompute: "full", attention: "flash" },
    applied: ["seq", "4096"],
  });
  assert.match(await page.textContent("#paste-report"), /Read as axolotl config:/);
  await page.close();
});

test("a DeepSpeed JSON: ZeRO-3 over the model the user chose", async () => {
  // LLaMA-Factory's examples/deepspeed/ds_z3_config.json: stage 3; its "auto" values are the Trainer's, read as
  // nothing; it names no model, so the user's stays.
  const page = await sameAsTyped({
    text: fixture("recipes/ds_z3_config.json"),
    own: { model: "llama-3.1-8b", devices: "4" },
    typed: { mode: "train", framework: "deepspeed", zero: "3" },
    applied: ["zero", "3"],
  });
  assert.match(await page.textContent("#paste-report ul.paste-ignored"), /train_micro_batch_size_per_gpu/);
  await page.close();
});

test("a vLLM startup log: its settings typed by hand, the table of signed differences", async () => {
  // The log's line 8 (engine config): Meta-Llama-3.1-8B-Instruct, bfloat16, max_seq_len 131072, tp 1, pp 1,
  // enforce_eager (no CUDA graphs), kv_cache_dtype auto; line 4: max_num_batched_tokens 8192; engine v0.15.1: the
  // newest vLLM profile not after it, 0.11 (docs/readers.md, "Logs").
  const page = await sameAsTyped({
    text: fixture("log/vllm-0.15.1-llama-3.1-8b.log"),
    own: { gpu_memory: "39.39GiB" },
    typed: { mode: "inference", runtime: "vllm", vllm_version: "0.11", model: "llama-3.1-8b", weights_dtype: "bf16", seq: "131072",
             max_num_batched_tokens: "8192", tp: "1", pp: "1", devices: "1", cuda_graph_memory: "0", kv_dtype: "auto" },
    applied: ["seq", "131072"],
  });
  assert.match(await page.textContent("#log-table caption"), /vLLM log beside the estimate/);
  // Line 18: "Available KV cache memory: 19.28 GiB", the runtime's own figure, beside ours with a signed difference.
  const kv = await page.$$eval('#log-table tr[data-item="kv_memory"] > *', (n) => n.map((x) => x.textContent));
  assert.equal(kv[0], "Available KV cache memory (line 18)");
  assert.equal(kv[1], "19.28 GiB");
  assert.match(kv[3], /^[+-]\d+\.\d\d GiB \([+-]\d+\.\d%\)/);
  assert.match(await page.textContent("#paste-report ul.paste-read"), /line 8 --max-model-len → seq 131072/);
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("a llama.cpp log by keyboard: the table, the settings typed by hand, the record copied", async () => {
  // The log's lines: Q4_K_M file type (line 1), n_gpu_layers 33 (53), n_ctx 512 (57), n_batch and n_ubatch 512
  // (58, 59), flash_attn 0 (60), type_k / type_v f16 (64); no model preset of its name, so the page's stays; no
  // -np, so one sequence (the page's batch 1).
  const page = await sameAsTyped({
    text: fixture("log/llamacpp-llama-3-8b-q4_k_m.log"),
    own: { gpu: "h100-80gb" },
    typed: { mode: "inference", runtime: "llamacpp", weights_dtype: "q4_k_m", n_gpu_layers: "33", seq: "512", n_batch: "512", n_ubatch: "512",
             attention: "eager", cache_type_k: "f16", cache_type_v: "f16" },
    applied: ["seq", "512"],
  });
  // An accessible table: a caption, column headers, each row headed by the log's own label and line.
  assert.deepEqual(await page.$$eval("#log-table thead th[scope=col]", (n) => n.map((x) => x.textContent)),
    ["Item (log line)", "Log's figure", "Ours", "Difference"]);
  // Line 63 "CUDA0 KV buffer size = 64.00 MiB"; ours: 2 (K, V) x 32 layers x 512 tokens (n_ctx, line 57) x 8 KV
  // heads x 128 x 2 bytes (f16) = 64 MiB, a difference of zero.
  assert.deepEqual(await page.$$eval('#log-table tr[data-item="kv_memory"] > *', (n) => n.map((x) => x.textContent)),
    ["CUDA0 KV buffer size (line 63)", "64.00 MiB", "64.00 MiB", "+0.00 MiB (+0.0%)"]);
  const rows = await page.$$eval("#log-table tbody tr", (n) => n.length);
  assert.equal(await page.$$eval("#log-table tbody th[scope=row]", (n) => n.length), rows);
  assert.equal(await page.$$eval("#log-table tr.diverges", (n) => n.length), 1, "one row diverges most, said in words");
  assert.match(await page.textContent("#log-table tr.diverges"), /diverges most/);
  // "Copy as a validation record": the compared rows in published.json's shape.
  await page.focus("#log-record");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("log-copied").textContent.startsWith("Copied"));
  const record = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  const kv = record.find((r) => r.quantity[0] === "runtime:buffers.kv");
  assert.deepEqual([kv.published, kv.unit, kv.kind], [64, "MiB", "published log"]);
  // An error names the line; the settings shown stay.
  await paste(page, fixture("log/bad-n-ctx.log"));
  await page.waitForSelector("#paste-error:not([hidden])");
  assert.match(await page.textContent("#paste-error"), /^line 2\b/);
  assert.equal((await resolved(page)).seq, "512");
  assert.deepEqual([...page.problems], []);
  await page.close();
});

test("hostile input: binary, 5 MB and deeply nested YAML get an error naming the line; markup stays text", async () => {
  const page = await open(session.context, `${session.url}?batch=3`);
  await settled(page);
  const refused = async (expected) => {
    await page.waitForFunction((source) => new RegExp(source).test(document.getElementById("paste-error").textContent), expected.source);
    assert.equal(await page.isVisible("#paste-error"), true);
    assert.equal((await resolved(page)).batch, "3", "the settings shown stay");
  };
  await paste(page, "x");  // opens the box and loads its code
  // A binary file chosen: a PNG's signature and header. File.text() decodes it as UTF-8, 0x89 becoming U+FFFD
  // (3 bytes in the UTF-8 the core reads): EF BF BD "PNG" CR LF 1A LF NUL, so the first NUL is byte 11 (from
  // 1), on line 3 (two LFs before it).
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
  await page.setInputFiles("#paste-file", { name: "image.png", mimeType: "image/png", buffer: png });
  await refused(/^line 3: holds a NUL byte \(byte 11\)/);
  // 5 MiB of "x y\n" dropped as a file: no line is a log's, and byte 1,048,576 (the first past a command's 1 MiB)
  // starts line 1,048,576 / 4 + 1 = 262,145.
  await page.setInputFiles("#paste-file", { name: "big.txt", mimeType: "text/plain", buffer: Buffer.from("x y\n".repeat(5 * 262144)) });
  await refused(/^line 262145: goes past 1 MiB/);
  // 40 nested mappings: past the YAML reader's 32 levels, named by its line.
  const deep = Array.from({ length: 40 }, (_, depth) => `${" ".repeat(depth)}k:`).join("\n") + `\n${" ".repeat(40)}v: 1\n`;
  await paste(page, deep);
  await refused(/^line \d+: nests collections more than 32 levels deep/);
  // Markup in a log (its model's name, which the notes quote) and in a pasted option stays text (the command
  // last: its model "m" is no preset).
  const log = fixture("log/llamacpp-llama-3-8b-q4_k_m.log").replaceAll("llama-3-Korean-Bllossom-8B", "<img src=x onerror=alert(1)>");
  await paste(page, log);
  await page.waitForSelector("#log-table");
  await page.waitForFunction(() => document.getElementById("paste-report").textContent.includes("<img"));
  await paste(page, "vllm serve m --<img src=x onerror=alert(1)> 1");
  await page.waitForFunction(() => document.getElementById("paste-report").textContent.includes("Read as vllm serve"));
  assert.match(await page.textContent("#paste-report"), /--<img: not read/);
  assert.equal(await page.$$eval("#paste-box img", (nodes) => nodes.length), 0);
  await page.close();
});

test("phone width: the vLLM log's table scrolls inside its box; the page does not", async () => {
  const page = await open(session.context, `${session.url}?gpu_memory=39.39GiB`, { viewport: PHONE });
  await settled(page);
  if (!(await page.evaluate(() => document.getElementById("settings-details").open))) await page.click("#settings-details > summary");
  await paste(page, fixture("log/vllm-0.15.1-llama-3.1-8b.log"));
  await page.waitForSelector("#log-table");
  await page.waitForFunction(() => window.llmMemoryApp.state.overrides.model === "llama-3.1-8b");
  assert.match(await page.textContent('#log-table tr[data-item="kv_tokens"] th'), /GPU KV cache size/);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "no sideways scroll of the page");
  assert.deepEqual([...page.problems], []);
  await page.close();
});

/**
 * Drags a File named `name` holding `text` over the box and drops it, as Chromium delivers a drag from the
 * desktop: dragenter, dragover (the zone marks itself), drop (one DataTransfer holding the File throughout).
 * Returns what the events said: whether dragover and drop were taken (default prevented) and the zone's class
 * during the drag and after.
 */
function dragFile(page, name, text) {
  return page.evaluate(({ name, text }) => {
    const zone = document.querySelector("#paste-box .drop-zone");
    const data = new DataTransfer();
    data.items.add(new File([text], name, { type: "text/plain" }));
    const fire = (type, target) => {
      const event = new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true });
      target.dispatchEvent(event);
      return event.defaultPrevented;
    };
    const box = document.getElementById("paste-text");
    fire("dragenter", box);
    const over = fire("dragover", box);
    const dragging = zone.classList.contains("dragging");
    const dropped = fire("drop", box);
    return { over, dropped, dragging, after: zone.classList.contains("dragging") };
  }, { name, text });
}

test("a file dragged onto the box and dropped gives the same settings as its text pasted", async () => {
  // The vllm serve command of tests/cli/launch/vllm-serve.sh, and a torchtune recipe: each dropped as a file on a
  // page with the user's batch 3, and pasted as text on another; the settings and the total agree.
  for (const [file, applied] of [["launch/vllm-serve.sh", ["runtime", "vllm"]], ["recipes/torchtune-llama3_1-8B_lora_single_device.yaml", ["framework", "torchtune"]]]) {
    const text = fixture(file);
    const pasted = await open(session.context, `${session.url}?batch=3`);
    await settled(pasted);
    await paste(pasted, text);
    await pasted.waitForFunction(([k, v]) => window.llmMemoryApp.state.overrides[k] === v, applied);
    await settled(pasted);

    const dropped = await open(session.context, `${session.url}?batch=3`);
    await settled(dropped);
    await dropped.click("#paste-box > summary");
    await dropped.waitForSelector("#paste-text");
    const events = await dragFile(dropped, file.split("/").pop(), text);
    // The box takes the drag (the page-wide config drop does not see it) and marks itself while it lasts.
    assert.deepEqual(events, { over: true, dropped: true, dragging: true, after: false }, file);
    await dropped.waitForFunction(([k, v]) => window.llmMemoryApp.state.overrides[k] === v, applied);
    await settled(dropped);
    // The file's text is shown in the box, and read as the pasted text was.
    assert.equal(await dropped.inputValue("#paste-text"), text.replaceAll("\r\n", "\n"), file);
    assert.equal(await dropped.textContent("#paste-report"), await pasted.textContent("#paste-report"), file);
    assert.deepEqual(await resolved(dropped), await resolved(pasted), file);
    assert.equal(await bucketBytes(dropped, "total"), await bucketBytes(pasted, "total"), file);
    assert.equal(await dropped.isVisible("#paste-error"), false, file);
    assert.deepEqual([...pasted.problems, ...dropped.problems], []);
    await pasted.close();
    await dropped.close();
  }
});
