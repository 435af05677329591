// SPDX-License-Identifier: MIT
// The start page before its core runs (web/wake.js; docs/web.md, "Start-up"): whole in index.html, it fetches no
// part of the core until the visitor's first action or its first idle period; what the visitor does meanwhile
// (a value typed, a group opened, a tab clicked) is carried over to the live page, with the focus and the caret.
// The first load's size and the wait from the first action to the first live answer are printed (the figures of
// docs/performance.md, "Start-up"). Run after `npm run build`: node --test tests/browser/wake.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { dist, firstLoad, gzipSizes, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
});
after(() => session?.close());

/** Holds the core's first part back `ms` before it is served, so that input lands before the core is up. */
async function slowCore(ms) {
  await session.context.route("**/llm-memory.first.wasm", async (route) => {
    await new Promise((done) => setTimeout(done, ms));
    await route.continue();
  });
}

test("the start page's first load holds no part of the core, and stays under 150 KB gzip", async () => {
  const { paths, page } = await firstLoad(session.context, session.url);
  assert.equal(await page.getAttribute("html", "data-dormant"), "", "asleep: no action, no idle period");
  assert.deepEqual(paths.filter((path) => path.endsWith(".wasm") || path.startsWith("/models/")), []);
  const sizes = await gzipSizes(dist, paths);
  const total = sizes.reduce((sum, [, bytes]) => sum + bytes, 0);
  console.log(`first load: ${(total / 1024).toFixed(1)} KB gzip: ${sizes.map(([file, bytes]) => `${file} ${(bytes / 1024).toFixed(1)}`).join(", ")}`);
  // docs/performance.md's budget for the start page's first load (KB = 1024 B, gzip -9).
  assert.ok(total <= 150 * 1024, `${total} B`);
  // Everything the start page shows is there: the form with the start settings, the pickers, the verdict.
  assert.equal(await page.inputValue('#settings-form input[name="seq"]'), "8192");
  assert.equal(await page.inputValue("#model-search"), "llama-3.1-8b");
  assert.equal(await page.inputValue("#gpu-select"), "rtx-4090");
  assert.match(await page.textContent("#verdict-head"), /Fits/);
  await page.close();
});

test("a value typed before the core is up is applied once it is; the focus and the caret stay in its field", async () => {
  await slowCore(600);
  try {
    const { paths, page } = await firstLoad(session.context, session.url);
    const field = '#settings-form input[name="seq"]';
    await page.click(field);  // the first action: the wake
    await page.keyboard.press("Control+A");
    await page.keyboard.type("4096");
    await page.keyboard.press("ArrowLeft");  // the caret before the last digit
    assert.equal(await page.getAttribute("body", "data-ready"), null, "typed before the core was up");
    await page.waitForSelector('body[data-ready="true"]');
    assert.ok(paths.includes("/llm-memory.first.wasm"), "the action fetched the core");
    const focus = await page.evaluate(() => {
      const active = document.activeElement;
      return { name: active.name, value: active.value, caret: [active.selectionStart, active.selectionEnd], in_form: active.closest("#settings-form") !== null };
    });
    assert.deepEqual(focus, { name: "seq", value: "4096", caret: [3, 3], in_form: true });
    // The live estimate is that of 4,096 tokens: Llama 3.1 8B's KV cache, 2 x 32 layers x 4,096 tokens x 8 KV
    // heads x 128 x 2 B (bf16) = 536,870,912 B (half the start page's 8,192 tokens).
    await settled(page);
    assert.equal(await page.getAttribute('tr[data-bucket="kv_cache"]', "data-bytes"), String(2 * 32 * 4096 * 8 * 128 * 2));
    assert.equal(new URL(page.url()).searchParams.get("seq"), "4096", "and the link says so");
    // Typing on goes on in the live field.
    await page.keyboard.press("End");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("8");
    await settled(page);
    assert.equal(await page.getAttribute('tr[data-bucket="kv_cache"]', "data-bytes"), String(2 * 32 * 4098 * 8 * 128 * 2));
    await page.close();
  } finally {
    await session.context.unroute("**/llm-memory.first.wasm");
  }
});

test("a tab clicked and a group opened before the core is up are the live page's", async () => {
  await slowCore(600);
  try {
    const { page } = await firstLoad(session.context, session.url);
    await page.click("#settings-advanced > summary");
    // Its prerendered fields show at once (web/boot.js moves them out of their <template>), and take input.
    await page.fill('#settings-form input[name="fragmentation"]', "0.1");
    await page.click("#tab-knobs");
    assert.equal(await page.getAttribute("body", "data-ready"), null, "before the core was up");
    await page.waitForSelector('body[data-ready="true"]');
    assert.equal(await page.locator("#settings-advanced[open]").count(), 1, "Advanced stays open");
    assert.equal(await page.inputValue('#settings-form input[name="fragmentation"]'), "0.1");
    await page.waitForSelector("#panel-knobs:not([hidden])");
    assert.equal(await page.getAttribute("#tab-knobs", "aria-selected"), "true");
    await page.waitForSelector('#results[data-answers="ready"]');
    assert.ok(await page.locator("#knobs tbody tr").count() > 0, "the knob table of the start settings");
    await settled(page);
    assert.equal(new URL(page.url()).searchParams.get("fragmentation"), "0.1", "the value typed in Advanced is the live page's");
    await page.close();
  } finally {
    await session.context.unroute("**/llm-memory.first.wasm");
  }
});

test("the wait from the first action to the first live answer, cold and after the idle warm-up", async () => {
  // Cold: the page never idle, the first action (a click in the seq field) wakes the core.
  const { page: cold } = await firstLoad(session.context, session.url);
  await cold.click('#settings-form input[name="seq"]');
  await cold.waitForSelector('body[data-ready="true"]');
  await cold.waitForSelector('#results[data-answers="ready"]');
  const marks = await cold.evaluate(() => {
    const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
    return { wake: at("llm-memory:wake"), live: at("llm-memory:live") };
  });
  assert.ok(marks.live > marks.wake, JSON.stringify(marks));
  const cold_ms = marks.live - marks.wake;
  await cold.close();
  // Warm: the page idle first (its core started then, and the warm-up ran), then the same click and a digit.
  const { page: warm } = await firstLoad(session.context, session.url, { warm: true });
  await warm.waitForSelector('body[data-warm="true"]');
  await warm.evaluate(() => {
    window.firstAnswer = new Promise((done) => {
      document.addEventListener("input", (event) => {
        const from = event.timeStamp;
        new MutationObserver((_, observer) => {
          observer.disconnect();
          done(performance.now() - from);
        }).observe(document.getElementById("results-table"), { childList: true, subtree: true, characterData: true });
      }, { once: true, capture: true });
    });
  });
  await warm.click('#settings-form input[name="seq"]');
  await warm.keyboard.press("End");
  await warm.keyboard.press("Backspace");
  const warm_ms = await warm.evaluate(() => window.firstAnswer);
  await warm.close();
  console.log(`first action to first live answer: cold ${cold_ms.toFixed(0)} ms (wake to the live page), after the idle warm-up ${warm_ms.toFixed(1)} ms (an edit to its table)`);
});
