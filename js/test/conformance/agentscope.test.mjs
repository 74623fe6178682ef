// Conformance with a real Agent API server: agentscope-runtime (pinned by ../shared/peers), in each
// of its modes. The built package streams from it in Node; the assembled response must equal the
// `response` object the server sends last (or, in `error` mode, surface its error with the partial
// content kept).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";
import { startPeer, recordingFetch, sseData } from "./peers.mjs";

const { AgentClient, RequestBuilder } = await agentwire();
const peers = [];
after(() => peers.forEach((p) => p.stop()));

function view(m, server) {
  return {
    id: m.id, type: m.type, role: m.role, status: m.status,
    content: (m.content ?? []).map((c) => {
      const { sequence_number, msg_id, index, delta, object, ...rest } = c;
      if (server && (c.status === null || c.status === undefined)) delete rest.status;
      return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
    }),
  };
}

function assertSameAsServer(ours, server) {
  for (const k of ["id", "status", "session_id", "created_at", "completed_at"]) assert.deepEqual(ours[k], server[k] ?? undefined, k);
  assert.deepEqual(ours.error ?? null, server.error ?? null, "error");
  for (const sm of server.output ?? []) {
    const om = ours.output.find((m) => m.id === sm.id);
    assert.ok(om, `message ${sm.id} assembled`);
    const o = view(om, false), s = view(sm, true);
    o.content.forEach((c, i) => { if (s.content[i] && !("status" in s.content[i])) delete c.status; });
    assert.deepEqual(o, s, `message ${sm.id}`);
  }
}

async function run(mode, text = "hello world") {
  const peer = await startPeer("agentscope-runtime", mode);
  peers.push(peer);
  const fetch = recordingFetch();
  const client = new AgentClient({ baseUrl: peer.url, fetch });
  const warnings = [], errors = [];
  const stream = client.stream(new RequestBuilder().text("user", text).sessionId("sess-1").build(), {
    onWarning: (w) => warnings.push(w.code),
    onError: (e) => errors.push(e),
  });
  const response = await stream.response;
  const events = sseData(fetch.bytes());
  peer.stop();
  return { response, events, warnings, errors, last: events.at(-1) };
}

test("raw mode: text, function_call with streamed arguments, output, data and image", async () => {
  const { response, last, warnings } = await run("raw");
  assert.equal(last.object, "response");
  assertSameAsServer(response, last);
  assert.equal(response.output.length, 4);
  assert.equal(response.output[1].content[0].data.arguments, '{"city": "Paris"}');
  assert.deepEqual(warnings, []);
});

test("text mode: contents before any message event", async () => {
  const { response, last, warnings } = await run("text");
  assertSameAsServer(response, last);
  assert.equal(response.output[0].content[0].text, "Echo: hello world");
  assert.deepEqual(warnings, []);
});

test("agentscope mode: the framework adapter's output, and the message it leaves out is kept", async () => {
  const { response, last, warnings } = await run("agentscope");
  assertSameAsServer(response, last);
  assert.equal(response.output.length, last.output.length + 1);
  assert.equal(response.output.at(-1).status, "incomplete");
  assert.ok(warnings.includes("message-missing-from-output"));
});

test("error mode: the failure is surfaced and the partial content kept", async () => {
  const { response, last, errors } = await run("error");
  assert.equal(last.status, "failed");
  assertSameAsServer(response, last);
  assert.equal(response.status, "failed");
  assert.equal(response.error.message, last.error.message);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "server-error");
  assert.equal(errors[0].details.message, last.error.message);
  const text = response.output.flatMap((m) => m.content).map((c) => c.text ?? "").join("");
  assert.ok(text.includes("partial"), JSON.stringify(response.output));
});

test("a malformed request: HTTP 200 with one {error} event fails the response with the message", async () => {
  const peer = await startPeer("agentscope-runtime", "raw");
  peers.push(peer);
  const client = new AgentClient({ baseUrl: peer.url });
  const errors = [];
  // The server answers an AgentRequest it cannot validate (a role outside its Literal; agentwire
  // keeps unknown enum values, so it sends it) with 200 and a single {"error": "..."} event.
  const request = { input: [{ role: "robot", type: "message", content: [{ type: "text", text: "hi" }] }] };
  const r = await client.stream(request, { onError: (e) => errors.push(e) }).response;
  peer.stop();
  assert.equal(r.status, "failed");
  assert.match(r.error.message, /validation error for AgentRequest/);
  assert.deepEqual(errors.map((e) => e.code), ["server-error"]);
  assert.match(errors[0].message, /role/);
});
