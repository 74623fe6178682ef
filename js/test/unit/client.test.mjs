// AgentClient against the reference server: handlers, async iteration, the response promise,
// batching, abort, and HTTP-level errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { agentwire, server, getJson, eventually, collect } from "../helpers.mjs";

const { AgentClient, AgentStreamDecoder, RequestBuilder, ProtocolError, AcpClient, AgentxClient, agentxUserMessage, Pattern } =
  await agentwire();

const request = (text) => new RequestBuilder().text("user", text).sessionId("t").build();

/** An event stream answer that gives `event` (an object), then fails as a reset connection does. */
const breakingAnswer = (event) =>
  new Response(
    new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(`data: ${JSON.stringify(event)}\n\n`));
        setTimeout(() => c.error(new Error("connection reset")), 5);
      },
    }),
    { headers: { "content-type": "text/event-stream" } },
  );

test("handlers fire in stream order and the response promise has the assembled response", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const seen = [];
  let text = "";
  const stream = client.stream(request("Stream me"), {
    onResponse: (r) => seen.push(`response:${r.status}`),
    onMessage: (m) => seen.push(`message:${m.type}:${m.status}`),
    onTextDelta: (d) => (text += d),
    onDone: (r) => {
      seen.push(`done:${r.status}`);
      done = r;
    },
  });
  let done;
  const response = await stream.response;
  // The promise resolves with the object `done` carried, not a second copy of the response.
  assert.equal(response, done);
  // A snapshot is its own copy, with the same content (texts set from beside the JSON).
  const snapshot = stream.snapshot();
  assert.notEqual(snapshot, response);
  assert.equal(JSON.stringify(snapshot), JSON.stringify(response));
  assert.equal(response.status, "completed");
  assert.equal(response.output.length, 4);
  assert.deepEqual(seen.slice(0, 3), ["response:created", "response:in_progress", "message:reasoning:in_progress"]);
  // The request's `id` is the response's, as agentscope-runtime's runner gives it.
  const id = `resp-chosen-${Date.now()}`;
  const chosen = await client.stream(new RequestBuilder().text("user", "hi").responseId(id).build()).response;
  assert.equal(chosen.id, id);
  assert.equal(seen.at(-1), "done:completed");
  assert.ok(text.includes("Stream me"), text);
  const answer = response.output[3];
  assert.equal(answer.content[0].text.includes("You asked"), true);
  // The text deltas together are exactly the texts of the text contents.
  const allText = response.output.flatMap((m) => m.content).filter((c) => c.type === "text" && !c.name).map((c) => c.text).join("");
  assert.equal(text, allText);
});

test("the stream is an async iterator of typed updates ending with done", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const types = [];
  for await (const u of client.stream(request("iterate"))) types.push(u.type);
  assert.equal(types[0], "response");
  assert.equal(types.at(-1), "done");
  assert.ok(types.includes("textDelta") && types.includes("dataDelta") && types.includes("content"));
});

test("an iterator created after the stream ended finishes at once, or throws the stream's error", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const stream = client.stream(request("late iterator"));
  const early = stream[Symbol.asyncIterator]();
  await stream.response;
  assert.deepEqual(await collect(stream), [], "nothing comes after the end");
  // An iterator created before the end still has every update.
  assert.equal((await collect({ [Symbol.asyncIterator]: () => early })).at(-1).type, "done");

  const failed = new AgentClient({ baseUrl: server(), endpoint: "/definitely-missing" }).stream(request("x"));
  await failed.response.catch(() => {});
  await assert.rejects(collect(failed), (e) => e instanceof ProtocolError && e.code === "http-status");
});

test("batch mode delivers one array per chunk with the same text in fewer deltas", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=0" });
  let batches = 0, deltas = 0, text = "";
  const r = await client.stream(request("batched"), {
    onBatch: () => batches++,
    onTextDelta: (d) => { deltas++; text += d; },
  }, { batch: true }).response;
  assert.ok(batches >= 1);
  const tokens = r.output.flatMap((m) => m.content).filter((c) => c.type === "text" && !c.name).map((c) => c.text).join("");
  assert.equal(text, tokens);
  assert.ok(deltas < tokens.split(" ").length, `${deltas} deltas`);
});

test("abort really aborts: the server sees the connection close, no callback runs after, the error says aborted", async () => {
  const before = await getJson(`${server()}/stats`);
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=60" });
  const controller = new AbortController();
  let afterAbort = 0, aborted = false, errors = 0;
  const stream = client.stream(request("abort me"), {
    onTextDelta: () => {
      if (aborted) afterAbort++;
      if (!aborted) { aborted = true; controller.abort(); }
    },
    onUpdate: () => { if (aborted) afterAbort++; },
    onError: () => errors++,
  }, { signal: controller.signal });
  const e = await stream.response.then(() => null, (e) => e);
  assert.ok(e instanceof ProtocolError && e instanceof Error);
  assert.equal(e.code, "aborted");
  assert.equal(e.details.response.status, "canceled");
  assert.ok(e.details.response.output.length >= 1, "what arrived is kept");
  await eventually(async () => (await getJson(`${server()}/stats`)).closedByClient > before.closedByClient, 5000, "the server to see the close");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(afterAbort, 0, "no callback after the abort");
  assert.equal(errors, 0, "a user's stop is not an error callback");
});

test("a handler that throws ends the stream: the request is aborted and response rejects with what it threw", async () => {
  const before = await getJson(`${server()}/stats`);
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=60" });
  const thrown = new Error("a bug in the app's handler");
  let deltas = 0, updatesAfter = 0, errors = 0;
  const stream = client.stream(request("throw"), {
    onTextDelta: () => {
      if (++deltas === 2) throw thrown;
    },
    onUpdate: () => { if (deltas > 2) updatesAfter++; },
    onError: () => errors++,
  });
  const iterated = collect(stream, 10000);
  assert.equal(await stream.response.then(() => null, (e) => e), thrown);
  await assert.rejects(iterated, (e) => e === thrown, "the iterators end with it too");
  await eventually(async () => (await getJson(`${server()}/stats`)).closedByClient > before.closedByClient, 5000, "the server to see the close");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(deltas, 2, "no callback after it");
  assert.equal(updatesAfter, 0);
  assert.equal(errors, 0, "the app's own error is not an onError callback");
});

test("leaving a for-await loop early ends that iterator only: the stream goes on", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=0" });
  let deltas = 0;
  const stream = client.stream(request("break"), { onTextDelta: () => deltas++ });
  for await (const u of stream) if (u.type === "textDelta") break;
  const r = await stream.response;
  assert.equal(r.status, "completed");
  assert.ok(deltas > 5, `${deltas} deltas`);
});

test("a non-2xx answer rejects with http-status, the status and the body", async () => {
  let onError;
  const client = new AgentClient({ baseUrl: server(), endpoint: "/definitely-missing" });
  const e = await client.stream(request("x"), { onError: (x) => (onError = x) }).response.then(() => null, (e) => e);
  assert.ok(e instanceof ProtocolError && e instanceof Error);
  assert.equal(e.code, "http-status");
  assert.equal(typeof e.details.status, "number");
  assert.ok(e.details.status >= 400);
  assert.equal(typeof e.details.body, "string");
  assert.equal(onError, e, "onError gets the same error");
});

test("null handlers or options are none, in every client, also when the stream fails", async () => {
  const ok = await new AgentClient({ baseUrl: server() }).stream(request("x"), null, null).response;
  assert.equal(ok.status, "completed");
  // A failing stream's error reaches onError through the handlers: with null it is only the rejection.
  const missing = new AgentClient({ baseUrl: server(), endpoint: "/definitely-missing" });
  await assert.rejects(missing.stream(request("x"), null).response, (e) => e.code === "http-status");
  const chat = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=0" }).chat([agentxUserMessage("hi")], null, null);
  assert.equal((await chat.messages).length, 2);
  const failed = new AgentxClient({ baseUrl: server(), endpoint: "/no-such-chat" }).chat([agentxUserMessage("hi")], null);
  await assert.rejects(failed.messages, (e) => e instanceof ProtocolError);
  const run = new AcpClient({ baseUrl: `${server()}/acp` }).run("approval", "Deploy", null);
  assert.equal((await run.stopped()).status, "awaiting");
  run.free();
});

test("a handler that is not a function throws invalid-argument when the stream starts, in every client", () => {
  const wrong = (what) => (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === what &&
    e.details.reason === "it is not a function";
  let fetched = 0;
  const fetch = () => (fetched++, Promise.reject(new Error("not sent")));
  assert.throws(() => new AgentClient({ baseUrl: server(), fetch }).stream(request("x"), { onTextDelta: 5 }), wrong("handlers.onTextDelta"));
  assert.throws(() => new AgentxClient({ baseUrl: server(), fetch }).chat([agentxUserMessage("hi")], { onPart: "x" }), wrong("handlers.onPart"));
  assert.throws(() => new AcpClient({ baseUrl: server(), fetch }).run("approval", "Deploy", { onStateChange: {} }), wrong("options.onStateChange"));
  assert.throws(() => new AgentClient({ baseUrl: server(), fetch }).stream(request("x"), "handlers"), (e) => e.code === "invalid-argument" && e.details.what === "handlers");
  assert.equal(fetched, 0, "nothing was sent");
});

test("a 200 that is not text/event-stream rejects with not-event-stream and keeps the body", async () => {
  const srv = createServer((req, res) => { res.writeHead(200, { "content-type": "application/json" }); res.end('{"hello":1}'); });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  try {
    const client = new AgentClient({ baseUrl: `http://127.0.0.1:${srv.address().port}` });
    const e = await client.stream(request("x")).response.then(() => null, (e) => e);
    assert.equal(e.code, "not-event-stream");
    assert.equal(e.details.contentType, "application/json");
    assert.equal(e.details.body, '{"hello":1}');
  } finally {
    srv.close();
  }
});

test("a server that closes before the end rejects with stream-incomplete and keeps the parts", async () => {
  const sse = 'data: {"object":"response","id":"r1","status":"in_progress"}\n\n' +
    'data: {"object":"content","type":"text","index":0,"delta":true,"msg_id":"m1","text":"partial"}\n\n';
  const srv = createServer((req, res) => { res.writeHead(200, { "content-type": "text/event-stream" }); res.end(sse); });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  try {
    const client = new AgentClient({ baseUrl: `http://127.0.0.1:${srv.address().port}` });
    const errors = [];
    const e = await client.stream(request("x"), { onError: (x) => errors.push(x.code) }).response.then(() => null, (e) => e);
    assert.equal(e.code, "stream-incomplete");
    assert.equal(e.details.lastStatus, "in_progress", "the status the server last sent");
    assert.equal(e.details.response.status, "incomplete");
    assert.equal(e.details.response.output[0].content[0].text, "partial");
    assert.equal(e.details.response.output[0].status, "incomplete");
    assert.deepEqual(errors, ["stream-incomplete"]);
  } finally {
    srv.close();
  }
});

test("a connection that breaks mid-stream: onError gets the network-error the stream rejects with, in each client", async () => {
  // A fetch whose body gives one event, then fails as a reset connection does.
  const breaking = (event) => async () => breakingAnswer(event);
  const outcome = async (start) => {
    const errors = [];
    const rejected = await start({ onError: (e) => errors.push(e) }).then(() => null, (e) => e);
    return { errors, rejected };
  };
  const clients = {
    "Agent API": [
      (h) => new AgentClient({ baseUrl: "http://agent.test", fetch: breaking({ object: "response", id: "r", status: "in_progress" }) })
        .stream(request("x"), h).response,
      "response",
    ],
    AgentX: [
      (h) => new AgentxClient({ baseUrl: "http://agent.test", fetch: breaking({ role: "assistant", parts: [{ type: "text", text: "a" }] }) })
        .chat([agentxUserMessage("x")], h).messages,
      "messages",
    ],
    ACP: [
      (h) => new AcpClient({ baseUrl: "http://agent.test", fetch: breaking({ type: "run.created", run: { run_id: "r", agent_name: "x", status: "created" } }) })
        .run("x", "go", h).run,
      "run",
    ],
  };
  for (const [name, [start, kept]] of Object.entries(clients)) {
    const { errors, rejected } = await outcome(start);
    assert.equal(rejected.code, "network-error", name);
    assert.equal(rejected.details.reason, "connection reset", name);
    assert.ok(rejected.details[kept], `${name}: details.${kept} keeps what arrived`);
    assert.deepEqual(errors.map((e) => [e.code, e.details.reason]), [["network-error", "connection reset"]], `${name}: one onError, the same code`);
  }
});

test("an error that ends a strict stream closes its request at once, in each client", { timeout: 20_000 }, async () => {
  // A server that sends its events, one of them malformed, then keeps the connection open (it
  // writes a comment every 50 ms) until the client closes it.
  const events = {
    "/process": ['{"object":"response","id":"r","status":"in_progress"}', "{not json"],
    "/chat": ['{"role":"assistant","parts":[{"type":"text","text":"a"}]}', "{not json"],
    "/runs": ['{"type":"run.created","run":{"run_id":"r9","agent_name":"x","status":"created"}}', '{"type":"bogus"}'],
  };
  const closed = [];
  const srv = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(events[req.url].map((d) => `data: ${d}\n\n`).join(""));
    const keepAlive = setInterval(() => res.write(": still here\n\n"), 50);
    res.on("close", () => {
      clearInterval(keepAlive);
      closed.push(req.url);
    });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${srv.address().port}`;
  try {
    const errors = [];
    const onError = (e) => errors.push(e.code);
    const api = await new AgentClient({ baseUrl }).stream(request("x"), { onError }, { strict: true }).response;
    assert.equal(api.status, "incomplete", "the Agent API's response resolves, incomplete");
    const chat = await new AgentxClient({ baseUrl }).chat([agentxUserMessage("x")], { onError }, { strict: true }).messages.then(
      () => null,
      (e) => e,
    );
    assert.equal(chat.code, "stream-incomplete");
    assert.match(chat.message, /an error ended it/);
    const run = await new AcpClient({ baseUrl }).run("x", "go", { strict: true, onError }).run.then(() => null, (e) => e);
    assert.equal(run.code, "stream-incomplete");
    assert.equal(run.details.lastStatus, "created");
    assert.deepEqual(errors, ["invalid-json", "invalid-json", "unknown-event"]);
    await eventually(() => closed.length === 3);
    assert.deepEqual(closed.sort(), ["/chat", "/process", "/runs"]);
    // A stream over maxStreamBytes ends the same way, lenient or not.
    const limited = await new AgentClient({ baseUrl }).stream(request("x"), { onError }, { limits: { maxStreamBytes: 20 } }).response;
    assert.equal(limited.status, "incomplete");
    assert.equal(errors.at(-1), "stream-too-large");
    await eventually(() => closed.length === 4);
  } finally {
    srv.close();
    srv.closeAllConnections();
  }
});

test("an onError that throws rejects the stream with what it threw, in each client (no unhandled rejection)", async () => {
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const answers = {
      // Before the event stream: HTTP 500.
      "HTTP 500": async () => new Response("down", { status: 500 }),
      // Mid-stream: the connection breaks after one event.
      "a broken connection": async (req) =>
        breakingAnswer(
          req.url.endsWith("/chat")
            ? { role: "assistant", parts: [{ type: "text", text: "a" }] }
            : req.url.endsWith("/runs")
              ? { type: "run.created", run: { run_id: "r", agent_name: "x", status: "created" } }
              : { object: "response", id: "r", status: "in_progress" },
        ),
    };
    for (const [what, fetch] of Object.entries(answers)) {
      const baseUrl = "http://agent.test";
      const thrown = new Error(`from onError (${what})`);
      const seen = [];
      const onError = (e) => {
        seen.push(e.code);
        throw thrown;
      };
      const outcomes = [
        new AgentClient({ baseUrl, fetch }).stream(request("x"), { onError }).response,
        new AgentxClient({ baseUrl, fetch }).chat([agentxUserMessage("x")], { onError }).messages,
        new AcpClient({ baseUrl, fetch }).run("x", "go", { onError }).run,
      ];
      for (const [i, outcome] of outcomes.entries()) {
        await assert.rejects(outcome, (e) => e === thrown, `${what}, client ${i}`);
      }
      assert.equal(seen.length, 3, `${what}: onError once per client (${seen})`);
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("custom fetch and headers are used", async () => {
  let seen;
  const client = new AgentClient({
    baseUrl: server(),
    headers: { "x-agentwire-test": "yes" },
    fetch: (req) => { seen = req.headers.get("x-agentwire-test"); return fetch(req); },
  });
  const r = await client.stream(request("custom fetch")).response;
  assert.equal(r.status, "completed");
  assert.equal(seen, "yes");
});

test("every client sends its headers option, and refuses headers that are not strings", async () => {
  const headers = { "x-one": "1", "x-two": "2" };
  const sent = [];
  const fetch = async (req) => {
    sent.push([new URL(req.url).pathname, req.headers.get("x-one"), req.headers.get("x-two")]);
    return new Response("{}", { status: 500 });
  };
  const agent = new AgentClient({ baseUrl: "http://h.test", headers, fetch });
  await agent.stream(request("x")).response.catch(() => {});
  const acp = new AcpClient({ baseUrl: "http://h.test", headers, fetch });
  await acp.agents().catch(() => {});
  const agentx = new AgentxClient({ baseUrl: "http://h.test", headers, fetch });
  await agentx.chat([agentxUserMessage("x")]).messages.catch(() => {});
  assert.deepEqual(sent, [["/process", "1", "2"], ["/agents", "1", "2"], ["/chat", "1", "2"]]);
  for (const Client of [AgentClient, AcpClient, AgentxClient]) {
    for (const [bad, reason] of [
      [{ "x-one": 1 }, "invalid type: integer `1`, expected a string"],
      [["x-one", "1"], "invalid type: sequence, expected a map"],
    ]) {
      assert.throws(
        () => new Client({ baseUrl: "http://h.test", headers: bad }),
        (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.reason === reason,
        `${Client.name} ${JSON.stringify(bad)}`,
      );
    }
  }
});

test("a network chunk over 64 KiB reaches the handlers whole: one onBatch, the decoder's updates", async () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  let sse = ev({ object: "response", id: "r1", status: "in_progress" });
  for (let i = 0; i < 2000; i++) {
    sse += ev({ object: "content", msg_id: "m1", index: 0, delta: true, type: "text", text: `${i} caf\u00e9 \u{1F600} `.repeat(4) });
  }
  sse += ev({ object: "response", id: "r1", status: "completed" });
  const bytes = new TextEncoder().encode(sse);
  assert.ok(bytes.length > 3 * 64 * 1024);
  // One chunk for the whole body.
  const body = () => new ReadableStream({ start: (c) => { c.enqueue(bytes); c.close(); } });
  const fetch = async () => new Response(body(), { headers: { "content-type": "text/event-stream" } });
  const client = new AgentClient({ baseUrl: "http://test.invalid", fetch });
  const batches = [];
  let done;
  const stream = client.stream(request("big"), { onBatch: (us) => batches.push(us), onDone: (r) => (done = r) });
  const response = await stream.response;
  assert.equal(response, done);
  const d = new AgentStreamDecoder();
  const expected = [...d.feed(bytes), ...d.finish()];
  d.free();
  assert.equal(JSON.stringify(batches.flat()), JSON.stringify(expected));
  // The chunk's updates came in one call (and `done`, at the end of the stream, in it too or after).
  assert.ok(batches[0].length >= 2001, `${batches[0].length}`);
});

test("a handler that aborts or frees the stream in the chunk that completes it: response rejects with aborted", async () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const sse = ev({ object: "response", id: "r1", status: "in_progress" }) +
    ev({ object: "message", id: "m1", type: "message", role: "assistant", status: "completed", content: [] }) +
    ev({ object: "response", id: "r1", status: "completed" });
  const bytes = new TextEncoder().encode(sse);
  const fetch = async () => new Response(new ReadableStream({ start: (c) => { c.enqueue(bytes); c.close(); } }), { headers: { "content-type": "text/event-stream" } });
  const client = new AgentClient({ baseUrl: "http://test.invalid", fetch });
  for (const how of ["free", "abort"]) {
    const controller = new AbortController();
    let done = false;
    const stream = client.stream(request("x"), {
      onMessage: () => (how === "free" ? stream.free() : controller.abort()),
      onDone: () => (done = true),
    }, { signal: controller.signal });
    const settled = await stream.response.then((r) => ({ value: r.status }), (e) => ({ error: e.code }));
    assert.deepEqual(settled, { error: "aborted" }, how);
    assert.equal(done, false, `${how}: no onDone after the abort`);
  }
});

test("an async iterator created inside a handler starts after the chunk that handler is part of", async () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const chunks = [
    ev({ object: "response", id: "r1", status: "in_progress" }),
    ev({ object: "response", id: "r1", status: "completed" }),
  ].map((s) => new TextEncoder().encode(s));
  // Two network chunks: the second is sent once the first was handled.
  const fetch = async () => new Response(new ReadableStream({
    start: (c) => c.enqueue(chunks[0]),
    pull: (c) => new Promise((r) => setTimeout(r, 20)).then(() => { if (chunks.length > 1) { c.enqueue(chunks.pop()); c.close(); } }),
  }), { headers: { "content-type": "text/event-stream" } });
  const client = new AgentClient({ baseUrl: "http://test.invalid", fetch });
  let inner;
  const outer = [];
  const stream = client.stream(request("x"), {
    onResponse: (r) => { if (r.status === "in_progress" && !inner) inner = stream[Symbol.asyncIterator](); },
  });
  for await (const u of stream) outer.push(`${u.type}:${u.response?.status ?? ""}`);
  const seen = [];
  for (let r = await inner.next(); !r.done; r = await inner.next()) seen.push(`${r.value.type}:${r.value.response?.status ?? ""}`);
  assert.ok(outer.includes("response:in_progress"), outer.join());
  assert.ok(!seen.includes("response:in_progress"), `the iterator made in the handler saw its own chunk: ${seen.join()}`);
  assert.ok(seen.includes("response:completed"), seen.join());
});

test("an invalid request is refused synchronously with a typed error", () => {
  const client = new AgentClient({ baseUrl: server() });
  assert.throws(() => client.stream({ input: [], temperature: 7 }), (e) => e instanceof ProtocolError && e.code === "parameter-out-of-range");
  assert.throws(() => client.stream({ nope: true }), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
  assert.throws(() => new AgentClient({}), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
});

test("while streaming: onPart watches named parts, list() and body() query what arrived", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const sources = [];
  const call = [];
  const stream = client.stream(request("sources please"));
  stream.onPart("/sources/*", (part, change) => sources.push({ name: part.name, type: part.contentType, url: part.content, change: change.type }));
  stream.onPart("/function", (part, change) => call.push({ content: part.content, change: change.type }));
  const response = await stream.response;
  assert.deepEqual(sources.filter((s) => s.change === "part").map((s) => s.name).filter((n, i, a) => a.indexOf(n) === i), ["/sources/1", "/sources/2"]);
  assert.ok(sources.every((s) => s.type === "text/x-uri"));
  assert.equal(sources.at(-1).url, "https://example.org/climate/europe");
  // The tool call's arguments stream in as deltas of its /function part.
  assert.ok(call.some((c) => c.change === "delta"));
  assert.equal(call.at(-1).content, '{"city": "Paris", "unit": "celsius"}');
  const listed = stream.list("/sources/*");
  assert.deepEqual(listed.map((p) => p.part.name), ["/sources/1", "/sources/2"]);
  const answer = response.output.at(-1);
  assert.equal(listed[0].msgId, answer.id);
  const body = stream.body(answer.id);
  assert.equal(body.parts[0].contentType, "text/plain");
  assert.equal(body.parts.filter((p) => !p.name).length, 3, "text, data table and image are main content");
  assert.equal(stream.body("msg_nope"), null);
  assert.throws(() => stream.list("/sources/{"), (e) => e instanceof ProtocolError && e.code === "unclosed-brace");
});

test("a stream can be freed (and disposed); its queries then refuse", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const stream = client.stream(request("free me"));
  stream.onPart("/sources/*", () => {});
  let kept = 0, stopped = 0;
  const stop = stream.onPart(new Pattern("/**"), () => kept++);
  const stopOwned = stream.onPart("/**", () => stopped++);
  stopOwned();
  stopOwned(); // again: nothing
  const r = await stream.response;
  assert.ok(kept > 0, "the other watch still runs");
  assert.equal(stopped, 0, "nothing after stopping");
  stop();
  assert.equal(r.status, "completed");
  assert.equal(typeof stream[Symbol.dispose], "function");
  stream.free();
  const freed = (e) => e instanceof ProtocolError && e.code === "object-freed";
  assert.throws(() => stream.snapshot(), freed);
  assert.throws(() => stream.onPart("/**", () => {}), freed);
  assert.throws(() => stream.validateWith({ parts: [] }, () => {}), freed);
  stream.free(); // again: nothing
  stream[Symbol.dispose]();
  client.free();
  client.free();
});

test("freeing a stream under way aborts it: the server sees the close, no handler runs after, response rejects with aborted", async () => {
  const before = await getJson(`${server()}/stats`);
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=60" });
  let deltas = 0, after = 0, errors = 0;
  const stream = client.stream(request("free me while streaming"), {
    onTextDelta: () => {
      if (++deltas === 2) stream.free();
      else if (deltas > 2) after++;
    },
    onUpdate: () => { if (deltas > 2) after++; },
    onError: () => errors++,
  });
  const iterated = collect(stream, 10000);
  const e = await stream.response.then(() => null, (e) => e);
  assert.ok(e instanceof ProtocolError);
  assert.equal(e.code, "aborted");
  assert.equal(e.details.response.status, "canceled");
  await assert.rejects(iterated, (x) => x === e);
  await eventually(async () => (await getJson(`${server()}/stats`)).closedByClient > before.closedByClient, 5000, "the server to see the close");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(after, 0, "no handler after free()");
  assert.equal(errors, 0);

  // With the user's own signal too, either one aborts.
  const controller = new AbortController();
  const other = client.stream(request("free me too"), {}, { signal: controller.signal });
  other.free();
  assert.equal((await other.response.then(() => null, (x) => x)).code, "aborted");
  assert.equal(controller.signal.aborted, false, "the user's signal is not fired");
});

test("retainMessages: false delivers the same updates and releases each message once it finishes", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=0" });
  const run = async (options) => {
    const updates = [];
    const stream = client.stream(request("Release me"), { onUpdate: (u) => updates.push(u) }, options);
    const response = await stream.response;
    return { updates, response, listed: stream.list("/**").length };
  };
  const kept = await run({});
  const released = await run({ retainMessages: false });
  // The server's ids differ per request: compare what the updates say apart from them.
  const told = (us) =>
    us.filter((u) => u.type !== "done").map((u) => {
      if (u.type === "textDelta") return `text ${u.index} ${u.delta}`;
      if (u.type === "message") return `message ${u.message.type} ${u.message.status}`;
      if (u.type === "content") return `content ${u.index} ${u.content.type} ${u.content.status} ${JSON.stringify(u.content.text ?? u.content.data)}`;
      return u.type === "response" ? `response ${u.response.status}` : u.type;
    });
  assert.deepEqual(told(released.updates), told(kept.updates));
  assert.ok(told(kept.updates).length > 20);
  assert.equal(kept.response.output.length, 4);
  // Every message finished with its own message event: the stream holds none of them any more.
  assert.deepEqual(released.response.output, []);
  assert.equal(released.response.status, "completed");
  assert.deepEqual(released.updates.at(-1).response.output, []);
  assert.equal(released.listed, 0);
  assert.ok(kept.listed > 0);
});

test("AgentClient.stream keeps its updates on: a JavaScript caller's updates: false does not silence the handlers", async () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const body =
    ev({ object: "response", id: "r", status: "created" }) +
    ev({ object: "message", id: "m1", type: "message", role: "assistant", status: "in_progress" }) +
    ev({ object: "content", type: "text", index: 0, delta: true, msg_id: "m1", text: "Hi" }) +
    ev({ object: "message", id: "m1", type: "message", role: "assistant", status: "completed" }) +
    ev({ object: "response", id: "r", status: "completed" });
  const client = new AgentClient({ baseUrl: "http://agent.test", fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  let text = "";
  let done = 0;
  const stream = client.stream(new RequestBuilder().text("user", "x").build(), { onTextDelta: (d) => (text += d), onDone: () => done++ }, { updates: false });
  const updates = collect(stream);
  assert.equal((await stream.response).status, "completed");
  assert.equal(text, "Hi");
  assert.equal(done, 1);
  assert.ok((await updates).some((u) => u.type === "textDelta"));
  client.free();
});

test("init() returns the same promise on every call, in Node too", async () => {
  const { default: init, init: named } = await agentwire();
  const first = init();
  assert.equal(init(), first);
  assert.equal(named(), first);
  await first;
});
