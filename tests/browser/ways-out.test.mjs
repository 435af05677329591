// SPDX-License-Identifier: MIT
// Issue 36 item 1 in real headless Chromium, desktop and phone: the ways out list what the user's own devices and
// stack can do first, under a heading that says so, and a way's Apply gives the total it showed
// (docs/solve-and-advise.md, "Ways out"; the core's property test is tests/core/ways_out_property_test.cpp).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { open, settled, start } from "./support.mjs";

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

// Llama 3 8B, full fine-tune under the HF Trainer (the page's training default), on 2 × RTX 4090 (24 GB each):
// 16 B of weights, gradients and AdamW state per parameter x 8.03e9 = 128 GB, 64 GB per device even at ZeRO-3, so
// no split of the two devices fits; the knobs on the same two cards (LoRA, QLoRA, offload, ...) come first.
for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
  test(`${name}: the first way out on 2 × 24 GB is on the user's own hardware, and Apply gives its total`, async () => {
    const page = await open(session.context, `${session.url}?v=2&devices=2&gpu=rtx-4090`, { viewport });
    await settled(page);
    assert.match(await page.textContent(".verdict-line"), /^Does not fit:/);
    const headings = await page.$$eval(".ways-group", (ps) => ps.map((p) => p.textContent.trim()));
    assert.equal(headings[0], "On your own devices and stack:", JSON.stringify(headings));
    const first = page.locator(".ways-out li").first();
    assert.equal(await first.getAttribute("data-group"), "own");
    const shown = (await first.locator(".way-total").textContent()).match(/→ ([\d.,]+ GB)/)[1];
    const fits = (await first.getAttribute("data-fits")) === "true";
    await first.locator("button").click();
    await settled(page);
    const verdict = await page.textContent(".verdict-line");
    assert.ok(verdict.startsWith(fits ? `Fits: ${shown} of ` : `Does not fit: needs ${shown} per device`), `${verdict} (shown ${shown})`);
    assert.match(await page.textContent("#task-sentence"), / · 2 × [^·]*4090/, "the same two cards");
    assert.deepEqual(page.problems, []);
    await page.close();
  });
}

// The top list and the Knobs tab agree (issue 36 item 1; the core: ways_out_test.cpp cheapest_combination_in_the_knobs_words):
// each knob way is a row of the knob table, by the same name and the same new total, and a combination way is the
// tab's cheapest combination, in its words. The same 2 × RTX 4090 full fine-tune, by keyboard: Enter on the tab.
test("the ways out at the top and the Knobs tab name the same knobs with the same totals", async () => {
  const page = await open(session.context, `${session.url}?v=2&devices=2&gpu=rtx-4090`, { viewport: DESKTOP });
  await settled(page);
  const ways = await page.$$eval(".ways-out li", (items) => items.map((li) => ({ way: li.dataset.way, text: li.dataset.text,
    total: li.querySelector(".way-total")?.textContent.match(/→ ([\d.,]+ GB)/)?.[1] })));
  const knobWays = ways.filter((w) => w.way === "knob");
  assert.ok(knobWays.length > 0, JSON.stringify(ways));
  await page.focus("#tab-knobs");
  await page.keyboard.press("Enter");
  await page.waitForSelector('#results[data-answers="ready"] #panel-knobs:not([hidden]) #knobs tbody tr');
  const rows = await page.$$eval("#knobs tbody tr", (trs) => trs.map((tr) => ({
    name: tr.querySelector("th").firstChild.textContent, total: tr.cells[3].firstChild.textContent })));
  for (const way of knobWays) {
    const row = rows.find((r) => r.name === way.text);
    assert.ok(row, `${way.text} is a row of the knob table: ${JSON.stringify(rows.map((r) => r.name))}`);
    assert.equal(row.total, way.total, way.text);
  }
  const combination = ways.find((w) => w.way === "combination");
  if (combination) assert.ok((await page.textContent(".knobs-cheapest")).includes(combination.text), combination.text);
  assert.deepEqual(page.problems, []);
  await page.close();
});
