// Conformance with a real ACP server: acp-sdk 1.0.3 (pinned by ../shared/peers) and its LLM-free
// agents, driven by the built package's AcpClient from Node. Streamed, sync and async runs of `echo`
// must assemble to the run the server has; `approval` awaits and resumes; a cancelled `slow` run
// ends `cancelled` with its stream; `failer` ends `failed` with its partial output. Every run is
// strict: an event the ACP lifecycle does not allow would fail it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";
import { startPeer, recordingFetch, sseData } from "./peers.mjs";

const { AcpClient } = await agentwire();

let peer;
before(async () => (peer = await startPeer("acp-sdk")));
after(() => peer?.stop());

/** A run as ACP clients show it: adjacent unnamed plain text parts joined (acp-sdk's `Message.compress`). */
function joined(run) {
  const plain = (p) => p.name === null && p.content_type === "text/plain" && p.content_encoding === "plain" && p.content_url === null && p.content !== null && p.metadata === null;
  return {
    ...run,
    output: run.output.map((m) => ({
      ...m,
      parts: m.parts.reduce((out, p) => {
        const last = out.at(-1);
        if (last && plain(last) && plain(p)) out[out.length - 1] = { ...last, content: last.content + p.content };
        else out.push(p);
        return out;
      }, []),
    })),
  };
}

function client(options = {}) {
  return new AcpClient({ baseUrl: peer.url, ...options });
}

/** Runs `echo` in `mode`; the run must equal the server's own (`GET /runs/{run_id}`). */
async function echo(mode) {
  const c = client();
  const warnings = [];
  const states = [];
  const h = c.run("echo", "hello world", {
    mode,
    strict: true,
    pollInterval: 50,
    onWarning: (w) => warnings.push(w.code),
    onStateChange: (_, to) => states.push(to),
  });
  const run = await h.run;
  const server = await c.readRun(h.runId);
  assert.equal(run.status, "completed");
  assert.deepEqual(run, joined(server));
  assert.deepEqual(states, ["created", "in-progress", "completed"]);
  assert.deepEqual(warnings, []);
  assert.equal(run.output[0].parts[0].content, "Echo: hello world");
  assert.deepEqual(h.list("/sources/*").map((n) => [n.part.name, n.part.content]), [["/sources/1", "https://example.com/doc"]]);
  return { run, h };
}

test("agents: the manifests, and input checked against them", async () => {
  const c = client();
  const agents = await c.agents();
  assert.deepEqual(agents.map((a) => a.name).sort(), ["approval", "echo", "failer", "slow"]);
  assert.deepEqual(c.manifest("echo").input_content_types, ["*/*"]);
  await assert.rejects(c.agent("nobody"), (e) => e.code === "http-error" && e.details.status === 404 && e.details.error.code === "not_found");
});

test("echo, streamed: the assembled run equals the server's, and without joining equals its events", async () => {
  const { h } = await echo("stream");
  // Without joining, the output keeps the server's part boundaries: the run.completed event's run.
  const fetch = recordingFetch();
  const exact = client({ fetch }).run("echo", "hello world", { joinText: false, strict: true });
  const run = await exact.run;
  const last = sseData(fetch.bytes()).at(-1);
  assert.equal(last.type, "run.completed");
  assert.deepEqual(run, last.run);
  assert.notEqual(h.runId, exact.runId);
});

test("echo, sync: the server's run", async () => {
  await echo("sync");
});

test("echo, async: polled events rebuild the server's run", async () => {
  const { h } = await echo("async");
  // The same events, read again, are the ones the run was built from.
  const events = await client().runEvents(h.runId);
  assert.equal(events[0].type, "run.created");
  assert.equal(events.at(-1).type, "run.completed");
});

for (const mode of ["stream", "sync", "async"]) {
  test(`approval, ${mode}: the run awaits, resume continues the same run and message`, async () => {
    const c = client();
    const awaited = [];
    const h = c.run("approval", "do it", { mode, strict: true, pollInterval: 50, onAwaiting: (r) => awaited.push(r) });
    assert.throws(() => h.resume("yes"), (e) => e.code === "move-not-allowed");
    const stopped = await h.stopped();
    assert.equal(stopped.status, "awaiting");
    assert.equal(h.session.state, "awaiting");
    assert.equal(h.awaiting.message.parts[0].content, "Approve? (yes/no)");
    assert.equal(awaited.length, 1);
    assert.deepEqual(h.session.allowedMoves("client").map((m) => m.type).sort(), ["cancel", "resume"]);
    const runId = h.runId;
    await h.resume("yes");
    const run = await h.run;
    assert.equal(run.status, "completed");
    assert.equal(run.run_id, runId);
    assert.equal(run.output.length, 1, "the same message");
    assert.equal(run.output[0].parts[0].content, "Need approval. Got: yes");
    assert.deepEqual(run, joined(await c.readRun(runId)));
    assert.deepEqual(h.session.messages.filter((m) => m.party === "client").map((m) => m.type), ["create", "resume"]);
  });
}

test("approval: a cancel while it awaits ends the run cancelled", async () => {
  const h = client().run("approval", "do it", { strict: true, pollInterval: 50 });
  await h.stopped();
  const answer = await h.cancel();
  assert.equal(answer.status, "cancelling");
  const run = await h.run;
  assert.equal(run.status, "cancelled");
  assert.equal(h.session.state, "cancelled");
});

test("slow: cancel ends the run cancelled and the stream closes", async () => {
  const c = client();
  const h = c.run("slow", "tick", { strict: true });
  const types = [];
  let ticks = 0;
  let cancel;
  // The iteration ends only when the server closes the stream.
  for await (const u of h) {
    types.push(u.type);
    if ((u.type === "part" || u.type === "textDelta") && ++ticks === 2) cancel = h.cancel();
  }
  assert.equal((await cancel).status, "cancelling");
  const run = await h.run;
  assert.equal(run.status, "cancelled");
  assert.equal(types.at(-1), "done");
  assert.deepEqual(types.filter((t) => t === "state").length, 4); // created, in-progress, cancelling, cancelled
  assert.equal(h.session.state, "cancelled");
  assert.match(run.output[0].parts[0].content, /^tick 0 tick 1 /);
  assert.ok(!run.output[0].parts[0].content.includes("tick 19"), "cancelled before the end");
  const server = await c.readRun(h.runId);
  assert.equal(server.status, "cancelled");
  assert.deepEqual(run, joined(server));
  // It is over: nothing more to cancel.
  assert.throws(() => h.cancel(), (e) => e.code === "move-not-allowed" && e.details.terminal === true);
});

test("failer: the run ends failed with the partial output kept", async () => {
  for (const mode of ["stream", "sync"]) {
    const errors = [];
    const h = client().run("failer", "x", { mode, strict: true, onError: (e) => errors.push(e) });
    const run = await h.run;
    assert.equal(run.status, "failed", mode);
    assert.equal(run.error.code, "server_error");
    assert.equal(run.error.message, "boom from agent");
    assert.equal(run.output[0].parts[0].content, "partial ");
    assert.equal(h.session.state, "failed");
    assert.equal(errors.length, 1, mode);
    assert.equal(errors[0].code, "server-error");
    assert.equal(errors[0].details.error.message, "boom from agent");
  }
});
