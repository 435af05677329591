// SPDX-License-Identifier: MIT
// The task-first page (issue 19, items 1, 2, 3, 5 and 12) in real headless Chromium: the task picker, the task
// sentence, the sticky verdict with its ways out, the result tabs, the device count and the parallel split,
// and that no typed value is dropped silently. Screenshots at desktop (1280 x 900) and phone (390 x 844)
// width, light and dark, go to test-artifacts/screenshots/ (gitignored). docs/web.md, "Layout".
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { DESKTOP, PHONE, bucketBytes, open, openGroup, root, settled, showTab, start } from "./support.mjs";

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});


const query = (page) => new URL(page.url()).searchParams;
const sentence = (page) => page.textContent("#task-sentence");

test("the task is the first control; each task sets mode and finetune, and the sentence says it", async () => {
  // ?v=2: the page defaults, a full fine-tune (the empty query is the start page: newcomer.test.mjs).
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  const first = await page.evaluate(() => document.querySelector("main").querySelector("input, select, textarea, button").id);
  assert.equal(first, "task-inference", "the first control of the page's settings is the task");
  assert.equal(await page.isChecked("#task-full"), true, "the default is a full fine-tune");
  // Default: Llama 3 8B (its name once the preset list is read), full fine-tune under framework hf, seq 2048 x
  // micro-batch 1, one H100 (the preset's name from the GPU list).
  await page.waitForFunction(() => document.getElementById("task-sentence").textContent.startsWith("Llama 3 8B"));
  assert.equal(await sentence(page), "Llama 3 8B · Full training with HF Trainer · 2,048 tokens × 1 · 1 × NVIDIA H100 80GB SXM5");
  assert.equal(await page.isVisible("#stack-framework"), true);
  assert.equal(await page.isVisible("#stack-runtime"), false, "the runtime is the Run task's");

  await page.check("#task-lora");
  await settled(page);
  assert.equal(query(page).get("finetune"), "lora");
  assert.equal(query(page).has("mode"), false, "train is the default mode");
  assert.match(await sentence(page), /^Llama 3 8B · LoRA with HF Trainer \+ peft · /);

  await page.check("#task-qlora");
  await settled(page);
  assert.equal(query(page).get("finetune"), "qlora");
  assert.match(await sentence(page), / · QLoRA with HF Trainer \+ peft · /);
  // QLoRA's recipe comes with it (framework hf's profile): the base in NF4.
  assert.equal(await page.inputValue('select[name="weights_dtype"]'), "nf4");

  await page.selectOption("#stack-framework", "deepspeed");
  await settled(page);
  assert.equal(query(page).get("framework"), "deepspeed");
  assert.match(await sentence(page), / · QLoRA with DeepSpeed · /);

  await page.check("#task-inference");
  await settled(page);
  assert.equal(query(page).get("mode"), "inference");
  assert.equal(query(page).has("finetune"), false, "Run drops the fine-tuning method");
  assert.equal(await page.isVisible("#stack-runtime"), true);
  assert.equal(await page.isVisible("#stack-framework"), false);
  // runtime auto answers as vLLM for 16-bit weights (README, "Inference is answered as the runtime...").
  assert.match(await sentence(page), / · Run with vLLM · 2,048 tokens × 1 · /);
  await page.selectOption("#stack-runtime", "llamacpp");
  await settled(page);
  assert.match(await sentence(page), / · Run with llama\.cpp · /);

  await page.check("#task-full");
  await settled(page);
  assert.equal(query(page).has("mode"), false);
  assert.equal(query(page).has("finetune"), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a link opens on its task: ?finetune=qlora checks QLoRA, ?mode=inference checks Run", async () => {
  for (const [link, task] of [["?v=1&finetune=qlora", "qlora"], ["?v=1&mode=inference&finetune=lora", "inference"],
                              ["?v=1&finetune=lora&devices=8&seq=4096&batch=8", "lora"]]) {
    const page = await open(session.context, session.url + link);
    assert.equal(await page.isChecked(`#task-${task}`), true, link);
    await page.close();
  }
  const page = await open(session.context, `${session.url}?v=1&finetune=lora&seq=4096&batch=8&devices=8&gpu=a100-80gb`);
  assert.match(await sentence(page), / · LoRA with HF Trainer \+ peft · 4,096 tokens × 8 · 8 × NVIDIA A100 80GB/);
  await page.close();
});

test("the verdict: Fits / Does not fit with the bytes compared; the ways out apply with one click", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  // The default (Llama 3 8B, full fine-tune, one H100) does not fit: the verdict names what it needs.
  const verdict = await page.textContent(".verdict-line");
  assert.match(verdict, /^Does not fit: needs [\d.,]+ GB per device, [\d.,]+ GB more than the 85\.03 GB it has$/);
  // 85.03 GB: the H100's 81,091 MiB as PyTorch reports it (total_memory 79.19 GiB; docs/devices.md) = 81,091 x 2^20
  // = 85,030,076,416 B.
  assert.equal(81_091 * 2 ** 20, 85_030_076_416);
  const ways = await page.$$eval(".ways-out li", (items) => items.map((li) => ({ way: li.dataset.way, fits: li.dataset.fits, text: li.textContent })));
  const kinds = ways.map((w) => w.way);
  // ZeRO 0 never fits on more devices (each holds a full replica), so the devices answer is the solver's with
  // ZeRO-3; a larger GPU; a knob (LoRA/QLoRA, offload, ...). Each says what it would need.
  assert.ok(kinds.includes("devices"), JSON.stringify(ways));
  assert.ok(kinds.includes("gpu"), JSON.stringify(ways));
  assert.ok(kinds.includes("knob"), JSON.stringify(ways));
  const devices = ways.find((w) => w.way === "devices");
  // The first way of a group starts with its heading (issue 36 item 1): devices are "more of the same device".
  assert.match(devices.text, /^With more of the same device: \d+ × NVIDIA H100 80GB SXM5 with ZeRO-3 → [\d.,]+ GB ✓Apply$/);

  // Apply the devices way out: the verdict turns to Fits, the note says what changed, the URL carries it.
  await page.click('.ways-out li[data-way="devices"] button');
  await settled(page);
  assert.match(await page.textContent(".verdict-line"), /^Fits: [\d.,]+ GB of 85\.03 GB per device · [\d.,]+ GB to spare$/);
  assert.match(await page.textContent("#change-note"), /^Applied \d+ × NVIDIA H100 80GB SXM5 with ZeRO-3 \(devices 1 → \d+, zero 0 → 3\)\.$/);
  assert.equal(query(page).get("zero"), "3");
  assert.ok(Number(query(page).get("devices")) > 1);
  // Fitting, the box gives the room left: the solver's largest micro-batch and sequence.
  const max_batch = await page.getAttribute('[data-answer="max_batch"]', "data-value");
  assert.match(await page.textContent("#ways-out"), new RegExp(`micro-batch up to ${Number(max_batch).toLocaleString("en-US")}`));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("after any one-click Apply (a knob, a solver answer) the verdict box says what changed", async () => {
  const page = await open(session.context, `${session.url}?v=1&model=llama-3.2-1b`);
  await settled(page);
  await showTab(page, "knobs");
  const knob = page.locator("#knobs tbody tr").first();
  const name = await knob.locator("th").evaluate((th) => th.firstChild.textContent);
  await knob.locator("button").click();
  await settled(page);
  assert.ok((await page.textContent("#change-note")).startsWith(`Applied ${name} (`), await page.textContent("#change-note"));
  await showTab(page, "fits");
  const batch = await page.getAttribute('[data-answer="max_batch"]', "data-value");
  await page.click('[data-answer="max_batch"] button');
  await settled(page);
  assert.equal(await page.textContent("#change-note"), `Applied largest micro-batch: ${batch} (batch 1 → ${batch}).`);
  // The next edit of the user's own clears it.
  await page.fill('input[name="seq"]', "1024");
  assert.equal(await page.textContent("#change-note"), "");
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** Bytes as the page shows them in GB: 10^9 B, two decimals (one from 100, none from 1000; web/ui/format.js). */
const gb = (bytes) => {
  const value = bytes / 1e9;
  return `${value.toFixed(Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 100 ? 1 : 2)} GB`;
};

test("the verdict's numbers: the per-device total against the device's memory, and the difference", async () => {
  // 85,030,076,416 B: the H100's 81,091 MiB as PyTorch reports it (docs/devices.md).
  const capacity = 85_030_076_416;
  // ?v=2: the page defaults on the H100 (the empty query is the start page, on an RTX 4090: newcomer.test.mjs).
  for (const link of ["?v=2", "?v=1&model=llama-2-7b&mode=inference&seq=4096", "?v=1&framework=generic"]) {
    const page = await open(session.context, session.url + link);
    // The frameworks' peak on the device (peak.device, what fits compares) is the total row of the table.
    const total = await bucketBytes(page, "total");
    const text = await page.textContent(".verdict-line");
    if (total <= capacity) assert.equal(text, `Fits: ${gb(total)} of ${gb(capacity)} per device · ${gb(capacity - total)} to spare`, link);
    else assert.equal(text, `Does not fit: needs ${gb(total)} per device, ${gb(total - capacity)} more than the ${gb(capacity)} it has`, link);
    await page.close();
  }
});

test("the verdict stays in view while the settings scroll (desktop and phone)", async () => {
  const page = await open(session.context, `${session.url}?v=2`, { viewport: DESKTOP });
  await settled(page);
  await page.click("#settings-advanced > summary");
  const inView = () => page.evaluate(() => {
    const box = document.getElementById("verdict-head").getBoundingClientRect();
    return box.top >= 0 && box.bottom <= innerHeight && box.height > 0;
  });
  // To the end of the settings (the last group of the form at the bottom of the window).
  await page.evaluate(() => document.querySelector("#settings-form").lastElementChild.scrollIntoView({ block: "end" }));
  assert.ok(await page.evaluate(() => scrollY) > 500, "the settings column scrolls the page");
  assert.equal(await inView(), true, "desktop: the verdict is in view at the bottom of the settings");
  // The results column scrolls by itself: the verdict stays at its top.
  await page.evaluate(() => document.querySelector(".answer-column").scrollTo(0, 10_000));
  assert.equal(await inView(), true, "desktop: the verdict is in view when the results scroll");
  await page.close();

  const phone = await open(session.context, `${session.url}?v=2`, { viewport: PHONE });
  await settled(phone);
  assert.equal(await phone.evaluate(() => document.getElementById("settings-details").open), false, "phone: the settings start collapsed");
  await phone.click("#settings-details > summary");
  await phone.click("#settings-advanced > summary");
  await phone.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  assert.ok(await phone.evaluate(() => scrollY) > 2000);
  assert.equal(await phone.evaluate(() => Math.round(document.getElementById("verdict-head").getBoundingClientRect().top)), 0,
               "phone: the verdict sticks to the top of the screen over the settings");
  await phone.close();
});

test("results in tabs: Breakdown · What fits · Knobs · Heatmap, all in view without scrolling; What fits has the GPU slot", async () => {
  const page = await open(session.context, `${session.url}?v=2`, { viewport: DESKTOP });
  await settled(page);
  const tabs = await page.$$eval('[role="tab"]', (list) => list.map((t) => {
    const box = t.getBoundingClientRect();
    return { name: t.textContent, selected: t.getAttribute("aria-selected"), bottom: box.bottom };
  }));
  assert.deepEqual(tabs.map((t) => t.name), ["Breakdown", "What fits", "Knobs", "Heatmap"]);
  assert.deepEqual(tabs.map((t) => t.selected), ["true", "false", "false", "false"]);
  for (const tab of tabs) assert.ok(tab.bottom < DESKTOP.height, `${tab.name} is in view (bottom ${tab.bottom})`);
  for (const [name, inside] of [["fits", "#solver .answer"], ["knobs", "#knobs table"], ["heatmap", "figure.heatmap"], ["breakdown", "#results-table table"]]) {
    await showTab(page, name);
    assert.equal(await page.isVisible(inside), true, name);
    const top = await page.$eval(`#panel-${name}`, (panel) => panel.getBoundingClientRect().top);
    assert.ok(top < DESKTOP.height / 2, `${name}: the panel starts in the upper half of the screen (${top})`);
    const others = await page.$$eval('[role="tabpanel"]:not([hidden])', (panels) => panels.map((p) => p.id));
    assert.deepEqual(others, [`panel-${name}`], "one panel at a time");
  }
  await showTab(page, "fits");
  assert.equal(await page.textContent("#gpu-fit-title"), "Which GPUs fit");
  assert.equal(await page.locator("#panel-fits #gpu-fit").count(), 1, "the slot another module fills");
  // A link to a panel opens it.
  // (With the settings above: the bare address is the start page, whose knobs arrive with the lazy answers.)
  await page.goto(`${session.url}?v=2#panel-knobs`);
  await page.waitForSelector("body[data-ready]");
  await page.waitForSelector("#knobs", { state: "visible" });
  assert.equal(await page.getAttribute("#tab-knobs", "aria-selected"), "true");
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("phone: the verdict, the first way out and the tabs are above the fold; nothing scrolls sideways", async () => {
  const page = await open(session.context, `${session.url}?v=2`, { viewport: PHONE });
  await settled(page);
  const bottom = (selector) => page.$eval(selector, (el) => el.getBoundingClientRect().bottom);
  assert.ok(await bottom(".verdict-line") <= PHONE.height, "the verdict");
  assert.ok(await bottom(".ways-out li") <= PHONE.height, "the first way out");
  assert.ok(await bottom("#tab-heatmap") <= PHONE.height, "the tabs");
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), PHONE.width);
  await page.setViewportSize({ width: 360, height: 740 });
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 360);
  await page.close();
});

test("devices beside the GPU; zero, tp and pp offer only valid values; a committed device count says what it changed", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  // "N × GPU": the device count sits on the GPU picker's row.
  const [count, gpu] = await Promise.all(["#devices-count", "#gpu-select"].map((s) => page.$eval(s, (el) => el.getBoundingClientRect().toJSON())));
  assert.ok(count.right < gpu.left && Math.abs(count.top - gpu.top) < 4, `${JSON.stringify(count)} ${JSON.stringify(gpu)}`);
  const options = (key) => page.$$eval(`#split-${key} option`, (list) => list.map((o) => o.value));
  assert.deepEqual(await options("zero"), ["0", "1", "2", "3"]);
  // One device: no split.
  assert.deepEqual(await options("tp"), ["1"]);
  assert.deepEqual(await options("pp"), ["1"]);
  await page.fill("#devices-count", "8");
  await page.press("#devices-count", "Enter");
  await settled(page);
  // Llama 3 8B has 32 attention heads and 32 layers: tp divides 8 and 32 -> 1, 2, 4, 8; pp divides 8 / tp.
  assert.deepEqual(await options("tp"), ["1", "2", "4", "8"]);
  assert.deepEqual(await options("pp"), ["1", "2", "4", "8"]);
  await page.selectOption("#split-tp", "8");
  await settled(page);
  assert.deepEqual(await options("pp"), ["1"], "tp 8 x pp must divide 8");
  assert.equal(query(page).get("tp"), "8");

  // Typing 4 devices: invalid with tp 8. While typing, the field keeps it with the core's error and tp stays.
  await page.fill("#devices-count", "4");
  assert.match(await page.textContent("#devices-error"), /must be a multiple of tp x pp \(8\), got 4/);
  assert.equal(await page.inputValue("#split-tp"), "8");
  assert.equal(await page.inputValue("#devices-count"), "4");
  // Committed (Enter): tp is lowered to the largest valid degree, and the note says so.
  await page.press("#devices-count", "Enter");
  await settled(page);
  assert.equal(await page.inputValue("#split-tp"), "4");
  assert.equal(query(page).get("devices"), "4");
  assert.equal(query(page).get("tp"), "4");
  assert.equal(await page.textContent("#change-note"),
    "Changed tensor parallel 8 → 4: tensor parallel × pipeline stages must divide the 4 devices (and tensor parallel the 32 attention heads).");
  assert.equal(await page.isVisible("#devices-error"), false);

  // ZeRO is training's; Run hides it.
  assert.equal(await page.isVisible("#split-zero"), true);
  await page.check("#task-inference");
  assert.equal(await page.isVisible("#split-zero"), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("a typed value that does not validate yet is kept, and applies once another change makes it valid", async () => {
  // The bug of issue 19 in its general form: a value typed into one field is invalid until another field
  // changes. num_key_value_heads 64 exceeds Llama 3 8B's 32 query heads; with 64 query heads (4096 / 64 = a
  // head_dim of 64) it is valid. Before, the second edit reset the first field silently to the preset's 8.
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  // The field sits in the closed Advanced > Model group: opened first when hidden (a fill on a hidden field waits
  // out the context's 120 s timeout before it fails).
  if (!(await page.isVisible('input[name="num_key_value_heads"]'))) {
    await openGroup(page, "#settings-advanced");
    await openGroup(page, 'details[data-group="model"]');
  }
  await page.fill('input[name="num_key_value_heads"]', "64");
  assert.match(await page.textContent("#input-status"), /num_key_value_heads: must not exceed num_attention_heads \(32\), got 64/);
  await page.fill('input[name="num_attention_heads"]', "64");
  await settled(page);
  assert.equal(await page.inputValue('input[name="num_key_value_heads"]'), "64", "the typed value is still there");
  assert.equal(query(page).get("num_key_value_heads"), "64", "and now applies");
  assert.equal(query(page).get("num_attention_heads"), "64");
  assert.match(await page.textContent("#change-note"), /Now applied: num_key_value_heads 64\./);
  assert.equal(await page.isVisible("#input-status"), false);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the new controls are named in the accessibility tree and work from the keyboard", async () => {
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  for (const [role, name] of [["radio", "Run (inference)"], ["radio", "LoRA"], ["radio", "QLoRA"], ["radio", "Full training"],
                              ["combobox", "Training framework"], ["spinbutton", "Devices"], ["combobox", "ZeRO stage"],
                              ["combobox", "Tensor parallel"], ["combobox", "Pipeline stages"], ["tab", "Breakdown"],
                              ["tab", "What fits"], ["tab", "Knobs"], ["tab", "Heatmap"], ["tabpanel", "Breakdown"]]) {
    assert.equal(await page.getByRole(role, { name, exact: true }).count(), 1, `${role} "${name}"`);
  }
  assert.equal(await page.getByRole("group", { name: "Task" }).count(), 1);
  assert.equal(await page.getByRole("button", { name: /^Apply: / }).first().isVisible(), true, "the ways out's buttons");
  // Keyboard only: the device count with the arrow keys (a committed change), then a way out with Enter.
  await page.focus("#devices-count");
  await page.keyboard.press("ArrowUp");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("devices") === "2");
  await page.keyboard.press("Tab");
  await settled(page);
  const button = page.locator(".ways-out li button").first();
  await button.focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.getElementById("change-note").textContent.startsWith("Applied"));
  // The tabs: Home / End and the arrows move the selection with the focus.
  await page.focus("#tab-breakdown");
  await page.keyboard.press("End");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-heatmap");
  // Drawn once its tab is open, its code imported the first time (docs/web.md, "The heatmap").
  await page.waitForSelector('#heatmap[data-state="ready"] figure.heatmap');
  assert.equal(await page.isVisible("figure.heatmap"), true);
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-breakdown", "wraps around");
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("screenshots: desktop 1280 x 900 and phone 390 x 844, light and dark", async () => {
  const folder = join(root, "test-artifacts", "screenshots");
  await mkdir(folder, { recursive: true });
  for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    for (const scheme of ["light", "dark"]) {
      const page = await open(session.context, session.url, { viewport });
      await page.emulateMedia({ colorScheme: scheme });
      await settled(page);
      await page.screenshot({ path: join(folder, `page-${name}-${scheme}.png`) });
      if (name === "phone") await page.screenshot({ path: join(folder, `page-${name}-${scheme}-full.png`), fullPage: true });
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), viewport.width, `${name} ${scheme}: no sideways scroll`);
      await page.close();
    }
  }
});
