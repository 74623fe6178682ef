// The bench command (scripts/bench.sh): prepares the corpora, runs every js/bench/*.bench.mjs module
// in Node (one process each) and in headless Chromium (one browser each), prints the package sizes,
// and writes everything to target/bench/results.json. It reports; it never fails on timing (only on
// a wrong result or a broken run).
//
//   node js/bench/run.mjs [node] [chromium] [sizes]      (default: these three)
//                         [profile] [native] [variants]  (on request: where the time goes)
//     profile   V8 CPU profile of AgentStreamDecoder by stage (needs the sizes group's named wasm)
//     native    examples/bench_stream.rs with the release profile and at opt-level 3, timed and counted with callgrind
//     variants  the wasm at other optimization settings (variants.mjs): size and speed
//   AGENTWIRE_BENCH_RUNS=7                               timed runs per measurement
//   AGENTWIRE_BENCH_MODULES=stream,memory                only these modules
//   AGENTWIRE_BENCH_FEATURES="agent-api agent-api,tools acp agentx atlas" the feature builds to size ("" for none;
//     "agent-api@size" builds with AGENTWIRE_OPT=size, "default@size" every feature so)
import { spawn } from "node:child_process";
import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { basename, extname, join, normalize, relative, sep } from "node:path";
import { cpus } from "node:os";
import { pathToFileURL } from "node:url";
import { benchDir, here, root, shared } from "./paths.mjs";
import { featureBuild, packageSizes, twiggyReport, wasmOptFlags } from "./sizes.mjs";
import { runNative } from "./native.mjs";
import { runVariants } from "./variants.mjs";

const groups = process.argv.slice(2).length ? process.argv.slice(2) : ["node", "chromium", "sizes"];
const runs = Number(process.env.AGENTWIRE_BENCH_RUNS || 7);
const only = process.env.AGENTWIRE_BENCH_MODULES?.split(",").filter(Boolean);
const features = (process.env.AGENTWIRE_BENCH_FEATURES ?? "agent-api agent-api,tools acp agentx atlas").split(/\s+/).filter(Boolean);

const say = (...a) => console.error("bench:", ...a);
const results = { date: new Date().toISOString(), machine: machine(), runs, records: [] };
let failed = false;

function machine() {
  const cpuinfo = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
  return {
    cpu: /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? cpus()[0]?.model,
    cores: cpus().length,
    node: process.version,
    load: existsSync("/proc/loadavg") ? readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") : "",
  };
}

// ---------------------------------------------------------------------------------------------
// Inputs: the corpora from ../shared/bench/gen-corpus.mjs and a copy of its anchors (so that
// `eventsource-parser` resolves to this repository's node_modules).

async function prepare() {
  mkdirSync(benchDir, { recursive: true });
  const gen = join(shared, "bench/gen-corpus.mjs");
  const anchors = join(shared, "bench/anchors.mjs");
  if (!existsSync(gen)) throw new Error(`${gen} not found (set AGENTWIRE_SHARED)`);
  copyFileSync(anchors, join(benchDir, "anchors.mjs"));
  const { corpus } = await import(pathToFileURL(gen).href);
  const fresh = (f) => existsSync(f) && statSync(f).mtimeMs > statSync(gen).mtimeMs;
  if (!fresh(join(benchDir, "corpus.json"))) {
    const c = corpus(1000);
    writeFileSync(join(benchDir, "corpus.sse"), c.sse);
    writeFileSync(join(benchDir, "expected.json"), JSON.stringify(c.expected));
    writeFileSync(join(benchDir, "corpus.json"), JSON.stringify({ messages: 1000, events: c.events, bytes: Buffer.byteLength(c.sse) }));
  }
  // A small response (one message) for the memory bench's 10,000 streams.
  if (!fresh(join(benchDir, "small.sse"))) writeFileSync(join(benchDir, "small.sse"), corpus(1).sse);
  // The 100 MB stream of the memory bench: the same generator with enough messages.
  if (!fresh(join(benchDir, "corpus-100mb.json"))) {
    const c = corpus(6720);
    const bytes = Buffer.byteLength(c.sse);
    if (bytes < 100e6) throw new Error(`the 100 MB corpus has only ${bytes} bytes`);
    writeFileSync(join(benchDir, "corpus-100mb.sse"), c.sse);
    const largest = Math.max(...c.expected.map((m) => JSON.stringify(m).length));
    const total = c.expected.reduce((s, m) => s + JSON.stringify(m).length, 0);
    writeFileSync(join(benchDir, "corpus-100mb.json"), JSON.stringify({
      messages: c.expected.length, events: c.events, bytes, largestMessageJson: largest, messagesJson: total,
    }));
  }
  const meta = JSON.parse(readFileSync(join(benchDir, "corpus.json"), "utf8"));
  say(`corpus: ${meta.messages} messages, ${meta.events} events, ${meta.bytes} bytes`);
}

function modules() {
  return readdirSync(here)
    .filter((f) => f.endsWith(".bench.mjs"))
    .filter((f) => !only || only.includes(f.replace(/\.bench\.mjs$/, "")))
    .sort()
    .map((f) => join(here, f));
}

// ---------------------------------------------------------------------------------------------
// Printing

const fmt = (x, d = 1) => (x === undefined ? "" : Number(x).toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }));
const kb = (b) => `${(b / 1024).toFixed(1)} KB`;

function record(r) {
  results.records.push(r);
  const mod = relative(here, r.module ?? "").replace(/^.*\//, "").replace(/\.bench\.mjs$/, "");
  if (r.error) {
    failed = true;
    console.log(`  ${r.env.padEnd(8)} ${mod}: ERROR ${r.error}`);
    return;
  }
  const { module, env, name, medianMs, mbPerSec, eventsPerSec, minMs, maxMs, runs: n, ratios, minRatios, ...rest } = r;
  let line = `  ${env.padEnd(8)} ${`${mod}: ${name}`.padEnd(44)}`;
  if (medianMs !== undefined) line += ` ${fmt(medianMs).padStart(9)} ms`;
  if (mbPerSec !== undefined) line += ` ${fmt(mbPerSec).padStart(7)} MB/s`;
  if (eventsPerSec !== undefined) line += ` ${fmt(eventsPerSec / 1e3, 0).padStart(6)}k events/s`;
  if (minMs !== undefined) line += `  (${fmt(minMs)}–${fmt(maxMs)} ms, ${n} runs)`;
  if (ratios) line += "  " + Object.entries(ratios).map(([k, v]) => `×${v.toFixed(2)} vs ${k.replace("eventsource-parser ", "")}`).join(", ");
  if (minRatios) line += " (fastest runs: " + Object.values(minRatios).map((v) => `×${v.toFixed(2)}`).join(", ") + ")";
  const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : v}`);
  if (extra.length) line += (medianMs !== undefined ? "  " : " ") + extra.join(" ");
  console.log(line);
}

// ---------------------------------------------------------------------------------------------
// Node: one process per module (a fresh wasm instance and heap each), with --expose-gc.

function runNode(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--expose-gc", join(here, "node.mjs"), file], {
      cwd: root,
      env: { ...process.env, AGENTWIRE_BENCH_RUNS: String(runs) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let buf = "";
    child.stdout.on("data", (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith("BENCH ")) record(JSON.parse(line.slice(6)));
        else console.log(line);
      }
    });
    child.on("close", (code) => {
      if (code !== 0) failed = true;
      resolve();
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Chromium: a static server for the page, the package, the inputs and eventsource-parser; one
// browser per module.

const TYPES = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const NODE_ONLY = ["partial-json.bench.mjs"];
const SERVED = ["js/bench/", "pkg/", "target/bench/", "node_modules/eventsource-parser/"];

function serve() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^[/\\]+/, "");
    const file = join(root, path);
    const allowed = SERVED.some((p) => path.startsWith(p.replaceAll("/", sep))) && !path.includes("..");
    if (!allowed || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function runChromium(files) {
  const { launch } = await import("../test/browser/chromium.mjs");
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    for (const file of files) {
      // --expose-gc for gc(); precise performance.memory for the JS heap.
      const browser = await launch(["--js-flags=--expose-gc", "--enable-precise-memory-info"]);
      results.chromium ??= browser.version();
      try {
        const page = await browser.newPage();
        const finished = new Promise((resolve) => {
          page.exposeFunction("benchReport", (r) => {
            if (r.name) record({ ...r, module: file });
            if (r.done) resolve();
          });
          page.on("pageerror", (e) => { record({ env: "chromium", module: file, name: "error", error: String(e) }); resolve(); });
          page.on("console", (m) => { if (m.type() === "error") console.error("  chromium console:", m.text()); });
        });
        const url = `${base}/js/bench/page.html?module=/${relative(root, file)}&runs=${runs}`;
        await page.goto(url);
        await finished;
      } finally {
        await browser.close();
      }
    }
  } finally {
    server.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Sizes

function printSizes() {
  const pkg = packageSizes(join(root, "pkg"));
  results.sizes = { package: pkg };
  const s = (x) => `${kb(x.raw).padStart(9)} ${kb(x.gzip).padStart(9)} ${kb(x.brotli).padStart(9)}`;
  console.log("\nPackage sizes (each file compressed on its own; raw, gzip -9, brotli 11):");
  console.log(`  ${"".padEnd(34)} ${"raw".padStart(9)} ${"gzip".padStart(9)} ${"brotli".padStart(9)}`);
  for (const [t, row] of Object.entries(pkg)) {
    console.log(`  ${t}/`);
    console.log(`    ${"wasm".padEnd(32)} ${s(row.wasm)}`);
    console.log(`    ${`JS glue (${Object.keys(row.files).filter((f) => (f.startsWith("agentwire") || f.startsWith("snippets")) && f.endsWith(".js")).join(", ")})`.padEnd(32)} ${s(row.glue)}`);
    console.log(`    ${"TS layer (index, api, errors…)".padEnd(32)} ${s(row.ts)}`);
    console.log(`    ${"wasm + glue".padEnd(32)} ${s(row.wasmAndGlue)}`);
    console.log(`    ${"total".padEnd(32)} ${s(row.total)}`);
  }
  const web = pkg.web;
  if (web) {
    console.log(`  A browser app loads (web/: wasm + glue + TS layer): ${kb(web.total.gzip)} gzip, ${kb(web.total.brotli)} brotli` +
      ` (target: wasm + glue gzipped ≤ 60 KB: ${kb(web.wasmAndGlue.gzip)}, ${web.wasmAndGlue.gzip <= 60 * 1024 ? "met" : "missed"})`);
  }

  // The package's smaller entry points, one per dialect (agentwire/agent-api, …: those
  // scripts/build.sh built, as pkg/BUILD_INFO.json lists them).
  results.sizes.entries = {};
  const { entries = [] } = JSON.parse(readFileSync(join(root, "pkg/BUILD_INFO.json"), "utf8"));
  for (const entry of entries) {
    if (!existsSync(join(root, "pkg", entry, "web"))) continue;
    const w = packageSizes(join(root, "pkg", entry)).web;
    results.sizes.entries[entry] = w;
    console.log(`  agentwire/${entry} (${entry}/web/): wasm + glue ${s(w.wasmAndGlue)}, with the TS layer ${kb(w.total.gzip)} gzip`);
  }

  if (features.length) {
    console.log("\nFeature builds (AGENTWIRE_FEATURES=<features> scripts/build.sh in a copy; web/ wasm + glue):");
    results.sizes.features = {};
    for (const f of features) {
      const r = featureBuild(f, say);
      results.sizes.features[f] = r;
      if (r.error) {
        // The first error with its first location, and how many there were.
        const lines = r.error.split("\n");
        const errors = lines.filter((l) => l.startsWith("error["));
        const first = lines.slice(0, 2).map((l) => l.trim()).join(" ");
        console.log(`  ${f.padEnd(12)} build failed (${errors.length}+ errors), first: ${first}`);
      }
      else {
        const w = r.sizes.web;
        console.log(`  ${f.padEnd(12)} wasm ${kb(w.wasm.raw)} (${kb(w.wasm.gzip)} gzip), wasm + glue ${kb(w.wasmAndGlue.gzip)} gzip, ${kb(w.wasmAndGlue.brotli)} brotli`);
      }
    }
  }

  try {
    const tw = twiggyReport();
    results.sizes.twiggy = tw;
    console.log(`\nWhere the wasm's ${kb(tw.total)} go (twiggy on ${tw.file}: the release build with names, wasm-opt ${wasmOptFlags.join(" ")} -g):`);
    console.log("  by group (shallow bytes):");
    for (const g of tw.groups.slice(0, 30)) console.log(`    ${kb(g.bytes).padStart(9)} ${((100 * g.bytes) / tw.total).toFixed(1).padStart(5)}%  ${g.name} (${g.items} items)`);
    console.log("  top items:");
    for (const i of tw.top.slice(0, 20)) console.log(`    ${String(i.bytes).padStart(7)} B  ${i.name.slice(0, 150)}`);
    console.log("  largest monomorphized generics (bloat bytes, total bytes):");
    for (const m of tw.monos.slice(0, 10)) console.log(`    ${m.slice(0, 160)}`);
  } catch (e) {
    console.log(`\ntwiggy: ${e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Summary of the stream bench against the issue's targets.

function summary() {
  const rows = results.records.filter((r) => r.module?.endsWith("stream.bench.mjs") && r.medianMs !== undefined);
  if (!rows.length) return;
  console.log("\nTargets (issue 8), agentwire's speed-up over each anchor (anchor median / agentwire median):");
  const targets = [
    ["node", "eventsource-parser stream", 3],
    ["node", "eventsource-parser callback", 2],
    ["chromium", "eventsource-parser stream", 2],
  ];
  for (const [env, anchor, want] of targets) {
    for (const r of rows.filter((r) => r.env === env && r.ratios)) {
      const x = r.ratios[anchor];
      const m = r.minRatios?.[anchor];
      console.log(`  ${env.padEnd(8)} ${r.name.padEnd(22)} ×${x.toFixed(2)} vs ${anchor} (fastest runs ×${m?.toFixed(2)}; target ≥ ${want}): ${x >= want ? "met" : "missed"}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------

await prepare();
const files = modules();
say(`modules: ${files.map((f) => relative(root, f)).join(", ")}; ${runs} runs; ${results.machine.cpu}, ${results.machine.cores} cores, load ${results.machine.load}`);
if (groups.includes("node")) {
  console.log(`\nNode ${process.version}:`);
  for (const f of files) await runNode(f);
}
if (groups.includes("chromium")) {
  console.log("\nHeadless Chromium:");
  // The `ai` package (the partial-JSON anchor) is an npm package with dependencies of its own: that
  // comparison runs in Node only.
  await runChromium(files.filter((f) => !NODE_ONLY.includes(basename(f))));
  console.log(`  (Chromium ${results.chromium})`);
}
summary();
if (groups.includes("sizes")) printSizes();
if (groups.includes("profile")) {
  console.log("\nV8 CPU profile of AgentStreamDecoder in Node (js/bench/profile.mjs, the named wasm):");
  if (!existsSync(join(benchDir, "named/agentwire_opt_named.wasm"))) twiggyReport(); // writes it
  results.profile = {};
  for (const v of ["per-event", "batch", "final-only"]) {
    const out = await new Promise((resolve) => {
      const child = spawn(process.execPath, [join(here, "profile.mjs"), v, String(Math.max(runs, 5))], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
      let text = "";
      child.stdout.on("data", (d) => (text += d));
      child.on("close", (code) => {
        if (code !== 0) failed = true;
        resolve(text);
      });
    });
    results.profile[v] = out;
    console.log(out.replace(/^/gm, "  ").trimEnd());
  }
}
if (groups.includes("native")) results.native = runNative();
if (groups.includes("variants")) {
  const rows = runVariants(say);
  results.variants = rows;
  console.log("\nThe same sources at other optimization levels (Node, interleaved with the anchors; wasm gzip -9):");
  for (const r of rows) {
    const size = r.wasm ? `  wasm ${kb(r.wasm.raw)} raw, ${kb(r.wasm.gzip)} gzip` : "";
    const ratios = r.ratios ? "  " + Object.entries(r.ratios).map(([k, v]) => `×${v.toFixed(2)} vs ${k.replace("eventsource-parser ", "")}`).join(", ") : "";
    console.log(`  ${r.variant.padEnd(38)} ${r.mode.padEnd(11)} ${fmt(r.medianMs).padStart(8)} ms ${fmt(r.mbPerSec).padStart(7)} MB/s${ratios}${size}`);
  }
}
writeFileSync(join(benchDir, "results.json"), JSON.stringify(results, null, 2));
say(`results in ${relative(root, join(benchDir, "results.json"))}`);
if (failed) {
  say("a bench module failed (see ERROR above)");
  process.exitCode = 1;
}
