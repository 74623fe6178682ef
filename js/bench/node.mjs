// Runs one bench module in this Node process and prints its results as `BENCH {json}` lines.
// Started by run.mjs as `node --expose-gc js/bench/node.mjs <module.bench.mjs>`.
import { createReadStream, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { setImmediate } from "node:timers/promises";
import { benchDir, root } from "./paths.mjs";

const file = resolve(process.argv[2]);
const runs = Number(process.env.AGENTWIRE_BENCH_RUNS || 7);

const emit = (record) => process.stdout.write(`BENCH ${JSON.stringify(record)}\n`);

let fresh = 0;
const ctx = {
  agentwire: await import(pathToFileURL(join(root, "pkg/node/index.js")).href),
  env: "node",
  runs,
  log: (name, result) => emit({ module: file, env: "node", name, ...result }),
  corpus: {
    bytes: new Uint8Array(readFileSync(join(benchDir, "corpus.sse"))),
    expected: JSON.parse(readFileSync(join(benchDir, "expected.json"), "utf8")),
    events: JSON.parse(readFileSync(join(benchDir, "corpus.json"), "utf8")).events,
  },
  anchors: await import(pathToFileURL(join(benchDir, "anchors.mjs")).href),
  async *readChunks(name) {
    for await (const chunk of createReadStream(join(benchDir, name), { highWaterMark: 64 * 1024 })) {
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
  },
  // The browser build's glue, imported under a new URL, is a separate module with its own wasm
  // instance; its synchronous initializer returns the instance's exports (and so its memory).
  async freshInstance() {
    const glue = await import(pathToFileURL(join(root, "pkg/web/agentwire.js")).href + `?instance=${++fresh}`);
    const exports = glue.initSync({ module: readFileSync(join(root, "pkg/web/agentwire_bg.wasm")) });
    return { glue, memory: exports.memory, exports };
  },
  // The package's browser build with its TS layer, loaded in this process (once), and the memory of
  // its wasm instance (the glue's initializer returns the exports of the instance it made).
  async webPackage() {
    const agentwire = await import(pathToFileURL(join(root, "pkg/web/index.js")).href);
    await agentwire.init(readFileSync(join(root, "pkg/web/agentwire_bg.wasm")));
    const glue = await import(pathToFileURL(join(root, "pkg/web/agentwire.js")).href);
    const exports = await glue.default();
    return { agentwire, memory: exports.memory, exports };
  },
  heapUsed: () => process.memoryUsage().heapUsed,
  yieldToLoop: () => setImmediate(),
  async gc() {
    if (typeof globalThis.gc !== "function") throw new Error("run node with --expose-gc");
    for (let i = 0; i < 3; i++) {
      globalThis.gc();
      await setImmediate();
    }
  },
};

const mod = await import(pathToFileURL(file).href);
try {
  await mod.run(ctx);
} catch (e) {
  emit({ module: file, env: "node", name: "error", error: String(e?.stack ?? e) });
  process.exitCode = 1;
}
