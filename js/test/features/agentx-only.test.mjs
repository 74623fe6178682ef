// A feature build with only AgentX: the package's entry point `agentwire/agentx` (pkg/agentx, which
// scripts/build.sh builds with AGENTWIRE_FEATURES=agentx), a build without the Agent API, so without
// the wasm-bindgen snippet the Agent API imports. What is in it works (through the minified glue),
// what was left out throws `feature-not-built`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, pkgDir } from "../helpers.mjs";

const aw = await agentwire();
const { AgentxStreamDecoder, ProtocolError } = aw;

test("the package under test is the agentx feature build", () => {
  const info = JSON.parse(readFileSync(join(pkgDir, "BUILD_INFO.json"), "utf8"));
  assert.equal(info.features, "agentx");
});

test("the AgentX decoder assembles a documented flow fed three bytes at a time", () => {
  // The AgentX document's §3.1 flow: two packets of one streamed text message.
  const packets = [
    `{ "role": "assistant", "parts": [{ "type": "text", "text": "Hello" }] }`,
    `{ "role": "assistant", "parts": [{ "type": "text", "text": " there!" }] }`,
  ];
  const bytes = new TextEncoder().encode(packets.map((p) => `data: ${p}\n\n`).join(""));
  const d = new AgentxStreamDecoder();
  const deltas = [];
  const take = (u) => {
    if (u.type === "textDelta") deltas.push(u.delta);
  };
  for (let i = 0; i < bytes.length; i += 3) d.feed(bytes.subarray(i, i + 3)).forEach(take);
  d.finish().forEach(take);
  assert.equal(d.status, "complete");
  // The first packet opens the text part; the second continues it.
  assert.deepEqual(deltas, [" there!"]);
  assert.deepEqual(
    d.messages()[0].parts.map((p) => [p.type, p.text]),
    [["text", "Hello there!"]],
  );
  d.free();
});

test("the minified glue keeps the classes' names", () => {
  assert.equal(AgentxStreamDecoder.name, "AgentxStreamDecoder");
  assert.equal(aw.AgentxClient.name, "AgentxClient");
});

test("what the build left out throws a typed feature-not-built error", () => {
  for (const [name, use] of [
    ["AgentStreamDecoder", () => new aw.AgentStreamDecoder()],
    ["RequestBuilder", () => new aw.RequestBuilder()],
    ["AcpClient", () => new aw.AcpClient({ baseUrl: "http://127.0.0.1:9" })],
    ["MessageBody", () => new aw.MessageBody([])],
    ["ToolRegistry", () => new aw.ToolRegistry()],
  ]) {
    assert.throws(use, (e) => e instanceof ProtocolError && e.code === "feature-not-built" && e.details.name !== undefined, name);
  }
});
