// SPDX-License-Identifier: MIT
// web/ui/notice.js noticeLines: the cap every list of problems goes through on the page, the embed, the widget
// and the config.json field (issue 20, item 5). The browser test (tests/browser/hardening.test.mjs) checks
// the page's notice for a hostile link.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_NOTICE_CHARS, MAX_NOTICE_LINES, noticeLines } from "../../web/ui/notice.js";

const problems = (n, message = (i) => `problem ${i}`) => Array.from({ length: n }, (_, i) => ({ message: message(i) }));

test("up to 20 lines are shown as they are", () => {
  assert.equal(MAX_NOTICE_LINES, 20);
  assert.deepEqual(noticeLines([]), []);
  assert.deepEqual(noticeLines(problems(20)), problems(20).map((p) => p.message));
});

test("more than 20: the first 19 and a line saying how many were left out", () => {
  const lines = noticeLines(problems(21));
  assert.equal(lines.length, 20);
  assert.equal(lines[18], "problem 18");
  assert.equal(lines[19], "… and 2 more problems not shown");
  const many = noticeLines(problems(100_000));
  assert.equal(many.length, 20);
  assert.equal(many.at(-1), "… and 99981 more problems not shown");
});

test("a line is cut to 300 characters, never inside a surrogate pair", () => {
  assert.equal(MAX_NOTICE_CHARS, 300);
  const [exact] = noticeLines([{ message: "a".repeat(300) }]);
  assert.equal(exact, "a".repeat(300));
  const [long] = noticeLines([{ message: "b".repeat(1_000_000) }]);
  assert.equal(long, `${"b".repeat(299)}…`);
  // An emoji (two UTF-16 units) across the cut is dropped whole; one before it is kept whole.
  const [across] = noticeLines([{ message: `${"c".repeat(298)}😀${"d".repeat(10)}` }]);
  assert.equal(across, `${"c".repeat(298)}…`);
  const [before] = noticeLines([{ message: `${"c".repeat(297)}😀${"d".repeat(10)}` }]);
  assert.equal(before, `${"c".repeat(297)}😀…`);
  // Messages that are not strings still show as text.
  assert.deepEqual(noticeLines([{ message: 42 }, {}, null]), ["42", "", ""]);
});
