// SPDX-License-Identifier: MIT
// Issue 10 part 2: the page is fully keyboard-operable with a visible focus indicator and labelled for screen
// readers. Names come from Chromium's own accessibility tree (what a screen reader is given), not from our
// reading of the markup.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bucketBytes, open, settled, showTab, start } from "./support.mjs";

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
  await settled(page);
  const cdp = await session.context.newCDPSession(page);
  const unnamed = [];
  const counts = {};
  // Each result tab in turn: a hidden panel is out of the tree.
  for (const tab of ["breakdown", "fits", "knobs", "heatmap"]) {
    await showTab(page, tab);
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    for (const node of nodes) {
      if (node.ignored) continue;
      const role = node.role?.value;
      const name = (node.name?.value ?? "").trim();
      if (INTERACTIVE.has(role) || role === "table" || role === "image" || role === "img" || role === "tabpanel") {
        counts[role] = (counts[role] ?? 0) + 1;
        if (!name) unnamed.push(`${role} (backend node ${node.backendDOMNodeId}, tab ${tab})`);
      }
    }
  }
  assert.deepEqual(unnamed, [], "controls without an accessible name");
  // The open groups of the settings form hold dozens of controls (a closed <details> is out of the tree); the
  // results and the knobs are tables; the heatmap is an image.
  assert.ok((counts.textbox ?? 0) + (counts.combobox ?? 0) + (counts.checkbox ?? 0) > 25, JSON.stringify(counts));
  assert.ok((counts.table ?? 0) >= 2, JSON.stringify(counts));
  assert.ok((counts.image ?? 0) + (counts.img ?? 0) >= 1, JSON.stringify(counts));
  // The task radios and the result tabs and panels (each panel once per pass: four passes of four tabs).
  assert.ok((counts.radio ?? 0) >= 4 * 4 && (counts.tab ?? 0) === 4 * 4 && (counts.tabpanel ?? 0) === 4, JSON.stringify(counts));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("Tab reaches every visible control, each with a visible focus indicator, and never gets stuck", async () => {
  const page = await open(session.context, session.url);
  await settled(page);
  const focusable = await page.evaluate(() => {
    const selector = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";
    return [...document.querySelectorAll(selector)]
      // Not in a closed <details>; not taken out of the tab order on purpose (the result tabs' roving tabindex:
      // one tab stop, the arrow keys between tabs).
      .filter((el) => !el.disabled && el.tabIndex >= 0 && el.checkVisibility({ visibilityProperty: true }))
      // A radio group is one tab stop (its checked radio); the arrow keys move within it.
      .filter((el) => !(el.type === "radio" && !el.checked && document.querySelector(`input[name="${el.name}"]:checked`)))
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
  // ?v=2: the page defaults, a full fine-tune (the empty query is the start page, inference).
  const page = await open(session.context, `${session.url}?v=2`);
  await settled(page);
  // Llama 3 8B at the default seq 2048: doubling the micro-batch raises the activations.
  const before_activations = await bucketBytes(page, "activations");
  await page.focus('input[name="batch"]');
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type("2");
  await page.waitForFunction((old) => Number(document.querySelector('tr[data-bucket="activations"]').dataset.bytes) > old,
                             before_activations);
  // The task: Full training -> Evaluate -> Run (inference) with the arrow keys in the radio group (the last radio
  // wraps to the first); no gradients in inference.
  await page.focus("#task-full");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.isChecked("#task-eval"), true);
  await page.keyboard.press("ArrowRight");
  await page.waitForFunction(() => document.querySelector('tr[data-bucket="gradients"]').dataset.bytes === "0");
  assert.equal(await page.isChecked("#task-inference"), true);
  await settled(page);
  // The Knobs tab, reached with the arrow keys from the selected tab (Breakdown · What fits · Knobs).
  await page.focus("#tab-breakdown");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.activeElement.id), "tab-knobs");
  assert.equal(await page.isVisible("#knobs"), true);
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
