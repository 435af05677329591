// SPDX-License-Identifier: MIT
// The calculator page in real headless Chromium (Debian's, driven by playwright-core), served from dist/ on
// the loopback interface, plus the single offline file opened from disk. Run: node --test tests/browser/
// (after `npm run build`). The layout, its controls and the screenshots: layout.test.mjs.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { bucketBytes, dist, open, openGroup, settled, showTab, start } from "./support.mjs";

const BUCKETS = ["parameters", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"];
let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

/** Every bucket's data-bytes, total included. */
async function allBytes(page) {
  const out = {};
  for (const bucket of BUCKETS) out[bucket] = await bucketBytes(page, bucket);
  return out;
}


// ?v=2 alone: the page defaults (a link that names nothing else; the empty query is the start page: newcomer.test.mjs).
test("the page defaults render Llama 3 8B and a total", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  const bytes = await allBytes(page);
  // Llama 3 8B, counted by hand from its config.json (h 4096, L 32, 32 heads, 8 KV heads of 128, MLP 14336,
  // vocab 128256, untied): per layer 2*4096*4096 + 2*4096*1024 (q,o,k,v) + 3*4096*14336 (gated MLP)
  // + 2*4096 (norms) = 218,112,000; x 32 = 6,979,584,000; + 2*128256*4096 (embedding, lm_head)
  // = 1,050,673,152; + 4096 (final norm) = 8,030,261,248 parameters (Meta's published count), at 2 B (bf16).
  // The default framework is hf (docs/methodology.md §8): full fine-tuning loads the weights in fp32 (4 B) and
  // trains under bf16 autocast, so the peak (the start of backward) also holds the bf16 autocast copy of every
  // trained matrix: 2 x (32 x (218,112,000 - 8,192 norm weights) + 525,336,576 lm_head) = 15,009,316,864 B.
  assert.equal(bytes.parameters, 8_030_261_248 * 4 + 15_009_316_864);
  // No gradient exists yet at the start of backward (zero_grad(set_to_none=True), grad_accum 1); AdamW keeps two
  // fp32 moments (8 B) and no separate master copy (the weights are fp32 already).
  assert.equal(bytes.gradients, 0);
  assert.equal(bytes.optimizer, 8_030_261_248 * 8);
  const buckets = BUCKETS.slice(0, -1).reduce((sum, b) => sum + bytes[b], 0);
  assert.equal(bytes.total, buckets, "the total row is the sum of the bucket rows");
  assert.equal(await page.inputValue("#model-search"), "meta-llama-3-8b");
  assert.equal(await page.inputValue("#gpu-select"), "h100-80gb");
  // 32 + 64 GB of fixed state alone exceed one 80 GB device.
  assert.match(await page.textContent(".verdict"), /Does not fit/);
  await settled(page);
  assert.equal(new URL(page.url()).search, "?v=2", "defaults leave only the version in the URL");
  assert.ok(await page.locator("#knobs tbody tr").count() > 0, "the knob table lists knobs");
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** The page with app.js blocked: what a visitor sees before the core runs (index.html and web/boot.js only). */
async function beforeCore(query) {
  const page = await session.context.newPage();
  await page.route("**/app.js", (route) => route.abort());
  await page.goto(session.url + query);
  return page;
}

/**
 * `selectors`' subtrees as plain data (tag, sorted attributes, text), to compare parsed with script-built DOM. A
 * control's state is its value and checked state, wherever it comes from: the parser reads it from attributes
 * (value, checked, selected), the scripts set it as properties.
 */
function canonical(page, selectors) {
  return page.evaluate((list) => {
    const STATE = new Set(["value", "checked", "selected"]);
    const CONTROL = "input, select, textarea";
    let states = [];
    // The copy below loses the state the scripts set (a clone's select shows what its attributes say): read first.
    const walk = (node) => node.nodeType === Node.TEXT_NODE ? node.data
      : [node.localName, [...node.attributes].filter((a) => !STATE.has(a.name)).map((a) => `${a.name}=${a.value}`).sort(),
         node.matches(CONTROL) ? states.shift() : "",
         [...node.childNodes].map(walk)];
    // Adjacent text nodes merged: the parser makes one of what the script appends as two.
    return list.map((selector) => {
      const element = document.querySelector(selector);
      states = [...element.querySelectorAll(CONTROL)].map((c) => `value=${c.value} checked=${c.checked}`);
      if (element.matches(CONTROL)) states.unshift(`value=${element.value} checked=${element.checked}`);
      const copy = element.cloneNode(true);
      copy.normalize();
      return walk(copy);
    });
  }, selectors);
}

const RESULT = ["#summary", "#stacked-bar", "#results-table"];
/** The controls index.html holds prerendered for the start page (web/wake.js CONTROLS), and the Copy button's box. */
const CONTROLS = ["#task-picker", "#units-toggle", "#model-picker", "#device-count", "#gpu-picker", "#parallel-split", "#settings-form", "#config-drop", "#embed", "#emit-launch"];

test("the default result is in index.html before the core runs, and the core draws the same", async () => {
  const static_page = await beforeCore("");
  for (const selector of RESULT) assert.ok(await static_page.locator(selector).isVisible(), selector);
  // The start page (web/state.js START_OVERRIDES): Llama 3.1 8B served by vLLM on one RTX 4090 at 8,192 tokens.
  // Weights 8,030,261,248 x 2 B (bf16) + vLLM's rotary cache, 131,072 positions x head_dim 128 x 2 B; KV cache
  // 2 x 32 layers x 8,192 tokens x 8 KV heads x 128 x 2 B = 1 GiB; no gradients or optimizer state.
  assert.equal(await bucketBytes(static_page, "parameters"), 8_030_261_248 * 2 + 131_072 * 128 * 2);
  assert.equal(await bucketBytes(static_page, "kv_cache"), 2 * 32 * 8192 * 8 * 128 * 2);
  assert.equal(await bucketBytes(static_page, "optimizer"), 0);
  assert.match(await static_page.textContent(".verdict"), /Fits/);
  const prerendered = await canonical(static_page, RESULT);
  // The verdict's answers (the solver's room, in the core's rest) are in index.html too.
  assert.match(await static_page.textContent("#ways-out"), /^Room on this device: /);
  const [ways] = await canonical(static_page, ["#ways-out"]);
  // The controls too, with the start settings in them (the page whole before its core runs: web/wake.js).
  assert.equal(await static_page.inputValue('#settings-form input[name="seq"]'), "8192");
  assert.equal(await static_page.inputValue("#gpu-select"), "rtx-4090");
  assert.equal(await static_page.isChecked("#task-inference"), true);
  // The collapsed Advanced group's fields are in an inert <template> (no style, layout or paint at first), moved
  // into the group as it is opened (web/boot.js): opened and closed, it is the live group.
  assert.equal(await static_page.locator('#settings-form [name="fragmentation"]').count(), 0, "Advanced's fields are not in the DOM yet");
  // In the click's own task, before a frame of the open group could be painted.
  assert.deepEqual(await static_page.evaluate(() => {
    document.querySelector("#settings-advanced > summary").click();
    return [document.getElementById("settings-advanced").open, document.querySelector('#settings-form input[name="fragmentation"]') !== null];
  }), [true, true], "opened, its fields are there at once");
  assert.equal(await static_page.isVisible('#settings-form input[name="fragmentation"]'), true);
  assert.equal(await static_page.inputValue('#settings-form input[name="fragmentation"]'), "0");
  await static_page.click("#settings-advanced > summary");
  const controls = await canonical(static_page, CONTROLS);
  await static_page.close();
  // The live controls, drawn at the wake by the page's first idle period (called by hand here), before the
  // catalogue is read (the model box's list and name: the idle warm-up, which waits for the next idle period,
  // never runs, nor do the answers a visitor's action would start).
  const woken = await session.context.newPage();
  await woken.addInitScript(() => {
    window.idleCallbacks = [];
    window.requestIdleCallback = (callback) => window.idleCallbacks.push(callback);
  });
  await woken.goto(session.url);
  await woken.waitForSelector("html[data-dormant]");
  await woken.evaluate(() => window.idleCallbacks.shift()());
  await woken.waitForSelector('body[data-ready="true"]');
  assert.equal(await woken.getAttribute("#results", "data-answers"), "prerendered", "no answer computed");
  const live_controls = await canonical(woken, CONTROLS);
  CONTROLS.forEach((selector, i) => assert.deepEqual(live_controls[i], controls[i], `the prerendered ${selector} is what app.js draws`));
  await woken.close();

  const live = await open(session.context, session.url);
  assert.deepEqual(await canonical(live, RESULT), prerendered, "the prerendered result is what the core draws");
  assert.equal(await live.getAttribute("html", "data-prerendered"), null, "the live result replaced it");
  // The page keeps those ways out until the visitor acts; the answers then computed draw the same.
  await settled(live);
  assert.deepEqual(await canonical(live, ["#ways-out"]), [ways], "the prerendered ways out are what the core draws");
  assert.deepEqual(live.problems, []);
  await live.close();

});

test("a link with settings never shows the prerendered default result", async () => {
  const link = await beforeCore("?v=1&model=llama-2-7b");
  assert.equal(await link.getAttribute("html", "data-default"), null);
  for (const selector of RESULT) assert.equal(await link.locator(selector).isVisible(), false, selector);
  await link.close();
  // A link with only its version means the page defaults (a full fine-tune), not the start page: no prerender.
  const version_only = await beforeCore("?v=1");
  assert.equal(await version_only.getAttribute("html", "data-default"), null);
  assert.equal(await version_only.locator("#results-table").isVisible(), false);
  await version_only.close();
  const linked = await open(session.context, `${session.url}?v=1&model=llama-2-7b`);
  for (const selector of RESULT) assert.ok(await linked.locator(selector).isVisible(), selector);
  // Llama 2 7B: 6,738,415,616 parameters (Meta's published count), fp32 under framework hf (4 B), plus the bf16
  // autocast copy of the trained matrices at the peak: 2 x (32 x (4 x 4096^2 + 3 x 4096 x 11008) + 32000 x 4096
  // lm_head) = 2 x 6,607,077,376 = 13,214,154,752.
  assert.equal(await bucketBytes(linked, "parameters"), 6_738_415_616 * 4 + 13_214_154_752);
  await linked.close();
});

test("the stacked bar: segments in bucket order sum to the total; the capacity label stays inside the bar", async () => {
  // Two capacities: 80 GB (a line at 50 % of the 160.5 GB default total) and 8 GB (5 %: near the left end).
  // The label names the capacity in both units: 80e9 / 2^30 = 74.506 GiB, 8e9 / 2^30 = 7.451 GiB.
  for (const [query, capacity, text] of [["?v=1&gpu=&gpu_memory=80GB", 80e9, "device 74.51 GiB (80 GB)"],
    ["?v=1&gpu=&gpu_memory=8GB", 8e9, "device 7.45 GiB (8 GB)"]]) {
    const page = await open(session.context, session.url + query);
    const bar = await page.evaluate(() => {
      const svg = document.querySelector("#stacked-bar svg.bar");
      const box = svg.getBoundingClientRect();
      const label = svg.querySelector(".capacity-label").getBoundingClientRect();
      return {
        segments: [...svg.querySelectorAll(".segment")].map((r) => [r.getAttribute("class"), parseFloat(r.getAttribute("x")), parseFloat(r.getAttribute("width"))]),
        line: parseFloat(svg.querySelector(".capacity line").getAttribute("x1")),
        label: [label.left - box.left, box.right - label.right],
        text: svg.querySelector(".capacity-label").textContent,
      };
    });
    const total = await bucketBytes(page, "total");
    // The bar's scale is max(total, capacity): every segment is its bucket's share of it, laid end to end.
    let x = 0;
    for (const [klass, left, width] of bar.segments) {
      const bucket = klass.replace("segment bucket-", "");
      assert.ok(Math.abs(left - x) < 0.002, `${bucket} starts where the previous ends`);
      assert.ok(Math.abs(width - (100 * (await bucketBytes(page, bucket))) / Math.max(total, capacity)) < 0.002, bucket);
      x += width;
    }
    assert.ok(Math.abs(x - (100 * total) / Math.max(total, capacity)) < 0.01, "the segments add up to the total");
    assert.ok(Math.abs(bar.line - (100 * capacity) / Math.max(total, capacity)) < 0.002, "the line is at the capacity");
    assert.equal(bar.text, text);
    assert.ok(bar.label[0] >= 0 && bar.label[1] >= 0, `label inside the bar's width (${query}): ${bar.label}`);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

test("changing a field updates the table and the URL", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  const before_bytes = await allBytes(page);
  await page.fill('input[name="batch"]', "4");
  const after_bytes = await allBytes(page);
  // Every activation term is proportional to the micro-batch b (Korthikanti et al. 2022: s*b*h*(34 + 5as/h),
  // the embedding output and the logits likewise), so batch 4 holds exactly 4x the activations of batch 1.
  assert.equal(after_bytes.activations, 4 * before_bytes.activations);
  assert.equal(after_bytes.parameters, before_bytes.parameters, "the weights do not depend on the batch");
  await settled(page);
  assert.equal(new URL(page.url()).searchParams.get("batch"), "4");
  assert.equal(await page.getAttribute('.field[data-key="batch"]', "class"), "field field-integer changed");
  // Back to the default: the override disappears from the URL.
  await page.fill('input[name="batch"]', "1");
  await settled(page);
  assert.equal(new URL(page.url()).searchParams.has("batch"), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a link with model=llama-2-7b&mode=inference&seq=4096 shows the KV cache", async () => {
  const page = await open(session.context, `${session.url}?model=llama-2-7b&mode=inference&seq=4096`);
  // 2 (K and V) x 32 layers x batch 1 x 4096 tokens x 32 KV heads x 128 head_dim x 2 B (bf16) = 2 GiB.
  assert.equal(await bucketBytes(page, "kv_cache"), 2 * 32 * 1 * 4096 * 32 * 128 * 2);
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648);
  assert.equal(await page.locator("#notice").isHidden(), true);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("copy link round-trips the whole state", async () => {
  const origin = new URL(session.url).origin;
  await session.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await open(session.context, session.url);
  await page.fill("#model-search", "qwen2.5-7b");
  await page.check("#task-inference");
  await page.fill('input[name="seq"]', "8192");
  await page.fill('input[name="batch"]', "3");
  await page.selectOption("#gpu-select", "a100-40gb");
  await page.check('input[name="units"][value="GiB"]');
  const bytes = await allBytes(page);
  await page.click("#copy-link");
  await page.waitForFunction(() => document.getElementById("copy-status").textContent.includes("copied"));
  const link = await page.evaluate(() => navigator.clipboard.readText());
  const query = new URL(link).searchParams;
  assert.equal(query.get("v"), "2");  // links are written in the URL schema v2 (web/state.js SCHEMA_VERSION)
  assert.equal(query.get("model"), "qwen2.5-7b");
  assert.equal(query.get("mode"), "inference");
  assert.equal(query.get("seq"), "8192");
  assert.equal(query.get("gpu"), "a100-40gb");
  assert.equal(query.get("units"), "GiB");

  const copy = await open(session.context, link);
  assert.deepEqual(await allBytes(copy), bytes);
  assert.equal(await copy.inputValue("#model-search"), "qwen2.5-7b");
  assert.equal(await copy.inputValue('input[name="seq"]'), "8192");
  assert.equal(await copy.isChecked('input[name="units"][value="GiB"]'), true);
  assert.match(await copy.textContent('tr[data-bucket="total"]'), /GiB/);
  assert.deepEqual([...page.problems, ...copy.problems], []);
  await page.close();
  await copy.close();
});

test("unknown keys and invalid values are reported; the rest of the link still loads", async () => {
  const page = await open(session.context, `${session.url}?v=1&model=llama-2-7b&mode=inference&seq=4096&batch=0&colour=red`);
  const notice = await page.textContent("#notice");
  assert.match(notice, /colour/);
  assert.match(notice, /batch/);
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648, "model, mode and seq still apply");
  await settled(page);
  const query = new URL(page.url()).searchParams;
  assert.equal(query.has("batch"), false);
  assert.equal(query.has("colour"), false);
  await page.close();
});

test("a malicious query is shown as text and runs nothing", async () => {
  const page = await open(session.context, session.url);
  const dialogs = [];
  const requests = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    dialog.dismiss();
  });
  page.on("request", (request) => requests.push(request.url()));
  const payload = "<img src=x onerror=alert(1)>";
  await page.goto(`${session.url}?model=${encodeURIComponent(payload)}&seq=${encodeURIComponent("<script>alert(2)</script>")}`);
  await page.waitForSelector("body[data-ready]");
  assert.ok((await page.textContent("#notice")).includes(payload), "the payload appears as text");
  assert.equal(await page.locator("img").count(), 0, "no img element was created");
  assert.equal(await page.locator("#notice script").count(), 0);
  await page.waitForTimeout(200);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(requests.filter((url) => new URL(url).pathname === "/x"), [], "no request for the img source");
  assert.ok(await bucketBytes(page, "total") > 0, "the default model still renders");
  await page.close();
});

test("a knob applies with one click", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  const total = await bucketBytes(page, "total");
  await showTab(page, "knobs");
  const first = page.locator("#knobs tbody tr").first();
  const saved = Number(await first.getAttribute("data-saved"));
  await first.locator("button").click();
  assert.equal(await bucketBytes(page, "total"), total - saved, "the knob table's saving is what applying it saves");
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a config.json replaces the preset; its errors show next to the field; GB/GiB changes text only", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  // GPT-2's config.json (the fields that matter): 124,439,808 parameters = wte 50257*768 + wpe 1024*768
  // + 12 layers x (qkv 768*2304+2304, proj 768*768+768, fc 768*3072+3072, proj 3072*768+768, 2 LayerNorms
  // 4*768 = 7,087,872) + final LayerNorm 1536 (lm_head tied).
  await openGroup(page, ".config");
  await page.fill("#config-text", JSON.stringify({
    model_type: "gpt2", n_embd: 768, n_layer: 12, n_head: 12, n_positions: 1024, vocab_size: 50257,
    tie_word_embeddings: true,
  }));
  await page.click("text=Use this config");
  // The config.json readers are in the rest of the core, which the click fetches first (docs/wasm.md).
  await page.waitForFunction(() => document.querySelector("#model-info strong")?.textContent === "Custom architecture");
  const parameters = await bucketBytes(page, "parameters");
  assert.equal(parameters % 2, 0);
  const expected = 50257 * 768 + 1024 * 768 + 12 * 7_087_872 + 1536;
  assert.equal(expected, 124_439_808);
  assert.equal(await page.textContent("#model-info strong"), "Custom architecture");
  // Framework hf, full fine-tuning: fp32 weights (4 B) and, at the peak, the bf16 autocast copy of every trained
  // matrix: 12 layers x 7,084,800 (the layer's weights and biases without its 3,072 LayerNorm values; the tied
  // lm_head is the embedding, not an autocast op) x 2 B = 170,035,200.
  assert.equal(parameters, expected * 4 + 2 * 12 * 7_084_800, "fp32 weights of GPT-2 + bf16 autocast copies");
  await page.fill("#config-text", "{not json");
  await page.click("text=Use this config");
  await page.waitForSelector("#config-error", { state: "visible" });
  assert.match(await page.textContent("#config-error"), /config\.json/);
  assert.equal(await bucketBytes(page, "parameters"), parameters, "a bad config.json changes nothing");

  const gb_text = await page.textContent('tr[data-bucket="parameters"] td.num');
  await page.check('input[name="units"][value="GiB"]');
  assert.equal(await bucketBytes(page, "parameters"), parameters);
  assert.notEqual(await page.textContent('tr[data-bucket="parameters"] td.num'), gb_text);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the single file works from disk with the network blocked", async () => {
  const context = session.context;
  const page = await context.newPage();
  const requests = [];
  page.on("request", (request) => requests.push(request.url()));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    return url.startsWith("file:") || url.startsWith("data:") ? route.continue() : route.abort();
  });
  const problems = [];
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
  const file = pathToFileURL(join(dist, "llm-memory.html"));
  await page.goto(`${file}?model=llama-2-7b&mode=inference&seq=4096`);
  await page.waitForSelector("body[data-ready]");
  assert.equal(await page.getAttribute("body", "data-ready"), "true");
  assert.equal(await bucketBytes(page, "kv_cache"), 2_147_483_648);
  assert.deepEqual(requests.filter((url) => !url.startsWith("file:") && !url.startsWith("data:")), []);
  assert.deepEqual(problems, []);
  await page.close();
});

/** The heatmap's figure: its data attributes, the number of distinct colours drawn and the canvas as an image. */
async function heatmapOf(page) {
  const map = await page.$eval("figure.heatmap", (figure) => {
    const canvas = figure.querySelector("canvas");
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    const colours = new Set();
    for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 3] === 255) colours.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    return {
      frontier: JSON.parse(figure.dataset.frontier),
      seq: Number(figure.dataset.seq),
      batch: Number(figure.dataset.batch),
      max_batch: Number(figure.dataset.maxBatch),
      renders: Number(figure.dataset.renders),
      colours: colours.size,
      image: canvas.toDataURL(),
      label: canvas.getAttribute("aria-label"),
      caption: figure.querySelector("figcaption").textContent,
      rows: figure.querySelectorAll("table.heatmap-frontier tbody tr").length,
    };
  });
  return { ...map, frontier: new Map(map.frontier) };
}

/** The solver's "largest micro-batch" as shown on the page (0 when none fits). */
async function solverMaxBatch(page) {
  return Number(await page.getAttribute('[data-answer="max_batch"]', "data-value"));
}

test("the heatmap draws the grid, and its frontier at the page's sequence length is the solver's max micro-batch", async () => {
  // The page defaults: Llama 3 8B (max_position_embeddings 8192) trained on one H100 80GB, 2048 tokens.
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  await showTab(page, "heatmap");
  let map = await heatmapOf(page);
  // Sequence axis: powers of two from 256 up to the model's context, 8192 (docs/web.md, "The heatmap").
  assert.deepEqual([...map.frontier.keys()], [256, 512, 1024, 2048, 4096, 8192]);
  assert.equal(map.seq, 2048);
  // 16 + 16 + 96 GB of weights, gradients and AdamW state exceed 80 GB before any activation: nothing fits.
  assert.equal(map.frontier.get(2048), 0);
  assert.equal(map.frontier.get(2048), await solverMaxBatch(page));
  assert.equal(map.max_batch, 0);
  assert.match(map.caption, /No micro-batch fits at sequence length 2,048/);
  assert.match(map.label, /micro-batch 1 to 256 and sequence length 256 to 8,192 tokens/);
  assert.ok(map.colours > 20, `the canvas is drawn (${map.colours} colours)`);
  assert.equal(map.rows, 6, "one frontier table row per sequence column");
  await page.close();

  // A model that fits: Llama 3.2 1B (context 131072) has a frontier that falls as the sequence grows.
  const fits = await open(session.context, `${session.url}?model=llama-3.2-1b`);
  await settled(fits);
  await showTab(fits, "heatmap");
  map = await heatmapOf(fits);
  assert.equal(map.frontier.size, 10, "256 .. 131072: ten powers of two");
  const solver = await solverMaxBatch(fits);
  assert.ok(solver > 0);
  assert.equal(map.frontier.get(2048), solver);
  assert.equal(map.max_batch, solver);
  assert.match(map.caption, new RegExp(`Fits up to micro-batch ${solver} at sequence length 2,048`));
  const levels = [...map.frontier.values()];
  for (let j = 1; j < levels.length; j++) assert.ok(levels[j] <= levels[j - 1], "longer sequences fit fewer");
  assert.deepEqual(fits.problems, []);
  await fits.close();
});

test("the heatmap follows input changes, also to a sequence length off the grid", async () => {
  const page = await open(session.context, `${session.url}?model=llama-3.2-1b`);
  await settled(page);
  await showTab(page, "heatmap");
  const first = await heatmapOf(page);
  await page.fill('input[name="batch"]', "4");
  await settled(page);
  const moved = await heatmapOf(page);
  assert.ok(moved.renders > first.renders);
  assert.equal(moved.batch, 4);
  assert.notEqual(moved.image, first.image, "the point moved");
  assert.deepEqual(moved.frontier, first.frontier, "the frontier does not depend on the micro-batch");
  // 3000 tokens is between the grid's 2048 and 4096: the answer comes from a one-column sweep, and is the solver's.
  await page.fill('input[name="seq"]', "3000");
  await settled(page);
  const off_grid = await heatmapOf(page);
  assert.equal(off_grid.seq, 3000);
  assert.equal(off_grid.max_batch, await solverMaxBatch(page));
  assert.ok(off_grid.max_batch <= first.frontier.get(2048) && off_grid.max_batch >= first.frontier.get(4096));
  // A phone's width: the canvas is redrawn to the figure's new width, and nothing scrolls sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.waitForFunction(() => {
    const figure = document.querySelector("figure.heatmap");
    return parseFloat(figure.querySelector("canvas").style.width) === Math.floor(figure.getBoundingClientRect().width);
  });
  assert.ok(await page.$eval("figure.heatmap canvas", (canvas) => parseFloat(canvas.style.width)) <= 360);
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
  assert.deepEqual(page.problems, []);
  await page.close();
});
