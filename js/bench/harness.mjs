// Timing helpers shared by the bench modules; they run unchanged in Node and in the browser page.
//
// A bench module is a file js/bench/<name>.bench.mjs exporting
//   async function run(ctx)
// where ctx has
//   agentwire        the package (Node: pkg/node/index.js; Chromium: pkg/web/index.js, initialized)
//   log(name, r)     reports one result: r.medianMs (and optionally mbPerSec, eventsPerSec, minMs,
//                    maxMs, runs, and any other fields, printed as `key=value`)
//   env              "node" or "chromium"
//   runs             how many timed runs a measurement should take (AGENTWIRE_BENCH_RUNS, default 7)
//   corpus           { bytes: Uint8Array, expected, events }: gen-corpus.mjs's 1,000-message corpus
//   anchors          { splitChunks, pipelines, checkMessages } from ../shared/bench/anchors.mjs
//   readChunks(file) an async iterable of the bytes of target/bench/<file>, chunk by chunk
//   freshInstance()  a new, separate instance of the wasm module: { glue, memory, exports } where
//                    glue is the raw wasm-bindgen module of the browser build (the classes without
//                    the TS layer), memory its WebAssembly.Memory and exports the raw wasm exports
//                    (for memory measurements that need a fresh high-water mark)
//   webPackage()     the package's browser build with its TS layer (in Node loaded once more, from
//                    pkg/web), initialized: { agentwire, memory, exports } of its wasm instance
//   heapUsed()       JS heap in use in bytes (after gc() it is the live heap)
//   gc()             a full garbage collection (Node --expose-gc, Chromium --js-flags=--expose-gc),
//                    then a few turns of the event loop so FinalizationRegistry callbacks run
//   yieldToLoop()    one turn of the event loop (a macrotask)
// Each module runs in a fresh process (Node) or a fresh page (Chromium).

export const now = () => performance.now();

/** The median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/**
 * Times several contestants on the same input, interleaved (run 1 of each, then run 2 of each, …)
 * so a change of machine load affects all of them alike. Each contestant is first run once as a
 * warm-up whose result `check(result, name)` validates. Every other round runs the contestants in
 * reverse order, so that none always follows the same one (and pays for the garbage it left).
 * No garbage collection is forced between runs: a full collection before each run shrank the heap
 * and slowed every contestant that allocates much (in Node the stream pipeline went from 167 to
 * 204 ms, agentwire's per-event updates from 50 to 54). Returns
 * { name: { medianMs, minMs, maxMs, runs, times } }.
 */
export async function timeInterleaved(contestants, { runs, check }) {
  for (const [name, fn] of Object.entries(contestants)) {
    const result = await fn();
    try {
      check?.(result, name);
    } catch (e) {
      throw new Error(`${name}: wrong result: ${e.message}`);
    }
  }
  const times = Object.fromEntries(Object.keys(contestants).map((k) => [k, []]));
  for (let r = 0; r < runs; r++) {
    const order = Object.entries(contestants);
    if (r % 2) order.reverse();
    for (const [name, fn] of order) {
      const t0 = now();
      await fn();
      times[name].push(now() - t0);
    }
  }
  const out = {};
  for (const [name, ts] of Object.entries(times)) {
    out[name] = { medianMs: median(ts), minMs: Math.min(...ts), maxMs: Math.max(...ts), runs: ts.length, times: ts };
  }
  return out;
}

/** MB/s (10^6 bytes per second) for `bytes` processed in `ms`. */
export const mbPerSec = (bytes, ms) => bytes / 1e6 / (ms / 1e3);
