// Package sizes: what each target ships (raw, gzip -9, brotli), builds with one dialect only, and
// where the wasm's bytes go (twiggy on a build that keeps the function names).
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync,
} from "node:fs";
import { basename, join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { benchDir, root } from "./paths.mjs";

const TARGETS = ["web", "bundler", "node"];

/** Raw, gzip -9 and brotli (quality 11) sizes of some bytes. */
export function compressed(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

const add = (a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip, brotli: a.brotli + b.brotli });
const ZERO = { raw: 0, gzip: 0, brotli: 0 };

/**
 * Sizes of one package directory (pkg/ or a feature build's): per target the wasm, the wasm-bindgen
 * JS glue (agentwire*.js and the snippets/ the wasm imports) and the TS layer (the other .js files); each file compressed on its own,
 * as a server sends them. node/ loads web/'s module (scripts/build.sh ships one copy): its row
 * counts that file, as `../web/agentwire_bg.wasm`.
 */
export function packageSizes(pkgDir) {
  const out = {};
  for (const t of TARGETS) {
    const dir = join(pkgDir, t);
    if (!existsSync(dir)) continue;
    const row = { wasm: ZERO, glue: ZERO, ts: ZERO, files: {} };
    // snippets/ holds the JS files the wasm imports (src/wasm/*.js): glue.
    const files = readdirSync(dir, { recursive: true }).sort();
    if (!files.includes("agentwire_bg.wasm") && existsSync(join(pkgDir, "web/agentwire_bg.wasm"))) files.push("../web/agentwire_bg.wasm");
    for (const f of files) {
      if (!f.endsWith(".js") && !f.endsWith(".wasm")) continue;
      const s = compressed(readFileSync(join(dir, f)));
      row.files[f] = s;
      const glue = f.startsWith("agentwire") || f.startsWith("snippets");
      const part = f.endsWith(".wasm") ? "wasm" : glue ? "glue" : "ts";
      row[part] = add(row[part], s);
    }
    row.wasmAndGlue = add(row.wasm, row.glue);
    row.total = add(row.wasmAndGlue, row.ts);
    out[t] = row;
  }
  return out;
}

/** A hash of everything a package build reads, so feature builds are redone only when it changes. */
function sourceHash(extra) {
  const h = createHash("sha256");
  const walk = (p) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const f of readdirSync(p).sort()) walk(join(p, f));
    else h.update(relative(root, p)).update(readFileSync(p));
  };
  for (const p of ["src", "js/src", "Cargo.toml", "Cargo.lock", "core/Cargo.toml", "cdylib", "scripts/build.sh", "scripts/cargo-wasm.sh", "scripts/order-functions.mjs", "scripts/shorten-names.mjs", "scripts/wasm-binary.mjs", "scripts/declare-missing.mjs"]) walk(join(root, p));
  h.update(extra);
  return h.digest("hex").slice(0, 16);
}

/**
 * Builds the package with `AGENTWIRE_FEATURES=<features>` in a copy of the sources (scripts/build.sh
 * replaces pkg/ of the tree it runs in), with a cargo target directory of its own per feature set.
 * (Shared, a build could link agentwire-core as built from another copy: its sources are outside its
 * package directory (`../src`), so cargo records them by absolute path and checks the other copy's
 * files for freshness, whatever this copy's sources are. Seen with two checkouts, 2026-11-22.) Returns { sizes } or { error } with the build's last output lines. Cached by source hash.
 *
 * `features` is what `AGENTWIRE_FEATURES` takes, optionally followed by `@size` or `@speed` for
 * `AGENTWIRE_OPT` (speed when absent); `default` is every feature (`default@size`), `none` no feature
 * (`AGENTWIRE_FEATURES=" "`).
 */
export function featureBuild(features, say = () => {}) {
  const [wanted, opt = "speed"] = features.split("@");
  const cargoFeatures = wanted === "default" ? "" : wanted === "none" ? " " : wanted;
  const dir = join(benchDir, "features", features.replace(/[^a-z0-9-]+/g, "_") || "none");
  const cache = join(dir, "result.json");
  const hash = sourceHash(features);
  if (existsSync(cache)) {
    const r = JSON.parse(readFileSync(cache, "utf8"));
    if (r.hash === hash) return r;
  }
  say(`building the package with AGENTWIRE_FEATURES="${cargoFeatures}" AGENTWIRE_OPT=${opt} (in ${relative(root, dir)})`);
  rmSync(dir, { recursive: true, force: true });
  const tree = join(dir, "tree");
  mkdirSync(tree, { recursive: true });
  for (const p of ["Cargo.toml", "Cargo.lock", "core", "cdylib", "src", "scripts", "examples", "pkg-template", "js/src", "js/tsconfig.json"]) {
    cpSync(join(root, p), join(tree, p), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(tree, "node_modules"));
  const targetDir = join(benchDir, "features-target", basename(dir));
  mkdirSync(targetDir, { recursive: true });
  symlinkSync(targetDir, join(tree, "target"));
  let result;
  try {
    execFileSync("./scripts/build.sh", {
      cwd: tree,
      // No smaller entry points: the sizes reported are the build's main entry point.
      env: { ...process.env, AGENTWIRE_FEATURES: cargoFeatures, AGENTWIRE_OPT: opt, AGENTWIRE_ENTRIES: "" },
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
    result = { hash, features, sizes: packageSizes(join(tree, "pkg")) };
  } catch (e) {
    const text = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n");
    const errors = text.filter((l) => /^error|^\s+-->/.test(l));
    result = { hash, features, error: (errors.length ? errors : text).slice(0, 16).join("\n") };
  }
  writeFileSync(cache, JSON.stringify(result, null, 2));
  return result;
}

// Where a function's bytes are attributed, first match wins. Names are Rust's (v0/legacy demangled)
// as the wasm name section keeps them; wasm-opt's inlining folds callees into their callers.
const ours = (n) => /^<*agentwire(_core)?::/.test(n);
const GROUPS = [
  ["names and custom sections (not shipped)", (n) => /subsection|custom section/.test(n)],
  ["data segments (strings, tables)", (n) => n.startsWith("data segment")],
  ["wasm-bindgen export shims", (n) => /\bshim\b/.test(n) || /^__wbg|^__wbindgen|^__externref/.test(n)],
  ["js-sys / wasm-bindgen / futures", (n) => /\b(js_sys|wasm_bindgen|wasm_bindgen_futures|web_sys)(\[|::)/.test(n)],
  ["tsify", (n) => /\btsify/.test(n)],
  ["wasm exports (bindings inlined into them)", (n) => /^[a-z0-9]+_[A-Za-z0-9_]+$/.test(n)],
  ["float formatting and core::fmt", (n) => /core(\[[0-9a-f]+\])?::(fmt|num::flt2dec|num::fmt|num::bignum)|escape_debug|<f(32|64) as/.test(n)],
  ["number printing (zmij, itoa: serde_json)", (n) => /\b(zmij|itoa)::/.test(n)],
  ["BTreeMap (serde_json Map, JsonMap)", (n) => /alloc::collections::btree/.test(n) && !ours(n)],
  ["allocator (dlmalloc)", (n) => /dlmalloc/.test(n)],
  ["serde buffered Content (untagged enums, flatten)", (n) => /serde::private::de::content|__deserialize_content|ContentRefDeserializer|ContentDeserializer|FlatMap/.test(n)],
  // agentwire's reader of a `serde_json::Value` (`json::from_tree`), instantiated per type read.
  ["readers of a tree (json::tree, per type)", (n) => /^<*agentwire_core::json::tree::/.test(n)],
  ["serde_json Value and Map", (n) => /serde_json::(value|map)/.test(n) && !ours(n)],
  ["serde_json reader/writer (instantiated per type)", (n) => /serde_json::/.test(n) && !ours(n)],
  ["serde (generic impls: Option, Vec, maps)", (n) => /\bserde(_core)?(\[[0-9a-f]+\])?::/.test(n) && !ours(n)],
];

/**
 * The attribution group of a function name: a fixed group, or the agentwire module it belongs to,
 * named by its crate (`agentwire_core::` for the streaming path built at opt-level 3).
 */
export function groupOf(name) {
  for (const [g, test] of GROUPS) if (test(name)) return g;
  // (A function's legacy name ends in its hash, a v0 name in the function's own name.)
  const m = /(agentwire(?:_core)?)::((?:[a-z_0-9]+::)*?[a-z_0-9]+)::(?:_::|<|[A-Z]|[a-z_0-9]+(?:::h[0-9a-f]{16})?$)/.exec(name);
  if (m) {
    const serde = /serde/.test(name) ? " (serde derive)" : "";
    return `${m[1]}::${m[2]}${serde}`;
  }
  if (/\b(alloc|core|std)(\[[0-9a-f]+\])?::/.test(name)) return "core/alloc/std (other)";
  if (/\b(memchr|base64|hashbrown|thiserror|getrandom)/.test(name)) return RegExp.$1;
  return "other / unnamed";
}

/** `wasm-opt`'s flags as scripts/build.sh passes them (`wasm_opt_flags` there; keep the two alike). */
export const wasmOptFlags = ["--low-memory-unused", "-Oz"];

/**
 * twiggy on the release wasm with its name section kept: wasm-bindgen (like scripts/build.sh), then
 * `wasm-opt` with `wasmOptFlags` (the shipped optimization) and `-g` (keeping names). Returns the
 * top items, the groups and the largest monomorphized generics.
 */
export function twiggyReport() {
  const dir = join(benchDir, "named");
  mkdirSync(dir, { recursive: true });
  // The default build as the package's (target/ may hold a feature build of the test command's
  // last step).
  execFileSync("./scripts/cargo-wasm.sh", [], { cwd: root, stdio: "inherit" });
  const src = join(root, "target/wasm32-unknown-unknown/release/agentwire_wasm.wasm");
  execFileSync("wasm-bindgen", ["--target", "web", "--keep-debug", "--out-dir", dir, "--out-name", "agentwire", src]);
  const named = join(dir, "agentwire_opt_named.wasm");
  execFileSync(join(root, "node_modules/.bin/wasm-opt"), [...wasmOptFlags, "-g", join(dir, "agentwire_bg.wasm"), "-o", named]);
  // v0-mangled names (the nightly's default) carry each crate's disambiguator (`agentwire[8c1…]::`):
  // dropped, so that names read and group as the legacy ones did.
  const items = JSON.parse(execFileSync("twiggy", ["top", "-f", "json", named], { maxBuffer: 256 * 1024 * 1024 })).map(
    (i) => ({ ...i, name: i.name.replace(/\[[0-9a-f]+\]/g, "") }),
  );
  const shipped = items.filter((i) => !/subsection|custom section/.test(i.name));
  const total = shipped.reduce((s, i) => s + i.shallow_size, 0);
  const groups = {};
  for (const i of shipped) {
    const g = groupOf(i.name);
    groups[g] ??= { bytes: 0, items: 0 };
    groups[g].bytes += i.shallow_size;
    groups[g].items += 1;
  }
  const monos = execFileSync("twiggy", ["monos", "-n", "12", named], { maxBuffer: 64 * 1024 * 1024 }).toString();
  return {
    file: relative(root, named),
    total,
    top: shipped.slice(0, 25).map((i) => ({ name: i.name, bytes: i.shallow_size })),
    groups: Object.entries(groups).sort((a, b) => b[1].bytes - a[1].bytes).map(([name, g]) => ({ name, ...g })),
    monos: monos
      .split("\n")
      .filter((l) => /^\s+\d+ ┊/.test(l))
      .map((l) => l.replace(/\[[0-9a-f]+\]/g, "").replace(/\s+/g, " ").trim()),
  };
}
