// Memory (printed, not asserted): the wasm memory of one 100 MB stream, and wasm memory and JS heap
// over 10,000 consecutive streams. Every measurement uses a fresh wasm instance, because a wasm
// memory never shrinks: `memory.buffer.byteLength` is the instance's high-water mark.
const MB = 1024 * 1024;
const mb = (b) => Number((b / MB).toFixed(2));

async function collect(ctx, file) {
  const parts = [];
  for await (const c of ctx.readChunks(file)) parts.push(c);
  const out = new Uint8Array(parts.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of parts) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** The wasm-bindgen externref table (JS values held by wasm), if the module exports one. */
const tableOf = (exports) => Object.values(exports).find((v) => v instanceof WebAssembly.Table);

/** One 100 MB stream read chunk by chunk from the server/file; wasm memory as it goes. */
async function bigStream(ctx, name, options) {
  const { glue, memory } = await ctx.freshInstance();
  const initial = memory.buffer.byteLength;
  const decoder = new glue.AgentStreamDecoder(options);
  let bytes = 0;
  let updates = 0;
  let completed = 0; // message updates with status completed
  let largestChunk = 0;
  let next = 10e6;
  const curve = [];
  const jumps = [];
  for await (const chunk of ctx.readChunks("corpus-100mb.sse")) {
    const before = memory.buffer.byteLength;
    const drained = decoder.feed(chunk); // drained each chunk (empty with updates: false)
    updates += drained.length;
    for (const u of drained) if (u.type === "message" && u.message.status === "completed") completed++;
    bytes += chunk.length;
    largestChunk = Math.max(largestChunk, chunk.length);
    // A chunk that grew the memory by 2 MiB or more: where (MB of input) and by how much.
    const grew = memory.buffer.byteLength - before;
    if (grew >= 2 * MB) jumps.push(`${(bytes / 1e6).toFixed(1)}:+${mb(grew)}`);
    if (bytes >= next) {
      curve.push(`${Math.round(bytes / 1e6)}:${mb(memory.buffer.byteLength)}`);
      next += 10e6;
    }
  }
  const streaming = memory.buffer.byteLength;
  updates += decoder.finish().length;
  const finished = memory.buffer.byteLength;
  const response = decoder.response();
  const afterResponse = memory.buffer.byteLength;
  decoder.free();
  const meta = JSON.parse(new TextDecoder().decode(await collect(ctx, "corpus-100mb.json")));
  // Every message completed (seen in the updates), and the response keeps them unless released.
  const released = options.retainMessages === false;
  if (options.updates !== false && completed !== meta.messages) {
    throw new Error(`${name}: ${completed} messages completed, expected ${meta.messages}`);
  }
  if (response.output.length !== (released ? 0 : meta.messages)) {
    throw new Error(`${name}: the response holds ${response.output.length} messages`);
  }
  ctx.log(name, {
    streamMiB: mb(bytes),
    messages: meta.messages,
    messagesHeld: response.output.length,
    updates,
    wasmInitialMiB: mb(initial),
    wasmWhileStreamingMiB: mb(streaming),
    wasmAfterFinishMiB: mb(finished),
    wasmAfterResponseMiB: mb(afterResponse),
    assembledMessagesJsonMiB: mb(meta.messagesJson),
    largestMessageJsonKiB: Number((meta.largestMessageJson / 1024).toFixed(1)),
    largestChunkKiB: Number((largestChunk / 1024).toFixed(1)), // the updates of one chunk are built at once
    curve: curve.join(" "), // MB of input : MiB of wasm memory
    jumps: jumps.join(" ") || "none",
  });
}

/**
 * 10,000 streams one after another through the decoder: create it, feed a small response, finish,
 * read the response, and free it (or drop it for the FinalizationRegistry).
 */
function decoderStream(glue, small, free) {
  return () => {
    const d = new glue.AgentStreamDecoder();
    d.feed(small);
    d.finish();
    const n = d.response().output.length;
    if (free) d.free();
    return n;
  };
}

/**
 * The same through AgentClient.stream (fetch, ReadableStream reading, the per-chunk sink, the
 * response promise) with a `fetch` that answers from memory: the closures and promises of the
 * network path, without a network.
 */
function clientStream(glue, small, free) {
  const fetch = async () => new Response(small, { headers: { "content-type": "text/event-stream" } });
  const client = new glue.AgentClient({ baseUrl: "http://bench.invalid", fetch });
  const request = new glue.RequestBuilder().text("user", "hi").build();
  return async () => {
    let updates = 0;
    const handle = client.stream(request, (u) => { updates += u.length; });
    const response = await handle.response;
    if (free) handle.free();
    return response.output.length + updates;
  };
}

/**
 * The same through the package's TypeScript AgentClient (handlers, async iteration), which has no
 * way to free a stream: its wasm handle waits for the garbage collector.
 */
function tsClientStream(agentwire, small) {
  const fetch = async () => new Response(small, { headers: { "content-type": "text/event-stream" } });
  const client = new agentwire.AgentClient({ baseUrl: "http://bench.invalid", fetch });
  const request = new agentwire.RequestBuilder().text("user", "hi").build();
  return async () => {
    let text = 0;
    const stream = client.stream(request, { onTextDelta: (t) => { text += t.length; } });
    const response = await stream.response;
    return response.output.length + text;
  };
}

/** Runs `make(glue, small, free)`'s stream 10,000 times; samples every 1,000 streams. */
async function manyStreams(ctx, name, make, { free, gcEvery, instance }) {
  const { glue, memory, exports } = instance ?? (await ctx.freshInstance());
  const table = tableOf(exports);
  const one = make(glue, ctx.small, free);
  for (let i = 0; i < 100; i++) await one();
  await ctx.gc();
  const base = { wasm: memory.buffer.byteLength, heap: ctx.heapUsed(), table: table?.length };
  const samples = [];
  for (let i = 1; i <= 10000; i++) {
    await one();
    if (i % 100 === 0) await ctx.yieldToLoop();
    if (i % 1000 === 0) {
      if (gcEvery) await ctx.gc();
      samples.push({ i, wasm: memory.buffer.byteLength, heap: ctx.heapUsed(), table: table?.length });
    }
  }
  await ctx.gc();
  const end = { wasm: memory.buffer.byteLength, heap: ctx.heapUsed(), table: table?.length };
  // Freed or leaked? A wasm memory never shrinks, but freed blocks are reused: 2,000 more streams
  // with a GC every 200 must not raise the high-water mark if everything was released.
  for (let i = 1; i <= 2000; i++) {
    await one();
    if (i % 200 === 0) await ctx.gc();
  }
  const more = { wasm: memory.buffer.byteLength, table: table?.length };
  const at = (n) => samples.find((s) => s.i === n);
  ctx.log(name, {
    smallResponseBytes: ctx.small.length,
    wasmStartMiB: mb(base.wasm),
    wasmAt1000MiB: mb(at(1000).wasm),
    wasmAt10000MiB: mb(at(10000).wasm),
    wasmAfterGcMiB: mb(end.wasm),
    wasmAfter2000MoreMiB: mb(more.wasm),
    heapStartMiB: mb(base.heap),
    heapAt1000MiB: mb(at(1000).heap),
    heapAt10000MiB: mb(at(10000).heap),
    heapAfterGcMiB: mb(end.heap),
    externrefTable: table ? `${base.table}→${end.table}→${more.table}` : "n/a",
    wasmCurveMiB: samples.map((s) => mb(s.wasm)).join(" "),
    heapCurveMiB: samples.map((s) => mb(s.heap)).join(" "),
  });
}

export async function run(ctx) {
  ctx.small = await collect(ctx, "small.sse");
  await bigStream(ctx, "100 MB stream, updates: false", { updates: false });
  await bigStream(ctx, "100 MB stream, per-event updates drained each chunk", {});
  await bigStream(ctx, "100 MB stream, batch updates drained each chunk", { batch: true });
  await bigStream(ctx, "100 MB stream, per-event updates, retainMessages: false", { retainMessages: false });
  await bigStream(ctx, "100 MB stream, batch updates, retainMessages: false", { batch: true, retainMessages: false });
  await manyStreams(ctx, "10,000 decoders, free() each", decoderStream, { free: true, gcEvery: true });
  await manyStreams(ctx, "10,000 decoders, no free(), GC each 1,000", decoderStream, { free: false, gcEvery: true });
  await manyStreams(ctx, "10,000 decoders, no free(), no forced GC", decoderStream, { free: false, gcEvery: false });
  await manyStreams(ctx, "10,000 AgentClient streams, free() each", clientStream, { free: true, gcEvery: true });
  await manyStreams(ctx, "10,000 AgentClient streams, no free(), GC each 1,000", clientStream, { free: false, gcEvery: true });
  // Last: the package's own instance (its high-water mark is only fresh once).
  const web = await ctx.webPackage();
  await manyStreams(ctx, "10,000 TS AgentClient streams, no forced GC", (glue, small) => tsClientStream(glue, small), {
    free: false, gcEvery: false, instance: { glue: web.agentwire, memory: web.memory, exports: web.exports },
  });
}
