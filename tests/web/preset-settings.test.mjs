// SPDX-License-Identifier: MIT
// The page's module is handed its presets with their config.json's settings written out at build time
// (wasm/preset_settings.cpp), so it parses no preset's config.json at load (docs/performance.md). Those settings
// must be what the core reads from each config.json: parse_config's settings, the checkpoint's storage format
// (weights_dtype, double_quant, quant_bits, quant_group_size) with them — presets.cpp keeps it apart on load, the
// default of the runs that load the checkpoint as shipped — under the entry's own "settings". And a preset
// answers the same from either form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { loadApi, root } from "./support.mjs";

const { models } = JSON.parse(readFileSync(join(root, "core/data/models.json"), "utf8"));
const written = (name) => JSON.parse(readFileSync(join(root, "dist/models", `${name}.json`), "utf8"));
const api = await loadApi();

test("every preset's written settings equal parse_config's output for its config.json", () => {
  for (const entry of models) {
    const parsed = api.parseConfig(entry.config);
    assert.equal(parsed.ok, true, `${entry.id}: ${JSON.stringify(parsed.errors)}`);
    const expected = { ...parsed.settings };
    for (const [key, value] of Object.entries(entry.settings ?? {})) expected[key] = typeof value === "string" ? value : JSON.stringify(value);
    const file = written(entry.id);
    assert.equal(file.config, undefined, `${entry.id}: no config.json left to parse`);
    assert.deepEqual(file.settings, expected, entry.id);
    const { config, settings, ...rest } = entry;
    assert.deepEqual({ ...file, settings: undefined }, { ...rest, settings: undefined }, `${entry.id}: the other fields as given`);
    for (const alias of entry.aliases ?? []) assert.deepEqual(written(alias), file, `${alias}: the preset's file`);
  }
  const catalogue = JSON.parse(readFileSync(join(root, "dist/llm-memory.models.json"), "utf8"));
  assert.deepEqual(catalogue, models.map((entry) => written(entry.id)), "the catalogue: every file in models.json's order");
});

test("every preset estimates as the single-file module, which parses its config.json, does", async () => {
  const single = await loadApi("single");
  await api.loadPresets();
  assert.deepEqual(api.listModels(), single.listModels());
  for (const { id } of models) {
    for (const settings of [{ model: id }, { model: id, mode: "inference", seq: "8192" }]) {
      assert.equal(api.estimateJson(settings), single.estimateJson(settings), JSON.stringify(settings));
    }
  }
});
