// Shortens the names by which the wasm module and wasm-bindgen's glue call each other.
// Usage: node scripts/shorten-names.mjs PKG_OUT   (run by scripts/build.sh before the glue is
// minified: PKG_OUT holds web/, and bundler/ and node/ unless only web/ was built, each with
// agentwire_bg.wasm and its glue)
//
// wasm-bindgen names the module's imports after the JavaScript they call plus a 16-digit hash
// (`__wbg_call_a410eb4b59ed5965`) and its exports after the Rust item (`structuredmessage_fromBody`,
// `wasm_bindgen_…___convert__closures_____invoke___…` of 200 characters and more). Each name is
// written twice: in the module's import or export section and in the glue. terser cannot shorten
// them (they are property names), and the hashes do not compress: renamed `_a`, `_b`, … they take
// 5.2 KB off the default build's wasm + glue gzipped.
//
// What is renamed: every import of the glue's own module (`./agentwire_bg.js`; a snippet's
// imports keep their names, which its file exports) and every export but `memory`. Where:
// - the module's import and export sections (the rest of the module is copied byte for byte);
// - the glue (`agentwire.js`, and `agentwire_bg.js` of the bundler target): an import's name is a
//   hashed name the glue defines once (a member of the imports object, or an exported function for
//   a bundler), replaced wherever it stands; an export is replaced where the glue reads it from the
//   instance, `wasm.<name>` (the glue's public functions of the same name keep theirs);
// - the types of the raw exports (`readonly <name>:` of `InitOutput` in `agentwire.d.ts`, `export
//   const <name>:` in `agentwire_bg.wasm.d.ts`).
// The script fails if the glue does not look as expected (an import not named exactly once, a
// property of an export's name read from anything but `wasm`), so that a new wasm-bindgen cannot
// break it silently.
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { leb, readLeb, sections } from "./wasm-binary.mjs";

const [out] = process.argv.slice(2);
if (!out) {
  console.error("usage: node scripts/shorten-names.mjs PKG_OUT");
  process.exit(2);
}
const GLUE_MODULE = "./agentwire_bg.js";
const fail = (message) => {
  console.error(`shorten-names: ${message}`);
  process.exit(1);
};

const utf8 = new TextEncoder();
const text = new TextDecoder();
const name = (s) => {
  const bytes = utf8.encode(s);
  return [...leb(bytes.length), ...bytes];
};

/** The end of an import's description (WebAssembly core spec 5.5.5) that starts at `at`. */
function importEnd(bytes, at) {
  const kind = bytes[at++];
  const limits = (p) => {
    const flags = bytes[p];
    let [, q] = readLeb(bytes, p + 1);
    if (flags & 1) [, q] = readLeb(bytes, q);
    return q;
  };
  switch (kind) {
    case 0: // function: type index
      return readLeb(bytes, at)[1];
    case 1: // table: reference type, limits
      return limits(at + 1);
    case 2: // memory: limits
      return limits(at);
    case 3: // global: value type, mutability
      return at + 2;
    case 4: // tag: attribute, type index
      return readLeb(bytes, at + 1)[1];
    default:
      return fail(`an import of kind ${kind}`);
  }
}

/** The module with its imports (of `module` → new name) and exports (name → new name) renamed. */
function renamed(bytes, imports, exports) {
  const parts = [bytes.subarray(0, 8)];
  for (const { id, at, start, end } of sections(bytes)) {
    if (id !== 2 && id !== 7) {
      parts.push(bytes.subarray(at, end));
      continue;
    }
    let [count, p] = readLeb(bytes, start);
    const section = [...leb(count)];
    while (count--) {
      if (id === 2) {
        const [moduleLength, m] = readLeb(bytes, p);
        const module = text.decode(bytes.subarray(m, m + moduleLength));
        const [fieldLength, f] = readLeb(bytes, m + moduleLength);
        const field = text.decode(bytes.subarray(f, f + fieldLength));
        const description = f + fieldLength;
        const next = importEnd(bytes, description);
        const newField = module === GLUE_MODULE ? imports.get(field) ?? field : field;
        section.push(...name(module), ...name(newField), ...bytes.subarray(description, next));
        p = next;
      } else {
        const [fieldLength, f] = readLeb(bytes, p);
        const field = text.decode(bytes.subarray(f, f + fieldLength));
        const description = f + fieldLength;
        const next = readLeb(bytes, description + 1)[1];
        section.push(...name(exports.get(field) ?? field), ...bytes.subarray(description, next));
        p = next;
      }
    }
    parts.push(Uint8Array.from([id, ...leb(section.length), ...section]));
  }
  return Buffer.concat(parts);
}

// The names, from the web target's module (the three targets' modules are the same).
const module = new WebAssembly.Module(readFileSync(join(out, "web/agentwire_bg.wasm")));
let next = 0;
const shortName = () => {
  let n = next++;
  let s = "";
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n);
  return `_${s}`;
};
const imports = new Map();
for (const { module: from, name: field } of WebAssembly.Module.imports(module)) {
  if (from === GLUE_MODULE) imports.set(field, shortName());
}
const exports = new Map();
for (const { name: field } of WebAssembly.Module.exports(module)) {
  if (field !== "memory") exports.set(field, shortName());
}
const escape = (s) => s.replace(/[$]/g, "\\$");
const alternatives = (names) =>
  [...names.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");
const importPattern = new RegExp(`(?<![\\w$])(${alternatives(imports)})(?![\\w$])`, "g");
const exportPattern = new RegExp(`(?<![\\w$.])wasm\\.(${alternatives(exports)})(?![\\w$])`, "g");
const typePattern = new RegExp(`(\\breadonly |\\bexport const )(${alternatives(exports)})(?![\\w$])`, "g");

for (const target of ["web", "bundler", "node"]) {
  const dir = join(out, target);
  if (!existsSync(dir)) continue; // the variants bench builds web/ alone
  const wasmFile = join(dir, "agentwire_bg.wasm");
  writeFileSync(wasmFile, renamed(readFileSync(wasmFile), imports, exports));
  const defined = new Map();
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    if (/^agentwire(_bg)?\.js$/.test(file)) {
      const source = readFileSync(path, "utf8");
      // Every property read of an export's name must be `wasm.<name>`: the glue reads the
      // instance's exports through `wasm` alone.
      for (const field of exports.keys()) {
        const reads = source.match(new RegExp(`\\.${escape(field)}(?![\\w$])`, "g"))?.length ?? 0;
        const throughWasm = source.match(new RegExp(`(?<![\\w$.])wasm\\.${escape(field)}(?![\\w$])`, "g"))?.length ?? 0;
        if (reads !== throughWasm) {
          fail(`${target}/${file} reads ${field} ${reads - throughWasm} times other than as wasm.${field}`);
        }
      }
      const result = source
        .replace(importPattern, (field) => {
          defined.set(field, (defined.get(field) ?? 0) + 1);
          return imports.get(field);
        })
        .replace(exportPattern, (_, field) => `wasm.${exports.get(field)}`);
      writeFileSync(path, result);
    } else if (/^agentwire(_bg\.wasm)?\.d\.ts$/.test(file)) {
      // agentwire.d.ts: only its `InitOutput` (the public API's declarations keep their names).
      const source = readFileSync(path, "utf8");
      const start = file === "agentwire.d.ts" ? source.indexOf("export interface InitOutput {") : 0;
      if (start < 0) continue;
      const end = file === "agentwire.d.ts" ? source.indexOf("\n}", start) : source.length;
      const types = source
        .slice(start, end)
        .replace(typePattern, (_, before, field) => before + exports.get(field));
      writeFileSync(path, source.slice(0, start) + types + source.slice(end));
    }
  }
  for (const field of imports.keys()) {
    if (defined.get(field) !== 1) {
      fail(`${target}: the import ${field} stands ${defined.get(field) ?? 0} times in the glue, not once`);
    }
  }
}
