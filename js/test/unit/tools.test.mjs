// Tools in JavaScript: PartialJson and applyPartialChanges, streamed tool-call arguments in
// AgentClient streams, ClientTools, and the Agent API tool loop against the reference server's
// tools agent (POST /process?agent=tools, which calls the client-side get_time).
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire, server, getJson } from "../helpers.mjs";

const aw = await agentwire();
const { AgentClient, RequestBuilder, ProtocolError, PartialJson, ClientTools, ToolRegistry, ToolArguments, Pattern, applyPartialChanges } = aw;

const request = (text) => new RequestBuilder().text("user", text).build();
const toolsAgent = (query = "") => new AgentClient({ baseUrl: server(), endpoint: `/process?agent=tools&pace_ms=0${query}` });

const GET_TIME_SCHEMA = {
  type: "object",
  properties: {
    timezone: { type: "string", minLength: 1 },
    format: { enum: ["HH:mm", "HH:mm:ss"] },
    reason: { type: "string" },
  },
  required: ["timezone"],
  additionalProperties: false,
};

/**
 * Prefix consistency: `a` is contained in `b` (strings grow, members and elements are added or
 * grow; a number may change while it is open).
 */
function containedIn(a, b) {
  if (a === undefined) return true;
  if (typeof a === "string") return typeof b === "string" && b.startsWith(a);
  if (typeof a === "number") return typeof b === "number";
  if (Array.isArray(a)) return Array.isArray(b) && a.length <= b.length && a.every((x, i) => containedIn(x, b[i]));
  if (a !== null && typeof a === "object") {
    return b !== null && typeof b === "object" && !Array.isArray(b) && Object.keys(a).every((k) => Object.hasOwn(b, k) && containedIn(a[k], b[k]));
  }
  return a === b;
}

test("PartialJson: 4,000 one-character deltas, the changes rebuild the value after every delta, prefix-consistent", () => {
  const args = {
    path: "/workspace/notes/meeting.md",
    content: "Line of the meeting notes. ".repeat(141),
    overwrite: true,
    tags: ["notes", "meeting", 2025],
    options: { encoding: "utf-8", mode: 420, backup: null, ratio: -1.25e-3 },
  };
  const text = JSON.stringify(args, null, 1);
  assert.ok(text.length >= 4000, `${text.length} characters`);
  const p = new PartialJson();
  let mirror;
  let previous;
  let pushes = 0;
  for (const ch of text) {
    const changes = p.push(ch);
    pushes++;
    for (const c of changes) assert.ok(c.op === "set" || c.op === "append");
    mirror = applyPartialChanges(mirror, changes);
    if (pushes % 97 === 0 || pushes > text.length - 60) {
      assert.deepEqual(mirror, p.value, `after ${pushes} deltas`);
    }
    assert.ok(containedIn(previous, structuredClone(mirror)), `prefix-consistent after ${pushes}`);
    previous = structuredClone(mirror);
  }
  assert.ok(p.isComplete);
  assert.deepEqual(p.finish(), args);
  assert.deepEqual(mirror, args);
  assert.equal(p.value, undefined, "finish empties the parser");
});

test("appends carry only the new piece; keys like __proto__ stay data; misfit changes throw", () => {
  const p = new PartialJson();
  p.push('{"path": "/he');
  assert.deepEqual(p.push("llo"), [{ op: "append", path: ["path"], value: "llo" }]);
  const q = new PartialJson();
  const value = applyPartialChanges(undefined, q.push('{"__proto__": {"polluted": "yes"}, "a": [1]}'));
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ["__proto__", "a"]);
  assert.equal({}.polluted, undefined);
  assert.throws(
    () => applyPartialChanges({ a: 1 }, [{ op: "append", path: ["a"], value: "x" }]),
    (e) => e instanceof ProtocolError && e.code === "invalid-argument",
  );
  assert.throws(
    () => applyPartialChanges([], [{ op: "set", path: [2], value: 1 }]),
    (e) => e instanceof ProtocolError && e.code === "invalid-argument",
  );
  // What is not a list of changes: typed, and nothing after the bad element is applied.
  for (const changes of [undefined, null, "x", { op: "set", path: [], value: 1 }, [null], [{ op: "set" }], [{ op: "merge", path: [], value: 1 }]]) {
    assert.throws(() => applyPartialChanges({}, changes),
      (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "changes", JSON.stringify(changes));
  }
  const target = { a: "x" };
  assert.throws(() => applyPartialChanges(target, [{ op: "append", path: ["a"], value: "y" }, 5, { op: "set", path: ["b"], value: 1 }]));
  assert.deepEqual(target, { a: "xy" }, "the changes before the bad one are applied");
  assert.throws(() => new PartialJson().push("[1,]"), (e) => e instanceof ProtocolError && e.code === "json-syntax");
});

test("a string pushed in pieces cut between the halves of a surrogate pair reads as the whole string", () => {
  const { ToolArguments } = aw;
  const text = '{"say": "😀 ok 🎉", "n": 1}';
  // Every cut of the JavaScript string (by UTF-16 code units), in two pieces and one unit at a time.
  for (let cut = 0; cut <= text.length; cut++) {
    const p = new PartialJson();
    p.push(text.slice(0, cut));
    p.push(text.slice(cut));
    assert.deepEqual(p.finish(), JSON.parse(text), `cut at ${cut}`);
    const args = new ToolArguments();
    args.push(text.slice(0, cut));
    args.push(text.slice(cut));
    assert.deepEqual(args.value, JSON.parse(text), `ToolArguments, cut at ${cut}`);
  }
  const units = new PartialJson();
  let mirror;
  for (const unit of text) for (let i = 0; i < unit.length; i++) mirror = applyPartialChanges(mirror, units.push(unit[i]));
  assert.deepEqual(mirror, JSON.parse(text));
  assert.deepEqual(units.finish(), JSON.parse(text));
  // A half without its other half is U+FFFD, as JSON.parse's string made well-formed.
  const lone = new PartialJson();
  lone.push('["a\ud83d');
  lone.push('b", "\ud83d');
  lone.push('"]');
  assert.deepEqual(lone.finish(), ["a\ufffdb", "\ufffd"]);
  // A finish that fails leaves the parser unchanged, a held half included: the next push completes it.
  const early = new PartialJson();
  early.push('["\ud83d');
  assert.throws(() => early.finish(), (e) => e instanceof ProtocolError && e.code === "json-unexpected-end");
  early.push('\ude00"]');
  assert.deepEqual(early.finish(), ["😀"]);
  assert.throws(() => new PartialJson().push(5), (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "delta");
});

test("pushes that only append to the last push's string (they cross without JSON) give the same changes, each with a path of its own", () => {
  const { ToolArguments } = aw;
  for (const make of [() => new PartialJson(), () => new ToolArguments()]) {
    const p = make();
    let mirror;
    const push = (delta, expected) => {
      const changes = p.push(delta);
      assert.deepEqual(changes, expected, `push ${JSON.stringify(delta)}`);
      mirror = applyPartialChanges(mirror, changes);
      assert.deepEqual(mirror, p.value);
      return changes;
    };
    const opened = push('{"__proto__": "a', [
      { op: "set", path: [], value: {} },
      { op: "set", path: ["__proto__"], value: "" },
      { op: "append", path: ["__proto__"], value: "a" },
    ]);
    // The caller may change what it gets: no later change's path is one of those arrays.
    opened[2].path.push("junk");
    const first = push("b", [{ op: "append", path: ["__proto__"], value: "b" }]);
    first[0].path.push("junk");
    first[0].path[0] = "changed";
    const second = push('é\\n\\"', [{ op: "append", path: ["__proto__"], value: 'é\n"' }]);
    assert.notEqual(second[0].path, first[0].path);
    // "__proto__" stays an own data property while it is appended to.
    assert.equal(Object.getPrototypeOf(mirror), Object.prototype);
    assert.equal(mirror["__proto__"], 'abé\n"');
    push('", "list": [{"k": "x', [
      { op: "set", path: ["list"], value: [] },
      { op: "set", path: ["list", 0], value: {} },
      { op: "set", path: ["list", 0, "k"], value: "" },
      { op: "append", path: ["list", 0, "k"], value: "x" },
    ]);
    push("y", [{ op: "append", path: ["list", 0, "k"], value: "y" }]);
    push("", []);
    push("z", [{ op: "append", path: ["list", 0, "k"], value: "z" }]);
    push('"}, "w', [
      { op: "set", path: ["list", 1], value: "" },
      { op: "append", path: ["list", 1], value: "w" },
    ]);
    push("v", [{ op: "append", path: ["list", 1], value: "v" }]);
    push('"]}', []);
    assert.deepEqual(mirror, JSON.parse('{"__proto__": "abé\\n\\"", "list": [{"k": "xyz"}, "wv"]}'));
    p.free();
  }
});

test("streamed tool arguments: a partial value after every delta, prefix-consistent, ending with the call's arguments (no tools registered: one round)", async () => {
  const client = toolsAgent();
  const seen = [];
  const calls = [];
  let start = 0;
  // Without registered tools nothing is offered, so offer get_time by hand: the agent calls it.
  const req = new RequestBuilder()
    .text("user", "What time is it?")
    .tool({ type: "function", function: { name: "get_time", description: "", parameters: GET_TIME_SCHEMA } })
    .build();
  const response = await client.stream(req, {
    onToolCallStart: (call) => {
      start++;
      assert.equal(call.arguments, undefined);
    },
    onToolArguments: (callId, value, changes, call) => {
      assert.equal(callId, "call_get_time_1");
      assert.equal(value, call.arguments);
      assert.ok(changes.length > 0);
      seen.push({ value: structuredClone(value), text: call.argumentsText });
    },
    onToolCall: (call) => calls.push(call),
  }).response;
  assert.equal(response.status, "completed");
  assert.equal(start, 1);
  assert.ok(seen.length >= 8, `${seen.length} partial values`);
  // The partial value while the string is open: what arrived, decoded.
  assert.ok(seen.some((s) => typeof s.value.timezone === "string" && s.value.timezone.length > 0 && s.value.timezone !== "Europe/Paris"));
  for (let i = 1; i < seen.length; i++) {
    assert.ok(containedIn(seen[i - 1].value, seen[i].value), `step ${i}`);
    assert.ok(seen[i].text.startsWith(seen[i - 1].text));
  }
  assert.equal(calls.length, 1);
  assert.equal(calls[0].name, "get_time");
  assert.deepEqual(seen.at(-1).value, JSON.parse(calls[0].arguments));
  // Every partial value is what a parse of its text prefix shows.
  for (const s of seen) {
    const p = new PartialJson();
    p.push(s.text);
    assert.deepEqual(s.value, p.value);
  }
});

test("onToolCall fires for a call whose content and message never complete, when the response does, with the text the loop runs", async () => {
  // A server that never completes the call's content or message: onToolCall did not fire, though
  // the loop ran the call.
  const events = [
    { object: "response", id: "r", status: "in_progress" },
    { object: "message", id: "fc", type: "function_call", role: "assistant", status: "in_progress", content: [] },
    { object: "content", type: "data", msg_id: "fc", index: 0, delta: true, status: "in_progress", data: { call_id: "c1", name: "get_time", arguments: '{"timezone": "U' } },
    { object: "content", type: "data", msg_id: "fc", index: 0, delta: true, status: "in_progress", data: { arguments: 'TC"}' } },
    { object: "response", id: "r", status: "completed" },
  ];
  const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
  let posts = 0;
  const fetch = async () => (posts++, new Response(posts === 1 ? body : `data: ${JSON.stringify({ object: "response", id: "r2", status: "completed" })}\n\n`, { headers: { "content-type": "text/event-stream" } }));
  const client = new AgentClient({ baseUrl: "http://agent.test", fetch });
  const ran = [];
  client.tools.register("get_time", GET_TIME_SCHEMA, (args) => (ran.push(args), "noon"));
  const calls = [];
  await client.stream(request("time?"), { onToolCall: (call, s) => calls.push([call, s.complete]) }).response;
  assert.deepEqual(ran, [{ timezone: "UTC" }]);
  assert.deepEqual(calls, [[{ call_id: "c1", name: "get_time", arguments: '{"timezone": "UTC"}' }, true]]);
});

test("onToolCall fires once per call: when its content completes, or else when its function_call message completes", async () => {
  const fc = { object: "message", id: "fc", type: "function_call", role: "assistant", status: "in_progress", content: [] };
  const delta = (data) => ({ object: "content", type: "data", msg_id: "fc", index: 0, delta: true, status: "in_progress", data });
  const events = (contentCompleted) => [
    { object: "response", id: "r", status: "in_progress" },
    fc,
    delta({ call_id: "c1", name: "echo", arguments: '{"x": "a' }),
    delta({ arguments: 'b"}' }),
    ...(contentCompleted
      ? [{ object: "content", type: "data", msg_id: "fc", index: 0, status: "completed", data: { call_id: "c1", name: "echo", arguments: '{"x": "ab"}' } }]
      : []),
    { ...fc, status: "completed" },
    { object: "response", id: "r", status: "completed" },
  ];
  for (const contentCompleted of [true, false]) {
    const body = events(contentCompleted).map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    const fetch = async () => new Response(body, { headers: { "content-type": "text/event-stream" } });
    const client = new AgentClient({ baseUrl: "http://agent.test", fetch });
    const calls = [];
    let state;
    await client.stream(request("echo"), {
      onToolCallStart: (s) => (state = s),
      onToolCall: (call, s) => calls.push([call, s.complete]),
    }).response;
    assert.deepEqual(calls, [[{ call_id: "c1", name: "echo", arguments: '{"x": "ab"}' }, true]], `content completed: ${contentCompleted}`);
    assert.equal(state.complete, true);
    assert.deepEqual(state.arguments, { x: "ab" });
  }
});

test("the default agent's server-side tool call streams its arguments too, and nothing is run", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=0" });
  let ran = false;
  client.tools.register("other_tool", null, () => { ran = true; });
  const values = [];
  const response = await client.stream(request("weather"), {
    onToolArguments: (id, v) => values.push(JSON.stringify(v)),
  }).response;
  assert.equal(response.status, "completed");
  assert.deepEqual(values, ['{}', '{"city":"Paris","unit":"celsius"}']);
  assert.equal(ran, false, "get_weather was answered by the server itself");
});

test("the tool loop: get_time runs in the client, its output goes back in a new request, the agent answers with it", async () => {
  const before = await getJson(`${server()}/stats`);
  const client = toolsAgent();
  const ran = [];
  client.tools.register("get_time", GET_TIME_SCHEMA, async (args, ctx) => {
    ran.push({ args, ctx: { callId: ctx.callId, toolName: ctx.toolName } });
    return { time: "14:05", timezone: args.timezone };
  }, { description: "The current time in a timezone." });
  const events = [];
  let text = "";
  const stream = client.stream(request("What time is it in Paris?"), {
    onToolCall: (c) => events.push(`call:${c.name}`),
    onToolCheck: (c) => events.push(`check:${c.error ? "invalid" : "valid"}`),
    onToolResult: (o) => events.push(`result:${o.type}`),
    onToolRound: (round, next) => {
      events.push(`round:${round}`);
      // A new request holding the conversation: the question, the call, its output; tools offered.
      assert.deepEqual(next.input.map((m) => m.type ?? "message"), ["message", "function_call", "function_call_output"]);
      assert.equal(next.input[2].role, "tool");
      assert.deepEqual(next.input[2].content[0].data, {
        call_id: "call_get_time_1",
        name: "get_time",
        output: '{"time":"14:05","timezone":"Europe/Paris"}',
      });
      assert.deepEqual(next.tools.map((t) => [t.type, t.function.name, t.function.description]), [
        ["function", "get_time", "The current time in a timezone."],
      ]);
    },
    onTextDelta: (d) => (text += d),
  });
  const types = [];
  for await (const u of stream) types.push(u.type);
  const response = await stream.response;
  assert.equal(response.status, "completed");
  assert.equal(text, "It is 14:05 in Europe/Paris.");
  assert.deepEqual(events, ["call:get_time", "check:valid", "result:result", "round:1"]);
  assert.deepEqual(ran, [{
    args: { timezone: "Europe/Paris", format: "HH:mm", reason: "The user asked for the time in Paris." },
    ctx: { callId: "call_get_time_1", toolName: "get_time" },
  }]);
  // The iterator saw both rounds (two `done`s), the response is the last one.
  assert.equal(types.filter((t) => t === "done").length, 2);
  assert.equal(response.output.at(-1).content[0].text, "It is 14:05 in Europe/Paris.");
  const after = await getJson(`${server()}/stats`);
  assert.ok(after.started - before.started >= 2, "two POSTs");
  // Queries cover every round.
  assert.ok(stream.body(response.output[0].id));
});

test("validation errors go back with the exact wording; the agent retries, then gives up", async () => {
  const client = toolsAgent();
  let runs = 0;
  client.tools.register("get_time", { ...GET_TIME_SCHEMA, required: ["timezone", "city"], properties: { ...GET_TIME_SCHEMA.properties, city: { type: "string" } } }, () => {
    runs++;
  });
  const outcomes = [];
  let text = "";
  const response = await client.stream(request("What time is it?"), {
    onToolResult: (o) => outcomes.push(o),
    onTextDelta: (d) => (text += d),
  }).response;
  const wording = "Validation failed for tool 'get_time': Missing required argument 'city'.";
  assert.equal(runs, 0, "an invalid call is not run");
  assert.equal(outcomes.length, 3);
  for (const o of outcomes) {
    assert.equal(o.type, "error");
    assert.equal(o.error.errorType, "VALIDATION");
    assert.equal(o.error.message, wording);
    assert.deepEqual(o.error.problems.map((p) => p.kind), ["missingArgument"]);
  }
  // The agent read the message the client sent (it quotes it back).
  assert.ok(text.includes(`The call was refused: ${wording} I will try again.`), text);
  assert.equal(response.output.at(-1).content[0].text, `I could not call get_time: ${wording}`);
});

test("a tool that throws sends an EXECUTION error", async () => {
  const client = toolsAgent();
  client.tools.register("get_time", GET_TIME_SCHEMA, async () => {
    throw new Error("the clock is unavailable");
  });
  const outcomes = [];
  const response = await client.stream(request("time?"), { onToolResult: (o) => outcomes.push(o) }).response;
  assert.deepEqual(outcomes.map((o) => [o.type, o.error.errorType, o.error.message]), [
    ["error", "EXECUTION", "Execution of tool 'get_time' failed: the clock is unavailable"],
  ]);
  assert.equal(
    response.output.at(-1).content[0].text,
    "get_time failed: Execution of tool 'get_time' failed: the clock is unavailable",
  );
});

test("a result that is not JSON is an EXECUTION error; a string result is sent as it is", async () => {
  const client = toolsAgent();
  client.tools.register("get_time", GET_TIME_SCHEMA, () => ({ time: 10n }));
  const outcomes = [];
  await client.stream(request("time?"), { onToolResult: (o) => outcomes.push(o) }).response;
  assert.equal(outcomes[0].error.errorType, "EXECUTION");
  assert.match(outcomes[0].error.message, /^Execution of tool 'get_time' failed: its result cannot be converted to JSON/);

  const plain = toolsAgent();
  plain.tools.register("get_time", GET_TIME_SCHEMA, () => "a quarter past two");
  const r = await plain.stream(request("time?")).response;
  assert.equal(r.output.at(-1).content[0].text, "get_time says: a quarter past two");

  // A result nested deeper than MAX_RESULT_DEPTH (100 levels) is an EXECUTION error, and the loop
  // goes on (before, 126 levels made the stream reject with invalid-argument, nothing sent).
  const deep = (n) => JSON.parse("[".repeat(n) + "]".repeat(n));
  assert.equal(aw.MAX_RESULT_DEPTH, 100);
  for (const [levels, ok] of [[100, true], [101, false], [126, false]]) {
    const client = toolsAgent();
    client.tools.register("get_time", GET_TIME_SCHEMA, () => deep(levels));
    const outcomes = [];
    const done = await client.stream(request("time?"), { onToolResult: (o) => outcomes.push(o) }).response;
    assert.equal(done.status, "completed", `${levels} levels`);
    assert.equal(outcomes[0].type, ok ? "result" : "error", `${levels} levels`);
    if (!ok) assert.equal(outcomes[0].error.message, "Execution of tool 'get_time' failed: its result nests more than 100 levels of arrays and objects");
  }
});

test("a call whose call_id is null (a Python server's None) or a number is run and answered, not dropped", async () => {
  const sse = (events) => new Response(events.map((e, i) => `data: ${JSON.stringify({ sequence_number: i, ...e })}\n\n`).join(""), { headers: { "content-type": "text/event-stream" } });
  const call = (data) => ({ object: "message", id: `m_${data.call_id}`, type: "function_call", role: "assistant", status: "completed", content: [{ object: "content", type: "data", index: 0, status: "completed", data }] });
  const bodies = [];
  const fetch = async (req) => {
    bodies.push(JSON.parse(await req.text()));
    const calls = bodies.length === 1 ? [call({ call_id: null, name: "get_time", arguments: '{"timezone":"UTC"}' }), call({ call_id: 5, name: "get_time", arguments: '{"timezone":"UTC"}' })] : [];
    return sse([{ object: "response", id: "resp_1", status: "created" }, ...calls, { object: "response", id: "resp_1", status: "completed" }]);
  };
  const client = new AgentClient({ baseUrl: "http://agent.test", fetch });
  const ran = [];
  client.tools.register("get_time", GET_TIME_SCHEMA, (args, { callId }) => (ran.push(callId), "noon"));
  const r = await client.stream(request("time?")).response;
  assert.equal(r.status, "completed");
  assert.deepEqual(ran, ["", "5"]);
  assert.equal(bodies.length, 2, "the outcomes went back");
  const outputs = bodies[1].input.filter((m) => m.type === "function_call_output").map((m) => m.content[0].data);
  assert.deepEqual(outputs, [{ call_id: "", name: "get_time", output: "noon" }, { call_id: "5", name: "get_time", output: "noon" }]);
});

test("maxToolRounds bounds the loop with a typed error", async () => {
  const client = toolsAgent();
  client.tools.register("get_time", { type: "object", required: ["city"] }, () => "never");
  const errors = [];
  const stream = client.stream(request("time?"), { onError: (e) => errors.push(e.code) }, { maxToolRounds: 2 });
  await assert.rejects(stream.response, (e) => {
    assert.ok(e instanceof ProtocolError);
    assert.equal(e.code, "tool-rounds-exceeded");
    assert.equal(e.details.maxToolRounds, 2);
    assert.equal(e.details.pending[0].toolName, "get_time");
    assert.equal(e.details.response.status, "completed");
    return true;
  });
  assert.deepEqual(errors, ["tool-rounds-exceeded"]);
  for (const bad of [-1, 1.5, NaN, "3"]) {
    assert.throws(() => client.stream(request("time?"), {}, { maxToolRounds: bad }), (e) => e.code === "invalid-argument" && e.details.what === "options.maxToolRounds");
    // Checked before any tool is registered too (as AgentX's chat checks it), and nothing is sent.
    const plain = toolsAgent();
    assert.throws(() => plain.stream(request("time?"), {}, { maxToolRounds: bad }), (e) => e.code === "invalid-argument" && e.details.what === "options.maxToolRounds");
  }
});

test("aborting while a tool runs rejects with aborted and runs no handler after", async () => {
  const client = toolsAgent();
  const controller = new AbortController();
  let after = 0;
  let toolSignal;
  client.tools.register("get_time", GET_TIME_SCHEMA, async (_args, ctx) => {
    toolSignal = ctx.signal;
    assert.equal(toolSignal.aborted, false);
    controller.abort();
    return "late";
  });
  const stream = client.stream(request("time?"), {
    onToolResult: () => after++,
    onToolRound: () => after++,
  }, { signal: controller.signal });
  await assert.rejects(stream.response, (e) => e instanceof ProtocolError && e.code === "aborted" && e.details.response !== undefined);
  assert.equal(after, 0);
  assert.equal(toolSignal.aborted, true, "the tool's signal fires with the stream's");
});

test("a handler that aborts in onToolCheck runs no tool; one that aborts in onToolResult sends no round", async () => {
  for (const where of ["onToolCheck", "onToolResult"]) {
    const client = toolsAgent();
    const controller = new AbortController();
    let ran = 0;
    let rounds = 0;
    client.tools.register("get_time", GET_TIME_SCHEMA, () => (ran++, "12:00"));
    const stream = client.stream(request("time?"), {
      [where]: () => controller.abort(),
      onToolRound: () => rounds++,
    }, { signal: controller.signal });
    await assert.rejects(stream.response, (e) => e instanceof ProtocolError && e.code === "aborted" && e.details.response !== undefined, where);
    assert.equal(ran, where === "onToolCheck" ? 0 : 1, `${where}: the tool ran ${ran} times`);
    assert.equal(rounds, 0, `${where}: no new round`);
  }
});

test("retainMessages: false with tools registered is refused: the loop's next request needs the messages", () => {
  const client = toolsAgent();
  client.tools.register("get_time", GET_TIME_SCHEMA, () => "12:00");
  assert.throws(() => client.stream(request("time?"), {}, { retainMessages: false }),
    (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "options.retainMessages");
});

test("aborting or freeing the stream settles it while a tool that ignores its signal never returns", async () => {
  for (const how of ["abort", "free"]) {
    const client = toolsAgent();
    const controller = new AbortController();
    let stream;
    client.tools.register("get_time", GET_TIME_SCHEMA, () => {
      setTimeout(() => (how === "abort" ? controller.abort() : stream.free()), 20);
      return new Promise(() => {});
    });
    stream = client.stream(request("time?"), {}, { signal: controller.signal });
    const settled = await Promise.race([
      stream.response.then(() => "resolved", (e) => e.code),
      new Promise((resolve) => setTimeout(() => resolve("pending"), 3000)),
    ]);
    assert.equal(settled, "aborted", how);
  }
});

test("ClientTools: registration errors, definitions, shared between clients", () => {
  const tools = new ClientTools();
  assert.throws(() => tools.register("t", { type: "object", properties: { a: { minLength: -1 } } }, () => 1),
    (e) => e instanceof ProtocolError && e.code === "invalid-schema" && e.details.pointer === "/properties/a/minLength");
  assert.throws(() => tools.register("t", {}, "not a function"), (e) => e.code === "invalid-argument");
  assert.equal(tools.size, 0);
  const warnings = tools.register("t", { type: "object", properties: { a: { type: "string", pattern: "^x" } }, $dynamicRef: "#meta" }, () => 1);
  assert.deepEqual(warnings.map((w) => [w.pointer, w.keyword]), [["/$dynamicRef", "$dynamicRef"]]);
  assert.deepEqual(tools.definitions().map((d) => d.name), ["t"]);
  assert.throws(() => tools.registry.validateArguments("t", { a: 1 }),
    (e) => e.message === "Validation failed for tool 't': Argument 'a' must be a string, got number 1.");
  const client = new AgentClient({ baseUrl: server(), tools });
  assert.equal(client.tools, tools);
  assert.ok(tools.unregister("t"));
  assert.equal(client.tools.size, 0);
});

test("ToolRegistry: `$dynamicRef` follows the dynamic scope (a tree an outer schema makes strict)", () => {
  const tree = {
    $id: "https://example.com/tree",
    $dynamicAnchor: "node",
    type: "object",
    properties: { data: true, children: { type: "array", items: { $dynamicRef: "#node" } } },
  };
  const registry = new ToolRegistry();
  const parameters = { $id: "https://example.com/strict-tree", $dynamicAnchor: "node", $ref: "tree", unevaluatedProperties: false, $defs: { tree } };
  assert.deepEqual(registry.register({ name: "strict", description: "", parameters }), []);
  assert.deepEqual(registry.register({ name: "tree", description: "", parameters: tree }), []);
  const misspelled = { children: [{ data: 1, children: [{ daat: 2 }] }] };
  registry.validateArguments("tree", misspelled);
  registry.validateArguments("strict", { children: [{ data: 1, children: [{ data: 2 }] }] });
  assert.throws(() => registry.validateArguments("strict", misspelled),
    (e) => e.code === "tool-validation" && e.message.includes("Unknown argument 'children[0].children[0].daat'"));
});

test("ToolRegistry: checks that nest without end stop as too complex, and the module lives on", () => {
  // `unevaluatedProperties` checks each `anyOf` branch it looks into by a run of its own, which
  // meets the keyword again: 40 such schemas chained, applied at each of 126 levels, nested about
  // 5,000 runs on wasm's 1 MiB stack, which overflowed ("memory access out of bounds": every
  // later call of the module failed the same way).
  const chain = (n, inPlace = 0) => {
    const $defs = {};
    for (let i = 0; i < n; i++) {
      let next = { anyOf: [{ $ref: `#/$defs/b${i + 1}` }] };
      for (let j = 0; j < inPlace; j++) next = { allOf: [next] };
      $defs[`b${i}`] = { unevaluatedProperties: false, ...next };
    }
    $defs[`b${n}`] = { properties: { a: { $ref: "#/$defs/b0" } } };
    return { $defs, $ref: "#/$defs/b0" };
  };
  const nested = (depth, leaf) => { let v = leaf; for (let i = 0; i < depth; i++) v = { a: v }; return v; };
  const registry = new ToolRegistry();
  // The second: 30 in-place `allOf`s on the way to each nested check.
  registry.register({ name: "deep", description: "", parameters: chain(40) });
  registry.register({ name: "wide", description: "", parameters: chain(12, 30) });
  for (const name of ["deep", "wide"]) {
    assert.throws(() => registry.validateArgumentsText(name, JSON.stringify(nested(126, 1))),
      (e) => e instanceof ProtocolError && e.code === "tool-validation"
        && e.message.endsWith("validation took more than 1000000 steps or nested its checks more than 256 deep."),
      name);
  }
  // The module still works, and a short chain is checked in full.
  registry.register({ name: "short", description: "", parameters: chain(3) });
  registry.validateArguments("short", nested(3, {}));
  assert.throws(() => registry.validateArguments("short", { a: { b: 1 } }),
    (e) => e.code === "tool-validation" && e.message.includes("Unknown argument 'a.b'"));
});

test("ToolRegistry: a pattern V8 cannot compile or run is a typed error, and nothing goes through the module", () => {
  const healthy = () => assert.equal(new Pattern("/a/*").isMatch("/a/b"), true);
  const registry = new ToolRegistry();
  // 11,000 nested groups: V8 compiled the pattern only at the first match, whose "Stack
  // overflow" SyntaxError went through the module and left the registry in use; 1,424 such
  // validations killed the module. Refused when the schema compiles now, as natively.
  const deep = "(".repeat(11000) + "a" + ")".repeat(11000);
  assert.throws(() => registry.register({ name: "deep", description: "", parameters: { type: "object", properties: { s: { type: "string", pattern: deep } } } }),
    (e) => e instanceof ProtocolError && e.code === "invalid-schema" && /nests groups more than 256 levels deep/.test(e.message), "deep");
  const nested = "(".repeat(256) + "a" + ")".repeat(256);
  registry.register({ name: "nested", description: "", parameters: { type: "object", properties: { s: { type: "string", pattern: nested } } } });
  registry.validateArguments("nested", { s: "a" });
  // V8's backtracking runs out of stack on this pattern over 2.1 MB (a RangeError that went
  // through the module, leaving the registry in use and a kilobyte of its stack lost each time).
  registry.register({ name: "ab", description: "", parameters: { type: "object", properties: { s: { type: "string", pattern: "^((a)|(b))*$" } }, patternProperties: { "^((a)|(b))*$": true } } });
  const long = "ab".repeat(1_500_000);
  for (let i = 0; i < 3; i++) {
    assert.throws(() => registry.validateArguments("ab", { s: long }),
      (e) => e instanceof ProtocolError && e.code === "tool-validation"
        && e.details.problems[0].kind === "tooComplex"
        && e.message.includes("Argument 's' could not be checked against the regular expression /^((a)|(b))*$/: RangeError"),
      `value ${i}`);
    assert.throws(() => registry.validateArguments("ab", { [long]: 1 }),
      (e) => e.code === "tool-validation" && e.details.problems[0].kind === "tooComplex" && e.details.problems[0].schemaPointer === "/patternProperties"
        && e.message.includes("Argument name \"abab") && e.message.includes("could not be checked against the regular expression /^((a)|(b))*$/: RangeError"),
      `name ${i}`);
  }
  // The registry is not left in use, and short strings are checked as before.
  registry.register({ name: "after", description: "", parameters: { type: "object" } });
  registry.validateArguments("ab", { s: "abba" });
  assert.throws(() => registry.validateArguments("ab", { s: "abc" }), (e) => e.details.problems[0].kind === "patternMismatch");
  healthy();
});

test("PartialJson and ToolArguments read a maxDepth above 127 as 127 (12,000 levels overflowed the module's stack when read)", () => {
  // Any size of number: a wasm `usize` is 32 bits, and 1e10 and 2**53 were refused ("expected
  // usize"). A left-out `maxDepth` is the default: 127 for `ToolArguments`, 64 for `PartialJson`.
  const makers = [1e9, 1e10, 2 ** 53].flatMap((maxDepth) => [() => new PartialJson({ maxDepth }), () => new ToolArguments({ maxDepth, maxBytes: 2 ** 40 })]);
  for (const make of [...makers, () => new ToolArguments({ maxBytes: 100_000 })]) {
    const p = make();
    assert.throws(() => p.push("[".repeat(12000)), (e) => e instanceof ProtocolError && e.code === "json-too-deep" && e.details.limit === 127 && e.details.offset === 127);
  }
  assert.throws(() => new PartialJson({ maxBytes: 100_000 }).push("[".repeat(100)), (e) => e.code === "json-too-deep" && e.details.limit === 64);
  const p = new PartialJson({ maxDepth: 1e9 });
  p.push("[".repeat(127));
  p.push("]".repeat(127));
  let v = p.finish();
  for (let i = 0; i < 126; i++) v = v[0];
  assert.deepEqual(v, []);
  assert.equal(new Pattern("/a/*").isMatch("/a/b"), true);
});

test("a tool's definition keeps its schema's members in the order given: the model and a form read them in that order", () => {
  const tools = new ClientTools();
  const parameters = {
    type: "object",
    properties: { query: { type: "string" }, top_k: { type: "integer" }, filters: { type: "object", properties: { year: {}, author: {} } } },
    required: ["query"],
  };
  tools.register("search", parameters, () => 1);
  const [definition] = tools.definitions();
  assert.equal(JSON.stringify(definition.parameters), JSON.stringify(parameters));
  assert.deepEqual(Object.keys(definition.parameters.properties), ["query", "top_k", "filters"]);
});

test("the README's tools example runs against the reference server", async () => {
  const { readFileSync, writeFileSync, mkdtempSync, rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const { execFileSync } = await import("node:child_process");
  const { root, pkgDir } = await import("../helpers.mjs");
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const m = readme.match(/<!-- readme-example: tools -->\s*```js\n([\s\S]*?)```/);
  assert.ok(m, "README has the tools example");
  const code = m[1]
    .replace('from "agentwire"', `from ${JSON.stringify(join(pkgDir, "node/index.js"))}`)
    .replaceAll("http://127.0.0.1:8787", server());
  const dir = mkdtempSync(join(tmpdir(), "agentwire-readme-"));
  try {
    writeFileSync(join(dir, "example.mjs"), code);
    const out = execFileSync("node", [join(dir, "example.mjs")]).toString();
    assert.match(out, /^call_get_time_1 \{ timezone: 'Europe\/' \}$/m);
    assert.match(out, /^sent back: result$/m);
    assert.match(out, /^It is \d\d:\d\d:\d\d in Europe\/Paris\.$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("onToolArguments' changes applied to a caller's copy give the arguments once: the copy shares nothing with the stream's value", async () => {
  const ev = (o) => `data: ${JSON.stringify(o)}\n\n`;
  const delta = (args, extra = {}) =>
    ev({ object: "content", type: "data", index: 0, delta: true, msg_id: "m1", status: "in_progress", data: { arguments: args, ...extra } });
  const body =
    ev({ object: "response", id: "r", status: "created" }) +
    ev({ object: "message", id: "m1", type: "function_call", role: "assistant", status: "in_progress" }) +
    delta('{"city": "Pa', { call_id: "c1", name: "get_weather" }) + delta("ri") + delta('s", "days": [1') + delta(", 2]}") +
    ev({ object: "message", id: "m1", type: "function_call", role: "assistant", status: "completed" }) +
    ev({ object: "response", id: "r", status: "completed" });
  const client = new AgentClient({ baseUrl: "http://agent.test", fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  let copy;
  const seen = [];
  await client.stream(new RequestBuilder().text("user", "x").build(), {
    onToolArguments: (id, value, changes, call) => {
      const emitted = JSON.stringify(changes);
      copy = applyPartialChanges(copy, changes);
      assert.notEqual(copy, call.arguments);
      assert.equal(JSON.stringify(changes), emitted, "applying the changes does not change them");
      seen.push([JSON.stringify(copy), JSON.stringify(value)]);
    },
  }).response;
  assert.deepEqual(copy, { city: "Paris", days: [1, 2] });
  for (const [c, v] of seen) assert.equal(c, v);
  // The same through PartialJson, twice over the same changes: two copies, each right.
  const parser = new PartialJson();
  let a;
  let b;
  for (const d of ['{"x": {"y": "a', 'b"}, "z": ["c', 'd"]}']) {
    const changes = parser.push(d);
    a = applyPartialChanges(a, changes);
    b = applyPartialChanges(b, changes);
  }
  parser.free();
  assert.deepEqual([a, b], [{ x: { y: "ab" }, z: ["cd"] }, { x: { y: "ab" }, z: ["cd"] }]);
  assert.notEqual(a.x, b.x);
});
