// SPDX-License-Identifier: MIT
// URL schema v=2 (issue #9, part 4; v=2 since issue 22, v=1 links read as they were meant): the links in url-fixtures.json decode to their pinned state and open to
// their pinned estimate (through the wasm API); the state writes back to a link that reads the same; hostile
// links name each problem and keep the rest of the state. Policy: docs/robustness.md.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  MAX_PROBLEMS,
  MAX_VALUE_LENGTH,
  PAGE_DEFAULTS,
  SCHEMA_VERSION,
  readQuery,
  upgradeV1,
  writeQuery,
} from "../../web/state.js";
import { loadApi, root } from "./support.mjs";

const api = await loadApi();
const keys = api.settingsSchema().map((row) => row.key);
const known = new Set(keys);
const fixtures = JSON.parse(readFileSync(join(root, "tests/web/url-fixtures.json"), "utf8"));
const query = (link) => link.query.replace("{Q100000}", "q".repeat(100_000));

test("the fixtures are for this schema version and these page defaults", () => {
  assert.equal(fixtures.schema_version, SCHEMA_VERSION);
  // The page defaults fill every link that omits model or gpu: changing them changes what old links show.
  assert.deepEqual(PAGE_DEFAULTS, fixtures.page_defaults);
});

test("one fixture link sets every setting of the settings table, in table order", () => {
  const every = fixtures.links.find((link) => link.name === "every setting of the settings table");
  assert.deepEqual(Object.keys(every.state), keys);
});

for (const link of fixtures.links) {
  test(`link "${link.name}": decoded state, notice and estimate are the pinned ones`, () => {
    const { overrides, problems } = readQuery(query(link), known);
    assert.deepEqual(overrides, link.state);
    assert.deepEqual(problems.map((p) => p.setting), link.problems ?? []);
    for (const p of problems) assert.ok(p.message.length > 0 && p.message.length < 200, p.message);

    const out = api.estimate({ ...PAGE_DEFAULTS, ...overrides });
    if (link.estimate.errors) {
      assert.equal(out.ok, false);
      assert.deepEqual(out.errors.map((e) => e.setting), link.estimate.errors);
      return;
    }
    assert.equal(out.ok, true, JSON.stringify(out.errors));
    assert.deepEqual(out.bytes, link.estimate.bytes);
    assert.equal(out.gpu_memory, link.estimate.gpu_memory);
    assert.equal(out.fits, link.estimate.fits);
  });

  test(`link "${link.name}": the state writes back to a link that reads the same`, () => {
    const { overrides } = readQuery(query(link), known);
    const written = writeQuery(overrides, keys);
    assert.ok(written.startsWith(`?v=${SCHEMA_VERSION}`), written);
    assert.deepEqual(readQuery(written, known), { overrides, problems: [] });
    // Writing is canonical: the link read back writes the same text.
    assert.equal(writeQuery(readQuery(written, known).overrides, keys), written);
  });
}

test("a repeated key: the last value wins, and the notice says which", () => {
  const { overrides, problems } = readQuery("?seq=1&seq=2&model=gpt2&seq=3&v=1&v=1", known);
  assert.deepEqual(overrides, { seq: "3", model: "gpt2" });
  assert.deepEqual(problems.map((p) => p.setting), ["seq", "v"]);
  assert.match(problems[0].message, /appears 3 times; the last value "3" is used/);
});

test("bad percent-encodings drop only their own pair", () => {
  for (const bad of ["%E0%A4%A", "%", "%zz", "%C3", "%ED%A0%80", "%FF"]) {
    for (const search of [`?model=${bad}&seq=4096`, `?${bad}=1&seq=4096`]) {
      const { overrides, problems } = readQuery(search, known);
      assert.deepEqual(overrides, { seq: "4096" }, search);
      assert.equal(problems.length, 1, search);
      assert.match(problems[0].message, /bad percent-encoding/);
    }
  }
});

test("a key or value over MAX_VALUE_LENGTH is dropped with a short message", () => {
  const long = "x".repeat(MAX_VALUE_LENGTH + 1);
  const at_limit = "y".repeat(MAX_VALUE_LENGTH);
  const { overrides, problems } = readQuery(`?model=${long}&${long}=1&lora_targets=${at_limit}&seq=8`, known);
  assert.deepEqual(overrides, { lora_targets: at_limit, seq: "8" });
  assert.equal(problems.length, 2);
  for (const p of problems) assert.ok(p.message.length < 200, p.message);
  assert.match(problems[0].message, /"model": value is 1001 characters long, more than 1000; ignored$/);
  assert.match(problems[1].message, /: key is 1001 characters long, more than 1000; ignored$/);
});

test("a megabyte of unknown keys lists MAX_PROBLEMS lines, the last one counting the rest", () => {
  const junk = Array.from({ length: 100_000 }, (_, i) => `k${i}=1`).join("&");
  const { overrides, problems } = readQuery(`?${junk}&seq=16`, known);
  assert.deepEqual(overrides, { seq: "16" });
  assert.equal(problems.length, MAX_PROBLEMS);
  assert.equal(problems.at(-1).message, `… and ${100_000 - MAX_PROBLEMS + 1} more problems`);
});

test("keys are case-sensitive; the notice names the lower-case key", () => {
  const { overrides, problems } = readQuery("?MODEL=gpt2&Seq=1&mode=inference", known);
  assert.deepEqual(overrides, { mode: "inference" });
  assert.match(problems[0].message, /keys are lower-case: model/);
});

test("an unknown or empty version is read as the current version and named first", () => {
  for (const v of ["3", "", "1.0", "01"]) {
    const { overrides, problems } = readQuery(`?seq=4096&foo=1&v=${v}`, known);
    assert.deepEqual(overrides, { seq: "4096" });
    assert.deepEqual(problems.map((p) => p.setting), ["v", "foo"]);
  }
});

test("empty values are kept as text for the core to judge (model= clears the page default)", () => {
  assert.deepEqual(readQuery("?model=&seq=&gpu", known).overrides, { model: "", seq: "", gpu: "" });
  assert.deepEqual(readQuery("?&&=&=1&", known).problems.map((p) => p.setting), ["", ""]);
});

test("prototype keys are unknown settings and pollute nothing", () => {
  const { overrides, problems } = readQuery("?__proto__=1&constructor=2&toString=3&hasOwnProperty=4&seq=5", known);
  assert.deepEqual(overrides, { seq: "5" });
  assert.equal(Object.getPrototypeOf(overrides), Object.prototype);
  assert.equal(problems.length, 4);
  assert.equal({}.seq, undefined);
});

// v=1 links were made before the runtime setting: inference meant transformers with the scores materialised
// (attention=standard), the only inference model v=1 had (issue 22). v=2 links and training links are unchanged.
test("v=1 inference links name transformers + standard attention; v=2, training and runtime-naming links do not", () => {
  const read = (search) => readQuery(search, known);
  assert.deepEqual(read("?v=1&mode=inference&seq=4096"), {
    overrides: { mode: "inference", seq: "4096", runtime: "transformers", attention: "standard" },
    problems: [],
  });
  // An attention the v=1 link chose stays.
  assert.deepEqual(read("?v=1&mode=inference&attention=flash").overrides, {
    mode: "inference",
    attention: "flash",
    runtime: "transformers",
  });
  // A v=1 link naming a runtime came from the page between the runtime setting and v=2: read as it stands.
  assert.deepEqual(read("?v=1&mode=inference&runtime=vllm").overrides, { mode: "inference", runtime: "vllm" });
  assert.deepEqual(read("?v=1&seq=4096").overrides, { seq: "4096" });
  assert.deepEqual(read("?v=2&mode=inference").overrides, { mode: "inference" });
  assert.deepEqual(read("?mode=inference").overrides, { mode: "inference" });
  // The upgraded state writes back as a v=2 link naming both settings.
  assert.equal(
    writeQuery(read("?v=1&model=gpt2&mode=inference").overrides, keys),
    "?v=2&model=gpt2&mode=inference&runtime=transformers&attention=standard",
  );
  // upgradeV1 does not touch its argument.
  const before = { mode: "inference" };
  upgradeV1(before);
  assert.deepEqual(before, { mode: "inference" });
});

test("a v=1 inference link opens to the transformers estimate, not the vLLM one it would get as v=2", () => {
  const v1 = api.estimate({ ...PAGE_DEFAULTS, ...readQuery("?v=1&model=llama-2-7b&mode=inference", known).overrides });
  const v2 = api.estimate({ ...PAGE_DEFAULTS, ...readQuery("?v=2&model=llama-2-7b&mode=inference", known).overrides });
  assert.equal(v1.ok && v2.ok, true);
  assert.notDeepEqual(v1.bytes, v2.bytes);
});
