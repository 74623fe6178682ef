#!/usr/bin/env bash
# Builds the npm package into pkg/:
#   cargo (wasm32, release) -> wasm-bindgen (web, bundler, node) -> wasm-opt -Oz (npm binaryen,
#   with --low-memory-unused), the functions ordered for gzip (scripts/order-functions.mjs),
#   wasm-opt -Oz again -> the names between module and glue shortened (scripts/shorten-names.mjs)
#   -> the glue minified (npm terser) -> the TypeScript layer (js/src -> pkg/dist) -> package.json
#   and README from pkg-template/.
# Then the package's smaller entry points, one per dialect: `agentwire/agent-api`, `agentwire/agentx`,
# `agentwire/acp` and `agentwire/atlas` (pkg/agent-api/, pkg/agentx/, pkg/acp/, pkg/atlas/): the same
# TypeScript layer and types over a module built with that cargo feature only (and the features it
# needs: `acp` brings `runs` and `bodies`, `atlas` brings `bodies`).
# Needs what scripts/setup.sh installs. AGENTWIRE_FEATURES="agent-api,tools" builds with only those
# cargo features (default: all; see the README's "Feature builds"), and no smaller entry points;
# AGENTWIRE_ENTRIES="agent-api" builds only those entry points ("" none: the demo's build);
# AGENTWIRE_OPT=size builds the streaming path for size too (scripts/cargo-wasm.sh), in every entry
# point; AGENTWIRE_PKG=dir writes the package there instead of pkg/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${AGENTWIRE_PKG:-pkg}

features=()
if [[ -n ${AGENTWIRE_FEATURES:-} ]]; then
  features=(--no-default-features --features "$AGENTWIRE_FEATURES")
fi
# The smaller entry points to build after the package (none in a feature build); see below.
all_entries="agent-api agentx acp atlas" # pkg-template/package.json exports each as ./<feature>
entries=""
[[ -z ${AGENTWIRE_FEATURES:-} ]] && entries=${AGENTWIRE_ENTRIES-$all_entries}
for e in $entries; do
  [[ " $all_entries " == *" $e "* ]] || { echo "build: AGENTWIRE_ENTRIES: no entry point '$e' (one of: $all_entries)" >&2; exit 2; }
done
# The wasm module is the agentwire-wasm package (cdylib/): it links the library, and the release
# profile builds it and agentwire-core at opt-level 3, the library at "z" (see Cargo.toml). It is
# compiled by scripts/cargo-wasm.sh: a pinned nightly that rebuilds the standard library with the
# module, with panics that trap without a message (AGENTWIRE_STABLE=1: the stable toolchain).
toolchain=$(sed -n 's/^wasm-toolchain = "\(.*\)"/\1/p' Cargo.toml)
if [[ -n ${AGENTWIRE_STABLE:-} ]]; then
  rustc_version=$(rustc --version)
  std="prebuilt"
else
  rustc_version=$(rustc "+$toolchain" --version)
  std="rebuilt (build-std), panic immediate-abort"
fi
opt=${AGENTWIRE_OPT:-speed}
echo "build: cargo (wasm32-unknown-unknown, release, $rustc_version, std $std, opt $opt) ${features[*]:-}" >&2
./scripts/cargo-wasm.sh "${features[@]}"
wasm=target/wasm32-unknown-unknown/release/agentwire_wasm.wasm
# The module's layout checked for what `wasm-opt --low-memory-unused` (below) assumes: nothing in
# its lowest 1 KB (scripts/check-low-memory.mjs).
node scripts/check-low-memory.mjs "$wasm"

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' Cargo.toml)
have=$(wasm-bindgen --version | awk '{print $2}')
[[ $want == "$have" ]] || { echo "build: wasm-bindgen CLI $have != crate $want (run scripts/setup.sh)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
for t in web bundler node; do
  target=$t
  [[ $t == node ]] && target=experimental-nodejs-module
  wasm-bindgen --target "$target" --out-dir "$out/$t" --out-name agentwire "$wasm"
done
# wasm-opt from the npm package binaryen (Debian's binaryen 108 produces modules that crash); then
# the functions ordered so that similar ones are adjacent (scripts/order-functions.mjs: −14.5 KB
# gzipped) and `-Oz` again, which keeps that order and writes Binaryen's compact Stack IR. The three
# targets' modules are the same bytes (wasm-bindgen differs in the glue only): the web one is
# optimized and copied, and a target whose module differs is optimized on its own.
# `--low-memory-unused` (as Emscripten's optimized builds pass it): the module never reads or
# writes its lowest 1 KB, so wasm-opt may fold a constant added to an address into the access's
# offset (an address that wrapped around would land there). Rust's wasm32 module puts its stack
# first, growing down from 1 MiB to 0, so only a stack 1 KB short of overflowing reaches it:
# −1.8 KB gzipped, no change of speed (docs/performance-log.md, stop 50). The layout is checked
# after cargo (above). js/bench/sizes.mjs and variants.mjs pass the same flags (`wasmOptFlags`).
wasm_opt_flags=(--low-memory-unused -Oz)
optimize() {
  node_modules/.bin/wasm-opt "${wasm_opt_flags[@]}" "$1" -o "$1"
  node scripts/order-functions.mjs "$1" "$1"
  node_modules/.bin/wasm-opt "${wasm_opt_flags[@]}" "$1" -o "$1"
}
for t in bundler node; do
  if cmp -s "$out/web/agentwire_bg.wasm" "$out/$t/agentwire_bg.wasm"; then
    rm "$out/$t/agentwire_bg.wasm"
  fi
done
optimize "$out/web/agentwire_bg.wasm"
for t in bundler node; do
  if [[ -e $out/$t/agentwire_bg.wasm ]]; then
    optimize "$out/$t/agentwire_bg.wasm"
  else
    cp "$out/web/agentwire_bg.wasm" "$out/$t/agentwire_bg.wasm"
  fi
done
# wasm-bindgen's glue passes a string parameter with `passStringToWasm0`, which reads any other
# value as an empty string in a browser (`new RequestBuilder().text("user", 42)` sent "") and throws
# a TypeError in Node: it now throws the `invalid-argument` ProtocolError of `__notAString`
# (src/wasm/error.rs) first. Optional string parameters skip it for `null` and `undefined`.
# And each class's `free()` (also its `[Symbol.dispose]`) does nothing the second time: it passed
# the cleared pointer to the module, which threw "null pointer passed to rust". A `free()` from
# inside one of the object's own methods (a getter or callback it ran) releases it when that method
# returns, as the finalizer would (`allow_delayed`), instead of throwing wasm-bindgen's "attempted
# to take ownership of Rust value while it was borrowed". wasm-bindgen's own errors (`throw_str`:
# a method of a freed object, or of one in use) throw the ProtocolError of `__bindingError`
# (`object-freed`, `object-in-use`) instead of a plain `Error`.
# A method of a freed object, or one given a freed object as a class-typed argument, throws
# `object-freed` in the glue (`__live`), before the module is entered: thrown from the module, each
# such error left the frames it unwound on the module's stack (about 100–200 bytes each), and some
# thousands of calls on a freed object then broke every later call ("memory access out of
# bounds"). `_assertClass` (an argument of the wrong class) throws `invalid-argument` too.
for t in web bundler node; do
  glue="$out/$t/agentwire.js"
  [[ $t == bundler ]] && glue="$out/$t/agentwire_bg.js"
  node -e '
    const fs = require("fs");
    const file = process.argv[1];
    const glue = fs.readFileSync(file, "utf8");
    const head = "function passStringToWasm0(arg, malloc, realloc) {\n";
    const found = glue.split(head).length - 1;
    if (found !== 1) throw new Error(`build: ${file}: passStringToWasm0 found ${found} times, not once`);
    const frees = glue.split("    free() {\n").length - 1;
    const raw = "const ptr = this.__destroy_into_raw();\n        wasm.__wbg_";
    const cleared = glue.split(raw).length - 1;
    const now = /(const ptr = this.__destroy_into_raw\(\);\n        wasm\.__wbg_\w+_free\(ptr), 0\);/g;
    const freeNow = glue.match(now)?.length ?? 0;
    if (frees === 0 || cleared !== frees || freeNow !== frees) {
      throw new Error(`build: ${file}: ${frees} free() methods, ${cleared} and ${freeNow} of the expected forms`);
    }
    const thrown = "throw new Error(getStringFromWasm0(arg0, arg1));";
    const throws = glue.split(thrown).length - 1;
    if (throws !== 1) throw new Error(`build: ${file}: the body of __wbindgen_throw found ${throws} times, not once`);
    const assert = "throw new Error(`expected instance of ${klass.name}`);";
    const live = "function __live(o) {\n    const p = o.__wbg_ptr;\n    if (p === 0) throw __bindingError(\"null pointer passed to rust\");\n    return p;\n}\n";
    const patched = live + glue
      // The receiver of every method, and class-typed arguments (after `_assertClass`).
      .replace(/wasm\.(\w+)\(this\.__wbg_ptr\b/g, "wasm.$1(__live(this)")
      .replace(/(?<![\w.])(?!this\b|obj\b)(\w+)\.__wbg_ptr(?=[,)])/g, "__live($1)")
      // A consuming method (not `free()`, whose second call does nothing).
      .replace(/(const ptr = this\.__destroy_into_raw\(\);\n)(?!\s*wasm\.__wbg_\w+_free\()/g, "__live(this);\n        $1")
      .replace(assert, "throw __invalidClass(klass.name);")
      .replace(head, head + "    if (typeof arg !== \"string\") throw __notAString(typeof arg);\n")
      .replace(now, "$1, 1);")
      .replaceAll(raw, raw.replace("\n", "\n        if (ptr === 0) return;\n"))
      .replace(thrown, "throw __bindingError(getStringFromWasm0(arg0, arg1));");
    // Every method reaches the module through `__live`: a glue of another shape fails the build
    // rather than losing the check.
    const unchecked = patched.match(/wasm\.\w+\(this\.__wbg_ptr\b/g)?.length ?? 0;
    const checked = patched.split("(__live(this)").length - 1;
    if (unchecked !== 0 || checked === 0) throw new Error(`build: ${file}: ${checked} method calls through __live, ${unchecked} without`);
    fs.writeFileSync(file, patched);
  ' "$glue"
done
# The names the module and the glue call each other by, shortened (`_a`, `_b`, …) in both: −5.2 KB
# gzipped (scripts/shorten-names.mjs).
node scripts/shorten-names.mjs "$out"
# A feature build's glue declares the exports its build left out, as `undefined`
# (scripts/declare-missing.mjs: the TypeScript layer reads them by name, and bundlers would warn).
[[ -n ${AGENTWIRE_FEATURES:-} ]] && node scripts/declare-missing.mjs "$out"
# The glue wasm-bindgen wrote (each target's agentwire*.js and the snippets it imports) minified with
# terser (npm): 28 KB gzipped becomes 10 KB. Class names are kept (stack traces, `constructor.name`);
# the exports, the wasm imports' names and the TypeScript layer (compiled below) are untouched.
# (A build without the Agent API has no snippets: nullglob drops the pattern.)
shopt -s nullglob
for f in "$out"/{web,bundler,node}/agentwire*.js "$out"/{web,bundler,node}/snippets/*/src/wasm/*.js; do
  node_modules/.bin/terser "$f" --module --compress --mangle --keep-classnames -o "$f.min"
  mv "$f.min" "$f"
done
shopt -u nullglob
# The generated .d.ts describe the raw wasm exports with `any`; they are internal (not in the
# package's exports map) but are type-checked by users' compilers: make them `unknown`.
node scripts/no-any.mjs "$out"/{web,bundler,node}/agentwire.d.ts "$out"/{web,bundler,node}/agentwire_bg.wasm.d.ts
# Their doc comments come from the Rust sources: rustdoc links become their text, doctests go.
node scripts/dts-docs.mjs "$out"/{web,bundler,node}/agentwire.d.ts

# The TypeScript layer (js/src), compiled once next to the browser build's glue and copied into the
# other targets: each target directory then holds index.js and the glue it imports (./agentwire.js).
cp js/src/*.ts "$out/web/"
cp js/tsconfig.json "$out/web/tsconfig.json"
# A build with fewer cargo features lacks some wasm exports the TS layer refers to: it is emitted
# without type checking against them (those exports throw `feature-not-built` when used).
tsc_flags=()
[[ -n ${AGENTWIRE_FEATURES:-} ]] && tsc_flags=(--noCheck)
(cd "$out/web" && "$root/node_modules/.bin/tsc" -p tsconfig.json "${tsc_flags[@]}")
# The layer's JavaScript minified like the glue (function names kept too, for stack traces): what a
# browser loads without a bundler, 21.1 KB gzipped, becomes 9.0 KB. The .d.ts keep the docs.
for f in js/src/*.ts; do
  b=$(basename "$f" .ts)
  rm "$out/web/$b.ts"
  node_modules/.bin/terser "$out/web/$b.js" --module --compress --mangle --keep-classnames \
    --keep-fnames -o "$out/web/$b.js.min"
  mv "$out/web/$b.js.min" "$out/web/$b.js"
  for t in bundler node; do cp "$out/web/$b.js" "$out/web/$b.d.ts" "$out/$t/"; done
done
rm "$out/web/tsconfig.json"

# The Node target's module is the browser target's, byte for byte (above): node/ reads web/'s
# instead of shipping a copy. Its glue reads the module with `readFileSync(new URL(...,
# import.meta.url))`, and that one URL is pointed at ../web/ (one copy of each module fewer in
# the package: the tarball 2.8 -> 2.0 MB with the smaller entry points).
if cmp -s "$out/web/agentwire_bg.wasm" "$out/node/agentwire_bg.wasm"; then
  node -e '
    const fs = require("fs");
    const file = process.argv[1];
    const glue = fs.readFileSync(file, "utf8");
    const url = /new URL\("agentwire_bg\.wasm",import\.meta\.url\)/g;
    const found = glue.match(url)?.length ?? 0;
    if (found !== 1) throw new Error(`build: ${file}: the module URL found ${found} times, not once`);
    fs.writeFileSync(file, glue.replace(url, `new URL("../web/agentwire_bg.wasm",import.meta.url)`));
  ' "$out/node/agentwire.js"
  rm "$out/node/agentwire_bg.wasm"
fi
# bundler/ imports web/'s module too (`import * as wasm from "../web/agentwire_bg.wasm"`). A
# bundler (or Node's WebAssembly ESM integration) resolves the module's own imports next to it:
# `./agentwire_bg.js`, which in web/ re-exports bundler/'s glue (the same module instance, whose
# `__wbg_set_wasm` the bundler glue calls), and `./snippets/…`, which web/ has (the same files,
# stateless functions). One more copy of each module fewer in the package: the tarball 2.0 -> 1.3
# MB (1,268,305 bytes, at the commit that made this change).
if cmp -s "$out/web/agentwire_bg.wasm" "$out/bundler/agentwire_bg.wasm"; then
  node -e '
    const fs = require("fs");
    const file = process.argv[1];
    const glue = fs.readFileSync(file, "utf8");
    const from = /from"\.\/agentwire_bg\.wasm"/g;
    const found = glue.match(from)?.length ?? 0;
    if (found !== 1) throw new Error(`build: ${file}: the module import found ${found} times, not once`);
    fs.writeFileSync(file, glue.replace(from, `from"../web/agentwire_bg.wasm"`));
  ' "$out/bundler/agentwire.js"
  echo 'export * from "../bundler/agentwire_bg.js";' > "$out/web/agentwire_bg.js"
  rm "$out/bundler/agentwire_bg.wasm"
fi

# The smaller entry points: this script again, with one feature, into $out/<feature>/. Their .d.ts
# are the full build's: the API and its types are the same in every build (what a build left out
# throws `feature-not-built`), and the declarations emitted without type checking would not be.
for e in $entries; do
  echo "build: the entry point agentwire/$e (AGENTWIRE_FEATURES=$e)" >&2
  AGENTWIRE_FEATURES=$e AGENTWIRE_PKG="$out/$e" "$root/scripts/build.sh"
  rm "$out/$e/package.json" "$out/$e/README.md"
  for t in web bundler node; do cp "$out/$t"/*.d.ts "$out/$e/$t/"; done
done

cp pkg-template/package.json pkg-template/README.md "$out/"
node -e '
  const fs = require("fs");
  const [, have, out, rustc, std, entries, allEntries] = process.argv;
  // package.json: the entry points not built (a feature build, AGENTWIRE_ENTRIES) left out.
  const pkg = JSON.parse(fs.readFileSync(out + "/package.json", "utf8"));
  const built = new Set(entries.split(" ").filter(Boolean));
  const all = new Set(allEntries.split(" ").filter(Boolean));
  const entry = (k) => [k.match(/^\.\/([^/]+)/)?.[1]].find((e) => all.has(e));
  for (const k of Object.keys(pkg.exports)) if (entry(k) && !built.has(entry(k))) delete pkg.exports[k];
  pkg.files = pkg.files.filter((f) => !entry("./" + f) || built.has(entry("./" + f)));
  fs.writeFileSync(out + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
  const info = {
    name: pkg.name, version: pkg.version,
    git: require("child_process").execSync("git rev-parse HEAD").toString().trim(),
    features: process.env.AGENTWIRE_FEATURES || "default",
    opt: process.env.AGENTWIRE_OPT || "speed",
    entries: [...built],
    rustc,
    std,
    wasmBindgen: have,
  };
  fs.writeFileSync(out + "/BUILD_INFO.json", JSON.stringify(info, null, 2) + "\n");
' "$have" "$out" "$rustc_version" "$std" "$entries" "$all_entries"
echo "build: $out/ ready ($(du -sh "$out" | cut -f1))" >&2
