// SPDX-License-Identifier: MIT
// A newcomer's page (issue 36 items 2, 3, 6 and 10, and the model link) in headless Chromium, at desktop and phone
// width, by keyboard and in the dark scheme: the start page answers an inference question that fits, a link names
// a preset by its Hub repo id or an alias and opens it offline, inference on N devices defaults to tensor parallel
// N, the verdict is a polite live region, an applied change can be undone (the Undo button, or Back), and the
// settings changed first sit on top with the rest in a collapsed Advanced group. docs/web.md.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DESKTOP, PHONE, bucketBytes, open, settled, showTab, start } from "./support.mjs";

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

const query = (page) => new URL(page.url()).searchParams;

test("the start page answers an inference question that fits, and training is one click away", async () => {
  const page = await open(session.context, session.url, { viewport: DESKTOP });
  assert.equal(await page.isChecked("#task-inference"), true, "Run (inference) is the start task");
  // The task sentence names the model by its preset name once the list is read (after the first action).
  await settled(page);
  await page.waitForFunction(() => document.getElementById("task-sentence").textContent.startsWith("Llama 3.1 8B"));
  assert.match(await page.textContent("#task-sentence"), /^Llama 3\.1 8B · Run with vLLM · 8,192 tokens × 1 · 1 × NVIDIA GeForce RTX 4090 24GB$/);
  assert.equal(await page.getAttribute(".verdict-line", "data-fits"), "true");
  // Llama 3.1 8B: 8,030,261,248 parameters x 2 B (bf16) = 16,060,522,496 B, and vLLM's rotary cos/sin cache,
  // max_position_embeddings 131,072 x head_dim 128 x 2 B = 33,554,432 B: 16,094,076,928 B.
  assert.equal(await bucketBytes(page, "parameters"), 8_030_261_248 * 2 + 131_072 * 128 * 2);
  // KV cache of one 8,192-token request: 2 (K, V) x 32 layers x 8,192 x 8 KV heads x 128 x 2 B = 1 GiB.
  assert.equal(await bucketBytes(page, "kv_cache"), 2 * 32 * 8192 * 8 * 128 * 2);
  assert.equal(new URL(page.url()).search, "", "the start settings keep the address bare");
  // Training: one click on the task picker, the page's first control.
  await page.check("#task-full");
  await settled(page);
  assert.equal(query(page).has("mode"), false, "train is PAGE_DEFAULTS' mode");
  assert.equal(query(page).get("model"), "llama-3.1-8b");
  assert.equal(query(page).get("gpu"), "rtx-4090");
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a link with settings keeps its meaning: ?v=2 alone is still the full fine-tune on an H100", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  assert.equal(await page.isChecked("#task-full"), true);
  await page.waitForFunction(() => document.getElementById("task-sentence").textContent.includes("H100"));
  assert.match(await page.textContent("#task-sentence"), /^Llama 3 8B · Full training with HF Trainer · 2,048 tokens × 1 · 1 × NVIDIA H100/);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the start page on a phone in the dark: task and verdict above the fold", async () => {
  const page = await session.context.newPage();
  await page.emulateMedia({ colorScheme: "dark" });
  await page.setViewportSize(PHONE);
  await page.goto(session.url);
  await page.waitForSelector("body[data-ready]");
  for (const id of ["task-inference", "verdict-head"]) {
    const box = await page.$eval(`#${id}`, (e) => e.getBoundingClientRect().bottom);
    assert.ok(box <= PHONE.height, `#${id} is above the fold (${box} px)`);
  }
  const colour = await page.$eval("body", (b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(colour, "rgb(255, 255, 255)", "the dark palette applies");
  await page.close();
});

test("?model= takes a preset's Hub repo id or an alias, in any case, and opens the preset offline", async () => {
  const hub = [];
  const paths = [];
  const log = (request) => paths.push(new URL(request.url()).pathname);
  session.context.on("request", log);
  await session.context.route("https://huggingface.co/**", (route) => {
    hub.push(route.request().url());
    return route.abort();
  });
  for (const [name, id] of [["Qwen/Qwen3-14B", "qwen3-14b"], ["QWEN/qwen3-14b", "qwen3-14b"],
                            ["meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"],
                            // A bare alias stays as written: the core reads it (models/<alias>.json is the preset's file).
                            ["llama-3.1-8b-instruct", "llama-3.1-8b-instruct"]]) {
    const page = await open(session.context, `${session.url}?mode=inference&model=${encodeURIComponent(name)}`);
    await settled(page);
    assert.equal(query(page).get("model"), id, `${name} opens ${id}`);
    assert.equal(await page.isVisible("#notice:not([hidden])"), false, `${name}: nothing ignored`);
    assert.equal(await page.getAttribute(".verdict-line", "data-fits") !== null, true);
    assert.deepEqual(page.problems, [], name);
    await page.close();
  }
  assert.deepEqual(hub, [], "no request went to the Hub");
  session.context.off("request", log);
  // The repo-id links read the name map and the link's chunk; the start page and other links never do.
  assert.ok(paths.includes("/model-aliases.json"));
  assert.ok(paths.some((path) => path.startsWith("/chunks/link-model-")));
  await session.context.unroute("https://huggingface.co/**");
});

test("inference on 8 devices defaults to tensor parallel 8, and the split picker says so", async () => {
  const page = await open(session.context, `${session.url}?mode=inference&devices=8&gpu=h100-80gb&model=meta-llama-3-8b`);
  await settled(page);
  // 8 divides Llama 3 8B's 32 heads and 8 KV heads: one copy over all 8 (vllm serve --tensor-parallel-size 8).
  assert.equal(await page.inputValue("#split-tp"), "8");
  assert.equal(await page.inputValue("#split-pp"), "1");
  assert.match(await page.textContent("#split-info"), /^1 data-parallel × 8 tensor-parallel × 1 pipeline = 8 devices · inference default: one copy/);
  assert.equal(query(page).has("tp"), false, "the default is not written into the link");
  // By keyboard: tensor parallel 1 gives 8 replicas, and the link says so.
  await page.focus("#split-tp");
  await page.keyboard.press("Home");
  await settled(page);
  assert.equal(await page.inputValue("#split-tp"), "1");
  assert.equal(query(page).get("tp"), "1");
  assert.match(await page.textContent("#split-info"), /^8 data-parallel × 1 tensor-parallel × 1 pipeline = 8 devices$/);
  assert.deepEqual(page.problems, []);
  await page.close();
  // 6 devices: tp 6, 5, 4 and 3 do not divide both 6 and the 32 heads; tp 2 does, and 3 pipeline stages.
  const six = await open(session.context, `${session.url}?mode=inference&devices=6&gpu=h100-80gb&model=meta-llama-3-8b`);
  assert.equal(await six.inputValue("#split-tp"), "2");
  assert.equal(await six.inputValue("#split-pp"), "3");
  await six.close();
});

test("the verdict is a polite live region; Apply keeps the focus on Undo; Undo and Back restore the settings", async () => {
  // The full fine-tune on one H100 does not fit: its ways out have Apply buttons.
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  assert.equal(await page.getAttribute("#verdict-live", "aria-live"), "polite");
  assert.match(await page.textContent("#verdict-live"), /Does not fit:/);
  const before_url = page.url();
  const before_total = await bucketBytes(page, "total");
  // By keyboard: focus the first way out's Apply and press Enter.
  await page.focus("#ways-out li button");
  await page.keyboard.press("Enter");
  await settled(page);
  assert.equal(await page.evaluate(() => document.activeElement.id), "undo", "the focus is on Undo, not the body");
  assert.notEqual(page.url(), before_url);
  assert.match(await page.textContent("#change-note"), /^Applied /);
  await page.keyboard.press("Enter");  // Undo
  await page.waitForFunction((url) => location.href === url, before_url);
  await settled(page);
  assert.equal(await bucketBytes(page, "total"), before_total);
  assert.equal(await page.isVisible("#undo"), false);
  // Apply again, then the browser's Back.
  await page.click("#ways-out li button");
  await settled(page);
  const applied = page.url();
  await page.goBack();
  await page.waitForFunction((url) => location.href === url, before_url);
  await settled(page);
  assert.equal(await bucketBytes(page, "total"), before_total);
  await page.goForward();
  await page.waitForFunction((url) => location.href === url, applied);
  await settled(page);
  assert.notEqual(await bucketBytes(page, "total"), before_total);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("context, batch and weights sit on top; the rest is in a collapsed Advanced group that counts changes", async () => {
  const page = await open(session.context, `${session.url}?mode=inference&block_size=32`, { viewport: DESKTOP });
  const first = await page.$$eval("#settings-form .first-settings .field", (fields) => fields.map((f) => f.dataset.key));
  assert.deepEqual(first, ["seq", "batch", "weights_dtype"]);
  assert.equal(await page.textContent('.field[data-key="batch"] label'), "Concurrent requests");
  assert.equal(await page.$eval("#settings-advanced", (d) => d.open), false, "Advanced starts collapsed");
  assert.equal(await page.getAttribute("#settings-advanced", "data-changed"), "1");
  assert.match(await page.textContent("#settings-advanced summary"), /\(1 changed\)/);
  // The first settings come right after the model and the GPU, before config.json and the launch command.
  const order = await page.evaluate(() => ["gpu-picker", "settings-form", "config-drop"].map((id) => document.getElementById(id).getBoundingClientRect().top));
  assert.ok(order[0] < order[1] && order[1] < order[2], `order ${order}`);
  // A byte setting the core resolves to no whole unit shows as GiB or MiB, never raw bytes.
  await page.click("#settings-advanced > summary");
  const texts = await page.$$eval('#settings-form .field-bytes input', (inputs) => inputs.filter((i) => i.checkVisibility()).map((i) => i.value));
  for (const text of texts) assert.doesNotMatch(text, /^\d{7,}$/, `raw bytes: ${text}`);
  // Training: the batch is the micro-batch again.
  await page.check("#task-full");
  await settled(page);
  assert.equal(await page.textContent('.field[data-key="batch"] label'), "Batch");
  await page.close();
});
