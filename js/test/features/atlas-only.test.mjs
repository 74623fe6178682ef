// A feature build with only Atlas messages: the package's entry point `agentwire/atlas` (pkg/atlas,
// which scripts/build.sh builds with AGENTWIRE_FEATURES=atlas; the feature brings `bodies`). What
// is in it works (through the minified glue): Atlas messages read from a Python agent's JSON and
// written back unchanged, tool calls and results, the body view with its queries and schemas. What
// was left out throws `feature-not-built`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, pkgDir } from "../helpers.mjs";

const aw = await agentwire();
const { StructuredMessage, MessageBody, BodySchema, ProtocolError } = aw;

test("the package under test is the atlas feature build", () => {
  const info = JSON.parse(readFileSync(join(pkgDir, "BUILD_INFO.json"), "utf8"));
  assert.equal(info.features, "atlas");
});

// What the Python reference writes (json.dumps of its message, float timestamp and all).
const FROM_PYTHON =
  '{"content": "Check the weather forecast for London", "metadata": {"type": "tool_request", "trace": {"span": 7, "score": 0.30000000000000004}}, "task_id": "0b7e7d4c-3f5c-4d0e-9a55-0c1c0e9b3a11", "timestamp": 1758972921.8811321, "tool_calls": [{"id": "c0ffee00-0000-4000-8000-000000000001", "name": "get_weather", "arguments": {"location": "London", "unit": "celsius"}}], "tool_results": [], "source_agent": "user", "target_agent": null}';

test("a Python agent's message is read exactly and written back unchanged", () => {
  const m = StructuredMessage.fromJSON(FROM_PYTHON);
  assert.equal(m.timestamp, 1758972921.8811321);
  assert.equal(m.messageType, "tool_request");
  assert.equal(m.toolCalls[0].arguments.location, "London");
  assert.deepEqual(m.toJSON(), JSON.parse(FROM_PYTHON));
  const e = (() => {
    try {
      StructuredMessage.fromJSON('{"content": 1}');
    } catch (error) {
      return error;
    }
  })();
  assert.ok(e instanceof ProtocolError, String(e));
  assert.equal(e.details.path, "content");
});

test("a response with tool results as a body: queries, a body schema, and back", () => {
  const query = StructuredMessage.fromJSON(FROM_PYTHON);
  const response = StructuredMessage.createResponse("Sunny, 22 °C.", query);
  const callId = query.toolCalls[0].id;
  response.addToolResult("get_weather", { temp: 22 }, callId, "success");
  const body = response.toBody();
  assert.ok(body instanceof MessageBody);
  assert.deepEqual(body.readJson(`/tool_results/${callId}`), { temp: 22 });
  assert.deepEqual(body.list("/tool_results/*").map((p) => p.type), ["tool_result"]);
  const schema = new BodySchema({ parts: [{ contentType: "text/plain", required: true }, { name: "/tool_results/*", contentType: "application/json" }, { name: "/metadata" }] });
  assert.deepEqual(schema.validate(body).violations, []);
  assert.deepEqual(StructuredMessage.fromBody(body).toJSON(), response.toJSON());
  assert.equal(StructuredMessage.name, "StructuredMessage");
});

test("what the build left out throws a typed feature-not-built error", () => {
  for (const [name, use] of [
    ["AgentStreamDecoder", () => new aw.AgentStreamDecoder()],
    ["AgentxStreamDecoder", () => new aw.AgentxStreamDecoder()],
    ["AcpClient", () => new aw.AcpClient({ baseUrl: "http://127.0.0.1:9" })],
    ["CommunicationSchema", () => aw.CommunicationSchema.builtin("acpRun")],
    ["ToolRegistry", () => new aw.ToolRegistry()],
  ]) {
    assert.throws(use, (e) => e instanceof ProtocolError && e.code === "feature-not-built" && e.details.name !== undefined, name);
  }
});
