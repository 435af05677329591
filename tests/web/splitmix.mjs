// SPDX-License-Identifier: MIT
// splitmix32: a small seeded generator, so random tests and scripts/compare-cli.mjs draw the same cases on
// every run. Returns pick(lo, hi) (an integer, both ends included) and one(list).
export function generator(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
  const pick = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const one = (list) => list[pick(0, list.length - 1)];
  return { pick, one };
}
