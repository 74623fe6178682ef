// Size against speed of other optimization settings of the same sources (run.mjs's `variants`
// group), each compiled by scripts/cargo-wasm.sh (the package's toolchain and flags) and built
// through wasm-bindgen, `wasm-opt -Oz`, the functions ordered for gzip, `-Oz` again and the names
// between module and glue shortened, as scripts/build.sh does (the glue is not minified), and
// timed in Node beside the shipped build (pkg/web) on the corpus, interleaved. Nothing here
// changes the package. With fat LTO the whole module is optimized again
// at the level of the crate that links it (agentwire), so agentwire's level is what counts:
// serde_json at "z" instead of 3 measured the same size and speed (2026-11-21).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchDir, root } from "./paths.mjs";
import { compressed, wasmOptFlags } from "./sizes.mjs";

export const VARIANTS = {
  "the library at opt-level 3 too": { dir: "lib3", env: {}, config: ["profile.release.package.agentwire.opt-level=3"] },
  "agentwire-core at opt-level 2": { dir: "c2", env: {}, config: ["profile.release.package.agentwire-core.opt-level=2"] },
  "agentwire-core at opt-level s": { dir: "cs", env: {}, config: ['profile.release.package.agentwire-core.opt-level="s"'] },
  "opt-level z throughout": {
    dir: "z",
    env: {},
    config: [
      'profile.release.package.agentwire-core.opt-level="z"',
      'profile.release.package.agentwire-wasm.opt-level="z"',
      'profile.release.package.serde_json.opt-level="z"',
    ],
  },
  "LLVM inline threshold 75 (3 has 250)": {
    dir: "i75",
    env: { AGENTWIRE_RUSTFLAGS: "-C llvm-args=-inline-threshold=75" },
    config: [],
  },
};

/** Builds one variant into target/bench/variants/<name>/ (its own cargo target directory). */
function build(name, v, say) {
  const slug = v.dir;
  const dir = join(benchDir, "variants", slug);
  const targetDir = join(benchDir, "variants-target", slug);
  mkdirSync(dir, { recursive: true });
  say(`building the wasm with ${name}`);
  const config = v.config.flatMap((c) => ["--config", c]);
  execFileSync("./scripts/cargo-wasm.sh", config, {
    cwd: root,
    env: { ...process.env, ...v.env, CARGO_TARGET_DIR: targetDir },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const wasm = join(targetDir, "wasm32-unknown-unknown/release/agentwire_wasm.wasm");
  const web = join(dir, "web");
  execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", web, "--out-name", "agentwire", wasm]);
  const file = join(web, "agentwire_bg.wasm");
  const wasmOpt = join(root, "node_modules/.bin/wasm-opt");
  execFileSync(wasmOpt, [...wasmOptFlags, file, "-o", file]);
  execFileSync(process.execPath, [join(root, "scripts/order-functions.mjs"), file, file]);
  execFileSync(wasmOpt, [...wasmOptFlags, file, "-o", file]);
  execFileSync(process.execPath, [join(root, "scripts/shorten-names.mjs"), dir]);
  return web;
}

/** Builds the variants and times them, with the anchors, in a child process (this file's second mode). */
export function runVariants(say) {
  const dirs = { "the release profile (shipped, pkg/web)": join(root, "pkg/web") };
  for (const [name, v] of Object.entries(VARIANTS)) dirs[name] = build(name, v, say);
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, JSON.stringify(dirs)], {
    cwd: root,
    env: { ...process.env },
    maxBuffer: 16 * 1024 * 1024,
  }).toString();
  return JSON.parse(out);
}

// Child mode: time every variant's AgentStreamDecoder on the corpus.
if (process.argv[1] === new URL(import.meta.url).pathname && process.argv[2]) {
  const { timeInterleaved, mbPerSec } = await import("./harness.mjs");
  const { agentwireVariants } = await import("./stream.bench.mjs");
  const dirs = JSON.parse(process.argv[2]);
  const { splitChunks, pipelines } = await import(pathToFileURL(join(benchDir, "anchors.mjs")).href);
  const bytes = new Uint8Array(readFileSync(join(benchDir, "corpus.sse")));
  const chunks = splitChunks(bytes);
  const contestants = {};
  for (const [name, pipeline] of Object.entries(pipelines)) contestants[`${name} | anchor`] = () => pipeline(chunks);
  const sizes = {};
  let n = 0;
  for (const [name, dir] of Object.entries(dirs)) {
    const wasmFile = join(dir, "agentwire_bg.wasm");
    if (!existsSync(wasmFile)) continue;
    const glue = await import(pathToFileURL(join(dir, "agentwire.js")).href + `?variant=${++n}`);
    glue.initSync({ module: readFileSync(wasmFile) });
    sizes[name] = { wasm: compressed(readFileSync(wasmFile)), glue: compressed(readFileSync(join(dir, "agentwire.js"))) };
    for (const [vname, options] of Object.entries(agentwireVariants)) {
      contestants[`${name} | ${vname.replace("agentwire ", "")}`] = () => {
        const d = new glue.AgentStreamDecoder(options);
        let k = 0;
        for (const c of chunks) k += d.feed(c).length;
        k += d.finish().length;
        k += d.response().output.length;
        d.free();
        return k;
      };
    }
  }
  const times = await timeInterleaved(contestants, { runs: Number(process.env.AGENTWIRE_BENCH_RUNS || 5) });
  const anchors = Object.keys(pipelines);
  const rows = Object.entries(times).map(([k, t]) => {
    const [variant, mode] = k.split(" | ");
    const ratios = mode === "anchor" ? undefined : Object.fromEntries(anchors.map((a) => [a, times[`${a} | anchor`].medianMs / t.medianMs]));
    return { variant, mode, medianMs: t.medianMs, mbPerSec: mbPerSec(bytes.length, t.medianMs), wasm: sizes[variant]?.wasm, glue: sizes[variant]?.glue, ratios };
  });
  process.stdout.write(JSON.stringify(rows));
}
