// SPDX-License-Identifier: MIT
// scripts/split-data.mjs dataPointers: where the data holds an address, from the relocations of the link's LTO object
// placed by the link map (docs/wasm.md, "The page's module in two"). A hand-made object and map in wasm-ld's formats.
import assert from "node:assert/strict";
import { test } from "node:test";
import { dataPointers } from "../../scripts/split-data.mjs";

/** A section: its id, its length and `bytes` (every length here is under 128: one-byte LEB128s). */
const section = (id, bytes) => [id, bytes.length, ...bytes];
const custom = (name, bytes) => section(0, [name.length, ...Buffer.from(name), ...bytes]);
const text = (name) => [name.length, ...Buffer.from(name)];
const object = (...sections) => Buffer.from([...Buffer.from("\0asm\x01\0\0\0", "latin1"), ...sections.flat()]);

// The data section's body: 2 segments, each `00 41 <offset> 0b <size>` then its 8 bytes: .rodata.a's bytes at body
// offsets [6, 14), .data.b's at [19, 27).
const DATA = section(11, [2, 0, 0x41, 0, 0x0b, 8, ...Array(8).fill(0), 0, 0x41, 8, 0x0b, 8, ...Array(8).fill(0)]);
// The linking section: version 2, WASM_SEGMENT_INFO (5): 2 segments, each its name, alignment 2, flags 0.
const info = [2, ...text(".rodata.a"), 2, 0, ...text(".data.b"), 2, 0];
const LINKING = custom("linking", [2, 5, info.length, ...info]);
// reloc.DATA: section index 1, 3 entries (type, offset, symbol index[, addend as a signed LEB128]): 5
// (R_WASM_MEMORY_ADDR_I32) at 10, addend 0; 2 (R_WASM_TABLE_INDEX_I32, no addend) at 19; 5 at 20 (odd), addend -8.
const RELOCS = custom("reloc.DATA", [1, 3, 5, 10, 0, 0, 2, 19, 1, 5, 20, 2, 0x78]);

// wasm-ld --print-map's layout (Addr, Off, Size in hex; input sections indented by 9 more spaces, symbols by 17).
const MAP = `    Addr      Off     Size Out     In      Symbol
       -     3c60     1000 CODE
       -     3c62        e         <internal>:(__wasm_call_ctors)
       -     1000      100 DATA
     400     1001       30 .rodata
     400     1008       10         <internal>:(.rodata)
     410     1018        8         lto.tmp:(.rodata.a)
     410     1018        8                 a
     418     1020        8         /lib/libc-optz.a(pow_small.o):(.rodata.bp)
     440     1030        8 .data
     440     1035        8         lto.tmp:(.data.b)
     440     1035        8                 llm_memory::(anonymous namespace)::b
     6d0     1000      40c .bss
     6d0        0      408         lto.tmp:(.bss.buf)
       -    28bb4      323 CUSTOM(producers)
`;

test("dataPointers places each R_WASM_MEMORY_ADDR_I32 entry at its address, at any offset; a machine-code object's every byte", () => {
  // 10 is 4 bytes into .rodata.a (body offset 6), at 0x410: 0x414 = 1044; 20 is 1 byte into .data.b (19), at 0x440:
  // 0x441 = 1089; the table index at 19 is none. pow_small.o has no relocations here: its 8 bytes at 0x418 = 1048
  // count each; the merged strings (<internal>) none, nor a symbol's line (its name may hold "::(").
  assert.deepEqual(dataPointers(object(DATA, LINKING, RELOCS), MAP), [1044, 1048, 1049, 1050, 1051, 1052, 1053, 1054, 1055, 1089]);
});

test("dataPointers refuses an object without relocations, an entry in no segment and a map that places a segment twice", () => {
  assert.match(dataPointers(object(DATA, LINKING), MAP).error, /no data, linking or reloc\.DATA section: link with -Wl,--save-temps/);
  // 15: between .rodata.a's bytes (up to 14) and .data.b's (from 19), in .data.b's header.
  assert.match(dataPointers(object(DATA, LINKING, custom("reloc.DATA", [1, 1, 5, 15, 0, 0])), MAP).error, /offset 15 is in no data segment/);
  const twice = MAP.replace("lto.tmp:(.data.b)", "lto.tmp:(.rodata.a)");
  assert.match(dataPointers(object(DATA, LINKING, RELOCS), twice).error, /places lto\.tmp:\(\.rodata\.a\) twice/);
});
