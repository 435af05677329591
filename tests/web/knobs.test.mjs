// SPDX-License-Identifier: MIT
// The knob table's saved column (web/ui/knobs.js): a knob that adds memory says "costs +X" (issue 17 item 4).
// Values derived by hand: 27,262,976 B = 0.027 GB -> "0.03 GB"; 1.5 x 2^30 B = 1.50 GiB.
import { test } from "node:test";
import assert from "node:assert/strict";
import { savedText } from "../../web/ui/knobs.js";

test("a knob that saves memory shows the bytes saved", () => {
  assert.equal(savedText({ saved: 2.5e9 }, "GB"), "2.50 GB");
});

test("a knob that adds memory says what it costs", () => {
  assert.equal(savedText({ saved: -27262976 }, "GB"), "costs +0.03 GB");
  assert.equal(savedText({ saved: -1.5 * 2 ** 30 }, "GiB"), "costs +1.50 GiB");
});
