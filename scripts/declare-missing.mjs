// Declares, in a feature build's glue, the wasm exports its build left out.
//   node scripts/declare-missing.mjs PKG_DIR
// The TypeScript layer (js/src/index.ts) reads every wasm export by name from the glue's namespace
// (`raw.MessageBody`) and turns one that is missing into a stub that throws `feature-not-built`. In a
// build with fewer cargo features (scripts/build.sh with AGENTWIRE_FEATURES) some are missing, and a
// bundler reading the layer (Vite, Rollup, esbuild) warns for each that it is not exported. So each
// target's agentwire.js gets `export const Name = undefined;` for every name the layer reads that the
// glue (agentwire.js, and for the bundler target agentwire_bg.js, which it re-exports) does not
// export. Run on wasm-bindgen's glue, before it is minified.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [pkgDir] = process.argv.slice(2);
const layer = readFileSync(new URL("../js/src/index.ts", import.meta.url), "utf8");
const read = new Set([...layer.matchAll(/\braw\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]));
read.delete("default"); // the web target's initializer, which the layer checks for itself

/** The names a wasm-bindgen glue file exports: `export class|function|const|let NAME`, `export { … }`. */
function exported(file) {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, "utf8");
  const names = [...text.matchAll(/^export\s+(?:async\s+)?(?:class|function\*?|const|let|var)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
  for (const m of text.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of m[1].split(",")) {
      const name = part.trim().split(/\s+as\s+/).at(-1);
      if (name) names.push(name);
    }
  }
  return names;
}

for (const target of ["web", "bundler", "node"]) {
  const glue = join(pkgDir, target, "agentwire.js");
  if (!existsSync(glue)) continue;
  const have = new Set([...exported(glue), ...exported(join(pkgDir, target, "agentwire_bg.js"))]);
  const missing = [...read].filter((n) => !have.has(n)).sort();
  if (missing.length === 0) continue;
  appendFileSync(glue, `\n// Left out of this build (its cargo features): the TypeScript layer makes each a stub that throws.\n${missing.map((n) => `export const ${n} = undefined;`).join("\n")}\n`);
  console.error(`declare-missing: ${target}/agentwire.js: ${missing.length} exports left out (${missing.join(", ")})`);
}
