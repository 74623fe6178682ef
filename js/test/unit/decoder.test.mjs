// The sans-IO decoders over real server bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentwire, shared } from "../helpers.mjs";

const { AgentStreamDecoder, SseDecoder, ProtocolError } = await agentwire();
const fixture = (p) => readFileSync(join(shared, "fixtures", p));

test("AgentStreamDecoder assembles every agentscope-runtime fixture identically at any chunking", () => {
  for (const name of ["process-raw.sse", "process-text.sse", "process-agentscope.sse"]) {
    const bytes = fixture(`agentscope-runtime/${name}`);
    const whole = new AgentStreamDecoder();
    whole.feed(bytes);
    whole.finish();
    const expected = whole.response();
    for (const size of [1, 7, 64, 1000]) {
      const d = new AgentStreamDecoder();
      for (let i = 0; i < bytes.length; i += size) d.feed(bytes.subarray(i, i + size));
      d.finish();
      assert.deepEqual(d.response(), expected, `${name} in ${size}-byte chunks`);
      d.free();
    }
    assert.equal(expected.status, "completed", name);
  }
});

test("SseDecoder reports an over-size event as a typed error item and goes on", () => {
  const d = new SseDecoder({ maxEventSize: 16 });
  const items = d.feed(new TextEncoder().encode("data: " + "x".repeat(40) + "\n\ndata: ok\n\n"));
  assert.deepEqual(items.map((i) => i.type), ["error", "event"]);
  assert.equal(items[0].code, "event-too-large");
  assert.equal(items[0].details.limit, 16);
  assert.equal(items[1].data, "ok");
});

test("wasm objects can be freed explicitly and with `using`", () => {
  const d = new AgentStreamDecoder();
  d.free();
  assert.throws(() => d.feed(new Uint8Array([1])));
  assert.equal(typeof AgentStreamDecoder.prototype[Symbol.dispose], "function");
  assert.ok(new ProtocolError("x", "y") instanceof Error);
});
