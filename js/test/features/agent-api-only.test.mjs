// A feature build with only the Agent API: the package's entry point `agentwire/agent-api`
// (pkg/agent-api, which scripts/build.sh builds with AGENTWIRE_FEATURES=agent-api), and the size
// build the test command makes with AGENTWIRE_OPT=size into target/pkg-agent-api-size. What is in it
// works, what was left out throws `feature-not-built`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, pkgDir, server, shared } from "../helpers.mjs";

const aw = await agentwire();
const { AgentStreamDecoder, AgentClient, RequestBuilder, ProtocolError } = aw;

test("the package under test is the agent-api feature build", () => {
  const info = JSON.parse(readFileSync(join(pkgDir, "BUILD_INFO.json"), "utf8"));
  assert.equal(info.features, "agent-api");
  assert.equal(info.opt, process.env.AGENTWIRE_OPT ?? "speed");
});

test("the Agent API decoder assembles a real agentscope-runtime stream", () => {
  const d = new AgentStreamDecoder();
  d.feed(readFileSync(join(shared, "fixtures/agentscope-runtime/process-agentscope.sse")));
  d.finish();
  const r = d.response();
  assert.equal(r.status, "completed");
  assert.ok(r.output.length > 0);
  d.free();
});

test("a live stream renders and its body view lists named parts", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?pace_ms=0" });
  let text = "";
  const stream = client.stream(new RequestBuilder().text("user", "Tell me about Rust").build(), {
    onTextDelta: (delta) => (text += delta),
  });
  const response = await stream.response;
  assert.equal(response.status, "completed");
  assert.ok(text.length > 0);
  assert.ok(stream.list("/sources/*").length > 0);
});

test("tool calls are reported without partial arguments (no tools feature)", async () => {
  const client = new AgentClient({ baseUrl: server(), endpoint: "/process?agent=tools&pace_ms=0" });
  const calls = [];
  let partial = 0;
  const tool = { type: "function", function: { name: "get_time", description: "", parameters: { type: "object", properties: { timezone: { type: "string" } } } } };
  const request = new RequestBuilder().text("user", "What time is it in Paris?").tool(tool).build();
  const response = await client.stream(request, {
    onToolArguments: () => partial++,
    onToolCall: (c) => calls.push(c),
  }).response;
  assert.equal(response.status, "completed");
  assert.equal(partial, 0);
  assert.equal(calls.length, 1);
  assert.equal(JSON.parse(calls[0].arguments).timezone, "Europe/Paris");
});

test("a client's build keeps validateAgentRequest and agentContentToPart", () => {
  const request = aw.validateAgentRequest({ input: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], temperature: 1 });
  assert.equal(request.input[0].content[0].text, "Hi");
  assert.throws(() => aw.validateAgentRequest({ input: [], top_p: 2 }), (e) => e instanceof ProtocolError && e.code === "parameter-out-of-range");
  const part = aw.agentContentToPart({ type: "text", text: "Hello", status: "completed" }, "message", "completed");
  assert.equal(part.type, "text");
  assert.equal(part.content, "Hello");
  assert.equal(part.status, "complete");
});

test("what the build left out throws a typed feature-not-built error", () => {
  for (const [name, use] of [
    ["MessageBody", () => new aw.MessageBody([])],
    ["StructuredMessage", () => aw.StructuredMessage.fromJSON("{}")],
    ["AcpClient", () => new aw.AcpClient({ baseUrl: server() })],
    ["AgentxClient", () => new aw.AgentxClient({ baseUrl: server() })],
    ["ToolRegistry", () => new aw.ToolRegistry()],
    ["validatePayload", () => aw.validatePayload({}, "{}")],
    // The Agent API's server side (the `agent-api-server` feature): not in a client's build.
    ["ResponseBuilder", () => new aw.ResponseBuilder()],
    ["encodeAgentEvent", () => aw.encodeAgentEvent({ object: "response", status: "created" })],
  ]) {
    assert.throws(use, (e) => e instanceof ProtocolError && e.code === "feature-not-built" && e.details.name !== undefined, name);
  }
  // A TypeScript helper over a left-out export names itself, not the export.
  assert.throws(() => aw.agentxUserMessage("hi"), (e) => e.code === "feature-not-built" && e.details.name === "agentxUserMessage");
  assert.equal(aw.acpMessage("hi").parts[0].content, "hi", "acpMessage works in every build");
  assert.equal(aw.isAgentxPart({ type: "text", text: "a" }, "text"), true, "so does isAgentxPart");
});
