// Where the time of AgentStreamDecoder goes in V8: samples the CPU (node:inspector) while the
// corpus is decoded by a build that keeps the wasm function names (target/bench/named/, written by
// the sizes group of run.mjs: the release wasm through wasm-bindgen and `wasm-opt -Oz -g`), and
// sums the self time per function and per stage. With a function's name (as the list of top
// functions prints it) it also says which callers that function's time came from (three frames up).
//
//   node js/bench/profile.mjs [per-event|batch|final-only] [runs] [function]
import { Session } from "node:inspector/promises";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchDir } from "./paths.mjs";
import { agentwireVariants, decode as decodeWith } from "./stream.bench.mjs";

const variant = process.argv[2] ?? "per-event";
const runs = Number(process.argv[3] ?? 10);
const callersOf = process.argv[4];
const options = agentwireVariants[{ "per-event": "agentwire per-event", batch: "agentwire batch", "final-only": "agentwire final only" }[variant]];
if (!options) throw new Error(`unknown variant ${variant}: per-event, batch or final-only`);

const dir = join(benchDir, "named");
const wasmFile = join(dir, "agentwire_opt_named.wasm");
if (!existsSync(wasmFile)) throw new Error(`${wasmFile} is missing: run scripts/bench.sh sizes first`);
const glue = await import(pathToFileURL(join(dir, "agentwire.js")).href);
glue.initSync({ module: readFileSync(wasmFile) });
const { splitChunks } = await import(pathToFileURL(join(benchDir, "anchors.mjs")).href);
const bytes = new Uint8Array(readFileSync(join(benchDir, "corpus.sse")));
const chunks = splitChunks(bytes);

// The bench's consumer: reads every update, takes the final response from `done`.
const decode = () => decodeWith(glue.AgentStreamDecoder, chunks, options);

decode(); // warm-up (compiles the wasm's optimized tier)
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 50 });
await session.post("Profiler.start");
const t0 = performance.now();
for (let i = 0; i < runs; i++) decode();
const elapsed = performance.now() - t0;
const { profile } = await session.post("Profiler.stop");
session.disconnect();

// Each sample goes to the stage of the nearest frame on its stack that names one (a memcpy inside the
// event parser is parsing); self time per function is reported beside.
const glueLines = readFileSync(join(dir, "agentwire.js"), "utf8").split("\n");
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// v0-mangled names (the pinned nightly's) carry each crate's disambiguator (`agentwire_core[e22c…]::`):
// dropped, so that the stages' patterns and the printed names read as plain paths.
const nameOf = (f) =>
  (f.functionName || (f.url ? `(anonymous ${f.url.split("/").pop()}:${f.lineNumber + 1})` : "(anonymous)")).replace(/\[[0-9a-f]+\]/g, "");

const FRAME_STAGES = [
  ["the updates (JSON and split text) and response() in Rust (drain_updates_split, to_ts, Serialize impls)",
    /drain_updates_json|drain_updates_split|SplitUpdates|JsAgentStreamDecoder>?::drain|convert::to_ts|convert::to_js|agentstreamdecoder_response|serde_core::ser::Serialize for agentwire|serde_json::ser::to_string/],
  ["event reading (the text deltas' layout, RawEvent's member scan, the JSON scanner)",
    /agentwire_core::dialect::agent_api::(shape|event)::|RawEvent|agentwire_core::json::|serde_json::de::/],
  // The decoder's own functions (anchored: their names carry the assembler's closure as a type
  // argument), before the assembly they call back into.
  ["SSE decoding (SseDecoder)", /^<?agentwire_core::sse::decoder::/],
  ["assembly (Assembler, the limits' tallies, the event cursor)",
    /agentwire_core::dialect::agent_api::(assemble|model)::|agentwire_core::(limits|sse::resume)::/],
];
function frameStage(frame, leaf) {
  const name = nameOf(frame);
  if (frame.url.endsWith("agentwire.js")) {
    if ((glueLines[frame.lineNumber + 1] ?? "").includes("JSON.parse")) return "JSON.parse in JS (updates, response)";
    return leaf ? "wasm-bindgen JS glue (chunk copy in, calls)" : null;
  }
  // One function builds the updates (a profile names functions, not lines): its JSON.parse and
  // the objects and substrings of the texts together.
  if (frame.url.endsWith("updates.js")) return "updates built in JS (src/wasm/updates.js: JSON.parse, a substring per text)";
  if (leaf && frame.functionName === "decode" && (!frame.url || frame.url.startsWith("node:internal/encoding"))) return "TextDecoder (JSON text out of wasm memory)";
  if (leaf && /(profile|stream\.bench)\.mjs$/.test(frame.url)) return "the consumer (reading updates, mapping the response)";
  if (leaf && /garbage collector/.test(name)) return "garbage collection";
  for (const [stage, re] of FRAME_STAGES) if (re.test(name)) return stage;
  return null;
}
const ALLOC = /talc::|__rust_(alloc|dealloc|realloc)|__rdl_|(^|::)mem(cpy|move|set)$|RawVec|do_reserve_and_handle|finish_grow|append_elements|extend_from_slice|drop_in_place|drop_glue/;

const self = new Map();
const stages = new Map();
let allocMs = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = (profile.timeDeltas[i] ?? 0) / 1e3;
  const leaf = byId.get(profile.samples[i]);
  const leafName = nameOf(leaf.callFrame);
  self.set(leafName, (self.get(leafName) ?? 0) + dt);
  if (ALLOC.test(leafName)) allocMs += dt;
  let stage = null;
  for (let id = leaf.id, first = true; id !== undefined && !stage; id = parent.get(id), first = false) {
    stage = frameStage(byId.get(id).callFrame, first);
  }
  stage ??= /::/.test(leafName) ? "other wasm" : "other (program, idle, builtins)";
  stages.set(stage, (stages.get(stage) ?? 0) + dt);
}

const total = [...self.values()].reduce((s, ms) => s + ms, 0);
const pct = (ms) => `${((100 * ms) / total).toFixed(1).padStart(5)}%`;
console.log(`AgentStreamDecoder ${variant}: ${runs} runs of ${bytes.length} bytes in ${elapsed.toFixed(0)} ms ` +
  `(${(elapsed / runs).toFixed(1)} ms per run under the profiler; ${total.toFixed(0)} ms sampled)`);
console.log("by stage (each sample to the nearest stage on its stack):");
for (const [s, ms] of [...stages].sort((a, b) => b[1] - a[1])) console.log(`  ${pct(ms)} ${(ms / runs).toFixed(1).padStart(7)} ms/run  ${s}`);
console.log(`  (across stages, ${pct(allocMs).trim()} is allocation, freeing and copying: Talc, Vec growth, memcpy, drops)`);
console.log("top functions (self time):");
for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  console.log(`  ${pct(ms)} ${(ms / runs).toFixed(1).padStart(7)} ms/run  ${name.slice(0, 130)}`);
}

if (callersOf) {
  // The samples whose leaf is that function, by the chain of its three nearest callers.
  const frame = (id) => {
    const f = byId.get(id).callFrame;
    return nameOf(f).slice(0, 90) + (f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : "");
  };
  const chains = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const leaf = byId.get(profile.samples[i]);
    if (nameOf(leaf.callFrame) !== callersOf) continue;
    const chain = [];
    for (let id = parent.get(leaf.id); id !== undefined && chain.length < 3; id = parent.get(id)) chain.push(frame(id));
    const key = chain.join(" < ");
    chains.set(key, (chains.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1e3);
  }
  console.log(`callers of ${callersOf}:`);
  for (const [key, ms] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    console.log(`  ${(ms / runs).toFixed(2).padStart(7)} ms/run  ${key}`);
  }
}
