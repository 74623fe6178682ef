// The build's steps after wasm-opt, on the built package.
//
// scripts/order-functions.mjs, which orders the wasm module's functions for gzip, on the package's
// module with its functions shuffled: the ordered module has the same imports, exports and
// function signatures, validates, compresses better than the shuffled one, and is the same bytes
// from one run to the next. That the ordered module behaves as before is what every other test of
// the package shows: the package is built so.
//
// scripts/shorten-names.mjs, which renames what the module imports from its glue and exports to
// `_a`, `_b`, …: no long name is left in the module or in the glue's raw exports' types (the other
// tests use the package, and so show that module and glue still agree).
//
// scripts/check-low-memory.mjs, which checks what `wasm-opt --low-memory-unused` assumes (nothing of
// the module in its lowest 1 KB): the package's module passes, and modules with a data segment or
// the stack pointer below 1 KB are refused, naming what is there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import binaryen from "binaryen";
import { pkgDir, root } from "../helpers.mjs";
import { lowMemoryProblems } from "../../../scripts/check-low-memory.mjs";

const run = promisify(execFile);
const script = join(root, "scripts/order-functions.mjs");

/** The module's defined functions, in its order. */
function functions(module) {
  const out = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (!info.module) out.push(info);
  }
  return out;
}

/** The module with its defined functions in `order` (a permutation of their names). */
function reordered(bytes, order) {
  const module = binaryen.readBinary(bytes);
  const byName = new Map(functions(module).map((f) => [f.name, f]));
  for (const name of order) {
    const { params, results, vars, body } = byName.get(name);
    module.removeFunction(name);
    module.addFunction(name, params, results, vars, body);
  }
  const out = module.emitBinary();
  module.dispose();
  return out;
}

/**
 * What must not change: the exports and imports, the functions' signatures and locals (a module
 * read without a name section names its functions by index, so names do not carry over), and
 * validity.
 */
function summary(bytes) {
  const module = binaryen.readBinary(bytes);
  const defined = functions(module);
  const names = defined.map((f) => f.name);
  const signatures = defined.map((f) => `${f.params}>${f.results}:${f.vars.join(",")}`).sort();
  const exports = [];
  for (let i = 0; i < module.getNumExports(); i++) {
    const e = binaryen.getExportInfo(module.getExportByIndex(i));
    exports.push(`${e.kind}:${e.name}`);
  }
  const imports = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const f = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (f.module) imports.push(`${f.module}.${f.base}`);
  }
  const valid = module.validate();
  module.dispose();
  return { names, signatures, exports: exports.sort(), imports: imports.sort(), valid };
}

test("the functions are ordered for gzip, and nothing else changes", async () => {
  const original = readFileSync(join(pkgDir, "web/agentwire_bg.wasm"));
  const names = summary(original).names;
  // A fixed shuffle (a linear congruential generator), so the run is the same every time.
  let seed = 12345;
  const shuffled = [...names];
  for (let i = shuffled.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const dir = mkdtempSync(join(tmpdir(), "agentwire-order-"));
  try {
    const input = join(dir, "shuffled.wasm");
    writeFileSync(input, reordered(original, shuffled));
    const outputs = [join(dir, "a.wasm"), join(dir, "b.wasm")];
    await Promise.all(outputs.map((out) => run(process.execPath, [script, input, out])));
    const [a, b] = outputs.map((out) => readFileSync(out));
    assert.ok(a.equals(b), "two runs give the same bytes");

    const before = summary(readFileSync(input));
    const after = summary(a);
    assert.ok(after.valid, "the ordered module validates");
    assert.deepEqual(after.exports, before.exports);
    assert.deepEqual(after.imports, before.imports);
    assert.deepEqual(after.signatures, before.signatures);
    assert.equal(after.names.length, before.names.length);

    const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
    const shuffledSize = gz(readFileSync(input));
    const orderedSize = gz(a);
    assert.ok(
      orderedSize < shuffledSize * 0.95,
      `ordered ${orderedSize} bytes gzipped, shuffled ${shuffledSize}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("node/ and bundler/ load web/'s module and hold no copy; web/ resolves the module's imports to bundler/'s glue", () => {
  for (const dir of [".", "agent-api", "agentx", "acp", "atlas"]) {
    if (dir !== "." && !existsSync(join(pkgDir, dir))) continue; // a feature build has no entry points
    for (const target of ["node", "bundler"]) assert.ok(!existsSync(join(pkgDir, dir, target, "agentwire_bg.wasm")), `${dir}/${target}`);
    assert.match(readFileSync(join(pkgDir, dir, "node/agentwire.js"), "utf8"), /new URL\("\.\.\/web\/agentwire_bg\.wasm",import\.meta\.url\)/);
    assert.match(readFileSync(join(pkgDir, dir, "bundler/agentwire.js"), "utf8"), /from"\.\.\/web\/agentwire_bg\.wasm"/);
    assert.equal(readFileSync(join(pkgDir, dir, "web/agentwire_bg.js"), "utf8").trim(), 'export * from "../bundler/agentwire_bg.js";');
  }
});

/** The module every target loads: web/'s. */
const moduleOf = () => join(pkgDir, "web", "agentwire_bg.wasm");

test("the module and its glue call each other by short names", () => {
  const short = /^_[a-z]+$/;
  for (const target of ["web", "bundler", "node"]) {
    const module = new WebAssembly.Module(readFileSync(moduleOf()));
    const imports = WebAssembly.Module.imports(module).filter((i) => i.module === "./agentwire_bg.js");
    assert.ok(imports.length > 20, `${target}: ${imports.length} imports from the glue`);
    for (const { name } of imports) assert.match(name, short, `${target}: import ${name}`);
    const exports = WebAssembly.Module.exports(module).filter((e) => e.name !== "memory");
    assert.ok(exports.length > 20, `${target}: ${exports.length} exports`);
    for (const { name } of exports) assert.match(name, short, `${target}: export ${name}`);
    // The snippets' imports keep the names their files export.
    for (const { module: from, name } of WebAssembly.Module.imports(module)) {
      if (from.startsWith("./snippets/")) assert.doesNotMatch(name, short, `${target}: ${from} ${name}`);
    }
    const types = readFileSync(join(pkgDir, target, "agentwire_bg.wasm.d.ts"), "utf8");
    const declared = [...types.matchAll(/export const (\w+):/g)].map((m) => m[1]).filter((n) => n !== "memory");
    assert.ok(declared.length > 20, `${target}: agentwire_bg.wasm.d.ts declares ${declared.length} exports`);
    const names = new Set(exports.map((e) => e.name));
    for (const name of declared) assert.ok(names.has(name), `${target}: agentwire_bg.wasm.d.ts declares ${name}`);
  }
});

/** A module with the stack pointer global at `sp` and active data segments at `offsets` (and a passive one). */
function laidOut(sp, offsets) {
  const module = new binaryen.Module();
  module.setFeatures(binaryen.Features.All);
  module.addGlobal("__stack_pointer", binaryen.i32, true, module.i32.const(sp));
  const segments = offsets.map((o) => ({ offset: module.i32.const(o), data: [1, 2, 3], passive: false }));
  module.setMemory(17, 17, "memory", [...segments, { offset: null, data: [4], passive: true }]);
  assert.ok(module.validate());
  const bytes = module.emitBinary();
  module.dispose();
  return bytes;
}

test("the module leaves its lowest 1 KB unused, as wasm-opt --low-memory-unused assumes", async () => {
  assert.deepEqual(lowMemoryProblems(readFileSync(moduleOf())), []);
  // Rust's layout: the stack first (from 1 MiB down), the data from 1 MiB.
  assert.deepEqual(lowMemoryProblems(laidOut(1 << 20, [1 << 20, (1 << 20) + 64])), []);
  // wasm-ld's layout without the stack first: data from 1 KB, the stack after it.
  assert.deepEqual(lowMemoryProblems(laidOut(70000, [1024, 2000])), []);
  assert.deepEqual(lowMemoryProblems(laidOut(1 << 20, [2048, 16])), [
    "data segment 1 (3 bytes) starts at 16, below 1024",
  ]);
  assert.deepEqual(lowMemoryProblems(laidOut(512, [1 << 20])), [
    "the stack pointer (global 0) starts at 512, below 1024",
  ]);
  // The command line: exit 1 and the reason.
  const dir = mkdtempSync(join(tmpdir(), "agentwire-low-memory-"));
  try {
    const bad = join(dir, "bad.wasm");
    writeFileSync(bad, laidOut(1 << 20, [0]));
    await assert.rejects(run(process.execPath, [join(root, "scripts/check-low-memory.mjs"), bad]), (e) => {
      assert.equal(e.code, 1);
      assert.match(e.stderr, /data segment 0 \(3 bytes\) starts at 0, below 1024/);
      return true;
    });
    const good = join(dir, "good.wasm");
    writeFileSync(good, laidOut(1 << 20, [1 << 20]));
    const { stdout, stderr } = await run(process.execPath, [join(root, "scripts/check-low-memory.mjs"), good]);
    assert.equal(stdout + stderr, "");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
