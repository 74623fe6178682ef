// Checks what `wasm-opt --low-memory-unused` (scripts/build.sh) assumes of the module: that it
// places nothing in its lowest 1 KB of linear memory, so that wasm-opt may fold a constant added to
// an address into the access's offset (the two differ only for an address that wraps around to
// below 1 KB).
//
// A Rust wasm32 module satisfies it by its layout: wasm-ld puts the stack first, from 1 MiB down to
// 0, then the data segments from 1 MiB (without the stack first, the data would start at 1 KB,
// wasm-ld's default base), and the allocator's heap above them. So this checks, in the module
// cargo and wasm-bindgen wrote (the WebAssembly core spec's binary format, sections 5.5.9 and
// 5.5.12):
// - every active data segment starts at a constant address of 1,024 or more;
// - the first global, wasm-ld's `__stack_pointer` when it is a mutable i32, starts at 1,024 or
//   more (only a stack about to overflow then reaches the lowest 1 KB, through the stack pointer
//   plus small constants, which never wrap).
//
//   node scripts/check-low-memory.mjs MODULE.wasm
//
// Prints what breaks the assumption and exits 1; prints nothing and exits 0 otherwise.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { readLeb, readSleb, sections } from "./wasm-binary.mjs";

/** The lowest address the assumption leaves to the module (binaryen's low-memory bound). */
export const LOW_MEMORY_BOUND = 1024;

/**
 * A constant expression at `at`: `{ value, end }` when it is `i32.const N end`, else
 * `{ value: undefined, end }` with `end` past its `end` opcode (0x0b; other constant instructions'
 * immediates are not parsed, so `end` is only right for `i32.const`, which is all wasm-ld writes).
 */
function constExpr(bytes, at) {
  if (bytes[at] === 0x41) {
    const [value, next] = readSleb(bytes, at + 1);
    if (bytes[next] === 0x0b) return { value, end: next + 1 };
  }
  return { value: undefined, end: bytes.indexOf(0x0b, at) + 1 };
}

/**
 * What in `bytes` (a WebAssembly module) breaks the low-memory assumption, as messages; empty when
 * nothing does.
 */
export function lowMemoryProblems(bytes) {
  const problems = [];
  for (const s of sections(bytes)) {
    if (s.id === 6) {
      // Globals: the first one's type (valtype, mutability) and initial value.
      const [count, at] = readLeb(bytes, s.start);
      if (count > 0 && bytes[at] === 0x7f && bytes[at + 1] === 1) {
        const { value } = constExpr(bytes, at + 2);
        if (value === undefined) {
          problems.push("the stack pointer (global 0) starts at an address that is not an i32 constant");
        } else if (value < LOW_MEMORY_BOUND) {
          problems.push(`the stack pointer (global 0) starts at ${value}, below ${LOW_MEMORY_BOUND}`);
        }
      }
    }
    if (s.id === 11) {
      let [count, at] = readLeb(bytes, s.start);
      for (let i = 0; i < count; i++) {
        let flags;
        [flags, at] = readLeb(bytes, at);
        let offset;
        if (flags === 0 || flags === 2) {
          if (flags === 2) [, at] = readLeb(bytes, at); // the memory index
          const expr = constExpr(bytes, at);
          offset = expr.value;
          at = expr.end;
        }
        let size;
        [size, at] = readLeb(bytes, at);
        at += size;
        if (flags === 1) continue; // passive: placed by `memory.init`, at run time
        if (offset === undefined) {
          problems.push(`data segment ${i} starts at an address that is not an i32 constant`);
        } else if (offset < LOW_MEMORY_BOUND) {
          problems.push(`data segment ${i} (${size} bytes) starts at ${offset}, below ${LOW_MEMORY_BOUND}`);
        }
      }
    }
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const file = process.argv[2];
  const problems = lowMemoryProblems(readFileSync(file));
  if (problems.length) {
    console.error(`check-low-memory: ${file} uses its lowest ${LOW_MEMORY_BOUND} bytes, which \`wasm-opt --low-memory-unused\` assumes it does not:`);
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
}
