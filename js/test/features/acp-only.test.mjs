// A feature build with only ACP: the package's entry point `agentwire/acp` (pkg/acp, which
// scripts/build.sh builds with AGENTWIRE_FEATURES=acp; the feature brings `runs` and `bodies`).
// What is in it works (through the minified glue): the ACP client on acp-sdk 1.0.3's recorded
// stream and on the reference server's `approval` agent, run sessions and message bodies. What was
// left out throws `feature-not-built`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, pkgDir, server, shared } from "../helpers.mjs";

const aw = await agentwire();
const { AcpClient, CommunicationSchema, MessageBody, ProtocolError } = aw;

test("the package under test is the acp feature build", () => {
  const info = JSON.parse(readFileSync(join(pkgDir, "BUILD_INFO.json"), "utf8"));
  assert.equal(info.features, "acp");
});

test("a recorded acp-sdk stream, fed in 7-byte chunks, assembles to the server's final run", async () => {
  const bytes = readFileSync(join(shared, "fixtures/acp-sdk/run-stream.sse"));
  const events = bytes.toString("utf8").split("\n\n").filter((b) => b.startsWith("data: ")).map((b) => JSON.parse(b.slice(6)));
  const fetch = async () =>
    new Response(
      new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 7) c.enqueue(new Uint8Array(bytes.subarray(i, i + 7)));
          c.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  const client = new AcpClient({ baseUrl: "http://acp.test", fetch });
  const handle = client.run("echo", "hello world", { joinText: false, strict: true });
  assert.deepEqual(await handle.run, events.at(-1).run);
  assert.equal(handle.session.state, "completed");
  // The output read as bodies (the `bodies` feature the build brings with `runs`).
  assert.deepEqual(
    handle.list("/sources/*").map((e) => e.part.content),
    ["https://example.com/doc"],
  );
});

test("the reference server's approval agent: await, resume, completed", async () => {
  const client = new AcpClient({ baseUrl: `${server()}/acp` });
  await client.agents();
  let text = "";
  const handle = client.run("approval", "Deploy the new release", {
    strict: true,
    onPart: (p) => (text += p.content ?? ""),
    onTextDelta: (d) => (text += d),
  });
  const stopped = await handle.stopped();
  assert.equal(stopped.status, "awaiting");
  assert.deepEqual(handle.session.allowedMoves("client").map((m) => m.type).sort(), ["cancel", "resume"]);
  handle.resume("yes");
  const run = await handle.run;
  assert.equal(run.status, "completed");
  assert.match(text, /deploying version 2\.4\.1 now\. Done\./);
});

test("run sessions and message bodies are in the build, and the glue keeps the classes' names", () => {
  const schema = CommunicationSchema.builtin("acpRun");
  assert.match(schema.toMermaid(), /stateDiagram/);
  const body = new MessageBody([{ type: "text", name: "/sources/1", content: "a" }]);
  assert.equal(body.list("/sources/*").length, 1);
  assert.equal(CommunicationSchema.name, "CommunicationSchema");
  assert.equal(MessageBody.name, "MessageBody");
  body.free();
  schema.free();
});

test("what the build left out throws a typed feature-not-built error", () => {
  for (const [name, use] of [
    ["AgentStreamDecoder", () => new aw.AgentStreamDecoder()],
    ["RequestBuilder", () => new aw.RequestBuilder()],
    ["AgentxStreamDecoder", () => new aw.AgentxStreamDecoder()],
    ["StructuredMessage", () => aw.StructuredMessage.fromJSON("{}")],
    ["ToolRegistry", () => new aw.ToolRegistry()],
  ]) {
    assert.throws(use, (e) => e instanceof ProtocolError && e.code === "feature-not-built" && e.details.name !== undefined, name);
  }
});
