// SPDX-License-Identifier: MIT
// Issue 33, in headless Chromium: "Copy launch command" (web/ui/emit-copy.js): the run's own command or config, as
// the core's table says (emit.hpp emit_table, asked through emitFormats on the press): an inference run's runtime's
// command, by keyboard, shown as text and on the clipboard, gone when a setting changes; a training run's
// framework's config (a DeepSpeed JSON, torchtune overrides) which, pasted back into the box "Paste a command,
// config or log" on a page given only what the text cannot carry, gives the same settings; a run no format is
// written for says so, naming its runtime.
// Run after `npm run build`: node --test --test-concurrency=1 tests/browser/emit-copy.test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { bucketBytes, open, settled, start } from "./support.mjs";

let session;
before(async () => {
  session = await start();
  await session.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(session.url).origin });
});
after(() => session?.close());

const resolved = (page) => page.evaluate(() => window.llmMemoryApp.last.settings);

/** Presses "Copy launch command" by keyboard and returns the text shown (the clipboard's, checked) and the status. */
async function copyLaunch(page) {
  await page.focus("#emit-copy");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#emit-text");
  const text = await page.textContent("#emit-text");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  return { text, status: await page.textContent("#emit-status") };
}

/** The settings the status names as not carried ("Not carried by this DeepSpeed config: model, seq, devices."). */
const notCarried = (status) => (/Not carried by this [^:]+: ([^.]+)\./.exec(status)?.[1].split(", ") ?? []);

/** Opens the paste box, puts `text` in it and presses Read; waits until `key` is overridden with `value`. */
async function pasteBack(page, text, [key, value]) {
  await page.click("#paste-box > summary");
  await page.waitForSelector("#paste-text");
  await page.fill("#paste-text", text);
  await page.click("#paste-apply");
  await page.waitForFunction(([k, v]) => window.llmMemoryApp.state.overrides[k] === v, [key, value]);
  await settled(page);
}

test("Copy launch command: the chosen runtime's command, by keyboard, on the clipboard; gone when a setting changes", async () => {
  const page = await open(session.context, `${session.url}?mode=inference&runtime=llamacpp&seq=8192`);
  await settled(page);
  assert.equal(await page.isVisible("#emit-copy"), true);
  const { text, status } = await copyLaunch(page);
  assert.match(text, /^llama-server /);
  // -c is the context of all -np slots: seq 8192 x batch 1.
  assert.match(text, /-c 8192/);
  assert.match(status, /^Copied the llama-server command/);
  assert.equal(await page.getAttribute("#emit-status", "data-format"), "llamacpp");
  assert.equal(await page.$$eval(".emit-choice", (n) => n.length), 0, "one format applies: no choice offered");
  // Another setting: the command shown was for the settings before it, and goes.
  await page.evaluate(() => window.llmMemoryApp.edit({ seq: "4096" }));
  assert.equal(await page.$$eval("#emit-text", (n) => n.length), 0);
  // A runtime no format is written for (TGI): the press says so, naming it; nothing is copied.
  await page.evaluate(() => window.llmMemoryApp.edit({ runtime: "tgi" }));
  await settled(page);
  await page.click("#emit-copy");
  await page.waitForSelector("#emit-status");
  assert.match(await page.textContent("#emit-status"), /^No launch command or config is written for this run \(runtime tgi\)/);
  assert.equal(await page.$$eval("#emit-text", (n) => n.length), 0);
  assert.deepEqual([...page.problems], []);
  await page.close();
});

// Each training run: its page's settings, the format the core names for its framework, the status's label, and a
// setting the pasted text must set on the fresh page (proof it was read).
const TRAINING = [
  {
    name: "DeepSpeed",
    own: { gpu: "h100-80gb", mode: "train", model: "llama-3.1-8b", framework: "deepspeed", zero: "3", offload: "optimizer", batch: "4",
           grad_accum: "8", devices: "8", seq: "2048" },
    label: "DeepSpeed config",
    first: /^\{\n {2}"train_micro_batch_size_per_gpu": 4,/,
    applied: ["zero", "3"],
  },
  {
    name: "torchtune",
    own: { gpu: "h100-80gb", mode: "train", model: "llama-3.1-8b", framework: "torchtune", finetune: "lora", lora_rank: "16",
           lora_targets: "q_proj,v_proj", batch: "2", grad_accum: "4", seq: "2048", recompute: "full", devices: "1" },
    label: "tune run command",
    first: /^tune run lora_finetune_single_device --config CONFIG/,
    applied: ["framework", "torchtune"],
  },
];

for (const run of TRAINING) {
  test(`a ${run.name} training run copies its ${run.label}; pasted back into the box it gives the same settings`, async () => {
    const page = await open(session.context, `${session.url}?${new URLSearchParams(run.own)}`);
    await settled(page);
    const { text, status } = await copyLaunch(page);
    assert.match(text, run.first);
    assert.match(status, new RegExp(`^Copied the ${run.label} for these settings\\.`));
    // The text, pasted into a fresh page that holds only the user's GPU and what the text cannot carry (as a user
    // gives those beside it), gives the same resolved settings and the same total as the page it was copied from.
    const missing = notCarried(status);
    const beside = { gpu: run.own.gpu, ...Object.fromEntries(missing.filter((key) => key in run.own).map((key) => [key, run.own[key]])) };
    const fresh = await open(session.context, `${session.url}?${new URLSearchParams(beside)}`);
    await settled(fresh);
    assert.notDeepEqual(await resolved(fresh), await resolved(page), "the fresh page starts elsewhere");
    await pasteBack(fresh, text, run.applied);
    assert.deepEqual(await resolved(fresh), await resolved(page));
    assert.equal(await bucketBytes(fresh, "total"), await bucketBytes(page, "total"));
    assert.deepEqual([...page.problems, ...fresh.problems], []);
    await fresh.close();
    await page.close();
  });
}
