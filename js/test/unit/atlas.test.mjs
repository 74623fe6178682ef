// Atlas structured messages from JavaScript: the documentation's examples (weather query and
// response, error, task assignment, tool calls and results with success and error), getters and
// setters, exact JSON round trips (float timestamps bit for bit), strict and lenient reading,
// typed errors naming the field, and the body view.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";

const { StructuredMessage, MessageBody, BodySchema, ProtocolError } = await agentwire();

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function throwsCode(fn, code) {
  let error;
  assert.throws(fn, (e) => {
    error = e;
    return e instanceof ProtocolError && e.code === code;
  });
  return error;
}

/** The documentation's first example: a query from `user` to `weather_agent`. */
const weatherQuery = () =>
  new StructuredMessage("What's the weather in New York?", {
    metadata: { type: "query", priority: "high" },
    taskId: "weather-task-123",
    sourceAgent: "user",
    targetAgent: "weather_agent",
  });

test("a new message: generated task id and timestamp, getters, the wire JSON in the reference's shape", () => {
  const before = Date.now() / 1000;
  const plain = new StructuredMessage("Hello, agent!");
  assert.equal(plain.content, "Hello, agent!");
  assert.deepEqual(plain.metadata, {});
  assert.match(plain.taskId, UUID_V4);
  assert.ok(plain.timestamp >= before - 1 && plain.timestamp <= before + 60, String(plain.timestamp));
  assert.equal(plain.messageType, null);
  assert.equal(plain.inReplyTo, null);
  assert.equal(plain.sourceAgent, null);
  assert.equal(plain.targetAgent, null);
  assert.equal(plain.hasToolCalls, false);
  assert.equal(plain.hasToolResults, false);
  assert.deepEqual(plain.toolCalls, []);
  assert.deepEqual(plain.toolResults, []);
  assert.deepEqual(plain.extra, {});
  assert.notEqual(new StructuredMessage("x").taskId, plain.taskId);

  const query = weatherQuery();
  query.timestamp = 1712150400.5;
  assert.equal(query.messageType, "query");
  const wire = query.toJSON();
  assert.deepEqual(Object.keys(wire), ["content", "metadata", "task_id", "timestamp", "tool_calls", "tool_results", "source_agent", "target_agent"]);
  assert.deepEqual(wire, {
    content: "What's the weather in New York?",
    metadata: { type: "query", priority: "high" },
    task_id: "weather-task-123",
    timestamp: 1712150400.5,
    tool_calls: [],
    tool_results: [],
    source_agent: "user",
    target_agent: "weather_agent",
  });
  assert.equal(
    JSON.stringify(query),
    '{"content":"What\'s the weather in New York?","metadata":{"type":"query","priority":"high"},"task_id":"weather-task-123","timestamp":1712150400.5,"tool_calls":[],"tool_results":[],"source_agent":"user","target_agent":"weather_agent"}',
  );
});

test("the weather response: agents swapped, in_reply_to the query's task id", () => {
  const query = weatherQuery();
  const response = StructuredMessage.createResponse("The weather in New York is sunny and 72°F.", query);
  assert.equal(response.content, "The weather in New York is sunny and 72°F.");
  assert.equal(response.sourceAgent, "weather_agent");
  assert.equal(response.targetAgent, "user");
  assert.equal(response.messageType, "response");
  assert.equal(response.inReplyTo, "weather-task-123");
  assert.deepEqual(response.metadata, { type: "response", in_reply_to: "weather-task-123" });
  assert.match(response.taskId, UUID_V4);
  assert.notEqual(response.taskId, query.taskId);
  // The original may be given as its wire JSON too.
  const fromWire = StructuredMessage.createResponse("ok", query.toJSON());
  assert.equal(fromWire.inReplyTo, "weather-task-123");
  assert.equal(fromWire.targetAgent, "user");
  // The query is untouched by being passed.
  assert.equal(query.content, "What's the weather in New York?");
});

test("the error example, and an error without an original", () => {
  const error = StructuredMessage.createError("Failed to retrieve weather data: API unavailable", weatherQuery());
  assert.equal(error.messageType, "error");
  assert.equal(error.metadata.type, "error");
  assert.equal(error.inReplyTo, "weather-task-123");
  assert.equal(error.sourceAgent, "weather_agent");
  assert.equal(error.targetAgent, "user");
  const standalone = StructuredMessage.createError("Standalone error");
  assert.deepEqual(standalone.metadata, { type: "error" });
  assert.equal(standalone.inReplyTo, null);
  assert.equal(standalone.sourceAgent, null);
  assert.equal(StructuredMessage.createError("x", null).inReplyTo, null);
});

test("the task assignment keeps the task data in metadata", () => {
  const task = StructuredMessage.createTask(
    "Analyze the sentiment of these customer reviews",
    "controller",
    "sentiment_analysis_worker",
    { priority: "high", deadline: "2h" },
  );
  assert.equal(task.sourceAgent, "controller");
  assert.equal(task.targetAgent, "sentiment_analysis_worker");
  assert.equal(task.messageType, "task");
  assert.deepEqual(task.metadata, { type: "task", priority: "high", deadline: "2h" });
  assert.deepEqual(StructuredMessage.createTask("Do it", "a", "b").metadata, { type: "task" });
  assert.equal(StructuredMessage.createTask("Do it", "a", "b", { type: "query" }).messageType, "task");
  assert.equal(throwsCode(() => StructuredMessage.createTask("x", "a", "b", [1]), "wrong-type").details.path, "taskData");
});

test("tool calls and results, with success and error", () => {
  const weatherMessage = new StructuredMessage("Check the weather forecast for London");
  const callId = weatherMessage.addToolCall("get_weather", { location: "London", unit: "celsius" });
  assert.match(callId, UUID_V4);
  assert.equal(weatherMessage.hasToolCalls, true);
  assert.deepEqual(weatherMessage.toolCalls, [{ id: callId, name: "get_weather", arguments: { location: "London", unit: "celsius" } }]);
  assert.notEqual(weatherMessage.addToolCall("get_weather", {}), callId);

  const response = new StructuredMessage("Here's the weather information you requested:");
  response.addToolResult("get_weather", { temp: 22, conditions: "sunny", humidity: 45 }, callId, "success");
  response.addToolResult("get_weather", null, "failed-call-id", "error", "API connection timeout");
  response.addToolResult("get_weather", [1, 2], "third"); // status defaults to success
  assert.equal(response.hasToolResults, true);
  assert.deepEqual(response.toolResults, [
    { name: "get_weather", result: { temp: 22, conditions: "sunny", humidity: 45 }, call_id: callId, status: "success", error: null },
    { name: "get_weather", result: null, call_id: "failed-call-id", status: "error", error: "API connection timeout" },
    { name: "get_weather", result: [1, 2], call_id: "third", status: "success", error: null },
  ]);
  for (const m of [weatherMessage, response]) {
    assert.deepEqual(StructuredMessage.fromJSON(JSON.stringify(m)).toJSON(), m.toJSON());
    assert.deepEqual(StructuredMessage.fromBody(m.toBody()).toJSON(), m.toJSON());
  }
  // Arguments must be an object; a status other than success/error is refused.
  assert.equal(throwsCode(() => weatherMessage.addToolCall("x", [1]), "wrong-type").details.path, "arguments");
  assert.equal(throwsCode(() => weatherMessage.addToolCall("x", "city=Paris"), "wrong-type").details.expected, "object");
  throwsCode(() => weatherMessage.addToolCall("x"), "wrong-type");
  const s = throwsCode(() => response.addToolResult("x", 1, "c", "failed"), "unknown-tool-status");
  assert.deepEqual(s.details, { path: "status", value: "failed" });
  assert.equal(response.toolResults.length, 3); // unchanged by the failures
});

test("setters: content, metadata, message type (any case, written lowercase), task id, timestamp, agents", () => {
  const m = new StructuredMessage("a", { messageType: "QUERY" });
  assert.equal(m.messageType, "query");
  assert.equal(m.metadata.type, "query");
  m.content = "b";
  m.taskId = "t-9";
  m.timestamp = 1795691546.6036239;
  m.sourceAgent = "planner";
  m.targetAgent = "coder";
  m.messageType = "Tool_Request";
  assert.equal(m.messageType, "tool_request");
  m.metadata = { type: "STATUS", step: 3 };
  assert.equal(m.messageType, "status"); // read ignoring case…
  assert.equal(m.metadata.type, "STATUS"); // …kept as sent
  m.messageType = "handoff"; // an unknown type is kept as is
  assert.equal(m.messageType, "handoff");
  assert.deepEqual(m.toJSON(), {
    content: "b",
    metadata: { type: "handoff", step: 3 },
    task_id: "t-9",
    timestamp: 1795691546.6036239,
    tool_calls: [],
    tool_results: [],
    source_agent: "planner",
    target_agent: "coder",
  });
  m.metadata = { type: "status", step: 3, zone: "eu", attempt: 1 };
  m.messageType = null;
  m.sourceAgent = null;
  assert.equal(m.messageType, null);
  // The other members keep their order (a removal that swapped in the last would not).
  assert.deepEqual(Object.keys(m.metadata), ["step", "zone", "attempt"]);
  m.metadata = { step: 3 };
  assert.equal(m.toJSON().source_agent, null);
  assert.equal(throwsCode(() => (m.metadata = [1]), "wrong-type").details.path, "metadata");
  // A timestamp JSON cannot hold is refused, and the message keeps the one it had.
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.equal(throwsCode(() => (m.timestamp = bad), "invalid-argument").details.what, "timestamp");
    // Not made `null` by JSON on the way in (then read as missing: now, or missing-field).
    assert.equal(throwsCode(() => new StructuredMessage("x", { timestamp: bad }), "invalid-argument").details.what, "timestamp");
    const wire = { ...m.toJSON(), timestamp: bad };
    assert.equal(throwsCode(() => StructuredMessage.fromJSON(wire, { strict: true }), "invalid-argument").details.what, "input.timestamp");
  }
  assert.equal(m.timestamp, 1795691546.6036239);
  assert.equal(StructuredMessage.fromJSON(m.toJSON(), { strict: true }).timestamp, 1795691546.6036239);
});

// `json.dumps(message.to_dict())` of the Python reference; serde_json alone reads this timestamp
// one ULP off.
const FROM_PYTHON =
  '{"content": "Check the weather forecast for London", "metadata": {"type": "tool_request", "trace": {"span": 7, "score": 0.30000000000000004}}, "task_id": "0b7e7d4c-3f5c-4d0e-9a55-0c1c0e9b3a11", "timestamp": 1758972921.8811321, "tool_calls": [{"id": "c0ffee00-0000-4000-8000-000000000001", "name": "get_weather", "arguments": {"location": "London", "unit": "celsius"}}], "tool_results": [], "source_agent": "user", "target_agent": null}';

test("fromJSON reads Python's output exactly, from text or object, and writes it back unchanged", () => {
  for (const input of [FROM_PYTHON, JSON.parse(FROM_PYTHON)]) {
    const m = StructuredMessage.fromJSON(input);
    assert.equal(m.timestamp, 1758972921.8811321);
    assert.equal(m.metadata.trace.score, 0.1 + 0.2);
    assert.equal(m.messageType, "tool_request");
    assert.equal(m.toolCalls[0].id, "c0ffee00-0000-4000-8000-000000000001");
    assert.equal(m.targetAgent, null);
    assert.deepEqual(m.toJSON(), JSON.parse(FROM_PYTHON));
    assert.deepEqual(StructuredMessage.fromJSON(FROM_PYTHON, { strict: true }).toJSON(), m.toJSON());
  }
});

test("Rust → JSON → JS → JSON → Rust: every timestamp bit for bit, the text unchanged", () => {
  for (const t of [1758972921.8811321, 1795691546.6036239, 0.1, 5e-324, Number.MAX_VALUE, 1712150400, 123456789.12345679]) {
    const made = new StructuredMessage("t", { timestamp: t, metadata: { score: t / 3 } }); // made in Rust
    const text = JSON.stringify(made); // Rust's JSON, parsed into JS objects, stringified by JS
    const back = StructuredMessage.fromJSON(text); // read by Rust
    assert.ok(Object.is(back.timestamp, t), `${t}`);
    assert.ok(Object.is(back.metadata.score, t / 3), `${t / 3}`);
    assert.equal(JSON.stringify(back), text);
    // Through the body view as well.
    assert.ok(Object.is(StructuredMessage.fromBody(back.toBody()).timestamp, t));
    assert.ok(Object.is(StructuredMessage.fromBody(JSON.parse(JSON.stringify(back.toBody()))).timestamp, t));
  }
});

test("unknown fields are kept (extra); unknown types and statuses: lenient keeps, strict refuses", () => {
  const text = '{"content": "x", "metadata": {"type": "handoff"}, "task_id": "t", "timestamp": 1.5, "tool_calls": [], "tool_results": [{"name": "n", "call_id": "c", "status": "partial", "result": 1, "cost": 2}], "priority": 9}';
  const m = StructuredMessage.fromJSON(text);
  assert.deepEqual(m.extra, { priority: 9 });
  assert.equal(m.messageType, "handoff");
  assert.equal(m.toolResults[0].status, "partial");
  assert.equal(m.toolResults[0].cost, 2);
  assert.equal(m.toJSON().priority, 9);
  const strict = throwsCode(() => StructuredMessage.fromJSON(text, { strict: true }), "unknown-message-type");
  assert.deepEqual(strict.details, { path: "metadata.type", value: "handoff" });
  const status = throwsCode(() => StructuredMessage.fromJSON(text.replace('"handoff"', '"QUERY"'), { strict: true }), "unknown-tool-status");
  assert.equal(status.details.path, "tool_results[0].status");
  // Lenient fills in the envelope, strict requires it.
  const lenient = StructuredMessage.fromJSON('{"content": "x"}');
  assert.match(lenient.taskId, UUID_V4);
  assert.equal(throwsCode(() => StructuredMessage.fromJSON('{"content": "x"}', { strict: true }), "missing-field").details.path, "metadata");
});

test("malformed input is a typed error naming the field", () => {
  const cases = [
    ['{"metadata": {}}', "missing-field", "content"],
    ['{"content": 5}', "wrong-type", "content"],
    ['{"content": "x", "metadata": []}', "wrong-type", "metadata"],
    ['{"content": "x", "metadata": {"type": 3}}', "wrong-type", "metadata.type"],
    ['{"content": "x", "timestamp": "now"}', "wrong-type", "timestamp"],
    ['{"content": "x", "tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": 1}]}', "wrong-type", "tool_calls[1].arguments"],
    ['{"content": "x", "tool_results": [{"name": "a"}]}', "missing-field", "tool_results[0].call_id"],
    ["[]", "wrong-type", ""],
  ];
  for (const [text, code, path] of cases) {
    const e = throwsCode(() => StructuredMessage.fromJSON(text), code);
    assert.equal(e.details.path, path, text);
  }
  const syntax = throwsCode(() => StructuredMessage.fromJSON('{"content":\n "x",}'), "invalid-json");
  assert.equal(syntax.details.line, 2);
  // The constructor's init names the JavaScript field.
  assert.equal(throwsCode(() => new StructuredMessage("x", { taskId: 5 }), "wrong-type").details.path, "taskId");
  assert.equal(throwsCode(() => new StructuredMessage("x", { toolCalls: [{ name: "a", arguments: 1 }] }), "wrong-type").details.path, "toolCalls[0].arguments");
  assert.equal(throwsCode(() => new StructuredMessage("x", { messageType: 1 }), "wrong-type").details.path, "messageType");
  assert.match(throwsCode(() => new StructuredMessage("x", { task_id: "t" }), "invalid-argument").message, /unknown field `task_id`/);
  throwsCode(() => StructuredMessage.fromJSON({ content: "x", big: 1n }), "invalid-argument");
  throwsCode(() => StructuredMessage.fromJSON("x", { strict: "yes" }), "invalid-argument");
});

test("the constructor takes every field; toolCalls and toolResults as on the wire", () => {
  const m = new StructuredMessage("with tools", {
    taskId: "t-1",
    timestamp: 1712150400.25,
    toolCalls: [{ id: "c1", name: "search", arguments: { q: "atlas" } }, { name: "noid", arguments: {} }],
    toolResults: [{ name: "search", call_id: "c1", result: ["r"], status: "success", error: null }],
    sourceAgent: "a",
    targetAgent: null,
  });
  assert.equal(m.toolCalls[0].id, "c1");
  assert.match(m.toolCalls[1].id, UUID_V4);
  assert.deepEqual(m.toolResults[0].result, ["r"]);
  assert.equal(m.targetAgent, null);
  assert.equal(m.timestamp, 1712150400.25);
});

test("the body view: queries and schemas work on Atlas messages; fromBody reads it back", () => {
  const response = StructuredMessage.createResponse("The weather in New York is sunny and 72°F.", weatherQuery());
  const callId = response.addToolCall("get_weather", { location: "New York" });
  response.addToolResult("get_weather", { temp: 72 }, callId, "success");
  response.addToolResult("get_forecast", null, "x/y", "error", "timeout");
  const body = response.toBody();
  assert.ok(body instanceof MessageBody);
  assert.deepEqual(body.names(), [`/tool_calls/${callId}`, `/tool_results/${callId}`, "/tool_results/x.2Fy", "/metadata"]);
  assert.equal(body.main()[0].content, "The weather in New York is sunny and 72°F.");
  assert.deepEqual(body.readJson(`/tool_results/${callId}`), { temp: 72 });
  assert.deepEqual(body.list("/tool_results/*").map((p) => p.type), ["tool_result", "tool_error"]);
  assert.deepEqual(body.readJson("/metadata"), { type: "response", in_reply_to: "weather-task-123" });
  assert.deepEqual(body.check(), []);
  const schema = new BodySchema({ parts: [
    { contentType: "text/plain", required: true },
    { name: "/tool_{calls,results}/*", contentType: "application/json" },
    { name: "/metadata", contentType: "application/json", required: true },
  ] });
  assert.deepEqual(schema.validate(body).violations, []);
  assert.deepEqual(StructuredMessage.fromBody(body).toJSON(), response.toJSON());
  assert.deepEqual(StructuredMessage.fromBody(body.parts).toJSON(), response.toJSON());
  assert.deepEqual(StructuredMessage.fromBody(body.toJSON()).toJSON(), response.toJSON());
  const e = throwsCode(() => StructuredMessage.fromBody([{ type: "tool_call", name: "/c", contentType: "application/json", content: "{}" }]), "missing-field");
  assert.equal(e.details.path, "parts[0].metadata.toolName");
  throwsCode(() => StructuredMessage.fromBody("parts"), "invalid-argument");
});
