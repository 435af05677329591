// SPDX-License-Identifier: MIT
// Reading a .wasm file's binary format, for scripts/wasm-sizes.mjs and scripts/split-wasm.mjs.

/** The unsigned LEB128 number at `bytes[at]`: [its value, the offset after it]. */
export function readU32(bytes, at) {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return [value, at];
  }
}
