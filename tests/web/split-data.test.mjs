// SPDX-License-Identifier: MIT
// scripts/split-data.mjs dataPointers: where the data holds an address, from the link's reloc.DATA section placed by
// the link map (docs/wasm.md, "The page's module in two"). A hand-made module and map in wasm-ld's formats.
import assert from "node:assert/strict";
import { test } from "node:test";
import { dataPointers } from "../../scripts/split-data.mjs";

/** A module of one custom section `name` with `body` (all lengths under 128: one-byte LEB128s). */
const custom = (name, body) => {
  const payload = Buffer.concat([Buffer.from([name.length]), Buffer.from(name), Buffer.from(body)]);
  return Buffer.concat([Buffer.from("\0asm\x01\0\0\0", "latin1"), Buffer.from([0, payload.length]), payload]);
};

// wasm-ld --print-map's layout (Addr, Off, Size in hex; input sections indented by 9 more spaces, symbols by 17).
const MAP = `    Addr      Off     Size Out     In      Symbol
       -     3c60     1000 CODE
       -     3c62        e         <internal>:(__wasm_call_ctors)
       -     16c9      2e2 DATA
     400     16ca      240 .rodata
     400     16d1       3a         <internal>:(.rodata)
     440     1711       18         lto.tmp:(.rodata.rows)
     440     1711       18                 rows
     640     1911       90 .data
     640     1918       90         lto.tmp:(.data.__stdout_FILE)
     640     1918       90                 __stdout_FILE
     6d0     16c9      40c .bss
     6d0        0      408         lto.tmp:(.bss.buf)
       -    28bb4      323 CUSTOM(linking)
`;

test("dataPointers places each R_WASM_MEMORY_ADDR_I32 entry at its memory address, at any offset, and skips table indices", () => {
  // reloc.DATA: section index 9, 4 entries (type, offset, symbol index[, addend as a signed LEB128]):
  //   5 (MEMORY_ADDR_I32) at body offset 0x48, addend 0; 2 (TABLE_INDEX_I32, no addend) at 0x4c;
  //   5 at 0x51 (odd), addend -8 (0x78); 5 at 0x27b (two-byte LEB fb 04), addend 8.
  const module = custom("reloc.DATA", [9, 4, 5, 0x48, 1, 0, 2, 0x4c, 2, 5, 0x51, 3, 0x78, 5, 0xfb, 0x04, 4, 8]);
  // rows: body offset 0x1711 - 0x16c9 = 0x48 at address 0x440, so 0x48 -> 0x440 = 1088 and 0x51 -> 0x449 = 1097;
  // __stdout_FILE: body offset 0x1918 - 0x16c9 = 0x24f at 0x640, so 0x27b -> 0x640 + 0x2c = 0x66c = 1644.
  assert.deepEqual(dataPointers(module, MAP), [1088, 1097, 1644]);
});

test("dataPointers refuses a module linked without --emit-relocs and an entry in no input section", () => {
  assert.match(dataPointers(custom("name", [0]), MAP).error, /no reloc\.DATA section: link it with -Wl,--emit-relocs/);
  // 0x45: after <internal> (body 0x8 + 0x3a = 0x42), before rows (0x48): segment padding, no input section.
  assert.match(dataPointers(custom("reloc.DATA", [9, 1, 5, 0x45, 1, 0]), MAP).error, /offset 69 is in no input section/);
  assert.match(dataPointers(custom("reloc.DATA", [9, 0]), "no map").error, /no DATA section/);
});
