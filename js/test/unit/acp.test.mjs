// The ACP client from Node: acp-sdk 1.0.3's recorded answers (../shared/fixtures/acp-sdk) served by
// a scripted `fetch` in chunks of every size class, and the reference server's `approval` agent
// (/acp) for await, resume and cancel in every mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, server, shared, collect } from "../helpers.mjs";

const { AcpClient, ProtocolError, acpCheckInput, acpMessage, Pattern } = await agentwire();

const fixture = (name) => readFileSync(join(shared, "fixtures/acp-sdk", name));
const json = (name) => JSON.parse(fixture(name).toString("utf8"));
const sseEvents = (bytes) =>
  bytes.toString("utf8").split("\n\n").filter((b) => b.startsWith("data: ")).map((b) => JSON.parse(b.slice(6)));

/** A request as the server reads it: nulls and the SDK's defaults (`text/plain`, `plain`) left out. */
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v === null || typeof v !== "object") return v;
  const defaults = { content_type: "text/plain", content_encoding: "plain" };
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => x !== null && defaults[k] !== x).map(([k, x]) => [k, canon(x)]));
}

/** The server's final run of a stream (its last `run.*` event), as ACP clients show it (text chunks joined). */
function joined(run) {
  const output = run.output.map((m) => {
    const parts = [];
    for (const p of m.parts) {
      const last = parts.at(-1);
      const plain = (q) => q.name === null && q.content_type === "text/plain" && q.content_encoding === "plain" && q.content_url === null && q.content !== null && q.metadata === null;
      if (last && plain(last) && plain(p)) parts[parts.length - 1] = { ...last, content: last.content + p.content };
      else parts.push(p);
    }
    return { ...m, parts };
  });
  return { ...run, output };
}

/**
 * A `fetch` answering `METHOD path` from `routes` (`{status, headers, body, chunk}`; `body` a string,
 * bytes, or a function of the request body), in chunks of `chunk` bytes. Records the requests.
 */
function scripted(routes) {
  const requests = [];
  const f = async (req) => {
    const url = new URL(req.url);
    const key = `${req.method} ${url.pathname}`;
    const body = req.method === "POST" ? await req.text() : null;
    requests.push({ key, body: body ? JSON.parse(body) : null, accept: req.headers.get("accept") });
    const queue = routes[key];
    const route = Array.isArray(queue) ? (queue.length > 1 ? queue.shift() : queue[0]) : queue;
    if (!route) return new Response(JSON.stringify({ code: "not_found", message: `${key} not found`, data: null }), { status: 404 });
    const bytes = Buffer.from(typeof route.body === "function" ? route.body(body) : route.body);
    const chunk = route.chunk ?? bytes.length;
    // `open`: the body stays open after its bytes (as a proxy or a keep-alive server may leave
    // it); `requests[i].cancelled` says whether the client closed it.
    const request = requests.at(-1);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < bytes.length; i += chunk) c.enqueue(new Uint8Array(bytes.subarray(i, i + chunk)));
        if (!route.open) c.close();
      },
      cancel() {
        request.cancelled = true;
      },
    });
    return new Response(stream, { status: route.status ?? 200, headers: route.headers ?? { "content-type": "application/json" } });
  };
  f.requests = requests;
  return f;
}

const sse = (body, chunk) => ({ body, chunk, headers: { "content-type": "text/event-stream; charset=utf-8" } });
const BASE = "http://acp.test";

test("a streamed run assembles to the server's final run, at every chunk size", async () => {
  const bytes = fixture("run-stream.sse");
  const final = sseEvents(bytes).at(-1).run;
  for (const chunk of [1, 7, 64, 333, bytes.length]) {
    const fetch = scripted({ "POST /runs": sse(bytes, chunk) });
    const client = new AcpClient({ baseUrl: BASE, fetch });
    const states = [];
    const texts = new Map();
    const generics = [];
    const handle = client.run("echo", "hello world", {
      strict: true,
      onStateChange: (from, to, move) => states.push(`${from}>${to}:${move.party} ${move.type}`),
      onPart: (p, t) => texts.set(`${t.messageIndex}/${t.partIndex}`, p.content),
      onTextDelta: (d, t) => texts.set(`${t.messageIndex}/${t.partIndex}`, texts.get(`${t.messageIndex}/${t.partIndex}`) + d),
      onGeneric: (g) => generics.push(g),
      onWarning: (w) => assert.fail(`warning ${w.code}: ${w.message}`),
    });
    const run = await handle.run;
    assert.deepEqual(run, joined(final), `chunk ${chunk}`);
    assert.deepEqual(states, [
      "idle>created:client create",
      "created>in-progress:server run.in-progress",
      "in-progress>completed:server run.completed",
    ]);
    // The callbacks rebuilt the text: "Echo: " + "hello" + " world" joined into one part.
    assert.equal(texts.get("0/0"), "Echo: hello world");
    assert.deepEqual(generics, [{ thought: "done", step: 3 }]);
    assert.equal(handle.runId, final.run_id);
    assert.equal(handle.session.state, "completed");
    assert.equal(handle.session.isTerminal, true);
    assert.deepEqual(handle.session.allowedMoves(), []);
    assert.equal(handle.session.messages[0].type, "create");
    assert.equal(handle.session.messages.at(-1).type, "run.completed");
    // The request: POST /runs in stream mode.
    assert.deepEqual(canon(fetch.requests[0].body), canon(json("req-stream.json")));
    // Timestamps the message does not have are left out (the server fills them in), not `null`.
    assert.deepEqual(Object.keys(fetch.requests[0].body.input[0]), ["role", "parts"]);
    assert.equal(fetch.requests[0].accept, "text/event-stream");
  }
});

test("without joining, the run equals the server's exactly; body() and list() read the output as bodies", async () => {
  const bytes = fixture("run-stream.sse");
  const final = sseEvents(bytes).at(-1).run;
  const client = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(bytes, 100) }) });
  const handle = client.run("echo", "hello world", { joinText: false });
  assert.deepEqual(await handle.run, final);
  const sources = handle.list("/sources/*");
  assert.deepEqual(sources, [
    {
      messageIndex: 0,
      part: { type: "text", name: "/sources/1", contentType: "text/x-uri", content: "https://example.com/doc", contentEncoding: "plain", status: "complete" },
    },
  ]);
  const pattern = new Pattern("**");
  assert.equal(handle.list(pattern).length, 2); // /sources/1 and hello.bin (kept as sent)
  pattern.free();
  const body = handle.body(0);
  assert.equal(body.parts[0].content, "Echo: ");
  assert.equal(body.parts.find((p) => p.type === "tool_result").metadata.toolName, "get_weather");
  assert.equal(body.parts.find((p) => p.contentType === "image/png").contentUrl, "https://example.com/cat.png");
  assert.equal(handle.body(2), null);
  // An index that is not an integer from 0 gives no body (wasm-bindgen's conversion wrapped
  // 2^32 to 0 and read NaN and 0.5 as 0).
  for (const i of [2 ** 32, 2 ** 32 + 1, -1, NaN, 0.5, Infinity]) assert.equal(handle.body(i), null, String(i));
  assert.throws(() => handle.list("/a/{b"), (e) => e instanceof ProtocolError && e.code === "unclosed-brace");
});

test("await and resume: the same run and message go on, and resume is refused until the run awaits", async () => {
  const awaitBytes = fixture("await-stream.sse");
  const resumeBytes = fixture("resume-stream.sse");
  const runId = sseEvents(awaitBytes)[0].run.run_id;
  const fetch = scripted({ "POST /runs": sse(awaitBytes, 50), [`POST /runs/${runId}`]: sse(resumeBytes, 50) });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  const awaited = [];
  const done = [];
  const handle = client.run("approval", "do it", {
    strict: true,
    onAwaiting: (r) => awaited.push(r),
    onDone: (r) => done.push(r.status),
  });
  // Nothing to answer yet.
  assert.throws(
    () => handle.resume("yes"),
    (e) => e instanceof ProtocolError && e.code === "move-not-allowed" && e.details.state === "created",
  );
  assert.deepEqual(handle.session.allowedMoves("client"), [{ party: "client", type: "cancel", nextState: "cancelling" }]);
  const stopped = await handle.stopped();
  assert.equal(stopped.status, "awaiting");
  assert.equal(handle.state, "awaiting");
  assert.equal(handle.awaiting.message.parts[0].content, "Approve? (yes/no)");
  assert.deepEqual(awaited, [handle.awaiting]);
  assert.deepEqual(handle.session.allowedMoves("client").map((m) => m.type).sort(), ["cancel", "resume"]);

  const resumed = await handle.resume("yes");
  assert.equal(resumed.status, "completed");
  const run = await handle.run;
  assert.deepEqual(run, joined(sseEvents(resumeBytes).at(-1).run));
  assert.equal(run.output.length, 1);
  assert.equal(run.output[0].parts[0].content, "Need approval. Got: yes");
  assert.equal(handle.awaiting, null);
  assert.deepEqual(done, ["awaiting", "completed"]);
  assert.deepEqual(fetch.requests.map((r) => r.key), ["POST /runs", `POST /runs/${runId}`]);
  assert.deepEqual(canon(fetch.requests[0].body), canon(json("req-approval-stream.json")));
  assert.deepEqual(canon(fetch.requests[1].body), canon(json("req-resume-stream.json")));
  assert.deepEqual(Object.keys(fetch.requests[1].body.await_resume.message), ["role", "parts"]);
  assert.throws(() => handle.resume("again"), (e) => e.code === "move-not-allowed" && e.details.terminal === true);
  assert.throws(() => handle.cancel(), (e) => e.code === "move-not-allowed");
});

test("a stream the server leaves open ends at run.awaiting and at the terminal status, and the client closes it", async () => {
  const awaitBytes = fixture("await-stream.sse");
  const resumeBytes = fixture("resume-stream.sse");
  const runId = sseEvents(awaitBytes)[0].run.run_id;
  const open = (bytes) => ({ ...sse(bytes, 7), open: true });
  const fetch = scripted({ "POST /runs": open(awaitBytes), [`POST /runs/${runId}`]: open(resumeBytes) });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  const handle = client.run("approval", "do it", { stallTimeoutMs: 60_000 });
  const late = (what) => new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} waited for the connection to close`)), 3000).unref());
  const stopped = await Promise.race([handle.stopped(), late("stopped()")]);
  assert.equal(stopped.status, "awaiting");
  assert.equal(fetch.requests[0].cancelled, true);
  // The resume's answer comes in 7-byte chunks: its first is no event yet, and the run, still
  // `awaiting` from the first answer, must not end it.
  const resumed = await Promise.race([handle.resume("yes"), late("resume()")]);
  assert.equal(resumed.status, "completed");
  const run = await Promise.race([handle.run, late("run")]);
  assert.deepEqual(run, joined(sseEvents(resumeBytes).at(-1).run));
  assert.equal(fetch.requests[1].cancelled, true);
});

test("a sync run takes the server's run; the lifecycle follows the server's path", async () => {
  const final = json("run-sync.json");
  const fetch = scripted({ "POST /runs": { body: fixture("run-sync.json") } });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  const states = [];
  const messages = [];
  const handle = client.run("echo", [{ role: "user", parts: [{ content: "hello world", content_type: "text/plain" }] }], {
    mode: "sync",
    strict: true,
    onStateChange: (_, to) => states.push(to),
    onMessage: (m, i) => messages.push(i),
  });
  assert.deepEqual(await handle.run, joined(final));
  assert.deepEqual(states, ["created", "in-progress", "completed"]);
  assert.deepEqual(messages, [0, 1]);
  assert.deepEqual(canon(fetch.requests[0].body), canon(json("req-sync.json")));
  assert.equal(fetch.requests[0].accept, "application/json");
});

test("a JSON answer is read in chunks: a stalled body fails the run `stalled`, a byte order mark is dropped", async () => {
  const bytes = fixture("run-sync.json");
  const final = joined(json("run-sync.json"));
  // Byte by byte (a character's bytes in separate chunks), and after a byte order mark.
  for (const body of [bytes, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])]) {
    const fetch = scripted({ "POST /runs": { body, chunk: 1 } });
    const handle = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", { mode: "sync" });
    assert.deepEqual(await handle.run, final);
  }
  // The head and half the body, then nothing: `sync` (whose head may take as long as the run)
  // and each poll of `async` fail after `stallTimeoutMs`, and the body is cancelled.
  const half = bytes.subarray(0, bytes.length >> 1);
  const created = json("run-async-events.json").events[0].run;
  const cases = {
    sync: { "POST /runs": { body: half, open: true } },
    async: {
      "POST /runs": { status: 202, body: JSON.stringify(created) },
      [`GET /runs/${created.run_id}/events`]: { body: half, open: true },
    },
  };
  for (const [mode, routes] of Object.entries(cases)) {
    const fetch = scripted(routes);
    const handle = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", { mode, stallTimeoutMs: 150, pollInterval: 5 });
    let timer;
    const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${mode}: the stalled body was waited for`)), 3000)));
    const error = await Promise.race([handle.run.then(() => assert.fail("resolved"), (e) => e), late]).finally(() => clearTimeout(timer));
    assert.ok(error instanceof ProtocolError, mode);
    assert.equal(error.code, "stalled", mode);
    assert.equal(error.details.timeoutMs, 150, mode);
    assert.equal(fetch.requests.at(-1).cancelled, true, `${mode}: the body is cancelled`);
  }
});

test("a sync answer of a run that has not stopped is followed until it stops; an answer without a run id is invalid-event", async () => {
  const final = json("run-sync.json");
  const runId = final.run_id;
  const inProgress = { ...final, status: "in-progress", output: [], finished_at: null };
  const fetch = scripted({
    "POST /runs": { body: JSON.stringify(inProgress) },
    [`GET /runs/${runId}`]: [{ body: JSON.stringify(inProgress) }, { body: JSON.stringify(final) }],
  });
  const handle = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", { mode: "sync", pollInterval: 5 });
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("the run was not followed")), 3000)));
  const run = await Promise.race([handle.run, late]).finally(() => clearTimeout(timer));
  assert.deepEqual(run, joined(final));
  assert.deepEqual(fetch.requests.map((r) => r.key), ["POST /runs", `GET /runs/${runId}`, `GET /runs/${runId}`]);
  // `{}` (sync) and a gateway's 202 without a run (async) are not runs: before, `run` waited for ever.
  for (const [mode, status] of [["sync", 200], ["async", 202]]) {
    const client = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": { status, body: mode === "sync" ? "{}" : '{"accepted":true}' } }) });
    const h = client.run("echo", "hello world", { mode, pollInterval: 5 });
    let t;
    const slow = new Promise((_, reject) => (t = setTimeout(() => reject(new Error(`${mode}: run never settled`)), 3000)));
    const error = await Promise.race([h.run.then(() => assert.fail("resolved"), (e) => e), slow]).finally(() => clearTimeout(t));
    assert.equal(error.code, "invalid-event", mode);
    assert.match(error.message, /no `run_id`/, mode);
    assert.equal((await h.stopped()).status, "created", `${mode}: stopped() settles`);
  }
});

test("an async run is polled until it ends, applying only the new events", async () => {
  const all = json("run-async-events.json").events;
  const half = Math.floor(all.length / 2);
  const created = all[0].run;
  const runId = created.run_id;
  const fetch = scripted({
    "POST /runs": { status: 202, body: JSON.stringify(created) },
    [`GET /runs/${runId}/events`]: [
      { body: JSON.stringify({ events: all.slice(0, half) }) },
      { body: JSON.stringify({ events: all }) },
    ],
  });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  const updates = [];
  const handle = client.run("echo", "hello world", { mode: "async", pollInterval: 5, strict: true });
  for await (const u of handle) updates.push(u);
  const run = await handle.run;
  assert.deepEqual(run, joined(all.at(-1).run));
  assert.deepEqual(fetch.requests.map((r) => r.key), ["POST /runs", `GET /runs/${runId}/events`, `GET /runs/${runId}/events`]);
  // Each event applied once: one message.completed per message, one run.completed.
  assert.equal(updates.filter((u) => u.type === "messageCompleted").length, 2);
  assert.equal(updates.filter((u) => u.type === "done").length, 1);
  assert.deepEqual(updates.filter((u) => u.type === "state").map((u) => u.to), ["created", "in-progress", "completed"]);
});

test("an async run's event list that shrinks is reported once; strict mode ends the run", async () => {
  // A restarted server (or another instance) lists fewer events than an earlier poll.
  const all = json("run-async-events.json").events;
  const half = Math.floor(all.length / 2);
  const created = all[0].run;
  const runId = created.run_id;
  for (const strict of [false, true]) {
    const fetch = scripted({
      "POST /runs": { status: 202, body: JSON.stringify(created) },
      [`GET /runs/${runId}/events`]: [
        { body: JSON.stringify({ events: all.slice(0, half) }) },
        { body: JSON.stringify({ events: [] }) },
        { body: JSON.stringify({ events: all.slice(0, 1) }) },
        { body: JSON.stringify({ events: all }) },
      ],
    });
    const issues = [];
    const handle = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", {
      mode: "async",
      pollInterval: 5,
      strict,
      onWarning: (w) => issues.push([w.code, "warning", w.details]),
      onError: (e) => issues.push([e.code, "error", e.details]),
    });
    const settled = await handle.run.then((value) => ({ value }), (error) => ({ error }));
    const shrank = issues.filter(([code]) => code === "event-list-shrank");
    assert.deepEqual(shrank, [["event-list-shrank", strict ? "error" : "warning", { seen: half, got: 0 }]], `strict: ${strict}`);
    if (strict) {
      assert.equal(settled.error?.code, "stream-incomplete", String(settled.error?.message));
      assert.equal(settled.error.details.run.status, "incomplete");
      assert.equal(fetch.requests.length, 3, "no poll after the error");
    } else {
      // Polling went on; the events past those applied were applied once.
      assert.deepEqual(settled.value, joined(all.at(-1).run), String(settled.error?.message));
      assert.equal(fetch.requests.length, 5);
    }
  }
});

test("an async run's first failed poll keeps the run its 202 answer gave in details.run", async () => {
  const created = json("run-async-events.json").events[0].run;
  const fetch = scripted({
    "POST /runs": { status: 202, body: JSON.stringify(created) },
    [`GET /runs/${created.run_id}/events`]: { status: 503, body: JSON.stringify({ code: "server_error", message: "busy", data: null }) },
  });
  const handle = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", { mode: "async", pollInterval: 5 });
  await assert.rejects(handle.run, (e) => {
    assert.equal(e.code, "http-error");
    assert.equal(e.details.status, 503);
    assert.equal(e.details.run?.run_id, created.run_id);
    assert.equal(e.details.run.status, created.status);
    return true;
  });
  assert.equal(handle.runId, created.run_id);
});

test("agents() reads the manifests, and runs check their input against them", async () => {
  const vision = { name: "vision", description: null, metadata: {}, input_content_types: ["text/plain", "image/*"], output_content_types: ["text/plain"] };
  const agents = json("agents.json");
  agents.agents.push(vision);
  const fetch = scripted({ "GET /agents": { body: JSON.stringify(agents) }, "GET /agents/vision": { body: JSON.stringify(vision) } });
  const client = new AcpClient({ baseUrl: `${BASE}/`, fetch });
  assert.equal(client.baseUrl, BASE);
  assert.equal(client.manifest("vision"), null);
  const manifests = await client.agents();
  assert.deepEqual(manifests.map((a) => a.name), ["echo", "slow", "approval", "failer", "vision"]);
  assert.deepEqual(manifests[0].input_content_types, ["*/*"]);
  assert.deepEqual(client.manifest("vision").input_content_types, ["text/plain", "image/*"]);
  assert.deepEqual(await client.agent("vision"), vision);

  const pdf = { role: "user", parts: [{ content_type: "application/pdf", content_url: "https://example.com/a.pdf" }] };
  assert.throws(
    () => client.run("vision", [acpMessage("Read this"), pdf]),
    (e) =>
      e instanceof ProtocolError &&
      e.code === "content-type-not-accepted" &&
      e.details.agent === "vision" &&
      e.details.contentType === "application/pdf" &&
      e.details.partIndex === 0,
  );
  assert.equal(fetch.requests.filter((r) => r.key === "POST /runs").length, 0, "nothing was sent");
  assert.throws(() => acpCheckInput(vision, pdf), (e) => e.code === "content-type-not-accepted");
  // Roles outside the protocol's pattern and session ids that are not UUIDs, which acp-sdk's
  // server answers with HTTP 422, are refused before anything is sent (checkInput: false sends them).
  assert.throws(() => client.run("echo", acpMessage("hi", "assistant")), (e) => e.code === "invalid-argument" && e.details.what === "input[0].role" && /`assistant` is not an ACP role/.test(e.details.reason));
  assert.throws(() => client.run("echo", "hi", { sessionId: "sess-1" }), (e) => e.code === "invalid-argument" && e.details.what === "options.sessionId");
  assert.equal(fetch.requests.filter((r) => r.key === "POST /runs").length, 0, "nothing was sent");
  // A UUID and the pattern's roles are sent (the scripted server answers 404: http-error).
  const sessionId = "0F8FAD5B-d9cb-469f-a165-70867728950e";
  const sent = client.run("echo", [acpMessage("hi"), acpMessage("ok", "agent"), acpMessage("and", "agent/echo-2_x")], { sessionId });
  await assert.rejects(sent.run, (e) => e.code === "http-error");
  const posted = fetch.requests.filter((r) => r.key === "POST /runs");
  assert.deepEqual(posted.map((r) => [r.body.session_id, r.body.input.map((m) => m.role)]), [[sessionId, ["user", "agent", "agent/echo-2_x"]]]);
  acpCheckInput(vision, { role: "user", parts: [{ content_type: "image/png", content_url: "https://example.com/cat.png" }] });
});

test("agent() and agents() replace the kept manifest of the same name and keep the others", async () => {
  const manifest = (name, types) => ({ name, description: null, metadata: {}, input_content_types: types, output_content_types: ["text/plain"] });
  const fetch = scripted({
    "GET /agents": { body: JSON.stringify({ agents: [manifest("a", ["text/plain"]), manifest("b", ["*/*"])] }) },
    "GET /agents/a": { body: JSON.stringify(manifest("a", ["image/*"])) },
    "GET /agents/c": { body: JSON.stringify(manifest("c", ["audio/*"])) },
  });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  await client.agents();
  await client.agent("a");
  await client.agent("c");
  const types = (name) => client.manifest(name)?.input_content_types;
  assert.deepEqual([types("a"), types("b"), types("c"), types("d")], [["image/*"], ["*/*"], ["audio/*"], undefined]);
  await client.agents();
  assert.deepEqual([types("a"), types("b"), types("c")], [["text/plain"], ["*/*"], ["audio/*"]]);
});

test("HTTP errors carry the ACP error; other failures keep what arrived in details.run", async () => {
  const client = new AcpClient({ baseUrl: BASE, fetch: scripted({}) });
  const errors = [];
  const h = client.run("nobody", "hi", { onError: (e) => errors.push(e) });
  await assert.rejects(h.run, (e) => {
    assert.ok(e instanceof ProtocolError);
    assert.equal(e.code, "http-error");
    assert.equal(e.details.status, 404);
    assert.equal(e.details.error.code, "not_found");
    assert.equal(e.details.run, undefined, "nothing was received: no run (as the other clients)");
    return true;
  });
  assert.equal(errors.length, 1);
  await assert.rejects(client.agents(), (e) => e.code === "http-error");
  await assert.rejects(client.readRun("r1"), (e) => e.code === "http-error" && e.details.status === 404);

  // A JSON answer to a streamed run.
  const json200 = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": { body: "{}" } }) });
  await assert.rejects(json200.run("echo", "hi").run, (e) => e.code === "not-event-stream" && e.details.contentType === "application/json");

  // The stream ends before the run does.
  const bytes = fixture("run-stream.sse").toString("utf8");
  const cut = bytes.slice(0, bytes.indexOf('data: {"type":"message.completed"'));
  const seen = [];
  const incomplete = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(cut, 200) }) });
  const h2 = incomplete.run("echo", "hello world", { onError: (e) => seen.push(e.code) });
  await assert.rejects(h2.run, (e) => {
    assert.equal(e.code, "stream-incomplete");
    assert.equal(e.details.lastStatus, "in-progress", "the status the server last sent");
    assert.equal(e.details.run.status, "incomplete");
    assert.equal(e.details.run.output[0].parts[0].content, "Echo: hello world");
    return true;
  });
  assert.deepEqual(seen, ["stream-incomplete"], "one onError");

  // A sync answer that is not a run.
  const notRun = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": { body: "{not json" } }) });
  await assert.rejects(notRun.run("echo", "hi", { mode: "sync" }).run, (e) => e.code === "invalid-json");
  assert.throws(() => client.run("echo", "hi", { mode: "eventually" }), (e) => e.code === "invalid-argument");
});

const AFTER_THE_END = [
  '{"type":"run.created","run":{"run_id":"r9","agent_name":"x","status":"created"}}',
  '{"type":"run.in-progress","run":{"run_id":"r9","agent_name":"x","status":"in-progress"}}',
  '{"type":"message.created","message":{"role":"agent/x","parts":[]}}',
  '{"type":"message.part","part":{"content":"a"}}',
  '{"type":"run.completed","run":{"run_id":"r9","agent_name":"x","status":"completed","output":[{"role":"agent/x","parts":[{"content":"a"}]}]}}',
  '{"type":"message.part","part":{"content":"b"}}',
].map((d) => `data: ${d}\n\n`).join("");

test("a run's limits reach its assembler: maxParts cuts the message, with a too-many-parts error", async () => {
  const parts = ["/a", "/b", "/c"].map((name) => `{"name":"${name}","content":"${name.slice(1)}"}`);
  const events = [
    '{"type":"run.created","run":{"run_id":"r7","agent_name":"x","status":"created"}}',
    '{"type":"run.in-progress","run":{"run_id":"r7","agent_name":"x","status":"in-progress"}}',
    '{"type":"message.created","message":{"role":"agent/x","parts":[]}}',
    ...parts.map((p) => `{"type":"message.part","part":${p}}`),
    `{"type":"message.completed","message":{"role":"agent/x","parts":[${parts}]}}`,
    `{"type":"run.completed","run":{"run_id":"r7","agent_name":"x","status":"completed","output":[{"role":"agent/x","parts":[${parts}]}]}}`,
  ].map((d) => `data: ${d}\n\n`).join("");
  const names = async (options) => {
    const issues = [];
    const client = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(events) }) });
    const h = client.run("x", "go", { ...options, onWarning: (w) => issues.push(w.code), onError: (e) => issues.push(e.code) });
    const run = await h.run;
    return { issues, names: run.output.map((m) => m.parts.map((p) => p.name)) };
  };
  assert.deepEqual(await names({}), { issues: [], names: [["/a", "/b", "/c"]] });
  assert.deepEqual(await names({ limits: { maxParts: 2 } }), { issues: ["too-many-parts"], names: [["/a", "/b"]] });
});

test("limits.maxStreamBytes ends a run's stream where it falls: stream-too-large, the request closed", async () => {
  const bytes = fixture("run-stream.sse");
  const first = bytes.indexOf("\n\n") + 2;
  // The server leaves the answer open: only the limit ends it.
  const fetch = scripted({ "POST /runs": { ...sse(bytes, 64), open: true } });
  const errors = [];
  const h = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", {
    limits: { maxStreamBytes: first + 10 },
    stallTimeoutMs: 60_000,
    onError: (e) => errors.push(e.code),
  });
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("the limit did not end the stream")), 3000)));
  const error = await Promise.race([h.run.then(() => assert.fail("resolved"), (e) => e), late]).finally(() => clearTimeout(timer));
  assert.equal(error.code, "stream-incomplete");
  assert.equal(error.details.run.status, "incomplete");
  assert.equal(error.details.lastStatus, "created", "only the first event applied");
  assert.ok(errors.includes("stream-too-large"), `${errors}`);
  assert.equal(fetch.requests[0].cancelled, true);
});

test("limits.maxStreamBytes bounds each JSON answer of sync and async runs: stream-too-large, the body cancelled", async () => {
  const body = fixture("run-sync.json");
  const created = json("run-async-events.json").events[0].run;
  const events = JSON.stringify(json("run-async-events.json"));
  const cases = {
    sync: [{ "POST /runs": { body, open: true } }, body.length],
    async: [{ "POST /runs": { status: 202, body: JSON.stringify(created) }, [`GET /runs/${created.run_id}/events`]: { body: events, open: true } }, events.length],
  };
  for (const [mode, [routes, size]] of Object.entries(cases)) {
    // At the answer's size it is read; one byte less fails.
    for (const limit of [size, size - 1]) {
      const fetch = scripted(routes);
      const h = new AcpClient({ baseUrl: BASE, fetch }).run("echo", "hello world", { mode, pollInterval: 5, stallTimeoutMs: limit === size ? 200 : 60_000, limits: { maxStreamBytes: limit } });
      let timer;
      const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${mode} ${limit}: never settled`)), 3000)));
      const error = await Promise.race([h.run.then(() => null, (e) => e), late]).finally(() => clearTimeout(timer));
      if (limit === size) {
        // Read whole: the open body then stalls (the limit did not cut it).
        assert.equal(error?.code, "stalled", `${mode} ${limit}`);
      } else {
        assert.equal(error?.code, "stream-too-large", `${mode} ${limit}`);
        assert.equal(error.details.limit, limit);
        assert.equal(fetch.requests.at(-1).cancelled, true, `${mode}: the body is cancelled`);
      }
    }
  }
});

test("inbound check: a strict run fails at an event its lifecycle does not allow, a lenient one warns", async () => {
  const strict = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(AFTER_THE_END) }) });
  const errors = [];
  const h = strict.run("x", "go", { strict: true, onError: (e) => errors.push(e.code) });
  await assert.rejects(h.run, (e) => {
    assert.equal(e.code, "move-not-allowed");
    assert.equal(e.details.state, "completed");
    assert.equal(e.details.type, "message.part");
    assert.equal(e.details.run.output[0].parts[0].content, "a");
    return true;
  });
  assert.deepEqual(errors, ["move-not-allowed"]);

  const lenient = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(AFTER_THE_END) }) });
  const warnings = [];
  const run = await lenient.run("x", "go", { onWarning: (w) => warnings.push(w) }).run;
  assert.equal(run.status, "completed");
  // Not allowed by the run's lifecycle (the session) and out of order for the assembler: both warn.
  assert.deepEqual(warnings.map((w) => w.code), ["move-not-allowed", "out-of-order"]);
  assert.equal(warnings[0].details.state, "completed");
  assert.equal(warnings[0].details.type, "message.part");
});

test("abort: the request stops, no callback runs after it, and the run keeps what arrived", async () => {
  const controller = new AbortController();
  const slow = async (req) => {
    const lines = sseEvents(fixture("run-stream.sse")).map((e) => `data: ${JSON.stringify(e)}\n\n`);
    let i = 0;
    const stream = new ReadableStream({
      async pull(c) {
        await new Promise((r) => setTimeout(r, 5));
        if (i < lines.length) c.enqueue(new TextEncoder().encode(lines[i++]));
        else c.close();
      },
    });
    req.signal.addEventListener("abort", () => stream.cancel().catch(() => {}));
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  };
  const client = new AcpClient({ baseUrl: BASE, fetch: slow });
  let after = 0;
  let aborted = false;
  const h = client.run("echo", "hello world", {
    signal: controller.signal,
    onTextDelta: () => {
      if (aborted) after++;
      aborted = true;
      controller.abort();
    },
  });
  await assert.rejects(h.run, (e) => e.code === "aborted" && e.details.run.output[0].parts[0].content.startsWith("Echo: "));
  assert.equal(after, 0);
});

test("abort between two polls of an async run settles the run at once, not after the interval", async () => {
  const all = json("run-async-events.json").events;
  const created = all[0].run;
  const fetch = scripted({
    "POST /runs": { status: 202, body: JSON.stringify(created) },
    [`GET /runs/${created.run_id}/events`]: { body: JSON.stringify({ events: all.slice(0, 2) }) },
  });
  const client = new AcpClient({ baseUrl: BASE, fetch });
  const controller = new AbortController();
  const started = Date.now();
  const h = client.run("echo", "hello world", { mode: "async", pollInterval: 60_000, signal: controller.signal });
  setTimeout(() => controller.abort(), 300);
  await assert.rejects(h.run, (e) => e.code === "aborted");
  const settledAfterMs = Date.now() - started;
  assert.ok(settledAfterMs < 5000, `settled after ${settledAfterMs} ms, not after the 60 s interval`);
  assert.deepEqual(fetch.requests.map((r) => r.key), ["POST /runs", `GET /runs/${created.run_id}/events`]);
});

test("a handler that throws stops the run with its exception", async () => {
  const client = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(fixture("run-stream.sse"), 100) }) });
  const boom = new Error("handler failed");
  const h = client.run("echo", "hi", {
    onGeneric: () => {
      throw boom;
    },
  });
  await assert.rejects(h.run, (e) => e === boom);
});

// The reference server's ACP agent (examples/reference_server/acp.rs).
const acp = () => new AcpClient({ baseUrl: `${server()}/acp` });

for (const mode of ["stream", "sync", "async"]) {
  test(`reference server, ${mode}: await, resume with an approval, and cancel while awaiting`, async () => {
    const client = acp();
    const [manifest] = await client.agents();
    assert.equal(manifest.name, "approval");
    const states = [];
    const h = client.run("approval", "Deploy", { mode, strict: true, pollInterval: 10, onStateChange: (_, to) => states.push(to) });
    assert.equal((await h.stopped()).status, "awaiting");
    assert.equal(h.awaiting.message.parts[0].content, "Approve the deployment? (yes/no)");
    await h.resume("yes, go");
    const run = await h.run;
    assert.equal(run.status, "completed");
    assert.match(run.output[0].parts[0].content, /restarts\. Approved \(“yes, go”\): deploying version 2\.4\.1 now\. Done\.$/);
    assert.deepEqual(states, ["created", "in-progress", "awaiting", "in-progress", "completed"]);
    // The server has the same run.
    const read = await client.readRun(h.runId);
    assert.equal(read.status, "completed");
    assert.equal(read.output[0].parts.map((p) => p.content).join(""), run.output[0].parts[0].content);
    const events = await client.runEvents(h.runId);
    assert.equal(events.at(-1).type, "run.completed");

    const c = client.run("approval", "Deploy", { mode, strict: true, pollInterval: 10 });
    await c.stopped();
    const answer = await c.cancel();
    // The server may already have finished cancelling when its answer arrives.
    assert.ok(["cancelling", "cancelled"].includes(answer.status), answer.status);
    assert.ok(["cancelling", "cancelled"].includes(c.session.state), c.session.state);
    const cancelled = await c.run;
    assert.equal(cancelled.status, "cancelled");
    assert.deepEqual(await collect(c), [], "an iterator created after the end finishes at once");
    assert.equal(c.session.state, "cancelled");
    assert.throws(() => c.cancel(), (e) => e.code === "move-not-allowed" && e.details.terminal === true);
  });
}

test("reference server: an async run resumed from its onAwaiting handler sends the resume and completes", async () => {
  let h;
  h = acp().run("approval", "Deploy", { mode: "async", pollInterval: 10, onAwaiting: () => { h.resume("yes"); } });
  const settled = await Promise.race([
    h.run.then((r) => r.status, (e) => e.code),
    new Promise((resolve) => setTimeout(() => resolve("pending"), 4000)),
  ]);
  assert.equal(settled, "completed");
  h.free();
});

test("reference server: a run goes on after its client is freed; freeing the run aborts it", async () => {
  const client = acp();
  const h = client.run("approval", "Deploy", { mode: "async", pollInterval: 10 });
  client.free();
  client.free(); // again: nothing
  assert.equal((await h.stopped()).status, "awaiting");
  await h.resume("yes");
  assert.equal((await h.run).status, "completed");
  h.free();
  h.free();

  let after = 0, freed = false;
  const streaming = acp().run("approval", "Deploy", {
    mode: "stream",
    onTextDelta: () => {
      if (freed) after++;
      else { freed = true; streaming.free(); }
    },
  });
  const e = await streaming.run.then(() => null, (x) => x);
  assert.equal(e?.code, "aborted");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(after, 0, "no handler after free()");
});

test("reference server: abort or free() while the run awaits the client settles run, aborted", async () => {
  // No request is under way while a run awaits: the abort itself settles it.
  for (const how of ["abort", "free"]) {
    const controller = new AbortController();
    const h = acp().run("approval", "Deploy", { signal: controller.signal });
    assert.equal((await h.stopped()).status, "awaiting");
    const runId = h.runId;
    if (how === "abort") controller.abort();
    else h.free();
    const settled = await Promise.race([
      h.run.then(() => "resolved", (e) => e),
      new Promise((resolve) => setTimeout(() => resolve("pending"), 3000)),
    ]);
    assert.ok(settled instanceof ProtocolError, `${how}: ${settled}`);
    assert.equal(settled.code, "aborted");
    assert.equal(settled.details.run.run_id, runId);
    assert.equal(settled.details.run.status, "awaiting");
  }
});

test("reference server: a cancel while the agent streams ends the stream, cancelled", async () => {
  const client = new AcpClient({
    baseUrl: `${server()}/acp`,
    fetch: async (req) =>
      req.method === "POST" && req.url.endsWith("/acp/runs") ? fetch(`${req.url}?pace_ms=100`, { method: "POST", headers: req.headers, body: await req.text() }) : fetch(req),
  });
  const h = client.run("approval", "Deploy", { strict: true });
  const types = [];
  let cancelled = false;
  for await (const u of h) {
    types.push(u.type);
    if (u.type === "textDelta" && !cancelled) {
      cancelled = true;
      await h.cancel();
    }
  }
  const run = await h.run;
  assert.equal(run.status, "cancelled");
  assert.ok(!run.output[0].parts[0].content.includes("restarts."), "cancelled before the plan ended");
  assert.equal(types.at(-1), "done");
  assert.ok(!types.includes("awaiting"));
});

test("the README's ACP example runs against the reference server, and its lifecycle diagram is the schema's", async () => {
  const { execFileSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { pathToFileURL } = await import("node:url");
  const { root, pkgDir } = await import("../helpers.mjs");
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const example = readme.match(/<!-- readme-acp-example -->\s*```js\n([\s\S]*?)```/)?.[1];
  assert.ok(example, "README has an example marked <!-- readme-acp-example -->");
  const file = join(mkdtempSync(join(tmpdir(), "agentwire-acp-")), "example.mjs");
  writeFileSync(
    file,
    example
      .replace('from "agentwire"', `from ${JSON.stringify(pathToFileURL(join(pkgDir, "node/index.js")).href)}`)
      .replaceAll("http://127.0.0.1:8787", server()),
  );
  const out = execFileSync("node", [file], { encoding: "utf8" });
  assert.match(out, /idle → created \(client create\)/);
  assert.match(out, /Approve the deployment\? \(yes\/no\)/);
  assert.match(out, /\[ 'resume', 'cancel' \]/);
  assert.match(out, /completed I will deploy version 2\.4\.1 .* Approved \(“yes”\): deploying version 2\.4\.1 now\. Done\./);

  const { CommunicationSchema } = await agentwire();
  const diagram = readme.match(/```mermaid\n([\s\S]*?)```/)?.[1];
  assert.equal(diagram, CommunicationSchema.builtin("acpRun").toMermaid());
});

test("a surrogate pair a JavaScript server cut between two message.part events is joined", async () => {
  // JSON.stringify writes each half of a cut pair as an escape of its own ("\ud83d").
  const text = "I 😀 you, 東京 😀";
  const pieces = [text.slice(0, 3), text.slice(3, 14), text.slice(14)]; // both emoji cut
  const event = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const run = { run_id: "r1", agent_name: "echo", status: "in-progress", output: [] };
  let body = event({ type: "run.created", run: { ...run, status: "created" } }) + event({ type: "run.in-progress", run });
  body += event({ type: "message.created", message: { role: "agent/echo", parts: [] } });
  for (const t of pieces) body += event({ type: "message.part", part: { content: t } });
  assert.match(body, /\\ud83d"/);
  const message = { role: "agent/echo", parts: [{ content: text }] };
  body += event({ type: "message.completed", message });
  body += event({ type: "run.completed", run: { ...run, status: "completed", output: [message] } });
  for (const chunk of [1, 7, body.length]) {
    const client = new AcpClient({ baseUrl: BASE, fetch: scripted({ "POST /runs": sse(body, chunk) }) });
    let streamed = "";
    const handle = client.run("echo", "hi", {
      strict: true,
      onPart: (p) => (streamed += p.content),
      onTextDelta: (d) => (streamed += d),
      onWarning: (w) => assert.fail(`warning ${w.code}: ${w.message}`),
    });
    const done = await handle.run;
    assert.equal(streamed, text, `chunk ${chunk}`);
    assert.equal(done.output[0].parts[0].content, text);
  }
});
