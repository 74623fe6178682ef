// The sans-IO decoders over real server bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, shared } from "../helpers.mjs";

const { AgentClient, AgentStreamDecoder, SseDecoder, AgentxStreamDecoder, PartialJson, Pattern, ProtocolError, RequestBuilder, encodeAgentEvent } = await agentwire();
const fixture = (p) => readFileSync(join(shared, "fixtures", p));

test("AgentStreamDecoder assembles every agentscope-runtime fixture identically at any chunking", () => {
  for (const name of ["process-raw.sse", "process-text.sse", "process-agentscope.sse"]) {
    const bytes = fixture(`agentscope-runtime/${name}`);
    const whole = new AgentStreamDecoder();
    whole.feed(bytes);
    whole.finish();
    const expected = whole.response();
    for (const size of [1, 7, 64, 1000]) {
      const d = new AgentStreamDecoder();
      for (let i = 0; i < bytes.length; i += size) d.feed(bytes.subarray(i, i + size));
      d.finish();
      assert.deepEqual(d.response(), expected, `${name} in ${size}-byte chunks`);
      d.free();
    }
    assert.equal(expected.status, "completed", name);
  }
});

test("objects keep the members' order the server wrote, as JSON.parse does: data, nested objects, unknown members", () => {
  const data = { zeta: 1, alpha: { y: 1, b: 2 }, mid: [{ q: 1, p: 2 }] };
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const sse =
    ev({ object: "response", id: "r1", status: "created" }) +
    ev({ object: "message", id: "m1", type: "message", role: "assistant", status: "in_progress", x_z: 1, x_a: 2 }) +
    ev({ object: "content", msg_id: "m1", index: 0, type: "data", status: "completed", data }) +
    ev({ object: "response", id: "r1", status: "completed" });
  for (const options of [{}, { batch: true }]) {
    const d = new AgentStreamDecoder(options);
    const updates = [...d.feed(new TextEncoder().encode(sse)), ...d.finish()];
    const content = updates.find((u) => u.type === "content");
    assert.equal(JSON.stringify(content.content.data), JSON.stringify(data), JSON.stringify(options));
    const message = d.response().output[0];
    assert.deepEqual(Object.keys(message).filter((k) => k.startsWith("x_")), ["x_z", "x_a"]);
    assert.equal(JSON.stringify(message.content[0].data), JSON.stringify(data));
    d.free();
  }
});

test("updates and the response carry text exactly: UTF-16 offsets, escapes, JSON key order", () => {
  // Text crosses from wasm beside the JSON (src/wasm/updates.js): characters of two, three and
  // four UTF-8 bytes (a surrogate pair in JavaScript), characters JSON escapes, interleaved
  // messages, a completed content whose text moves out of the JSON and one whose does not (a
  // field after `text`), and the final response.
  const pieces = [
    ["m1", "caf\u00e9 "],
    ["m2", '"quoted"\n\\ \u0001'],
    ["m1", "\u{1F600}!"],
    ["m2", "\u6771\u4eac"],
    ["m1", ""],
  ];
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  let sse = ev({ object: "response", id: "r1", status: "in_progress" });
  for (const [m, t] of pieces) sse += ev({ object: "content", msg_id: m, index: 0, delta: true, type: "text", text: t });
  const full = (m) => pieces.filter(([id]) => id === m).map(([, t]) => t).join("");
  sse += ev({ object: "content", msg_id: "m1", index: 0, type: "text", status: "completed", text: full("m1") });
  sse += ev({ object: "content", msg_id: "m2", index: 0, type: "text", status: "completed", text: full("m2"), annotations: [{ a: "\u{1F680}" }] });
  sse += ev({ object: "response", id: "r1", status: "completed" });
  const bytes = new TextEncoder().encode(sse);
  for (const options of [{}, { batch: true }]) {
    for (const size of [1, 5, bytes.length]) {
      const d = new AgentStreamDecoder(options);
      const updates = [];
      for (let i = 0; i < bytes.length; i += size) updates.push(...d.feed(bytes.subarray(i, i + size)));
      updates.push(...d.finish());
      const what = `${JSON.stringify(options)} in ${size}-byte chunks`;
      const deltas = (m) => updates.filter((u) => u.type === "textDelta" && u.msgId === m).map((u) => u.delta).join("");
      assert.equal(deltas("m1"), full("m1"), what);
      assert.equal(deltas("m2"), full("m2"), what);
      if (!options.batch && size === bytes.length) {
        const each = updates.filter((u) => u.type === "textDelta").map((u) => [u.msgId, u.delta]);
        assert.deepEqual(each, pieces.filter(([, t]) => t !== ""), what);
      }
      // Whole contents and the response as the JSON would give them, key order included.
      const response = d.response();
      const done = updates.at(-1);
      assert.equal(done.type, "done", what);
      assert.equal(JSON.stringify(done.response), JSON.stringify(response), what);
      assert.deepEqual(response.output.map((m) => m.content[0].text), [full("m1"), full("m2")], what);
      assert.deepEqual(Object.keys(response.output[1].content[0]).at(-1), "annotations", what);
      const completed = updates.filter((u) => u.type === "content" && u.content.status === "completed");
      assert.deepEqual(completed.map((u) => JSON.stringify(u.content)), response.output.map((m) => JSON.stringify(m.content[0])), what);
      d.free();
    }
  }
});

test("message and content updates built from the table are what serde writes, key order included", () => {
  // Plain message and content updates cross as numbers and strings (SplitUpdates::PLAIN_MESSAGE,
  // PLAIN_CONTENT), not JSON: each must stringify exactly as serde encodes the same object. Real
  // server bytes, then events with every optional field absent or set, a status this version does
  // not know, non-ASCII ids and a sequence number beyond 2^32; and contents that are not plain
  // (an error, a field after `text`, data) through the JSON beside them.
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const made = [
    { object: "message", id: "m\u00e9", type: "message", status: "created", role: "assistant", content: [], sequence_number: 2 ** 32 + 5 },
    { object: "message", id: "m2", type: "reasoning" },
    { object: "content", msg_id: "m\u00e9", index: 0, delta: true, type: "text", text: "a\u{1F600}", sequence_number: 7 },
    { object: "content", msg_id: "m\u00e9", index: 0, type: "text", status: "paused-by-server", text: "a\u{1F600}b", delta: false },
    { object: "content", msg_id: "m2", type: "text", status: "failed", text: "x", error: { code: "E", message: "boom" } },
    { object: "content", msg_id: "m2", index: 1, type: "data", data: { k: [1] }, status: "completed" },
    { object: "content", msg_id: "m2", index: 2, type: "text", text: "y", annotations: [] },
    { object: "message", id: "m2", type: "reasoning", status: "completed", role: "assistant", content: [], metadata: { k: 1 } },
  ];
  const streams = [
    fixture("agentscope-runtime/process-text.sse"),
    fixture("agentscope-runtime/process-agentscope.sse"),
    new TextEncoder().encode(made.map(ev).join("")),
  ];
  let plain = 0;
  for (const bytes of streams) {
    for (const options of [{}, { batch: true }]) {
      const d = new AgentStreamDecoder(options);
      const updates = [...d.feed(bytes), ...d.finish()];
      d.free();
      for (const u of updates) {
        const object = u.type === "message" ? u.message : u.type === "content" ? u.content : undefined;
        if (object === undefined) continue;
        assert.equal(`data: ${JSON.stringify(object)}\n\n`, encodeAgentEvent(object));
        if (u.type === "content") assert.deepEqual(Object.keys(u), ["type", "msgId", "index", "content"]);
        plain += 1;
      }
    }
  }
  assert.ok(plain > 20, `${plain} message and content updates`);
  const d = new AgentStreamDecoder();
  const [first] = d.feed(streams[2]);
  d.free();
  assert.equal(first.message.sequence_number, 2 ** 32 + 5);
  assert.equal(first.message.id, "m\u00e9");
});

test("a chunk over 64 KiB gives the same updates per event as small chunks (it is decoded in slices)", () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  let sse = ev({ object: "response", id: "r1", status: "in_progress" });
  let expected = "";
  // Three messages whose deltas alternate.
  for (let i = 0; i < 3000; i++) {
    const t = `${i} caf\u00e9 \u{1F600} \u6771\u4eac `.repeat(3);
    expected += t;
    sse += ev({ object: "content", msg_id: `m${i % 3}`, index: 0, delta: true, type: "text", text: t });
  }
  sse += ev({ object: "response", id: "r1", status: "completed" });
  const bytes = new TextEncoder().encode(sse);
  assert.ok(bytes.length > 4 * 64 * 1024, `${bytes.length} bytes`);
  const run = (options, size) => {
    const d = new AgentStreamDecoder(options);
    const updates = [];
    for (let i = 0; i < bytes.length; i += size) updates.push(...d.feed(bytes.subarray(i, i + size)));
    updates.push(...d.finish());
    d.free();
    return updates;
  };
  const whole = run({}, bytes.length);
  assert.equal(JSON.stringify(whole), JSON.stringify(run({}, 1000)));
  assert.equal(whole.filter((u) => u.type === "textDelta").length, 3000);
  assert.equal(whole.filter((u) => u.type === "textDelta").map((u) => u.delta).join(""), expected);
  // Batched, the whole chunk is one batch: one delta per content, with the same text.
  const batched = run({ batch: true }, bytes.length).filter((u) => u.type === "textDelta");
  const perMessage = (us, m) => us.filter((u) => u.msgId === m).map((u) => u.delta).join("");
  assert.equal(batched.length, 3);
  for (const m of ["m0", "m1", "m2"]) assert.equal(perMessage(batched, m), perMessage(whole, m), m);
});

test("AgentStreamDecoder ignores bytes fed after finish()", () => {
  const bytes = fixture("agentscope-runtime/process-raw.sse");
  const half = bytes.length >> 1;
  const d = new AgentStreamDecoder();
  d.feed(bytes.subarray(0, half));
  const last = d.finish();
  assert.equal(last.at(-1).type, "done");
  const ended = d.response();
  assert.equal(ended.status, "incomplete");
  assert.deepEqual(d.feed(bytes.subarray(half)), []);
  assert.deepEqual(d.finish(), []);
  assert.deepEqual(d.response(), ended);
  d.free();
});

test("with `updates: false` a stream without issues gives empty arrays and the whole response", () => {
  // Nothing crosses per chunk (no JSON, no text): the drain returns before calling into JS.
  const bytes = fixture("agentscope-runtime/process-raw.sse"); // a stream without issues
  const full = new AgentStreamDecoder();
  full.feed(bytes);
  full.finish();
  const big = new Uint8Array(200 * 1024); // over 64 KiB: fed in slices, one array for the chunk
  big.set(bytes);
  for (let i = bytes.length; i < big.length; i++) big[i] = 0x0a; // blank lines: no events
  for (const chunks of [[bytes.subarray(0, 100), bytes.subarray(100)], [big]]) {
    const d = new AgentStreamDecoder({ updates: false });
    for (const c of chunks) {
      const updates = d.feed(c);
      assert.ok(Array.isArray(updates));
      assert.equal(updates.length, 0);
    }
    assert.deepEqual(d.finish(), []);
    assert.deepEqual(d.response(), full.response());
    d.free();
  }
  // Updates with JSON and no text (a response event alone), and text with no JSON (deltas alone).
  const ev = (o) => new TextEncoder().encode(`data: ${JSON.stringify(o)}\n\n`);
  const d = new AgentStreamDecoder();
  assert.deepEqual(d.feed(ev({ object: "response", id: "r1", status: "in_progress" })).map((u) => u.type), ["response"]);
  d.feed(ev({ object: "message", id: "m1", type: "message", role: "assistant", status: "in_progress" }));
  d.feed(ev({ object: "content", msg_id: "m1", index: 0, delta: true, type: "text", text: "caf\u00e9" }));
  assert.deepEqual(d.feed(ev({ object: "content", msg_id: "m1", index: 0, delta: true, type: "text", text: "!" })), [
    { type: "textDelta", msgId: "m1", index: 0, delta: "!" },
  ]);
  d.free();
});

test("AgentStreamDecoder.feed takes a Uint8Array or an array of byte values, and refuses anything else", () => {
  const bytes = new TextEncoder().encode('data: {"object":"response","id":"r","status":"in_progress"}\n\n');
  const a = new AgentStreamDecoder();
  const b = new AgentStreamDecoder();
  assert.deepEqual(b.feed(Array.from(bytes)), a.feed(bytes));
  assert.throws(() => b.feed("data: x\n\n"), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
  a.free();
  b.free();
});

test("SseDecoder reports an over-size event as a typed error item and goes on", () => {
  const d = new SseDecoder({ maxEventSize: 16 });
  const items = d.feed(new TextEncoder().encode("data: " + "x".repeat(40) + "\n\ndata: ok\n\n"));
  assert.deepEqual(items.map((i) => i.type), ["error", "event"]);
  assert.equal(items[0].code, "event-too-large");
  assert.equal(items[0].details.limit, 16);
  assert.equal(items[1].data, "ok");
});

test("wasm objects can be freed explicitly and with `using`", () => {
  const d = new AgentStreamDecoder();
  d.free();
  assert.throws(() => d.feed(new Uint8Array([1])), (e) => e instanceof ProtocolError && e.code === "object-freed");
  assert.equal(typeof AgentStreamDecoder.prototype[Symbol.dispose], "function");
  assert.ok(new ProtocolError("x", "y") instanceof Error);
});

test("a wasm object used after free() or from inside its own method throws a typed error", () => {
  const freed = (e) => e instanceof ProtocolError && e.code === "object-freed" && /after its free\(\)/.test(e.message);
  const inUse = (e) => e instanceof ProtocolError && e.code === "object-in-use";
  // Used after free(): a method, a getter-backed call and a consuming call alike.
  const p = new Pattern("/a/*");
  p.free();
  assert.throws(() => p.isMatch("/a/b"), freed);
  const s = new SseDecoder();
  s.free();
  assert.throws(() => s.feed(new Uint8Array([10])), freed);
  assert.throws(() => s.finish(), freed);
  // "data: x\n\n" as an array of byte values whose first element is a getter: the decoder reads
  // it while its feed() holds the decoder.
  const bytes = (get) => {
    const a = [...new TextEncoder().encode("data: x\n\n")];
    Object.defineProperty(a, 0, { get, enumerable: true });
    return a;
  };
  const d = new SseDecoder();
  let inner;
  const items = d.feed(bytes(() => {
    try {
      d.feed(new Uint8Array([10]));
    } catch (e) {
      inner = e;
    }
    return 100; // "d"
  }));
  assert.ok(inUse(inner), String(inner));
  // The outer call went on as if nothing had happened, and the decoder still works.
  assert.deepEqual(items.map((i) => i.data), ["x"]);
  assert.deepEqual(d.feed(new TextEncoder().encode("data: y\n\n")).map((i) => i.data), ["y"]);
  // free() from inside the object's own method releases it when that method returns.
  const e = new SseDecoder();
  const out = e.feed(bytes(() => {
    e.free();
    return 100;
  }));
  assert.deepEqual(out.map((i) => i.data), ["x"]);
  assert.throws(() => e.feed(new Uint8Array([10])), freed);
  e.free(); // again: nothing
});

test("object-freed is thrown before the module is entered: 20,000 calls on freed objects leave it working", async () => {
  // Thrown from inside the module, each such error left the frames it unwound on the module's
  // stack: about 5,000 `build()` calls on a freed builder broke every later call of every object
  // ("memory access out of bounds").
  const freedBuilder = new RequestBuilder();
  freedBuilder.free();
  const freedDecoder = new SseDecoder();
  freedDecoder.free();
  const freedPattern = new Pattern("/a/*");
  freedPattern.free();
  const calls = [() => freedBuilder.build(), () => freedDecoder.feed(new Uint8Array([10])), () => freedDecoder.lastEventId, () => new SseDecoder().feed(freedPattern)];
  let freedErrors = 0;
  for (let i = 0; i < 20000; i++) {
    try {
      calls[i % 3]();
    } catch (e) {
      if (e.code === "object-freed") freedErrors++;
    }
  }
  assert.equal(freedErrors, 20000);
  assert.deepEqual(new SseDecoder().feed(new TextEncoder().encode("data: x\n\n")).map((i) => i.data), ["x"]);
  // A class-typed argument: freed, or not of its class.
  const answer = 'data: {"object":"response","id":"r","status":"completed"}\n\n';
  const fetch = async () => new Response(answer, { headers: { "content-type": "text/event-stream" } });
  const stream = new AgentClient({ baseUrl: "http://127.0.0.1:9", fetch }).stream(new RequestBuilder().text("user", "x").build());
  await stream.response;
  assert.throws(() => stream.list(freedPattern), (e) => e.code === "object-freed");
  for (const bad of [{}, 5]) {
    assert.throws(() => stream.list(bad), (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.reason === "expected a Pattern");
  }
});

test("a surrogate pair cut between two deltas is joined; a half left alone reads as U+FFFD, as toWellFormed gives it", () => {
  // A JavaScript server that slices text by UTF-16 index sends each half as an escape of its own
  // (JSON.stringify("\ud83d") is "\"\\ud83d\""): valid JSON, which serde_json would refuse.
  const event = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const delta = (t, index = 0) => event({ object: "content", msg_id: "m1", index, delta: true, type: "text", text: t });
  const run = (pieces, options) => {
    const bytes = new TextEncoder().encode(pieces.map((p) => (typeof p === "string" ? delta(p) : delta(...p))).join(""));
    const d = new AgentStreamDecoder({ strict: true, ...options });
    const updates = [...d.feed(bytes), ...d.finish()];
    const response = d.response();
    d.free();
    return { updates, response, deltas: updates.filter((u) => u.type === "textDelta").map((u) => u.delta) };
  };
  const text = "I 😀 you, 東京 😀";
  const pieces = [text.slice(0, 3), text.slice(3, 14), text.slice(14)]; // both emoji cut
  assert.match(JSON.stringify(pieces), /\\ud83d"/);
  for (const batch of [false, true]) {
    const { updates, response, deltas } = run(pieces, { batch });
    assert.deepEqual(deltas, batch ? [text] : ["I ", "😀 you, 東京 ", "😀"]);
    assert.equal(response.output[0].content[0].text, text);
    assert.deepEqual(updates.filter((u) => u.type === "issue").map((u) => u.code), ["stream-incomplete"]);
  }
  // Halves that are not completed: what a JavaScript client holds, made well-formed.
  const lone = ["a\ud83d", "b", ["\ude00", 1], "c\ud83d"];
  const { response, deltas } = run(lone, {});
  assert.equal(response.output[0].content[0].text, ("a\ud83d" + "b" + "c\ud83d").toWellFormed());
  assert.equal(response.output[0].content[1].text, "\ude00".toWellFormed());
  assert.deepEqual(deltas, ["a", "\ufffd", "b", "\ufffd", "c", "\ufffd"]);
});

test("every byte feeder takes a Uint8Array, a Buffer, an ArrayBuffer or an array of bytes alike, and refuses anything else with invalid-argument", () => {
  const encode = (text) => new TextEncoder().encode(text);
  const agentEvent = 'data: {"object":"response","status":"created","id":"r1"}\n\n';
  const feeders = [
    ["SseDecoder", encode(agentEvent), () => { const d = new SseDecoder(); return (x) => d.feed(x); }],
    ["AgentStreamDecoder", encode(agentEvent), () => { const d = new AgentStreamDecoder(); return (x) => d.feed(x); }],
    ["AgentxStreamDecoder", encode('data: {"type":"message","message":{"role":"assistant","parts":[]}}\n\n'),
      () => { const d = new AgentxStreamDecoder(); return (x) => [...d.feed(x), ...d.finish()]; }],
    ["PartialJson.pushBytes", encode('{"city": "Par'), () => { const p = new PartialJson(); return (x) => p.pushBytes(x); }],
  ];
  for (const [name, bytes, make] of feeders) {
    const expected = JSON.stringify(make()(bytes));
    assert.ok(expected.length > 2, `${name} gives something for its bytes: ${expected}`);
    for (const form of [Buffer.from(bytes), bytes.slice().buffer, Array.from(bytes)]) {
      assert.equal(JSON.stringify(make()(form)), expected, `${name}: ${form.constructor.name}`);
    }
    // A string (its bytes would be read as zeros), another typed array, null: a typed error, and
    // the feeder goes on as if it had not been called.
    // An array with an element that is not a byte value (a Uint8Array would store 353 as 97, "a").
    const notBytes = [
      [[...Array.from(bytes).slice(0, 3), 353], /element 3 is not a byte value/],
      [[97, -1], /element 1 /],
      [[97, 1.5], /element 1 /],
      [[97, "97"], /element 1 /],
      [[97, , 98], /element 1 /], // a hole
    ];
    // A detached ArrayBuffer (transferred elsewhere): `new Uint8Array` of it throws a TypeError,
    // which passed through the module and left the feeder borrowed.
    const detached = bytes.slice().buffer;
    structuredClone(detached, { transfer: [detached] });
    notBytes.push([detached, /detached/]);
    // An element whose getter throws, and a Proxy whose `length` throws: read through Reflect,
    // refused (they were thrown through the module and left the feeder borrowed for good).
    const throwing = Array.from(bytes);
    Object.defineProperty(throwing, 1, { get: () => { throw new Error("boom"); } });
    notBytes.push([throwing, /element 1 cannot be read: boom/]);
    const lying = new Proxy(Array.from(bytes), { get: (t, k) => (k === "length" ? (() => { throw new RangeError("no length"); })() : t[k]) });
    notBytes.push([lying, /length cannot be read: no length/]);
    notBytes.push([new Proxy([], { get: (t, k) => (k === "length" ? 2 ** 32 - 1 : 0) }), /more than 2\^28 elements/]);
    for (const [bad, reason] of [[new TextDecoder().decode(bytes), /a string, not bytes/], [new Uint16Array(4), /neither/], [null, /neither/], ...notBytes]) {
      const feed = make();
      assert.throws(() => feed(bad), (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "bytes" && reason.test(e.details.reason), `${name}: ${reason}`);
      assert.equal(JSON.stringify(feed(bytes)), expected, `${name} after the error`);
    }
  }
});
