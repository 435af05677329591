// SPDX-License-Identifier: MIT
// Issue 19 items 4, 6, 7 and 8 in real headless Chromium: which GPUs fit, labels and the fields that apply, zero
// buckets folded, capacities in both units, Apple silicon at Metal's working set, the trained-length note, and
// the heatmap's readout, click and keyboard. Run after `npm run build`: node --test tests/browser/page-data.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DESKTOP, PHONE, open, settled, showTab, start } from "./support.mjs";

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});


// The table lives in the What fits tab.
async function gpuFitReady(page) {
  await showTab(page, "fits");
  await page.waitForSelector('#gpu-fit[data-state="ready"] tr[data-gpu]');
}

// The seed's 7B full fine-tune, framework generic, overhead none (tests/core/gpu_fit_test.cpp derives it): per
// device 112e9 B of weights, gradients and AdamW state plus 30,643,585,024 B of activations = 142,643,585,024 B.
const SEED = "model=&framework=generic&params=7e9&hidden_size=4096&num_hidden_layers=32&num_attention_heads=32" +
  "&num_key_value_heads=0&intermediate_size=0&vocab_size=0&seq=2048&overhead=none&attention=standard&norm=layernorm" +
  "&mlp=plain&dropout=on&recompute=none";

test("which GPUs fit: one row per GPU preset, data-fits on the current device count, Use switches GPU", async () => {
  const page = await open(session.context, `${session.url}?${SEED}`);
  await settled(page);
  await gpuFitReady(page);
  const rows = await page.$$eval("#gpu-fit tr[data-gpu]", (trs) => trs.map((tr) => ({
    id: tr.dataset.gpu, fits: tr.dataset.fits, needed: Number(tr.dataset.needed), text: tr.textContent })));
  const presets = await page.evaluate(() => window.llmMemoryApp.engine.gpus.map((g) => g.id));
  assert.deepEqual(rows.map((r) => r.id), presets, "one row per GPU preset, in the catalogue's order");
  const by_id = Object.fromEntries(rows.map((r) => [r.id, r]));
  // ZeRO 0 on one device: 142.6e9 B fits the 13 presets tests/core/gpu_fit_test.cpp lists: an H200 (PyTorch's
  // 139.80 GiB = 150,108,897,280 B), H200 NVL, GH200 144GB, B200, B300, GB200, GB300, MI300X, MI325X, MI355X and
  // the Apple working sets of 192, 256 and 512 GB (3/4 x 192 GiB = 154,618,822,656 B); not one H100 (85,030,076,416 B).
  assert.deepEqual(rows.filter((r) => r.fits === "true").map((r) => r.id).sort(),
                   ["b200-180gb", "b300-288gb", "gb200-186gb", "gb300-288gb", "gh200-144gb", "h200-141gb", "h200-nvl-141gb",
                    "m2-ultra-192gb", "m3-ultra-256gb", "m3-ultra-512gb", "mi300x", "mi325x", "mi355x"]);
  assert.equal(by_id["h200-141gb"].needed, 1);
  // H100s: two at tp 2 (ZeRO 0 shards nothing, but tensor parallelism splits the weights and their states:
  // tests/core/gpu_fit_test.cpp derives 71,326,052,352 B per device).
  assert.equal(by_id["h100-80gb"].needed, 2);
  // Memory in both units, and the H200's headroom 150,108,897,280 - 142,643,585,024 = 7,465,312,256 B = 7.47 GB.
  assert.match(by_id["h200-141gb"].text, /139\.8 GiB \(150\.11 GB\)/);
  assert.match(by_id["h200-141gb"].text, /7\.47 GB/);
  // Use: the H200 at its needed count; the URL carries the GPU.
  await page.click('#gpu-fit tr[data-gpu="h200-141gb"] button');
  await settled(page);
  assert.match(page.url(), /gpu=h200-141gb/);
  assert.equal(await page.getAttribute("#stacked-bar", "data-fits"), "true");
  assert.deepEqual(page.problems, []);
  await page.close();
});

// Issue 36 item 7: the table fits its panel at 1280 px, every column in view (training with tensor parallel, the
// split that printed "pipeline undefined"); on a phone it scrolls inside its panel, the GPU column held in view.
test("which GPUs fit fits its panel at 1280 px and scrolls inside it on a phone; no cell says undefined", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await open(session.context, `${session.url}?${SEED}`, { viewport });
    await settled(page);
    await gpuFitReady(page);
    const box = await page.evaluate(() => {
      const panel = document.querySelector("#panel-fits").getBoundingClientRect();
      const wrap = document.querySelector("#gpu-fit .table-wrap");
      const last = [...document.querySelectorAll("#gpu-fit thead th")].at(-1).getBoundingClientRect();
      return { panel_right: panel.right, last_right: last.right, page_width: document.documentElement.scrollWidth,
               scrolls: wrap.scrollWidth > wrap.clientWidth, text: document.querySelector("#gpu-fit").textContent,
               sticky: getComputedStyle(document.querySelector("#gpu-fit tbody th")).position };
    });
    assert.doesNotMatch(box.text, /undefined|NaN/);
    assert.match(box.text, /2 \(tensor parallel 2\)/);
    assert.ok(box.page_width <= viewport.width, `the page scrolls sideways at ${viewport.width} px`);
    if (viewport.width === 1280) {
      assert.ok(box.last_right <= box.panel_right + 0.5, `the Use column ends at ${box.last_right}, the panel at ${box.panel_right}`);
      assert.equal(box.scrolls, false);
    } else {
      assert.equal(box.sticky, "sticky", "the GPU column stays in view while the table scrolls");
    }
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

// Issue 36 item 5: the model box reads a name as the CLI's --model does (the core's lookup_model): a preset's
// Hub repo id or a listed alias, in any case, opens the preset without asking the Hub; a near miss gets the
// nearest ids; an unknown name shows its error in the verdict box with no numbers of the previous model beside it.
test("the model box: repo ids and aliases in any case open the preset offline; an unknown name, its error alone", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  const hub = [];
  await page.route(/huggingface\.co|hf\.co/, (route) => {
    hub.push(route.request().url());
    return route.abort();
  });
  await settled(page);
  for (const [typed, id] of [["Qwen/Qwen3-14B", "qwen3-14b"], ["META-LLAMA/llama-3.1-8b-instruct", "llama-3.1-8b"]]) {
    await page.fill("#model-search", typed);
    await page.press("#model-search", "Enter");
    await page.waitForURL(new RegExp(`model=${id.replaceAll(".", "\\.")}(&|$)`));
    await settled(page);
    assert.match(await page.textContent("#verdict-head"), /Fits|Does not fit/);
  }
  assert.deepEqual(hub, [], "a preset's repo id is not fetched from the Hub");
  await page.fill("#model-search", "qwen3-14");
  await page.press("#model-search", "Enter");
  await page.waitForSelector("#verdict-head .unknown-model");
  const shown = await page.evaluate(() => ({
    verdict: document.querySelector("#verdict-head").textContent, ways: document.querySelector("#ways-out").textContent,
    summary: document.querySelector("#summary").textContent, table: document.querySelector("#results-table").textContent,
    error: document.querySelector("#model-error").textContent,
    suggestions: [...document.querySelectorAll("#model-error button")].map((b) => b.textContent) }));
  assert.match(shown.verdict, /unknown model "qwen3-14": not a preset; did you mean qwen3-14b/);
  assert.doesNotMatch(shown.verdict, /Fits|Does not fit/);
  assert.equal(shown.ways + shown.summary + shown.table, "", "no numbers of the previous model beside the error");
  assert.ok(shown.suggestions.includes("qwen3-14b"));
  // A suggestion opens its preset and the results come back.
  await page.click('#model-error button:text-is("qwen3-14b")');
  await page.waitForURL(/model=qwen3-14b(&|$)/);
  await settled(page);
  assert.match(await page.textContent("#verdict-head"), /Fits|Does not fit/);
  assert.notEqual(await page.textContent("#summary"), "");
  assert.deepEqual(page.problems, []);
  await page.close();
});

// Issue 36 item 4: inference says one concurrency figure, in a serving runtime's words, wherever it is shown.
test("inference: the runtime line, the solver and the verdict's room say the same requests at once", async () => {
  const page = await open(session.context, `${session.url}?mode=inference&model=llama-3.1-8b&seq=4096`);
  await settled(page);
  await showTab(page, "fits");
  const shown = await page.evaluate(() => ({
    runtime: document.querySelector(".runtime-line").textContent,
    card: document.querySelector('[data-answer="max_batch"]').textContent,
    value: Number(document.querySelector('[data-answer="max_batch"]').dataset.value),
    room: document.querySelector("#ways-out").textContent,
    concurrency: window.llmMemoryApp.last.runtime.max_concurrency }));
  const said = `${Math.floor(shown.concurrency).toLocaleString("en-US")} requests of 4,096 tokens at once`;
  assert.equal(shown.value, Math.floor(shown.concurrency));
  assert.match(shown.runtime, /KV cache holds [\d,]+ tokens/);
  for (const text of [shown.runtime, shown.card, shown.room]) assert.ok(text.includes(said), `${text} does not say ${said}`);
  assert.match(shown.card, /^Concurrent requests/);
  assert.doesNotMatch(shown.runtime + shown.room, /\d\.\d\d×|micro-batch/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("GPU capacity in both units; Apple silicon at Metal's working set", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  // The default H100: 79.19 GiB as PyTorch reports it = 85.03 GB, said to be that figure beside the marketed 80 GB.
  assert.match(await page.textContent("#gpu-info"),
               /^79\.19 GiB \(85\.03 GB\) usable per device — what PyTorch reports \(total_memory\); marketed 80 GB/);
  const option = await page.$eval('#gpu-select option[value="a100-80gb"]', (o) => o.textContent);
  assert.match(option, /79\.15 GiB \(84\.99 GB\)$/);
  await page.selectOption("#gpu-select", "m4-16gb");  // the earlier apple-16gb
  await settled(page);
  // 16 GiB x 2/3 = 11,453,246,122 B = 10.67 GiB (11.45 GB): Metal's default working set (docs/methodology.md).
  const info = await page.textContent("#gpu-info");
  assert.match(info, /^10\.67 GiB \(11\.45 GB\) usable per device \(Metal's working set of 16 GiB \(17\.18 GB\) unified memory\)/);
  assert.equal(await page.getAttribute("#gpu-info", "data-bytes"), "11453246122");
  assert.match(await page.textContent("#results-table tfoot"), /of 10\.67 GiB \(11\.45 GB\) device memory/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a context beyond the model's trained length is noted, in training as in inference", async () => {
  // Llama 2 7B: max_position_embeddings 4096.
  for (const mode of ["train", "inference"]) {
    const page = await open(session.context, `${session.url}?model=llama-2-7b&mode=${mode}&seq=8192`);
    assert.match(await page.textContent("#summary"), /seq 8192 exceeds the model's max_position_embeddings 4096/, mode);
    await page.close();
    const within = await open(session.context, `${session.url}?model=llama-2-7b&mode=${mode}&seq=4096`);
    assert.doesNotMatch(await within.textContent("#summary"), /max_position_embeddings/, mode);
    await within.close();
  }
});

test("fields that do not apply to the task are hidden; a field the user set stays", async () => {
  // Inside the Advanced group, opened (it starts collapsed: tests/browser/newcomer.test.mjs).
  const visible = (page, key) => page.$eval(`#settings-form .field[data-key="${key}"]`, (f) => {
    document.getElementById("settings-advanced").open = true;
    return f.checkVisibility();
  });
  const page = await open(session.context, `${session.url}?v=2`);
  // Training, full fine-tune (the default): no runtime, no LoRA rank; the optimizer is there.
  // (framework and runtime are the task picker's selects, beside the task: tests/browser/layout.test.mjs.)
  assert.equal(await visible(page, "optimizer"), true);
  assert.equal(await visible(page, "gpu_memory_utilization"), false);
  assert.equal(await visible(page, "lora_rank"), false);
  assert.equal(await page.getAttribute('#settings-form .field[data-key="gpu_memory_utilization"]', "data-applies"), "false");
  // A decoder has no encoder length; a bf16 full fine-tune no bitsandbytes version.
  assert.equal(await visible(page, "encoder_seq"), false);
  assert.equal(await visible(page, "bnb_version"), false);
  await page.close();

  // Inference with vLLM (runtime auto for bf16 weights): vLLM's rows, no optimizer, no llama.cpp rows.
  const infer = await open(session.context, `${session.url}?mode=inference`);
  assert.equal(await visible(infer, "gpu_memory_utilization"), true);
  assert.equal(await visible(infer, "block_size"), true);
  assert.equal(await visible(infer, "optimizer"), false);
  assert.equal(await visible(infer, "n_gpu_layers"), false);
  // The fine-tuning group holds nothing that applies to inference: hidden as a whole.
  assert.equal(await infer.$eval('#settings-form details[data-group="finetune"]', (d) => d.hidden), true);
  await infer.close();

  // LoRA: its rows appear, trainable_params (full training only) goes; an explicit value keeps its field.
  const lora = await open(session.context, `${session.url}?finetune=lora&trainable_params=0.5`);
  assert.equal(await visible(lora, "lora_rank"), true);
  assert.equal(await visible(lora, "trainable_params"), true, "set by the user: stays in view to be reset");
  await lora.close();
  // QLoRA (an NF4 base): the bitsandbytes version matters.
  const qlora = await open(session.context, `${session.url}?finetune=qlora`);
  assert.equal(await visible(qlora, "bnb_version"), true);
  await qlora.close();
});

test("buckets at 0 B are folded under one row that opens them", async () => {
  // Inference: no gradients and no optimizer state.
  const page = await open(session.context, `${session.url}?model=llama-2-7b&mode=inference&seq=4096`);
  const fold = await page.$eval("#results-table tbody.zero-buckets", (t) => ({ n: t.dataset.zeroBuckets, text: t.textContent }));
  assert.equal(fold.n, "2");
  assert.match(fold.text, /2 buckets at 0 B/);
  assert.equal(await page.$eval('tr[data-bucket="gradients"]', (tr) => tr.checkVisibility()), false);
  await page.click("#results-table tbody.zero-buckets button");
  assert.equal(await page.$eval('tr[data-bucket="gradients"]', (tr) => tr.checkVisibility()), true);
  assert.equal(await page.getAttribute("#results-table tbody.zero-buckets button", "aria-expanded"), "true");
  await page.close();
});

test("the heatmap reads out the cell under the pointer and sets batch and seq on click, and by keyboard", async () => {
  const page = await open(session.context, `${session.url}?model=llama-3.2-1b`);
  await settled(page);
  await showTab(page, "heatmap");
  const box = await page.$("figure.heatmap canvas");
  await box.scrollIntoViewIfNeeded();
  const bounds = await box.boundingBox();
  // Hover a cell in the plot's lower left quarter.
  await page.mouse.move(bounds.x + bounds.width * 0.3, bounds.y + bounds.height * 0.45);
  const readout = await page.$eval(".heatmap-readout", (p) => ({ ...p.dataset, text: p.textContent }));
  assert.notEqual(readout.cell, "");
  const batch = Number(readout.batch);
  const seq = Number(readout.seq);
  const frontier = new Map(JSON.parse(await page.getAttribute("figure.heatmap", "data-frontier")));
  // Fits exactly when the micro-batch is at or under the frontier at that sequence length.
  assert.equal(readout.fits, String(batch <= frontier.get(seq)));
  // The bytes are the estimate's at that point (the sweep rounds each item at most a few bytes differently).
  const total = await page.evaluate(([b, s]) => {
    const app = window.llmMemoryApp;
    return app.engine.estimate({ ...app.state.inputs, batch: String(b), seq: String(s) }).bytes.total;
  }, [batch, seq]);
  assert.ok(Math.abs(Number(readout.bytes) - total) <= 64, `${readout.bytes} vs ${total}`);
  assert.match(readout.text, new RegExp(`Micro-batch ${batch} × sequence ${seq.toLocaleString("en-US")} tokens: .* (fits|does not fit)`));
  // Click: batch and seq are set, and the URL follows.
  await page.mouse.click(bounds.x + bounds.width * 0.3, bounds.y + bounds.height * 0.45);
  await settled(page);
  assert.match(page.url(), new RegExp(`batch=${batch}(&|$)`));
  assert.equal(await page.inputValue('input[name="batch"]'), String(batch));
  assert.equal(Number(await page.getAttribute("figure.heatmap", "data-seq")), seq);

  // Keyboard: focus the chart, move up one row (twice the micro-batch) and press Enter.
  await page.focus("figure.heatmap .heatmap-cursor");
  const start_cell = await page.getAttribute(".heatmap-readout", "data-batch");
  assert.equal(Number(start_cell), batch, "the cursor starts at the user's point");
  await page.keyboard.press("ArrowUp");
  assert.equal(Number(await page.getAttribute(".heatmap-readout", "data-batch")), batch * 2);
  await page.keyboard.press("Enter");
  await settled(page);
  assert.equal(await page.inputValue('input[name="batch"]'), String(batch * 2));
  assert.match(page.url(), new RegExp(`batch=${batch * 2}(&|$)`));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("settings are named by their labels and options by theirs; the key stays in the help", async () => {
  const page = await open(session.context, session.url);
  // The labels come from the settings table (settings_list.hpp): seq is "Context length".
  const seq = await page.$eval('#settings-form .field[data-key="seq"]', (f) => ({
    label: f.querySelector("label").textContent, help: f.querySelector(".help").textContent }));
  assert.equal(seq.label, "Context length");
  assert.match(seq.help, /Key: seq$/);
  // (mode is the task picker's now: tests/browser/layout.test.mjs.) recompute's options carry its choice_labels.
  const schema = await page.evaluate(() => window.llmMemoryApp.engine.schema.find((row) => row.key === "recompute"));
  assert.deepEqual(schema.choice_labels, ["None", "Selective", "Full"]);
  const options = await page.$$eval('#settings-form select[name="recompute"] option', (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(options, [["none", "None"], ["selective", "Selective"], ["full", "Full"]]);
  // The label names the control in the accessibility tree (a screen reader hears "Context length").
  assert.equal(await page.getByLabel("Context length", { exact: true }).getAttribute("name"), "seq");
  await page.close();
});
