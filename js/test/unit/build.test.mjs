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
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import binaryen from "binaryen";
import { pkgDir, root } from "../helpers.mjs";

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

test("the module and its glue call each other by short names", () => {
  const short = /^_[a-z]+$/;
  for (const target of ["web", "bundler", "node"]) {
    const module = new WebAssembly.Module(readFileSync(join(pkgDir, target, "agentwire_bg.wasm")));
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
