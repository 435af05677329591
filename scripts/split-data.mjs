// SPDX-License-Identifier: MIT
// The rest's strings out of the first part, for scripts/split-wasm.mjs (docs/wasm.md, "The page's module in two").
// wasm-split moves functions, never data: every string literal of the module stays in the first part's data
// section, the launch readers' options and notes, the solver's, the knob search's and the checkpoint readers'
// messages included, though only the rest's code reads them. This moves the strings that only the rest's code
// names into active data segments of the rest, which write them into the shared memory when the rest is
// instantiated, before any of its code can run; in the first part their bytes become zeros.
//
// A string is a run of text bytes (UTF-8 or printable ASCII) after a zero byte and ending at one (a C string, a
// string_view's literal) in a read-only segment (the linker's .rodata: nothing writes it at run time). It moves
// when the rest's code names an address in it and nothing that can run before the rest names one in it or just
// before it (a first-part function's i32.const or load/store offset, a global's initial value, an address the
// data holds: a table of string_views is data whatever code reads it), and no object of the link map that holds
// it is one the first part reaches. Anything else (tables, numbers, writable data) stays where it is.
// The data's addresses are exactly the words the linker relocated (dataPointers: the LTO object's relocations), not any
// four bytes that happen to read as one: a function-table index and the next field read across as an address
// kept a rest-only string in the first part (docs/wasm.md).
import { readU32 } from "./wasm-binary.mjs";

/** How far before a string a first-part address still keeps it (LLVM may fold `s[i - k]` into `s - k`). */
const SLACK = 8;

/** The most read-only bytes between two moved strings that the rest writes again to keep them one segment. */
const GAP = 32;

/** The signed LEB128 number at `bytes[at]`: [its value, the offset after it]. */
function readS32(bytes, at) {
  let value = 0;
  let shift = 0;
  let b;
  do {
    b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  if (b & 0x40) value -= 2 ** shift;
  return [value, at];
}

const u32 = (value) => {
  const out = [];
  do {
    let b = value % 128;
    value = Math.floor(value / 128);
    if (value) b |= 0x80;
    out.push(b);
  } while (value);
  return Buffer.from(out);
};

const s32 = (value) => {
  const out = [];
  for (;;) {
    const b = value & 0x7f;
    value >>= 7;
    if ((value === 0 && !(b & 0x40)) || (value === -1 && b & 0x40)) return Buffer.from([...out, b]);
    out.push(b | 0x80);
  }
};

/** The addresses a line of a function body (wasm-dis text) names: its i32.const values and memory offsets. */
export function lineAddresses(line) {
  return [...line.matchAll(/\bi32\.const (-?\d+)|\boffset=(\d+)/g)].map((m) => Number(m[1] ?? m[2]));
}

/** The module's sections as {id, start, body, end} (offsets into `bytes`). */
function sections(bytes) {
  const out = [];
  for (let at = 8; at < bytes.length;) {
    const start = at;
    const id = bytes[at++];
    const [size, body] = readU32(bytes, at);
    at = body + size;
    out.push({ id, start, body, end: at });
  }
  return out;
}

/** The active segments of a data section's body as {offset, bytes}; null if one is not `i32.const` + bytes. */
function activeSegments(body) {
  const [count, first] = readU32(body, 0);
  const segments = [];
  for (let i = 0, at = first; i < count; i++) {
    if (body[at++] !== 0 || body[at++] !== 0x41) return null;
    const [offset, end] = readS32(body, at);
    if (body[end] !== 0x0b) return null;
    const [length, data] = readU32(body, end + 1);
    segments.push({ offset, bytes: body.subarray(data, data + length) });
    at = data + length;
  }
  return segments;
}

const dataSection = (segments) => {
  const body = Buffer.concat([u32(segments.length), ...segments.flatMap((s) =>
    [Buffer.from([0, 0x41]), s32(s.offset), Buffer.from([0x0b]), u32(s.bytes.length), s.bytes])]);
  return Buffer.concat([Buffer.from([11]), u32(body.length), body]);
};

const isText = (b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b !== 0x7f);

/**
 * The strings of `segment` as [start, end) addresses (end: the zero byte that closes it); `after_zero`: whether
 * the byte before the segment is a zero (no other segment ends there: memory packing cut a run of zeros);
 * `before_zero`: whether the byte after it is.
 */
function strings(segment, after_zero, before_zero) {
  const out = [];
  const { offset, bytes } = segment;
  for (let i = 0; i < bytes.length;) {
    if (bytes[i] === 0 || (i > 0 ? bytes[i - 1] !== 0 : !after_zero)) {
      i++;
      continue;
    }
    let j = i;
    while (j < bytes.length && bytes[j] !== 0 && isText(bytes[j])) j++;
    if (j > i && (j === bytes.length ? before_zero : bytes[j] === 0)) out.push([offset + i, offset + j]);
    i = j + 1;
  }
  return out;
}

/**
 * The data objects of a wasm-ld link map (`--print-map`) as sorted {start, end} addresses: each input section of
 * the output's .rodata and .data (one global: a table, a string_view array), not the linker's merged strings
 * (`<internal>`), whose strings are told apart by their zero bytes.
 */
export function mapObjects(text) {
  const out = [];
  let output = "";
  for (const line of text.split("\n")) {
    const section = /^\s*[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+ (\.\S+)$/.exec(line);
    if (section) output = section[1];
    const input = /^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+) {9}(\S.*)$/.exec(line);
    if (!input || !(output === ".rodata" || output === ".data") || input[3].startsWith("<internal>")) continue;
    const start = parseInt(input[1], 16);
    out.push({ start, end: start + parseInt(input[2], 16) });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The object of the sorted `objects` that holds `address`, else null. */
function objectAt(objects, address) {
  let lo = 0;
  let hi = objects.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (objects[mid].end <= address) lo = mid + 1;
    else hi = mid;
  }
  return lo < objects.length && objects[lo].start <= address ? objects[lo] : null;
}

/** The relocation types of LLVM's WasmRelocs.def whose entries carry an addend (a signed LEB128 after the index). */
const WITH_ADDEND = new Set([3, 4, 5, 8, 9, 11, 14, 15, 16, 17, 21, 22, 23, 25]);

/** R_WASM_MEMORY_ADDR_I32: four bytes of data that hold a memory address (its symbol's plus the addend). */
const MEMORY_ADDR_I32 = 5;

/** The linking section's subsection that names the data segments (WASM_SEGMENT_INFO). */
const SEGMENT_INFO = 5;

/**
 * The memory addresses at which the data holds an address. wasm-ld 14 crashes writing --emit-relocs' symbol table
 * for a C++ link (llvm-project issue 67111: the heap's synthetic symbols have no segment), so the relocations come
 * from the object the link's LTO compiled everything into (`object`: wasm-ld --save-temps' OUTPUT.lto.o, the
 * "lto.tmp" of the link map `map`, --print-map's text): the R_WASM_MEMORY_ADDR_I32 entries of its "reloc.DATA"
 * section (offsets into its data section's body), each in one of its data segments (one a global, named by the
 * linking section), which the map places: the address of "lto.tmp:(NAME)" plus the offset in the segment.
 * Function-table indices (R_WASM_TABLE_INDEX_I32) are no addresses. Two kinds of input section of the map have no
 * relocations here: the linker's merged strings (`<internal>`: a mergeable section holds no relocated word) hold
 * no address; an object linked as machine code (libc's pow tables) may, so each of its bytes counts as one
 * (the four bytes there are read as an address, as before issue 34). Returns the sorted addresses, or {error}.
 */
export function dataPointers(object, map) {
  let data = null;
  let linking = null;
  let relocs = null;
  for (let at = 8; at < object.length;) {
    const id = object[at++];
    const [size, body] = readU32(object, at);
    at = body + size;
    if (id === 11) data = body;
    if (id !== 0) continue;
    const [length, name] = readU32(object, body);
    const section = object.subarray(name, name + length).toString();
    if (section === "linking") linking = [name + length, at];
    if (section === "reloc.DATA") relocs = name + length;
  }
  if (data === null || linking === null || relocs === null) {
    return { error: "the link's LTO object has no data, linking or reloc.DATA section: link with -Wl,--save-temps" };
  }
  // The data segments' extents in the data section's body, then their names.
  const segments = [];
  let [count, at] = readU32(object, data);
  for (; count > 0; count--) {
    let flags;
    [flags, at] = readU32(object, at);
    if (flags !== 0 || object[at] !== 0x41) return { error: "the LTO object has a data segment that is not active at a constant" };
    [, at] = readS32(object, at + 1);
    let size;
    [size, at] = readU32(object, at + 1);
    segments.push({ start: at - data, size });
    at += size;
  }
  [, at] = readU32(object, linking[0]);
  while (at < linking[1]) {
    const type = object[at++];
    let size;
    [size, at] = readU32(object, at);
    const end = at + size;
    if (type === SEGMENT_INFO) {
      [count, at] = readU32(object, at);
      for (let i = 0; i < count; i++) {
        let length;
        [length, at] = readU32(object, at);
        segments[i].name = object.subarray(at, at + length).toString();
        [, at] = readU32(object, at + length);
        [, at] = readU32(object, at);
      }
    }
    at = end;
  }
  // The map's data input sections: the LTO object's by name, every byte of another object's.
  const placed = new Map();
  const out = [];
  let inside = false;
  for (const line of map.split("\n")) {
    const section = /^\s*-\s+[0-9a-f]+\s+[0-9a-f]+ (\S+)$/.exec(line);
    if (section) inside = section[1] === "DATA";
    const input = /^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+) {9}(\S.*):\((.*)\)$/.exec(line);
    if (!inside || !input) continue;
    const [address, size] = [parseInt(input[1], 16), parseInt(input[2], 16)];
    if (input[3] === "lto.tmp") {
      if (placed.has(input[4])) return { error: `the link map places lto.tmp:(${input[4]}) twice` };
      placed.set(input[4], address);
    } else if (input[3] !== "<internal>") {
      for (let i = 0; i < size; i++) out.push(address + i);
    }
  }
  if (!placed.size) return { error: "the link map has no DATA section with the LTO object's input sections" };
  let next;
  [, next] = readU32(object, relocs);
  [count, at] = readU32(object, next);
  for (; count > 0; count--) {
    const type = object[at++];
    let offset;
    [offset, at] = readU32(object, at);
    [, at] = readU32(object, at);
    if (WITH_ADDEND.has(type)) [, at] = readS32(object, at);
    if (type !== MEMORY_ADDR_I32) continue;
    const segment = segments.findLast((g) => g.start <= offset);
    if (!segment || offset >= segment.start + segment.size) return { error: `reloc.DATA offset ${offset} is in no data segment of the LTO object` };
    // A segment the link left out (--gc-sections) is not in the map: nothing reads its words.
    const address = placed.get(segment.name);
    if (address !== undefined) out.push(address + offset - segment.start);
  }
  return out.sort((a, b) => a - b);
}

/**
 * The words at `pointers` (dataPointers) that hold an address in [low, high), as [where, value]. A byte in no
 * segment is a zero (memory packing drops runs of zeros, the high bytes of an address among them).
 */
function dataWords(segments, pointers, low, high) {
  const sorted = [...segments].sort((a, b) => a.offset - b.offset);
  const byteAt = (address) => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid].offset + sorted[mid].bytes.length <= address) lo = mid + 1;
      else hi = mid;
    }
    const segment = sorted[lo];
    return segment && segment.offset <= address ? segment.bytes[address - segment.offset] : 0;
  };
  const out = [];
  for (const where of pointers) {
    const value = [0, 1, 2, 3].reduce((v, i) => v + byteAt(where + i) * 2 ** (8 * i), 0);
    if (value >= low && value < high) out.push([where, value]);
  }
  return out;
}

/**
 * The objects each part reaches and the addresses each names. A data word inside an object (a table's string_view)
 * is named by whichever part reaches that object: the part whose code names an address in it (or SLACK before
 * it, or at its end), or that reaches an object holding a word that does, and so on; a word outside every object
 * counts as the first part's. Returns {first, rest} as {objects (Set), refs (addresses: the code's first, then
 * the data words')}.
 */
function reach(objects, words, first_refs, rest_refs) {
  const inside = new Map();
  const loose = [];
  for (const [where, value] of words) {
    const object = objectAt(objects, where);
    if (!object) loose.push(value);
    else inside.set(object, [...(inside.get(object) ?? []), value]);
  }
  const walk = (seeds, data = []) => {
    const reached = new Set();
    const refs = [...seeds, ...data];
    for (let i = 0; i < refs.length; i++) {
      for (let at = refs[i] - 1; at <= refs[i] + SLACK; at++) {
        const object = objectAt(objects, at);
        if (!object || reached.has(object)) continue;
        reached.add(object);
        refs.push(...(inside.get(object) ?? []));
      }
    }
    return { objects: reached, refs };
  };
  return { first: walk(first_refs, loose), rest: walk(rest_refs) };
}

/** The smallest value of the sorted `list` in [low, high), else undefined. */
function firstWithin(list, low, high) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < low) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.length && list[lo] < high ? list[lo] : undefined;
}

/** Whether the sorted `list` holds a value in [low, high). */
const within = (list, low, high) => firstWithin(list, low, high) !== undefined;

/**
 * Moves the strings only the rest names from `first`'s data into `rest` (both wasm-split's output), from the
 * read-only segments only (`rodata`: their addresses; the linker's .rodata sections). In the first part
 * their bytes become zeros (a run of zeros costs gzip next to nothing, a segment cut in two costs its header);
 * the rest writes them back, the read-only bytes between two of them too when fewer than GAP (the same bytes:
 * one segment header less).
 * `first_refs`: the addresses the first part's functions and globals name; `rest_refs`: the rest's; `objects`:
 * the data objects of the link map (mapObjects): a read-only object only the rest reaches moves whole, and the
 * addresses it holds count as the rest's (the launch readers' option tables and their names); `pointers`: where the
 * data holds an address (dataPointers).
 * Returns {first, rest, moved (bytes)}, or {error}.
 */
export function moveRestStrings(first, rest, first_refs, rest_refs, rodata, objects, pointers) {
  const out = Buffer.from(first);
  const data = sections(out).filter((s) => s.id === 11);
  if (data.length !== 1) return { error: "the first part has no data section" };
  if (!WebAssembly.Module.imports(new WebAssembly.Module(rest)).some((i) => i.kind === "memory")) {
    return { error: "the rest does not import the first part's memory" };
  }
  if (sections(rest).some((s) => s.id === 11)) return { error: "the rest has a data section already" };
  const segments = activeSegments(out.subarray(data[0].body, data[0].end));
  if (!segments) return { error: "the first part's data section has a segment that is not active at a constant address" };
  const low = Math.min(...segments.map((s) => s.offset));
  const high = Math.max(...segments.map((s) => s.offset + s.bytes.length));
  const reached = reach(objects, dataWords(segments, pointers, low, high), first_refs, rest_refs);
  const inRange = (list) => list.filter((a) => a >= low && a < high).sort((a, b) => a - b);
  const kept_code = inRange(reached.first.refs.slice(0, first_refs.length));
  const kept_data = inRange(reached.first.refs.slice(first_refs.length));
  const named = inRange(reached.rest.refs);
  const whole = objects.filter((o) => reached.rest.objects.has(o) && !reached.first.objects.has(o));
  const ends = new Set(segments.map((g) => g.offset + g.bytes.length));
  const starts = new Set(segments.map((g) => g.offset));
  const zeros = [];
  // Each segment's moved strings, as ranges joined across gaps of fewer than GAP bytes; then zeros in their place.
  const moved = [];
  for (const segment of segments) {
    const end = segment.offset + segment.bytes.length;
    if (!rodata.has(segment.offset)) continue;
    const ranges = [];
    const own = whole.filter((o) => o.start >= segment.offset && o.end <= end).map((o) => [o.start, o.end]);
    // A run of text bytes inside an object the first part reaches stays: its code may index into the object (a
    // table of function pointers whose entry 0x000000af reads as a one-byte string, which a rest address named).
    const texts = strings(segment, !ends.has(segment.offset), !starts.has(end))
      .filter(([s, e]) => within(named, s, e) && !reached.first.objects.has(objectAt(objects, s)));
    for (const [s, e] of [...own, ...texts].sort((a, b) => a[0] - b[0])) {
      if (ranges.length && s < ranges.at(-1)[1]) continue;
      // A first-part address inside a string (a first-part literal the linker merged into its tail: wasm-ld's
      // string tail merging): the first part keeps the bytes from SLACK before the first such address to the end,
      // and the prefix before them, which only the rest reads, moves. Code may name a string from SLACK before it;
      // a data word (a table's string_view) names the bytes it points at: four bytes of flags that read as an
      // address a few bytes before a string (0x00010100) do not keep it.
      const inside = Math.min(firstWithin(kept_code, s - SLACK, e + 1) ?? Infinity, firstWithin(kept_data, s, e + 1) ?? Infinity);
      const stop = inside === Infinity ? e : inside - SLACK;
      if (stop <= s) continue;
      if (ranges.length && s - ranges.at(-1)[1] <= GAP) ranges.at(-1)[1] = stop;
      else ranges.push([s, stop]);
      zeros.push([segment, s, stop]);
    }
    for (const [s, e] of ranges) moved.push({ offset: s, bytes: Buffer.from(segment.bytes.subarray(s - segment.offset, e - segment.offset)) });
  }
  for (const [segment, s, e] of zeros) segment.bytes.fill(0, s - segment.offset, e - segment.offset);
  // The rest's data section goes after its code section (the binary format's order), before any custom section.
  const code = sections(rest).find((s) => s.id === 10);
  const rest_out = Buffer.concat([rest.subarray(0, code.end), dataSection(moved), rest.subarray(code.end)]);
  return { first: out, rest: rest_out, moved: moved.reduce((n, s) => n + s.bytes.length, 0) };
}
