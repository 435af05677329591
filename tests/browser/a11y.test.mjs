// SPDX-License-Identifier: MIT
// Issue 10 part 2: the page is fully keyboard-operable with a visible focus indicator and labelled for screen
// readers. Names come from Chromium's own accessibility tree (what a screen reader is given), not from our
// reading of the markup.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bucketBytes, open, start } from "./support.mjs";

let session;

before(async () => {
  session = await start();
});

after(async () => {
  await session?.close();
});

const INTERACTIVE = new Set(["textbox", "searchbox", "combobox", "checkbox", "button", "link", "radio", "slider",
  "spinbutton", "listbox", "switch", "tab", "menuitem", "option"]);

test("every control, table and image (the chart) has an accessible name in Chromium's accessibility tree", async () => {
  const page = await open(session.context, session.url);
  await page.waitForSelector('#results[data-answers="ready"]');
  const cdp = await session.context.newCDPSession(page);
  const { nodes } = await cdp.send("Accessibility.getFullAXTree");
  const unnamed = [];
  const counts = {};
  for (const node of nodes) {
    if (node.ignored) continue;
    const role = node.role?.value;
    const name = (node.name?.value ?? "").trim();
    if (INTERACTIVE.has(role) || role === "table" || role === "image" || role === "img") {
      counts[role] = (counts[role] ?? 0) + 1;
      if (!name) unnamed.push(`${role} (backend node ${node.backendDOMNodeId})`);
    }
  }
  assert.deepEqual(unnamed, [], "controls without an accessible name");
  // The open groups of the settings form hold dozens of controls (a closed <details> is out of the tree); the
  // results and the knobs are tables; the heatmap is an image.
  assert.ok((counts.textbox ?? 0) + (counts.combobox ?? 0) + (counts.checkbox ?? 0) > 25, JSON.stringify(counts));
  assert.ok((counts.table ?? 0) >= 2, JSON.stringify(counts));
  assert.ok((counts.image ?? 0) + (counts.img ?? 0) >= 1, JSON.stringify(counts));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("Tab reaches every visible control, each with a visible focus indicator, and never gets stuck", async () => {
  const page = await open(session.context, session.url);
  await page.waitForSelector('#results[data-answers="ready"]');
  const focusable = await page.evaluate(() => {
    const selector = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";
    return [...document.querySelectorAll(selector)]
      .filter((el) => !el.disabled && el.checkVisibility({ visibilityProperty: true }))  // not in a closed <details>
      .length;
  });
  const seen = new Set();
  const invisible = [];
  let wrapped = false;
  for (let i = 0; i < focusable + 20; ++i) {
    await page.keyboard.press("Tab");
    const focus = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      if (!el.dataset.a11yId) el.dataset.a11yId = String(Math.random());
      // The indicator: the element's own outline, or its wrapper's (the file button styles :focus-within).
      const ring = (node) => {
        const style = getComputedStyle(node);
        return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== "none";
      };
      const wrapper = el.closest(".file-button");
      return { id: el.dataset.a11yId, what: `${el.tagName.toLowerCase()}#${el.id}.${el.className}`,
               visible: ring(el) || (wrapper !== null && ring(wrapper)) };
    });
    if (focus === null) {  // focus left the document: a full cycle is done
      wrapped = true;
      break;
    }
    if (seen.has(focus.id)) {
      wrapped = true;
      break;
    }
    seen.add(focus.id);
    if (!focus.visible) invisible.push(focus.what);
  }
  assert.ok(wrapped, "Tab cycles through the page and out again");
  assert.deepEqual(invisible, [], "focused without a visible indicator");
  // Every visible control is in the tab order (a skip link and the file input's label may add one or two).
  assert.ok(seen.size >= focusable - 1, `reached ${seen.size} of ${focusable} controls`);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the calculator works from the keyboard alone: edit a setting, change a choice, apply a knob", async () => {
  const page = await open(session.context, session.url);
  await page.waitForSelector('#results[data-answers="ready"]');
  // Llama 3 8B at the default seq 2048: doubling the micro-batch raises the activations.
  const before_activations = await bucketBytes(page, "activations");
  await page.focus('input[name="batch"]');
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type("2");
  await page.waitForFunction((old) => Number(document.querySelector('tr[data-bucket="activations"]').dataset.bytes) > old,
                             before_activations);
  // mode: train -> inference with the arrow keys on the focused select (no gradients in inference).
  await page.focus('select[name="mode"]');
  await page.keyboard.press("ArrowDown");
  await page.waitForFunction(() => document.querySelector('tr[data-bucket="gradients"]').dataset.bytes === "0");
  await page.waitForSelector('#results[data-answers="ready"]');
  // The first knob's Apply button, pressed with Enter, saves what its row says.
  const total = await bucketBytes(page, "total");
  const first = page.locator("#knobs tbody tr").first();
  const saved = Number(await first.getAttribute("data-saved"));
  await first.locator("button").focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction((want) => Number(document.querySelector('tr[data-bucket="total"]').dataset.bytes) === want,
                             total - saved);
  assert.deepEqual(page.problems, []);
  await page.close();
});
