// The browser side of the bench: runs the module named in `?module=` with the same context as
// node.mjs, reporting through `window.benchReport` (exposed by run.mjs with Playwright).
import init, * as agentwire from "/pkg/web/index.js";

const params = new URLSearchParams(location.search);
const moduleUrl = params.get("module");
const runs = Number(params.get("runs") || 7);
const report = (record) => window.benchReport(record);

async function fetchOk(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r;
}

async function main() {
  await init();
  const [bytes, expected, meta] = await Promise.all([
    fetchOk("/target/bench/corpus.sse").then((r) => r.arrayBuffer()),
    fetchOk("/target/bench/expected.json").then((r) => r.json()),
    fetchOk("/target/bench/corpus.json").then((r) => r.json()),
  ]);
  const channel = new MessageChannel();
  const waiters = [];
  channel.port1.onmessage = () => waiters.shift()?.();
  const yieldToLoop = () => new Promise((r) => { waiters.push(r); channel.port2.postMessage(0); });
  let fresh = 0;
  const ctx = {
    agentwire,
    env: "chromium",
    runs,
    log: (name, result) => report({ module: moduleUrl, env: "chromium", name, ...result }),
    corpus: { bytes: new Uint8Array(bytes), expected, events: meta.events },
    anchors: await import("/target/bench/anchors.mjs"),
    async *readChunks(name) {
      const reader = (await fetchOk(`/target/bench/${name}`)).body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value;
      }
    },
    async freshInstance() {
      const glue = await import(`/pkg/web/agentwire.js?instance=${++fresh}`);
      const exports = await glue.default({ module_or_path: "/pkg/web/agentwire_bg.wasm" });
      return { glue, memory: exports.memory, exports };
    },
    // The page's package (the TS layer) and the memory of its wasm instance.
    async webPackage() {
      const exports = await (await import("/pkg/web/agentwire.js")).default();
      return { agentwire, memory: exports.memory, exports };
    },
    // Exact with --enable-precise-memory-info (run.mjs passes it).
    heapUsed: () => performance.memory?.usedJSHeapSize,
    yieldToLoop,
    async gc() {
      if (typeof window.gc !== "function") throw new Error("start Chromium with --js-flags=--expose-gc");
      for (let i = 0; i < 3; i++) {
        window.gc();
        await yieldToLoop();
        await new Promise((r) => setTimeout(r, 0));
      }
    },
  };
  const mod = await import(moduleUrl);
  await mod.run(ctx);
}

main().then(
  () => report({ done: true }),
  (e) => report({ done: true, module: moduleUrl, env: "chromium", name: "error", error: String(e?.stack ?? e) }),
);
