// SPDX-License-Identifier: MIT
// resolve(settings, config?) (issue #16, part 6): one call says whether settings are valid and gives every
// setting resolved, without an estimate; the page's Engine.sanitise and Engine.overrideMatters (web/engine.js)
// are built on it. Facts by hand: Meta-Llama-3-8B's config.json (huggingface.co/meta-llama/Meta-Llama-3-8B)
// has hidden_size 4096, num_attention_heads 32, num_key_value_heads 8, num_hidden_layers 32; the settings
// table (core/include/llm_memory/settings_table.hpp) gives batch 1..1e7 and seq 2048 by default.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";

import { PAGE_DEFAULTS } from "../../web/state.js";
import { importEngine, loadApi, native, root } from "./support.mjs";

const api = await loadApi();

const { Engine } = await importEngine();

/** An engine over the API that counts the calls it makes, by name. */
function countingEngine() {
  const calls = {};
  const counted = Object.fromEntries(Object.entries(api).map(([name, call]) =>
    [name, (...args) => {
      calls[name] = (calls[name] ?? 0) + 1;
      return call(...args);
    }]));
  return { engine: new Engine(counted), calls };
}

const LINK = { ...PAGE_DEFAULTS, mode: "inference", seq: "4096" };

test("a valid link resolves in one call: every setting as text, the same as the estimate's", () => {
  const resolved = api.resolve(LINK);
  assert.equal(resolved.ok, true);
  assert.deepEqual(Object.keys(resolved), ["ok", "settings"]);
  assert.equal(resolved.settings.seq, "4096");
  assert.equal(resolved.settings.mode, "inference");
  assert.equal(resolved.settings.hidden_size, "4096");
  assert.equal(resolved.settings.num_attention_heads, "32");
  assert.equal(resolved.settings.num_key_value_heads, "8");
  assert.equal(resolved.settings.num_hidden_layers, "32");
  assert.equal(resolved.settings.batch, "1");
  assert.deepEqual(resolved.settings, api.estimate(LINK).settings);
  const args = Object.entries(LINK).flatMap(([key, value]) => [`--${key}`, value]);
  assert.deepEqual(resolved.settings, JSON.parse(native(["--json", ...args])).settings);
});

test("an invalid value gives {ok: false, errors: [{setting, message}]} naming the setting", () => {
  const out = api.resolve({ ...LINK, batch: "0" });
  assert.deepEqual(out, { ok: false, errors: [{ setting: "batch", message: 'must be an integer from 1 to 10000000, got "0"' }] });
  // A cross-setting limit: tensor parallelism must divide the 32 attention heads; 1 device is not a multiple of 3.
  const tp = api.resolve({ ...PAGE_DEFAULTS, tp: 3 });
  assert.equal(tp.ok, false);
  assert.deepEqual(tp.errors.map((e) => e.setting).sort(), ["devices", "tp"]);
  assert.deepEqual(tp, api.estimate({ ...PAGE_DEFAULTS, tp: 3 }));
  for (const input of [{ seq: {} }, { vocab_size: -1 }, { unknown_knob: 1 }]) {
    const odd = api.resolve(input);
    assert.equal(odd.ok, false);
    assert.equal(odd.errors[0].setting, Object.keys(input)[0]);
  }
  for (const input of [undefined, null, 7, "text", []]) assert.equal(api.resolve(input).ok, true);
});

test("config sits under the explicit settings, as in estimate", () => {
  const config = { hidden_size: "2048", num_hidden_layers: "22" };
  const out = api.resolve({ model: "", num_hidden_layers: "4" }, config);
  assert.equal(out.settings.hidden_size, "2048");
  assert.equal(out.settings.num_hidden_layers, "4");
  assert.deepEqual(out.settings, api.estimate({ model: "", num_hidden_layers: "4" }, config).settings);
});

test("sanitise checks a valid link with one resolve and no estimate", () => {
  const { engine, calls } = countingEngine();
  const overrides = { mode: "inference", seq: "4096" };
  assert.deepEqual(engine.sanitise(PAGE_DEFAULTS, overrides), { overrides, problems: [] });
  assert.deepEqual(calls, { settingsSchema: 1, resolve: 1 });
});

test("sanitise drops the overrides the errors name, then the latest when an error names another setting", () => {
  const { engine } = countingEngine();
  assert.deepEqual(engine.sanitise(PAGE_DEFAULTS, { batch: "0", seq: "x", mode: "inference" }), {
    overrides: { mode: "inference" },
    problems: [
      { setting: "batch", message: 'batch: must be an integer from 1 to 10000000, got "0"; ignored' },
      { setting: "seq", message: 'seq: must be an integer from 1 to 100000000, got "x"; ignored' },
    ],
  });
  // tp=3 names devices (not overridden) and tp: only tp goes.
  assert.deepEqual(engine.sanitise(PAGE_DEFAULTS, { tp: "3", seq: "4096" }).overrides, { seq: "4096" });
  // 4096 / 32 heads is fine, 100 / 32 is not: the error names head_dim, which the link did not set, so the
  // latest override (hidden_size) goes, with that error's message.
  assert.deepEqual(engine.sanitise(PAGE_DEFAULTS, { seq: "4096", hidden_size: "100" }), {
    overrides: { seq: "4096" },
    problems: [{ setting: "hidden_size", message: "hidden_size: hidden_size 100 is not divisible by num_attention_heads 32; give head_dim explicitly; ignored" }],
  });
});

test("overrideMatters: false only when the inputs without the override resolve the key to the same value", () => {
  const { engine, calls } = countingEngine();
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { seq: "4096" }, "seq"), true);
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { seq: "2048" }, "seq"), false);
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { hidden_size: "4096" }, "hidden_size"), false);
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { gpu: "h100-80gb" }, "gpu"), false);
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { model: "" }, "model"), true);
  // Invalid inputs: the override is kept (it "matters"), as before.
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, { batch: "0" }, "batch"), true);
  // Seven questions over six distinct inputs (gpu=h100-80gb is the page default): one resolve each, no estimate.
  assert.equal(calls.estimate, undefined);
  assert.equal(calls.resolve, 6);
});

test("after an estimate of the same inputs, overrideMatters asks the core only for the inputs without the key", () => {
  const { engine, calls } = countingEngine();
  const overrides = { seq: "4096" };
  const estimate = engine.estimate({ ...PAGE_DEFAULTS, ...overrides });
  assert.equal(engine.overrideMatters(PAGE_DEFAULTS, overrides, "seq"), true);
  assert.equal(calls.estimate, 1);
  assert.equal(calls.resolve, 1);
  assert.equal(engine.resolve({ ...PAGE_DEFAULTS, ...overrides }).settings, estimate.settings);
  const bad = engine.estimate({ ...PAGE_DEFAULTS, batch: "0" });
  assert.equal(engine.resolve({ ...PAGE_DEFAULTS, batch: "0" }), bad);
});

test("an edit as the page makes it (estimate, does the key matter, render) costs the core one estimate", () => {
  const { engine, calls } = countingEngine();
  for (let batch = 2; batch <= 11; batch++) {
    const next = { seq: "4096", batch: String(batch) };
    assert.equal(engine.estimate({ ...PAGE_DEFAULTS, ...next }).ok, true);
    assert.equal(engine.overrideMatters(PAGE_DEFAULTS, next, "batch"), true);
    assert.equal(engine.estimate({ ...PAGE_DEFAULTS, ...next }).settings.batch, String(batch));
  }
  // Ten edits: ten estimates; the inputs without batch resolve once.
  assert.equal(calls.estimate, 10);
  assert.equal(calls.resolve, 1);
});

// The previous behaviour, on estimate() (web/engine.js at commit 699c77d), as the reference: the same overrides
// and problems for every pinned link of url-fixtures.json, and for each with bad or inconsistent values added.
function sanitiseByEstimate(defaults, overrides) {
  const kept = { ...overrides };
  const problems = [];
  for (;;) {
    const result = api.estimate({ ...defaults, ...kept });
    if (result.ok) return { overrides: kept, problems };
    const named = result.errors.filter((e) => Object.hasOwn(kept, e.setting));
    const drop = named.length ? named : [{ setting: Object.keys(kept).at(-1), message: result.errors[0]?.message }];
    if (drop[0].setting === undefined) return { overrides: kept, problems: problems.concat(result.errors) };
    for (const e of drop) {
      if (!Object.hasOwn(kept, e.setting)) continue;
      problems.push({ setting: e.setting, message: `${e.setting}: ${e.message}; ignored` });
      delete kept[e.setting];
    }
  }
}

function overrideMattersByEstimate(defaults, overrides, key) {
  const without = { ...overrides };
  delete without[key];
  const with_it = api.estimate({ ...defaults, ...overrides });
  const base = api.estimate({ ...defaults, ...without });
  if (!with_it.ok || !base.ok) return true;
  return with_it.settings[key] !== base.settings[key];
}

test("sanitise and overrideMatters give what their estimate-based versions gave, link by link", async () => {
  const { readFileSync } = await import("node:fs");
  const fixtures = JSON.parse(readFileSync(join(root, "tests/web/url-fixtures.json"), "utf8"));
  const spoilers = [{}, { batch: "0" }, { tp: "3" }, { hidden_size: "100" }, { seq: "x", mode: "inference" },
                    { model: "", gpu: "" }, { devices: "3", pp: "2" }, { unknown_knob: "1" }];
  const { engine } = countingEngine();
  let cases = 0;
  for (const link of fixtures.links) {
    for (const spoiler of spoilers) {
      const overrides = { ...link.state, ...spoiler };
      assert.deepEqual(engine.sanitise(PAGE_DEFAULTS, overrides), sanitiseByEstimate(PAGE_DEFAULTS, overrides), `${link.name} + ${JSON.stringify(spoiler)}`);
      for (const key of Object.keys(overrides)) {
        assert.equal(engine.overrideMatters(PAGE_DEFAULTS, overrides, key), overrideMattersByEstimate(PAGE_DEFAULTS, overrides, key), `${link.name} + ${JSON.stringify(spoiler)}: ${key}`);
      }
      cases++;
    }
  }
  assert.ok(cases >= 8 * 5, `only ${cases} cases`);
});
