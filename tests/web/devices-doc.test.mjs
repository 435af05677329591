// SPDX-License-Identifier: MIT
// docs/devices.md's table is the catalogue's (scripts/generate-devices.mjs writes it from core/data/gpus.json).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { deviceTable } from "../../scripts/generate-devices.mjs";

const root = new URL("../..", import.meta.url).pathname;

test("docs/devices.md holds the catalogue's table (node scripts/generate-devices.mjs writes it)", () => {
  const gpus = JSON.parse(readFileSync(join(root, "core/data/gpus.json"), "utf8")).gpus;
  const doc = readFileSync(join(root, "docs/devices.md"), "utf8");
  assert.ok(doc.includes(deviceTable(gpus)), "run node scripts/generate-devices.mjs");
  assert.ok(gpus.length >= 80);
});
