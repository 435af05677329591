// SPDX-License-Identifier: MIT
// The start page and the link (issue 36 items 2, 3, 6 and 10) without a browser: the start settings and the
// address they keep bare (web/state.js), the history entry an applied change adds (pushUrl), the split line of the
// parallel picker, byte settings shown in units, and the alias map a link's model is looked up in. The browser
// side: tests/browser/newcomer.test.mjs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { modelAliases } from "../../scripts/model-aliases.mjs";
import { PAGE_DEFAULTS, PageState, START_OVERRIDES, emptyQuery, isStart, pushUrl, syncUrl } from "../../web/state.js";
import { bytesSettingText } from "../../web/ui/format.js";
import { splitText } from "../../web/ui/parallel-picker.js";
import { loadApi, root } from "./support.mjs";

const api = await loadApi();
const keys = api.settingsSchema().map((row) => row.key);

/** A window with just what syncUrl and pushUrl touch: the address and the history's entries. */
function fakeWindow(href) {
  const entries = [{ state: null, url: href }];
  const win = {
    entries,
    location: { get href() { return entries.at(-1).url; } },
    history: {
      get state() { return entries.at(-1).state; },
      replaceState(state, _, url) { entries[entries.length - 1] = { state, url: String(url) }; },
      pushState(state, _, url) { entries.push({ state, url: String(url) }); },
    },
  };
  return win;
}

test("only an empty query is the start page; ?v=2 alone keeps PAGE_DEFAULTS", () => {
  assert.equal(emptyQuery(""), true);
  assert.equal(emptyQuery("?"), true);
  assert.equal(emptyQuery("?v=2"), false);
  assert.equal(emptyQuery("?model=qwen3-14b"), false);
  // The start settings are inference, and the page defaults stay what old links were made over.
  assert.equal(START_OVERRIDES.mode, "inference");
  assert.deepEqual(PAGE_DEFAULTS, { model: "meta-llama-3-8b", gpu: "h100-80gb" });
});

test("the start settings fit: Llama 3.1 8B with vLLM on one RTX 4090 at 8,192 tokens", () => {
  const estimate = api.estimate({ ...PAGE_DEFAULTS, ...START_OVERRIDES });
  assert.equal(estimate.ok, true);
  assert.equal(estimate.fits, true);
  assert.equal(estimate.runtime.name, "vllm");
  // bf16 weights: 8,030,261,248 parameters x 2 B; the rotary cache, 131,072 positions x head_dim 128 x 2 B.
  const parameters = estimate.buckets.find((b) => b.key === "parameters");
  assert.equal(parameters.bytes, 8_030_261_248 * 2 + 131_072 * 128 * 2);
});

test("the address stays bare while the settings are the start ones; an applied change adds a marked entry", () => {
  const win = fakeWindow("https://example.org/page/");
  syncUrl(new PageState({ ...START_OVERRIDES }), keys, win);
  assert.equal(win.location.href, "https://example.org/page/");
  assert.equal(isStart({ ...START_OVERRIDES, seq: "4096" }), false);
  const applied = new PageState({ ...START_OVERRIDES, seq: "4096" });
  pushUrl(applied, keys, win);
  assert.equal(win.entries.length, 2, "Back returns to the entry before");
  assert.deepEqual(win.history.state, { applied: true });
  assert.match(win.location.href, /\?v=2&model=llama-3\.1-8b&mode=inference&seq=4096&gpu=rtx-4090$/);
  // Typing after it replaces that entry and keeps its mark (Undo still knows it may go back).
  syncUrl(new PageState({ ...START_OVERRIDES, seq: "2048" }), keys, win);
  assert.equal(win.entries.length, 2);
  assert.deepEqual(win.history.state, { applied: true });
});

test("the split line says when inference takes the default split, and how to get replicas", () => {
  const settings = { mode: "inference", devices: "8", tp: "8", pp: "1" };
  assert.equal(splitText(settings, {}),
    "1 data-parallel × 8 tensor-parallel × 1 pipeline = 8 devices · inference default: one copy of the model over all 8, " +
    "as the runtime is launched on them (vLLM's --tensor-parallel-size 8 when the heads divide); choosing tensor parallel 1 gives 8 replicas.");
  // Stated by the user, or training: the plain line.
  assert.equal(splitText({ ...settings, tp: "1" }, { tp: "1" }), "8 data-parallel × 1 tensor-parallel × 1 pipeline = 8 devices");
  assert.equal(splitText({ ...settings, mode: "train", tp: "1" }, {}), "8 data-parallel × 1 tensor-parallel × 1 pipeline = 8 devices");
  assert.equal(splitText({ ...settings, devices: "1", tp: "1" }, {}), "One device: more devices open the split.");
  assert.match(splitText({ ...settings, devices: "64", tp: "1" }, {}), /no split fits the heads and layers, so each device serves a replica\.$/);
});

test("byte settings show as units, never as raw bytes", () => {
  assert.equal(bytesSettingText(80e9), "80GB");
  assert.equal(bytesSettingText(2 ** 30), "1GiB");
  // 483,183,821 B (a measured CUDA context) is no whole MiB: 483,183,821 / 2^20 = 460.80 MiB.
  assert.equal(bytesSettingText(483_183_821), "460.8MiB");
  // 1.5 GiB and 1 B more: 1,610,612,737 / 2^30 = 1.50 GiB.
  assert.equal(bytesSettingText(1_610_612_737), "1.5GiB");
  assert.equal(bytesSettingText(1000), "1000");
});

test("the name map sends each id and listed alias to its preset, as the core reads it", () => {
  const entries = JSON.parse(readFileSync(join(root, "core/data/models.json"), "utf8")).models;
  const map = modelAliases(entries);
  assert.equal(map["llama-3.1-8b-instruct"], "llama-3.1-8b");
  assert.equal(map["meta-llama-3-8b-instruct"], "meta-llama-3-8b");
  assert.equal(map["qwen3-14b"], "qwen3-14b");
  for (const [alias, id] of Object.entries(map)) {
    const resolved = api.resolve({ model: alias });
    assert.equal(resolved.ok && resolved.settings.model, id, alias);
  }
});
