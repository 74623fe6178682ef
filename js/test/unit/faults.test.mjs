// Transport faults from the reference server (?fault=…): each ends with a typed error and every
// part kept, or — with resuming on — with the same result as an unbroken run, nothing duplicated
// or lost, and the request never re-POSTed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire, server, getJson, eventually } from "../helpers.mjs";

const { AgentClient, RequestBuilder, ProtocolError } = await agentwire();
const request = (text = "fault test") => new RequestBuilder().text("user", text).sessionId("f").build();

/** Streams with a fault; returns everything observable. */
async function run(fault, { resume = false, stallTimeoutMs, pace = 2 } = {}) {
  const client = new AgentClient({
    baseUrl: server(),
    endpoint: `/process?pace_ms=${pace}${fault ? `&fault=${fault}` : ""}`,
    ...(resume ? { resume: { initialDelayMs: 50 } } : {}),
  });
  const texts = new Map(), warnings = [], errors = [];
  const stream = client.stream(request(), {
    onTextDelta: (d, t) => texts.set(`${t.msgId}/${t.index}`, (texts.get(`${t.msgId}/${t.index}`) ?? "") + d),
    onWarning: (w) => warnings.push(w),
    onError: (e) => errors.push(e),
  }, stallTimeoutMs === undefined ? {} : { stallTimeoutMs });
  const outcome = await stream.response.then((response) => ({ response }), (error) => ({ error }));
  return { ...outcome, texts, warnings, errors };
}

/** The text contents of a response, keyed like the deltas. */
function textsOf(response) {
  const m = new Map();
  for (const msg of response.output) for (const c of msg.content) if (c.type === "text" && !c.name) m.set(`${msg.id}/${c.index}`, c.text);
  return m;
}

const shape = (r) => r.output.map((m) => ({ type: m.type, status: m.status, content: m.content.map((c) => ({ type: c.type, text: c.text, data: c.data, image_url: c.image_url, name: c.name })) }));

let reference;
test("an unbroken run (the reference)", async () => {
  const { response, warnings, errors } = await run(null);
  assert.equal(response.status, "completed");
  assert.deepEqual(warnings, []);
  assert.deepEqual(errors, []);
  reference = response;
});

for (const fault of ["close-after:12", "close-mid-event:12"]) {
  test(`${fault}: without resuming, a typed error and every part kept, marked incomplete`, async () => {
    const { error, errors } = await run(fault);
    assert.ok(error instanceof ProtocolError);
    assert.equal(error.code, "stream-incomplete");
    const partial = error.details.response;
    assert.equal(partial.status, "incomplete");
    assert.ok(partial.output.length >= 1);
    assert.ok(partial.output.every((m) => ["completed", "incomplete"].includes(m.status)));
    assert.deepEqual(errors.map((e) => e.code), ["stream-incomplete"]);
  });

  test(`${fault}: resumed with Last-Event-ID, the result equals an unbroken run, nothing duplicated, no re-POST`, async () => {
    const before = await getJson(`${server()}/stats`);
    const { response, texts, warnings, errors } = await run(fault, { resume: true });
    assert.deepEqual(errors, []);
    assert.equal(response.status, "completed");
    assert.deepEqual(shape(response), shape(reference));
    // Every text delta arrived exactly once: the deltas rebuild the texts exactly.
    assert.deepEqual(texts, textsOf(response));
    assert.deepEqual(warnings.map((w) => w.code), ["resumed"]);
    const after = await getJson(`${server()}/stats`);
    assert.equal(after.started - before.started, 1, "one POST: the request was never re-sent");
    assert.equal(after.resumed - before.resumed, 1);
  });
}

test("stall: a stream silent for longer than stallTimeoutMs ends with `stalled`, parts kept, connection closed", async () => {
  const before = await getJson(`${server()}/stats`);
  const { error, errors } = await run("stall:12:3000", { stallTimeoutMs: 300 });
  assert.equal(error.code, "stalled");
  assert.equal(error.details.timeoutMs, 300);
  assert.equal(error.details.response.status, "incomplete");
  assert.deepEqual(errors.map((e) => e.code), ["stalled"], "onError names the transport failure");
  await eventually(async () => (await getJson(`${server()}/stats`)).closedByClient > before.closedByClient, 6000, "the server to see the close");
});

test("stall with resuming: the stalled connection is dropped and the stream resumes to the same result", async () => {
  const { response, warnings } = await run("stall:12:3000", { resume: true, stallTimeoutMs: 300 });
  assert.equal(response.status, "completed");
  assert.deepEqual(shape(response), shape(reference));
  assert.deepEqual(warnings.map((w) => w.code), ["resumed"]);
  assert.equal(warnings[0].details.reason, "no data for 300 ms: the stream stalled");
});

test("never-terminated: an event that never ends stalls the stream; what arrived is kept", async () => {
  const before = await getJson(`${server()}/stats`);
  const { error } = await run("never-terminated:12", { stallTimeoutMs: 300 });
  assert.equal(error.code, "stalled");
  assert.ok(error.details.response.output.length >= 1);
  // The client closed the connection: the server, which has nothing more to send for a minute,
  // sees it all the same.
  await eventually(async () => (await getJson(`${server()}/stats`)).closedByClient > before.closedByClient, 2000, "the server to see the close");
});

test("garbage bytes: tolerated and reported, the response completes", async () => {
  const { response, warnings } = await run("garbage:12");
  assert.equal(response.status, "completed");
  assert.deepEqual(shape(response), shape(reference));
  assert.deepEqual(warnings.map((w) => w.code), ["invalid-json"]);
  assert.equal(warnings[0].details.data, "{not json at all");
});

test("invalid UTF-8 becomes U+FFFD and later events survive", async () => {
  const { response, texts, warnings } = await run("invalid-utf8:3");
  assert.equal(response.status, "completed");
  assert.deepEqual(warnings, []);
  // The corrupted delta arrives with replacement characters (one per maximal invalid sequence)…
  const streamed = texts.get(`${response.output[0].id}/0`);
  assert.ok(streamed.startsWith("\uFFFD\uFFFD\uFFFDThe user"), streamed);
  // …and the content's completion event (clean) replaces it; every later event survived.
  assert.deepEqual(shape(response), shape(reference));
});

test("a huge event is skipped with event-too-large and the stream goes on", async () => {
  const { response, warnings } = await run("huge-event:12");
  assert.equal(response.status, "completed");
  assert.deepEqual(shape(response), shape(reference));
  assert.deepEqual(warnings.map((w) => w.code), ["event-too-large"]);
  assert.equal(warnings[0].details.limit, 16 * 1024 * 1024);
});

test("a user's abort and a network failure are told apart", async () => {
  const controller = new AbortController();
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=30" });
  const s = client.stream(request(), { onTextDelta: () => controller.abort() }, { signal: controller.signal });
  const aborted = await s.response.then(() => null, (e) => e);
  assert.equal(aborted.code, "aborted");
  const { error } = await run("close-after:12");
  assert.notEqual(error.code, "aborted");
});

/** Streams a request whose connection breaks after 12 events, with resuming on, the server's
 * `retry` field set to `retryMs`; the user aborts after `abortAfterMs`. */
async function abortWhileWaiting(retryMs, abortAfterMs) {
  const before = await getJson(`${server()}/stats`);
  const controller = new AbortController();
  const client = new AgentClient({
    baseUrl: server(),
    endpoint: `/process?pace_ms=2&fault=close-after:12&retry=${retryMs}`,
    resume: { initialDelayMs: 50 },
  });
  const started = Date.now();
  const s = client.stream(request(), {}, { signal: controller.signal });
  setTimeout(() => controller.abort(), abortAfterMs);
  const error = await s.response.then(() => null, (e) => e);
  const settledAfterMs = Date.now() - started;
  const after = await getJson(`${server()}/stats`);
  return { error, settledAfterMs, resumed: after.resumed - before.resumed };
}

test("a server's retry time past 2^32 ms is waited, not wrapped around to an immediate reconnect", async () => {
  // 2^32 ms cast to 32 bits is 0: the client reconnected at once.
  const { error, resumed } = await abortWhileWaiting(2 ** 32, 600);
  assert.equal(error.code, "aborted");
  assert.equal(resumed, 0, "no reconnect during the server's (very long) reconnection time");
});

test("an abort during the wait before resuming settles the stream at once", async () => {
  const { error, settledAfterMs, resumed } = await abortWhileWaiting(60_000, 600);
  assert.equal(error.code, "aborted");
  assert.equal(resumed, 0);
  assert.ok(settledAfterMs < 5000, `settled after ${settledAfterMs} ms, not after the 60 s wait`);
});
