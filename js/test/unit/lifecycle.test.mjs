// The TypeScript layer's life cycles, without a server: async iterators (calls of next() not
// awaited, return() while one waits), watches and checks stopped from a callback, what free()
// and `retainMessages: false` release, listeners of a run session, the tool loop's edges.
import { test } from "node:test";
import assert from "node:assert/strict";
import v8 from "node:v8";
import vm from "node:vm";
import { agentwire } from "../helpers.mjs";

// The wasm module's memory, captured as the package instantiates it: what a leak of wasm objects
// grows (it never shrinks).
let instance;
const Instance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(Instance, {
  construct(target, args) {
    const i = Reflect.construct(target, args);
    instance ??= i;
    return i;
  },
});
const aw = await agentwire();
WebAssembly.Instance = Instance;
const wasmBytes = () => instance.exports.memory.buffer.byteLength;
v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

const { AgentClient, RequestBuilder, ProtocolError, RunSession, applyPartialChanges } = aw;
const enc = new TextEncoder();
const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
const request = () => new RequestBuilder().text("user", "hi").build();
const within = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r("still waiting"), ms))]);

/** A client whose one answer is an event stream the test writes to (`send`, `close`). */
function controlled() {
  let controller;
  const body = new ReadableStream({ start: (c) => (controller = c) });
  const client = new AgentClient({
    baseUrl: "http://agent.test",
    fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
  });
  return {
    client,
    send: (...events) => controller.enqueue(enc.encode(events.map(ev).join(""))),
    close: () => controller.close(),
  };
}

const created = { object: "response", id: "r1", status: "created", output: [] };
const completed = { object: "response", id: "r1", status: "completed", output: [] };
const message = (id, status, type = "message") => ({ object: "message", id, type, role: "assistant", status, content: [] });
const namedText = (msgId, name, text, status = "completed") => ({
  object: "content", type: "text", index: 0, delta: false, msg_id: msgId, status, text, name,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("calls of next() made without awaiting are answered in order, none left waiting", async () => {
  const { client, send, close } = controlled();
  const stream = client.stream(request());
  const it = stream[Symbol.asyncIterator]();
  const a = it.next();
  const b = it.next();
  const c = it.next();
  send(created, message("m1", "in_progress"));
  const [ra, rb] = await within(Promise.all([a, b]), 1000);
  assert.equal(ra.value.type, "response");
  assert.equal(rb.value.type, "message");
  send(completed);
  close();
  assert.equal((await within(c, 1000)).value.type, "response");
  await stream.response;
});

test("return() answers a next() still waiting with done at once, while the stream goes on", async () => {
  const { client, send, close } = controlled();
  const stream = client.stream(request());
  const it = stream[Symbol.asyncIterator]();
  const waiting = it.next();
  assert.deepEqual(await it.return(), { value: undefined, done: true });
  assert.deepEqual(await within(waiting, 500), { value: undefined, done: true });
  // Another iterator still gets what comes; the one left gets nothing more.
  const other = stream[Symbol.asyncIterator]();
  send(created);
  assert.equal((await other.next()).value.type, "response");
  assert.deepEqual(await it.next(), { value: undefined, done: true });
  send(completed);
  close();
  await stream.response;
});

test("a handler that throws undefined: response and the iterator reject with undefined, as thrown", async () => {
  const { client, send } = controlled();
  const stream = client.stream(request(), {
    onResponse: () => {
      throw undefined;
    },
  });
  const it = stream[Symbol.asyncIterator]();
  send(created);
  await assert.rejects(stream.response, (e) => e === undefined);
  await assert.rejects(it.next(), (e) => e === undefined);
});

test("a watch or check stopped by another's callback is not called again, and the stream goes on", async () => {
  const { client, send, close } = controlled();
  const stream = client.stream(request());
  const calls = [];
  let stopB;
  let stopD;
  stream.onPart("/**", (part, change) => {
    calls.push(`A ${change.type}`);
    stopB();
  });
  stopB = stream.onPart("/**", (part, change) => calls.push(`B ${change.type}`));
  const schema = { parts: [{ name: "/only-this" }] };
  stream.validateWith(schema, (v) => {
    calls.push(`C ${v.code}`);
    stopD();
  });
  stopD = stream.validateWith(schema, (v) => calls.push(`D ${v.code}`));
  send(created, message("m1", "in_progress"), namedText("m1", "/sources/1", "https://example.com", "in_progress"));
  send({ object: "content", type: "text", index: 0, delta: true, msg_id: "m1", status: "in_progress", text: "/2" });
  send(message("m1", "completed"), completed);
  close();
  const response = await stream.response;
  assert.equal(response.status, "completed");
  assert.ok(calls.includes("A part") && calls.includes("A delta"), calls.join(", "));
  assert.ok(calls.some((c) => c.startsWith("C ")), calls.join(", "));
  assert.ok(!calls.some((c) => c.startsWith("B ") || c.startsWith("D ")), calls.join(", "));
});

test("watches and checks refuse a callback that is not a function", () => {
  const { client } = controlled();
  const stream = client.stream(request());
  const wrong = (what) => (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === what;
  assert.throws(() => stream.onPart("/**", 5), wrong("fn"));
  assert.throws(() => stream.validateWith({ parts: [] }, "x"), wrong("onViolation"));
  stream.free();
});

test("free() releases the schemas validateWith compiled from JSON (wasm memory stays flat)", async () => {
  const schema = { parts: Array.from({ length: 40 }, (_, i) => ({ name: `/part/${i}/**`, contentType: "text/*" })) };
  const round = async (n) => {
    for (let i = 0; i < n; i++) {
      const { client } = controlled();
      const stream = client.stream(request());
      stream.validateWith(schema, () => {});
      stream.onPart("/sources/*", () => {});
      stream.free();
      await stream.response.catch(() => {});
      client.free();
    }
  };
  await round(200); // warm up: the allocator's pages
  const before = wasmBytes();
  await round(2000);
  // Each schema holds about 30 KB: 2,000 kept would grow the memory by about 60 MB.
  assert.ok(wasmBytes() - before < 4 << 20, `wasm memory grew ${wasmBytes() - before} bytes`);
});

test("retainMessages: false: the client forgets each message once it ends (JavaScript heap flat)", async () => {
  const { client, send, close } = controlled();
  const stream = client.stream(request(), { onToolCall: () => {} }, { retainMessages: false });
  stream.onPart("/notes/*", () => {});
  stream.validateWith({ parts: [{ name: "/notes/*" }] }, () => {}, { messageTypes: null });
  send(created);
  const batch = async (from, n) => {
    const events = [];
    for (let i = from; i < from + n; i++) {
      const id = `msg_${String(i).padStart(32, "0")}`;
      const type = i % 2 ? "function_call" : "message";
      events.push(message(id, "in_progress", type));
      events.push(
        type === "message"
          ? namedText(id, "/notes/1", "hello")
          : { object: "content", type: "data", index: 0, msg_id: id, status: "completed", data: { call_id: `c${i}`, name: "f", arguments: "{}" } },
      );
      events.push(message(id, "completed", type));
    }
    send(...events);
    await sleep(0);
  };
  for (let i = 0; i < 5000; i += 500) await batch(i, 500);
  gc();
  const before = v8.getHeapStatistics().used_heap_size;
  for (let i = 5000; i < 45000; i += 500) await batch(i, 500);
  gc();
  const grown = v8.getHeapStatistics().used_heap_size - before;
  send(completed);
  close();
  assert.equal((await stream.response).output.length, 0);
  // What the layer kept per message (types, watched parts, checks, tool calls) was about 300
  // bytes: 40,000 messages kept would grow the heap by about 12 MB.
  assert.ok(grown < 3 << 20, `the JavaScript heap grew ${grown} bytes`);
});

test("a run session's listener removed by an earlier one is not called; listeners must be functions", () => {
  const calls = [];
  let offB;
  const session = new RunSession("interruptibleChat", {});
  session.onStateChange(() => {
    calls.push("A");
    offB();
  });
  offB = session.onStateChange(() => calls.push("B"));
  session.send("message", "Hello");
  assert.deepEqual(calls, ["A"]);
  const wrong = (what) => (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === what;
  assert.throws(() => session.onStateChange(5), wrong("fn"));
  assert.throws(() => session.onMessage("x"), wrong("fn"));
  assert.throws(() => new RunSession("interruptibleChat", { onStateChange: 5 }), wrong("options.onStateChange"));
  assert.throws(() => new RunSession("interruptibleChat", "strict"), wrong("options"));
  session.free();
});

test("stream options and a client's tools of the wrong kind throw invalid-argument", () => {
  const { client } = controlled();
  const wrong = (what) => (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === what;
  assert.throws(() => client.stream(request(), {}, 42), wrong("options"));
  assert.throws(() => new AgentClient({ baseUrl: "http://agent.test", tools: {} }), wrong("options.tools"));
});

/** A client whose first answer calls tool `f`, and whose later answers complete; counts the POSTs. */
function toolClient() {
  const posts = [];
  const answer = (events) => new Response(enc.encode(events.map(ev).join("")), { headers: { "content-type": "text/event-stream" } });
  const client = new AgentClient({
    baseUrl: "http://agent.test",
    fetch: async (r) => {
      posts.push(r);
      if (posts.length > 1) return answer([created, message("m9", "completed"), completed]);
      return answer([
        created,
        message("f1", "in_progress", "function_call"),
        { object: "content", type: "data", index: 0, msg_id: "f1", status: "completed", data: { call_id: "c1", name: "f", arguments: "{}" } },
        message("f1", "completed", "function_call"),
        completed,
      ]);
    },
  });
  return { client, posts };
}

test("a tool that throws an odd value sends an EXECUTION error; the stream goes on", async () => {
  const odd = [
    Object.create(null),
    Object.assign(new Error("x"), { message: { not: "a string" } }),
    Object.defineProperty(new Error("x"), "message", {
      get() {
        throw new Error("getter");
      },
    }),
  ];
  // Each thrown by the tool, and by its result's toJSON (while the result is converted to JSON).
  const tools = odd.flatMap((thrown) => [
    () => {
      throw thrown;
    },
    () => ({
      toJSON() {
        throw thrown;
      },
    }),
  ]);
  for (const tool of tools) {
    const { client } = toolClient();
    const results = [];
    client.tools.register("f", { type: "object" }, tool);
    const stream = client.stream(request(), { onToolResult: (o) => results.push(o) });
    assert.equal((await stream.response).status, "completed");
    assert.equal(results.length, 1);
    assert.equal(results[0].type, "error");
    assert.equal(results[0].error.errorType, "EXECUTION");
    assert.equal(typeof results[0].error.message, "string");
    client.free();
  }
});

test("freeing the stream in onToolRound opens no further round", async () => {
  const { client, posts } = toolClient();
  client.tools.register("f", { type: "object" }, () => "ok");
  const stream = client.stream(request(), { onToolRound: () => stream.free() });
  await assert.rejects(stream.response, (e) => e.code === "aborted");
  assert.equal(posts.length, 1);
  client.free();
});

test("applyPartialChanges refuses array indexes that are not integers from 0", () => {
  for (const index of [-1, 1.5, NaN]) {
    assert.throws(
      () => applyPartialChanges({ list: ["a", "b"] }, [{ op: "set", path: ["list", index], value: "X" }]),
      (e) => e instanceof ProtocolError && e.code === "invalid-argument",
      String(index),
    );
  }
  assert.deepEqual(applyPartialChanges({ list: ["a", "b"] }, [{ op: "set", path: ["list", 2], value: "X" }]), { list: ["a", "b", "X"] });
});
