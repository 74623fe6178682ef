// The transport's edges, against small local servers: a response that ends while the connection
// stays open, answers that never come, error answers with endless bodies, custom `fetch` mistakes,
// requests `fetch` refuses, and resumes that fail.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { agentwire, eventually } from "../helpers.mjs";

const { AgentClient, AgentxClient, AcpClient, RequestBuilder, ProtocolError, agentxUserMessage } = await agentwire();
const request = () => new RequestBuilder().text("user", "x").build();

/** Agent API events of a whole response (no message), with SSE ids. */
const RESPONSE = ["created", "in_progress", "completed"]
  .map((status, i) => `id: ${i}\ndata: ${JSON.stringify({ sequence_number: i, object: "response", id: "resp_1", status })}\n\n`);

/** Requests the server has seen (`METHOD path`) and those whose connection has closed. */
const seen = [];
const closed = [];
const routes = {
  // The whole response, then the connection kept open with a comment every 50 ms.
  "/done-but-open": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(RESPONSE.join(""));
    const ping = setInterval(() => res.write(": ping\n\n"), 50);
    res.on("close", () => clearInterval(ping));
  },
  // The request is read and never answered.
  "/no-answer": () => {},
  // An error status (or another content type) with a body that never ends, 16 KiB every 5 ms.
  "/endless-500": (req, res) => endless(res, 500, "text/plain"),
  "/endless-ndjson": (req, res) => endless(res, 200, "application/x-ndjson"),
  // An error status (or another content type) whose body begins, then stops.
  "/stalled-500": (req, res) => {
    res.writeHead(500, { "content-type": "text/plain" });
    res.write("the server broke");
  },
  "/stalled-html": (req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.write("<html>a proxy's page");
  },
  // The response's first event, then silence.
  "/first-then-silence": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(RESPONSE[0]);
  },
  // An AgentX packet, or an ACP run's first event, then silence.
  "/packet-then-silence": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ id: "msg_1", role: "assistant", parts: [{ type: "text", text: "Hel" }] })}\n\n`);
  },
  "/run-then-silence": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ type: "run.created", run: { run_id: "r1", agent_name: "a", status: "created" } })}\n\n`);
  },
  // The first event, then the server closes early; its resume answers and stays open.
  "/first-then-close": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(RESPONSE[0]);
  },
  "/resume-open/resp_1": (req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(RESPONSE[1]);
    const ping = setInterval(() => res.write(": ping\n\n"), 50);
    res.on("close", () => clearInterval(ping));
  },
};

function endless(res, status, contentType) {
  res.writeHead(status, { "content-type": contentType });
  const piece = "e".repeat(16 * 1024);
  const more = setInterval(() => res.write(piece), 5);
  res.on("close", () => clearInterval(more));
}

let srv;
let baseUrl;
before(async () => {
  srv = createServer((req, res) => {
    const key = `${req.method} ${req.url}`;
    seen.push(key);
    res.on("close", () => closed.push(key));
    req.resume();
    // `/agentx/…` and `/acp/…` (with ACP's own paths after it) reach the same routes.
    const path = req.url.replace(/^\/(agentx|acp)/, "");
    const route = routes[Object.keys(routes).find((k) => path === k || path.startsWith(`${k}/`))];
    if (route) route(req, res);
    else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such thing");
    }
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${srv.address().port}`;
});
after(() => {
  srv.closeAllConnections();
  srv.close();
});

/** What `promise` settles with (`{value}` or `{error}`), or `"pending"` after `ms`. */
const within = (promise, ms = 4000) =>
  Promise.race([
    promise.then((value) => ({ value }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve("pending"), ms)),
  ]);

test("a response ends at its terminal status while the server keeps the connection open", async () => {
  const warnings = [];
  const errors = [];
  const client = new AgentClient({ baseUrl, endpoint: "/done-but-open", resume: { initialDelayMs: 10 } });
  const stream = client.stream(request(), { onWarning: (w) => warnings.push(w.code), onError: (e) => errors.push(e.code) }, { stallTimeoutMs: 300 });
  const settled = await within(stream.response);
  assert.notEqual(settled, "pending", "response settles at the terminal status");
  assert.equal(settled.value?.status, "completed", String(settled.error));
  await new Promise((r) => setTimeout(r, 500)); // past the stall timeout
  assert.deepEqual(errors, [], "no stalled error after done");
  assert.deepEqual(warnings, [], "no resume after done");
  await eventually(() => closed.includes("POST /done-but-open"), 2000, "the request closed");
  assert.equal(seen.filter((s) => s.startsWith("GET")).length, 0, "nothing resumed");
});

test("stallTimeoutMs covers the wait for the answer: a request never answered fails with stalled", async () => {
  const client = new AgentClient({ baseUrl, endpoint: "/no-answer" });
  const settled = await within(client.stream(request(), {}, { stallTimeoutMs: 200 }).response);
  assert.ok(settled.error instanceof ProtocolError, `settled: ${JSON.stringify(settled)}`);
  assert.equal(settled.error.code, "stalled");
  assert.equal(settled.error.details.timeoutMs, 200);
  assert.equal(settled.error.details.response, undefined, "nothing was received");
  await eventually(() => closed.includes("POST /no-answer"), 2000, "the request closed");
});

test("AgentX and ACP have stallTimeoutMs too: no answer, or no byte after the first event, fails with stalled", async () => {
  const chat = (endpoint, handlers = {}) =>
    new AgentxClient({ baseUrl, endpoint: `/agentx${endpoint}` }).chat([agentxUserMessage("x")], handlers, { stallTimeoutMs: 200 }).messages;
  const run = (path, options = {}) => new AcpClient({ baseUrl: `${baseUrl}/acp${path}` }).run("a", "x", { stallTimeoutMs: 200, ...options }).run;

  for (const [what, outcome] of [["AgentX, no answer", chat("/no-answer")], ["ACP, no answer", run("/no-answer")]]) {
    const settled = await within(outcome);
    assert.equal(settled.error?.code, "stalled", `${what}: ${JSON.stringify(settled)}`);
    assert.equal(settled.error.details.timeoutMs, 200, what);
  }
  await eventually(() => closed.includes("POST /agentx/no-answer") && closed.includes("POST /acp/no-answer/runs"), 2000, "the requests closed");

  const errors = [];
  const stalledChat = await within(chat("/packet-then-silence", { onError: (e) => errors.push(e.code) }));
  assert.equal(stalledChat.error?.code, "stalled", JSON.stringify(stalledChat));
  assert.deepEqual(errors, ["stalled"], "onError has the same code");
  assert.equal(stalledChat.error.details.messages[0].parts[0].text, "Hel", "what arrived is kept");

  const stalledRun = await within(run("/run-then-silence"));
  assert.equal(stalledRun.error?.code, "stalled", JSON.stringify(stalledRun));
  assert.equal(stalledRun.error.details.run.run_id, "r1", "what arrived is kept");
  await eventually(() => closed.includes("POST /agentx/packet-then-silence") && closed.includes("POST /acp/run-then-silence/runs"), 2000, "the streams closed");

  // A `sync` run's answer comes when the run stops: waiting for it is not a stall.
  const controller = new AbortController();
  const sync = run("/no-answer", { mode: "sync", signal: controller.signal });
  assert.equal(await within(sync, 600), "pending", "a sync run waits past stallTimeoutMs");
  controller.abort();
  assert.equal((await within(sync)).error?.code, "aborted");
});

test("an error answer with an endless body: its first 64 KiB are kept and the request closed, in every client", async () => {
  const clients = {
    "agent-api": (endpoint) => new AgentClient({ baseUrl, endpoint }).stream(request()).response,
    agentx: (endpoint) => new AgentxClient({ baseUrl, endpoint: `/agentx${endpoint}` }).chat([agentxUserMessage("x")]).messages,
    acp: (endpoint) => new AcpClient({ baseUrl: `${baseUrl}/acp${endpoint}` }).run("a", "x").run,
  };
  for (const [name, open] of Object.entries(clients)) {
    for (const [endpoint, code] of [["/endless-500", name === "acp" ? "http-error" : "http-status"], ["/endless-ndjson", "not-event-stream"]]) {
      if (name === "acp" && endpoint === "/endless-ndjson") continue; // ACP's create reads the stream's type from its mode
      const settled = await within(open(endpoint));
      assert.ok(settled.error instanceof ProtocolError, `${name} ${endpoint}: ${JSON.stringify(settled)}`);
      assert.equal(settled.error.code, code, `${name} ${endpoint}`);
      if (code !== "http-error") {
        assert.ok(settled.error.details.body.length <= 64 * 1024 && settled.error.details.body.startsWith("eee"), `${name} ${endpoint}`);
      }
    }
  }
  await eventually(() => closed.filter((c) => c.includes("/endless-")).length === 5, 2000, "every request closed");
});

test("an error answer whose body stops: what came is kept and the request closed after stallTimeoutMs, in every client", async () => {
  // Before, the body was awaited without a limit: the stream, chat or run never settled.
  const options = { stallTimeoutMs: 200 };
  const clients = {
    "agent-api": (endpoint) => new AgentClient({ baseUrl, endpoint }).stream(request(), {}, options).response,
    agentx: (endpoint) => new AgentxClient({ baseUrl, endpoint: `/agentx${endpoint}` }).chat([agentxUserMessage("x")], {}, options).messages,
    acp: (endpoint) => new AcpClient({ baseUrl: `${baseUrl}/acp${endpoint}` }).run("a", "x", options).run,
  };
  for (const [name, open] of Object.entries(clients)) {
    for (const [endpoint, code, body] of [
      ["/stalled-500", name === "acp" ? "http-error" : "http-status", "the server broke"],
      ["/stalled-html", "not-event-stream", "<html>a proxy's page"],
    ]) {
      if (name === "acp" && endpoint === "/stalled-html") continue; // as above
      const settled = await within(open(endpoint), 3000);
      assert.ok(settled.error instanceof ProtocolError, `${name} ${endpoint}: ${JSON.stringify(settled)}`);
      assert.equal(settled.error.code, code, `${name} ${endpoint}`);
      const kept = code === "http-error" ? settled.error.details.error.message : settled.error.details.body;
      assert.equal(kept, body, `${name} ${endpoint}`);
    }
  }
  await eventually(() => closed.filter((c) => c.includes("/stalled-")).length === 5, 2000, "every request closed");
});

test("an abort while an error answer's body is read rejects with aborted", async () => {
  const controller = new AbortController();
  // The abort comes once the answer's head has arrived, while its body is read.
  const fetchThenAbort = async (req) => {
    const answer = await fetch(req);
    setTimeout(() => controller.abort(), 5);
    return answer;
  };
  const client = new AgentClient({ baseUrl, endpoint: "/endless-500", fetch: fetchThenAbort });
  const settled = await within(client.stream(request(), {}, { signal: controller.signal }).response);
  assert.equal(settled.error?.code, "aborted");
});

test("a custom fetch that throws or gives no Response fails with network-error, in every client", async () => {
  const fetches = {
    "forgot to return": async () => {
      undefined;
    },
    "not async, forgot to return": () => undefined,
    "throws synchronously": () => {
      throw new TypeError("boom");
    },
    // An object that does not read as a Response (a mock without its status) read as HTTP 0.
    "gives {}": async () => ({}),
  };
  for (const [what, fetch] of Object.entries(fetches)) {
    const errors = [];
    const onError = (e) => errors.push(e.code);
    const outcomes = [
      new AgentClient({ baseUrl, fetch }).stream(request(), { onError }).response,
      new AgentxClient({ baseUrl, fetch }).chat([agentxUserMessage("x")], { onError }).messages,
      new AcpClient({ baseUrl, fetch }).run("a", "x", { onError }).run,
    ];
    for (const outcome of outcomes) {
      const settled = await within(outcome);
      assert.ok(settled.error instanceof ProtocolError, `${what}: ${settled.error ?? JSON.stringify(settled)}`);
      assert.equal(settled.error.code, "network-error", what);
    }
    assert.deepEqual(errors, ["network-error", "network-error", "network-error"], what);
  }
});

test("a request fetch refuses (a URL it cannot parse, a header value with a newline) is invalid-argument", async () => {
  const refused = [
    new AgentClient({ baseUrl: "not a url" }).stream(request()).response,
    new AgentClient({ baseUrl, headers: { "x-a": "a\nb" } }).stream(request()).response,
    new AgentxClient({ baseUrl: "not a url" }).chat([agentxUserMessage("x")]).messages,
    new AcpClient({ baseUrl, headers: { "x-a": "a\nb" } }).run("a", "x").run,
  ];
  for (const outcome of refused) {
    const settled = await within(outcome);
    assert.ok(settled.error instanceof ProtocolError, String(settled.error));
    assert.equal(settled.error.code, "invalid-argument");
    assert.equal(settled.error.details.what, "request");
  }
});

test("a signal that is not an AbortSignal is invalid-argument, in every client", () => {
  const isSignalError = (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "options.signal";
  assert.throws(() => new AgentClient({ baseUrl }).stream(request(), {}, { signal: "x" }), isSignalError);
  assert.throws(() => new AgentxClient({ baseUrl }).chat([agentxUserMessage("x")], {}, { signal: {} }), isSignalError);
  assert.throws(() => new AcpClient({ baseUrl }).run("a", "x", { signal: 5 }), isSignalError);
});

test("resume attempts that fail are reported, and the stream rejects with what broke it", async () => {
  const warnings = [];
  const errors = [];
  const client = new AgentClient({ baseUrl, endpoint: "/first-then-silence", resume: { initialDelayMs: 10, maxAttempts: 2 } });
  const stream = client.stream(request(), { onWarning: (w) => warnings.push(w), onError: (e) => errors.push(e.code) }, { stallTimeoutMs: 200 });
  const settled = await within(stream.response);
  assert.equal(settled.error?.code, "stalled", String(settled.error));
  assert.equal(settled.error.details.response.id, "resp_1");
  assert.deepEqual(warnings.map((w) => [w.code, w.details.attempt, w.details.code]), [["resume-failed", 1, "http-status"], ["resume-failed", 2, "http-status"]]);
  assert.equal(warnings[0].details.lastEventId, "0");
  assert.deepEqual(errors, ["stalled"]);
});

test("a resume answered by another response is reported, not taken for a replay", async () => {
  // A load balancer sends the resume to another instance, which streams its own response numbered
  // from 0 (SSE ids and sequence numbers both).
  const event = (i, e) => `id: ${i}\ndata: ${JSON.stringify({ sequence_number: i, ...e })}\n\n`;
  const response = (id, status) => ({ object: "response", id, status });
  const message = (id) => ({ object: "message", id, type: "message", role: "assistant", status: "in_progress" });
  const text = (msg_id, t) => ({ object: "content", type: "text", msg_id, index: 0, delta: true, text: t, status: "in_progress" });
  const first = [response("resp_1", "created"), response("resp_1", "in_progress"), message("msg_1"), text("msg_1", "Hel")];
  const other = [response("resp_X", "created"), response("resp_X", "in_progress"), message("msg_X"), text("msg_X", "OTHER "), text("msg_X", "ANSWER"), response("resp_X", "completed")];
  for (const strict of [true, false]) {
    const requests = [];
    const fetch = async (req) => {
      requests.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("last-event-id")}`);
      const events = requests.length === 1 ? first : other;
      return new Response(events.map((e, i) => event(i, e)).join(""), { headers: { "content-type": "text/event-stream" } });
    };
    const issues = [];
    const deltas = [];
    const stream = new AgentClient({ baseUrl: "http://agent.test", fetch, resume: { initialDelayMs: 10 } }).stream(
      request(),
      { onWarning: (w) => issues.push([w.code, "warning", w.details]), onError: (e) => issues.push([e.code, "error", e.details]), onTextDelta: (d) => deltas.push(d) },
      { strict },
    );
    const settled = await within(stream.response);
    assert.deepEqual(requests, ["POST /process null", "GET /process/resume/resp_1 3"]);
    const mismatch = issues.find(([code]) => code === "resume-mismatch");
    assert.deepEqual(mismatch, ["resume-mismatch", strict ? "error" : "warning", { eventId: "0", what: "response", id: "resp_X" }], `strict: ${strict}`);
    if (strict) {
      // Nothing of the other response is taken; the stream ends there.
      assert.equal(settled.value?.id, "resp_1", String(settled.error));
      assert.equal(settled.value.status, "incomplete");
      assert.deepEqual(settled.value.output.map((m) => m.id), ["msg_1"]);
      assert.deepEqual(deltas, ["Hel"]);
    } else {
      // Every event of the new connection is applied (none skipped as a replay), and reported.
      assert.equal(settled.value?.id, "resp_X", String(settled.error));
      assert.equal(settled.value.status, "completed");
      assert.deepEqual(settled.value.output.map((m) => [m.id, m.content[0].text]), [["msg_1", "Hel"], ["msg_X", "OTHER ANSWER"]]);
      assert.deepEqual(deltas, ["Hel", "OTHER ", "ANSWER"]);
      assert.ok(issues.some(([code]) => code === "response-id-changed"));
    }
  }
});

test("a handler that throws on the resumed warning closes the resumed connection", async () => {
  const thrown = new Error("no resuming here");
  const client = new AgentClient({ baseUrl, endpoint: "/first-then-close", resume: { initialDelayMs: 10, path: "/resume-open/{responseId}" } });
  const stream = client.stream(request(), {
    onWarning: (w) => {
      if (w.code === "resumed") throw thrown;
    },
  });
  const settled = await within(stream.response);
  assert.equal(settled.error, thrown);
  await eventually(() => closed.includes("GET /resume-open/resp_1"), 2000, "the resumed request closed");
});

/**
 * For each `fetches` shape (`fetchOf(firstEvent)` gives the client's `fetch`) and each client,
 * with `stallTimeoutMs`: an abort 20 ms after the start settles the outcome with `aborted`.
 */
async function abortsSettle(fetches, stallTimeoutMs) {
  const events = {
    agent: RESPONSE[0],
    agentx: `data: ${JSON.stringify({ id: "msg_1", role: "assistant", parts: [{ type: "text", text: "Hel" }] })}\n\n`,
    acp: `data: ${JSON.stringify({ type: "run.created", run: { run_id: "r1", agent_name: "a", status: "created" } })}\n\n`,
  };
  for (const [shape, fetchOf] of Object.entries(fetches)) {
    const options = (signal) => ({ stallTimeoutMs, signal });
    const outcomes = {
      agent: (signal) => new AgentClient({ baseUrl, fetch: fetchOf(events.agent) }).stream(request(), {}, options(signal)).response,
      agentx: (signal) => new AgentxClient({ baseUrl, fetch: fetchOf(events.agentx) }).chat([agentxUserMessage("x")], {}, options(signal)).messages,
      acp: (signal) => new AcpClient({ baseUrl, fetch: fetchOf(events.acp) }).run("a", "x", options(signal)).run,
    };
    for (const [client, outcome] of Object.entries(outcomes)) {
      const controller = new AbortController();
      const settled = within(outcome(controller.signal), 2000);
      setTimeout(() => controller.abort(), 20);
      const result = await settled;
      assert.equal(result.error?.code, "aborted", `${client}, ${shape}: ${JSON.stringify(result)}`);
    }
  }
}

test("an abort the request does not see (a fetch that ignores its signal) wins over the stall timer, in every client", async () => {
  // A fetch that never answers, or answers with one event and then a body that never ends; it
  // ignores the request's signal, and the stall timer is set too: the abort, 20 ms in, wins.
  const fetches = {
    "no answer": () => () => new Promise(() => {}),
    "a silent body": (event) => () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(event)) }), {
        headers: { "content-type": "text/event-stream" },
      }),
  };
  await abortsSettle(fetches, 150);
});

test("an abort settles every client whose fetch ignores the signal, with no stall timer", async () => {
  // Bodies that never end: only the abort can end the wait (the request's signal does not reach
  // them). They used to leave `response`, `messages` and `run` pending for ever.
  const endless = (text, status = 200, type = "text/event-stream") =>
    new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(text)) }), {
      status,
      headers: { "content-type": type },
    });
  const fetches = {
    "no answer": () => () => new Promise(() => {}),
    "a silent body": (event) => () => endless(event),
    "an error answer whose body never ends": () => () => endless("{\"detail\": \"no", 500, "application/json"),
    "another content type whose body never ends": () => () => endless("<html>", 200, "text/html"),
  };
  await abortsSettle(fetches, 0);
  // An ACP run in sync mode whose answer's body never ends.
  const controller = new AbortController();
  const run = new AcpClient({ baseUrl, fetch: () => endless('{"run_id": "r1"', 200, "application/json") }).run("a", "x", {
    mode: "sync",
    signal: controller.signal,
  }).run;
  setTimeout(() => controller.abort(), 20);
  assert.equal((await within(run, 2000)).error?.code, "aborted");
});

test("a body chunk that is not bytes ends the stream with network-error; a Uint8Array is read through its internal slots, in every client", async () => {
  const events = {
    agent: RESPONSE.join(""),
    agentx: `data: ${JSON.stringify({ id: "msg_1", role: "assistant", parts: [{ type: "text", text: "Hel" }] })}\n\n`,
    acp: `data: ${JSON.stringify({ type: "run.created", run: { run_id: "r1", agent_name: "a", status: "created" } })}\n\n`,
  };
  const answer = (chunk) => async () =>
    new Response(new ReadableStream({ start: (c) => (c.enqueue(chunk), c.close()) }), { headers: { "content-type": "text/event-stream" } });
  const outcomes = {
    agent: (fetch, onError) => new AgentClient({ baseUrl, fetch, resume: { maxAttempts: 0 } }).stream(request(), { onError }).response,
    agentx: (fetch, onError) => new AgentxClient({ baseUrl, fetch }).chat([agentxUserMessage("x")], { onError }).messages,
    acp: (fetch, onError) => new AcpClient({ baseUrl, fetch }).run("a", "x", { onError }).run,
  };
  // A string (a body a custom fetch built by hand) was skipped without a word: the stream then
  // ended incomplete, its bytes lost.
  for (const client of Object.keys(events)) {
    const errors = [];
    const settled = await within(outcomes[client](answer(events[client]), (e) => errors.push(e.code)));
    assert.equal(settled.error?.code, "network-error", `${client}: ${JSON.stringify(settled)}`);
    assert.match(settled.error.details.reason, /the response body gave a chunk that is not bytes: it is a string/, client);
    assert.deepEqual(errors, ["network-error"], client);
  }
  // A Uint8Array whose own `length` throws: its internal slots are read (the exception went
  // through the module, left the stream borrowed and was uncaught).
  const chunk = new TextEncoder().encode(events.agent);
  Object.defineProperty(chunk, "length", { get: () => { throw new Error("evil length"); } });
  const settled = await within(outcomes.agent(answer(chunk), () => {}));
  assert.equal(settled.value?.status, "completed", JSON.stringify(settled));
  // A resumable Agent API stream (event ids and a response id) is not resumed: the next
  // connection's body would be read the same way (it was resumed up to `maxAttempts` times).
  let fetched = 0;
  const fetch = async () => {
    fetched += 1;
    const chunks = [new TextEncoder().encode(RESPONSE[0]), "not bytes"];
    return new Response(new ReadableStream({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) }), { headers: { "content-type": "text/event-stream" } });
  };
  const warnings = [];
  const resumable = new AgentClient({ baseUrl, fetch, resume: { initialDelayMs: 10, maxAttempts: 2 } });
  const broken = await within(resumable.stream(request(), { onWarning: (w) => warnings.push(w.code) }).response);
  assert.equal(broken.error?.code, "network-error", JSON.stringify(broken));
  assert.equal(broken.error.details.response.status, "incomplete");
  assert.equal(fetched, 1);
  assert.deepEqual(warnings, []);
});

test("a custom fetch's answer whose getters throw settles with a typed error, in every client (the exception was uncaught)", async () => {
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  try {
    const headers = { "content-type": "text/event-stream" };
    const body = () => new ReadableStream({ start: (c) => c.close() });
    const answers = {
      // `ok` is not read (it is the status's range): the stream goes on and ends empty.
      ok: [() => new (class extends Response { get ok() { throw new Error("ok"); } })(body(), { headers }), null],
      headers: [() => new (class extends Response { get headers() { throw new Error("headers"); } })(body(), { headers }), "not-event-stream"],
      body: [() => new (class extends Response { get body() { throw new Error("body"); } })(body(), { headers }), "network-error"],
    };
    for (const [getter, [make, code]] of Object.entries(answers)) {
      const fetch = async () => make();
      const outcomes = {
        agent: new AgentClient({ baseUrl, fetch, resume: { maxAttempts: 0 } }).stream(request(), {}).response,
        agentx: new AgentxClient({ baseUrl, fetch }).chat([agentxUserMessage("x")], {}).messages,
        acp: new AcpClient({ baseUrl, fetch }).run("a", "x", {}).run,
      };
      for (const [client, outcome] of Object.entries(outcomes)) {
        const settled = await within(outcome, 2000);
        assert.notEqual(settled, "pending", `${getter}, ${client}`);
        if (code) assert.equal(settled.error?.code, code, `${getter}, ${client}: ${JSON.stringify(settled)}`);
        else assert.ok(settled.value !== undefined || settled.error instanceof ProtocolError, `${getter}, ${client}: ${JSON.stringify(settled)}`);
      }
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(uncaught.map(String), []);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});

test("a reader whose cancel() throws is let go quietly: the response still resolves (the exception was uncaught)", async () => {
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  try {
    const bytes = new TextEncoder().encode(RESPONSE.join(""));
    let sent = false;
    // A hand-made answer (a mock): one chunk holding the whole response, then nothing; the
    // client cancels the reader at the terminal status.
    const reader = {
      read: () => (sent ? new Promise(() => {}) : ((sent = true), Promise.resolve({ done: false, value: bytes }))),
      cancel() {
        throw new Error("cancel");
      },
    };
    const fetch = async () => ({ ok: true, status: 200, headers: new Headers({ "content-type": "text/event-stream" }), body: { getReader: () => reader } });
    const settled = await within(new AgentClient({ baseUrl, fetch }).stream(request()).response, 2000);
    assert.equal(settled.value?.status, "completed", JSON.stringify(settled));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(uncaught.map(String), []);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});
