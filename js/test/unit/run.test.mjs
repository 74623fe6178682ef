// Communication schemas and run sessions from JavaScript: schema errors and warnings, the built-in
// schemas, Mermaid, outbound and inbound checks, state-change listeners.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";

const { CommunicationSchema, RunSession, ProtocolError, toBody } = await agentwire();

const text = (t, contentType = "text/plain") => ({
  parts: [{ type: "text", contentType, content: t, contentEncoding: "plain", status: "complete" }],
});

function throwsCode(fn, code) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ProtocolError, `a ProtocolError, got ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

const approval = {
  idle: [{ party: "client", type: "message", schema: [{ contentType: "text/*", required: true }], nextState: "running" }],
  running: [
    { party: "server", type: "message", schema: [{ contentType: "text/*", required: true }], nextState: "idle" },
    { party: "server", type: "ask", schema: [], nextState: "asking" },
  ],
  asking: [
    { party: "client", type: "approve", schema: [], nextState: "running" },
    { party: "client", type: "reject", schema: [], nextState: "done" },
  ],
  done: [],
};

test("schemas from JSON round trip, export Mermaid and know their terminal states", () => {
  const s = CommunicationSchema.fromJson(approval);
  assert.deepEqual(s.toJson(), approval);
  assert.deepEqual(s.states(), ["asking", "done", "idle", "running"]);
  assert.equal(s.isTerminal("done"), true);
  assert.equal(s.isTerminal("running"), false);
  assert.deepEqual(s.transitions("asking").map((t) => t.type), ["approve", "reject"]);
  assert.equal(s.transitions("nowhere"), null);
  assert.deepEqual(s.warnings, []);
  assert.equal(
    s.toMermaid(),
    [
      "stateDiagram-v2",
      "    [*] --> idle",
      "    idle --> running: client message",
      "    asking --> running: client approve",
      "    asking --> done: client reject",
      "    done --> [*]",
      "    running --> idle: server message",
      "    running --> asking: server ask",
      "",
    ].join("\n"),
  );
  s.free();
});

test("schema errors are typed, with where the problem is", () => {
  let e = throwsCode(() => CommunicationSchema.fromJson({ running: [] }), "missing-initial-state");
  assert.deepEqual(e.details.states, ["running"]);
  e = throwsCode(
    () => CommunicationSchema.fromJson({ idle: [{ party: "client", type: "m", schema: [], nextState: "gone" }] }),
    "unknown-next-state",
  );
  assert.deepEqual(e.details, { state: "idle", index: 0, nextState: "gone" });
  const twice = { party: "client", type: "m", schema: [], nextState: "idle" };
  e = throwsCode(() => CommunicationSchema.fromJson({ idle: [twice, twice] }), "duplicate-transition");
  assert.equal(e.details.first, 0);
  assert.equal(e.details.index, 1);
  e = throwsCode(
    () => CommunicationSchema.fromJson({ idle: [{ party: "agent", type: "m", schema: [], nextState: "idle" }] }),
    "invalid-communication-schema",
  );
  assert.equal(e.details.pointer, "/idle/0/party");
  e = throwsCode(
    () => CommunicationSchema.fromJson({ idle: [{ party: "client", type: "m", schema: [{ contentType: "text/{plain" }], nextState: "idle" }] }),
    "invalid-body-schema",
  );
  assert.equal(e.details.pointer, "/idle/0/schema");
  throwsCode(() => CommunicationSchema.fromJson([]), "invalid-communication-schema");

  // Unreachable states are warnings, not errors.
  const s = CommunicationSchema.fromJson({ idle: [], island: [] });
  assert.equal(s.warnings.length, 1);
  assert.ok(s.warnings[0] instanceof ProtocolError);
  assert.equal(s.warnings[0].code, "unreachable-state");
  assert.equal(s.warnings[0].details.state, "island");
});

test("the built-in schemas: the five example agents and the two protocol lifecycles", () => {
  const names = CommunicationSchema.builtinNames();
  assert.deepEqual(names, ["chat", "researcher", "functionCalling", "interruptibleChat", "longRunning", "acpRun", "agentApiResponse"]);
  for (const name of names) {
    const s = CommunicationSchema.builtin(name);
    assert.deepEqual(s.warnings, [], name);
    assert.ok(s.toMermaid().startsWith("stateDiagram-v2\n"), name);
    assert.match(s.toMermaid(), /\n    \[\*\] --> idle\n/, name);
    // The JSON reads back to the same schema.
    assert.deepEqual(CommunicationSchema.fromJson(s.toJson()).toJson(), s.toJson(), name);
  }
  const acp = CommunicationSchema.builtin("acpRun");
  assert.deepEqual(acp.states().filter((st) => acp.isTerminal(st)), ["cancelled", "completed", "failed"]);
  assert.match(acp.toMermaid(), /state "in-progress" as in_progress/);
  throwsCode(() => CommunicationSchema.builtin("poet"), "invalid-argument");
});

test("a session refuses to send what its state does not allow, naming the state and the allowed moves", () => {
  const changes = [];
  const session = new RunSession("chat", { id: "run-1", onStateChange: (from, to, move) => changes.push([from, to, move]) });
  assert.equal(session.id, "run-1");
  assert.equal(session.state, "idle");
  assert.deepEqual(session.allowedMoves(), [{ party: "client", type: "message", nextState: "running" }]);
  assert.equal(session.canSend("message", "Hello!"), true);
  const step = session.send("message", "Hello!");
  assert.deepEqual(step, { from: "idle", to: "running", move: { party: "client", type: "message", nextState: "running" }, warning: null });
  assert.deepEqual(changes, [["idle", "running", { party: "client", type: "message", nextState: "running" }]]);

  // The agent has not answered: the client may not speak.
  assert.equal(session.canSend("message", "Again?"), false);
  const e = throwsCode(() => session.send("message", "Again?"), "move-not-allowed");
  assert.equal(e.details.state, "running");
  assert.equal(e.details.terminal, false);
  assert.deepEqual(e.details.allowed, [{ party: "server", type: "message", nextState: "idle" }]);
  assert.match(e.message, /in state `running`, client may not send `message` \(allowed: server message → idle\)/);
  assert.equal(session.state, "running", "a refused message changes nothing");
  assert.equal(session.messages.length, 1);
  assert.deepEqual(session.allowedMoves("client"), []);
  assert.equal(session.allowedMoves("server").length, 1);
  throwsCode(() => session.allowedMoves("agent"), "invalid-argument");

  // A body that breaks the transition's schema.
  const strict = new RunSession("researcher");
  const bad = throwsCode(() => strict.send("message", { parts: [{ type: "image", contentType: "image/png", contentUrl: "https://x/y.png", contentEncoding: "plain", status: "complete" }] }), "body-mismatch");
  assert.equal(bad.details.state, "idle");
  assert.ok(bad.details.violations.length > 0);
  assert.equal(strict.state, "idle");
});

test("received messages: strict sessions throw, lenient ones warn and go on", () => {
  const strict = new RunSession(CommunicationSchema.fromJson(approval), { strict: true });
  assert.equal(strict.strict, true);
  strict.send("message", "Deploy?");
  throwsCode(() => strict.receive("approve"), "move-not-allowed");
  assert.equal(strict.state, "running");
  strict.receive("ask");
  assert.equal(strict.state, "asking");
  assert.deepEqual(strict.allowedMoves("client").map((m) => m.type), ["approve", "reject"]);
  strict.send("reject");
  assert.equal(strict.isTerminal, true);
  const over = throwsCode(() => strict.receive("message", "late"), "move-not-allowed");
  assert.equal(over.details.terminal, true);

  const warnings = [];
  const changes = [];
  const messages = [];
  const lenient = new RunSession(approval, {
    onWarning: (w) => warnings.push(w),
    onStateChange: (from, to) => changes.push(`${from}>${to}`),
    onMessage: (m) => messages.push(`${m.party} ${m.type} ${m.fromState}>${m.toState}`),
  });
  assert.equal(lenient.strict, false);
  lenient.send("message", "Deploy?");
  // Not allowed here: a warning, and the state stays.
  const refused = lenient.receive("approve");
  assert.equal(refused.move, null);
  assert.equal(refused.from, "running");
  assert.equal(refused.to, "running");
  assert.ok(refused.warning instanceof ProtocolError);
  assert.equal(refused.warning.code, "move-not-allowed");
  // Allowed, with a body that breaks the schema: the move is made, with a warning.
  const odd = lenient.receive("message", text("<b>done</b>", "image/svg+xml"));
  assert.equal(odd.to, "idle");
  assert.equal(odd.warning.code, "body-mismatch");
  assert.deepEqual(warnings.map((w) => w.code), ["move-not-allowed", "body-mismatch"]);
  assert.deepEqual(changes, ["idle>running", "running>idle"]);
  assert.deepEqual(messages, ["client message idle>running", "server message running>idle"]);
  assert.deepEqual(lenient.messages.map((m) => m.type), ["message", "message"]);
});

test("listeners: self-loops are not state changes, and unsubscribing stops them", () => {
  const session = new RunSession("longRunning");
  const seen = [];
  const off = session.onStateChange((from, to) => seen.push(`${from}>${to}`));
  const messages = [];
  session.onMessage((m) => messages.push(m.type));
  session.send("message", "Crawl the site");
  session.receive("message", "page 1");
  session.receive("message", "page 2");
  assert.deepEqual(seen, ["idle>running"]);
  assert.deepEqual(messages, ["message", "message", "message"]);
  off();
  session.send("cancel");
  assert.deepEqual(seen, ["idle>running"]);
  assert.equal(session.state, "cancelled");
  assert.equal(session.isTerminal, true);
  assert.deepEqual(session.allowedMoves(), []);
  assert.match(session.toMermaid(), /running --> cancelled: client cancel/);
});

test("a session's schema is the one it runs (shared, not copied): freeing either leaves the session working", () => {
  const schema = CommunicationSchema.builtin("longRunning");
  const session = new RunSession(schema);
  const seen = session.schema;
  assert.deepEqual(seen.toJson(), schema.toJson());
  assert.deepEqual(seen.states(), schema.states());
  seen.free();
  schema.free();
  session.send("message", "Crawl the site");
  assert.equal(session.state, "running");
  assert.deepEqual(session.allowedMoves("client").map((m) => m.type), ["cancel"]);
  assert.match(session.toMermaid(), /running --> cancelled: client cancel/);
  assert.deepEqual(session.schema.toJson(), CommunicationSchema.builtin("longRunning").toJson());
});

test("bodies: a text, parts or a whole body", () => {
  assert.deepEqual(toBody("hi"), text("hi"));
  assert.deepEqual(toBody(text("hi").parts), text("hi"));
  assert.equal(toBody(undefined), undefined);
  const session = new RunSession("functionCalling");
  session.send("message", "Weather in Paris?");
  const call = [{ type: "data", name: "/function", contentType: "application/json", content: '{"name":"get_weather"}', contentEncoding: "plain", status: "complete" }];
  session.receive("function_call", call);
  assert.equal(session.state, "calling");
  throwsCode(() => session.send("function_result", "21 °C"), "body-mismatch");
  session.send("function_result", [{ ...call[0], name: "/result", content: '{"temp":21}' }]);
  assert.equal(session.state, "running");
  throwsCode(() => session.send("message", { parts: "nope" }), "invalid-argument");
});
