// Hostile JSON: keys that name prototypes stay data; Object.prototype stays clean.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";

const { AgentStreamDecoder } = await agentwire();

test("__proto__, constructor and prototype keys are kept as data and change no prototype", () => {
  const sse = 'data: {"object":"content","type":"data","index":0,"msg_id":"m","data":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}}\n\n' +
    'data: {"object":"message","id":"m","type":"message","status":"completed","metadata":{"__proto__":{"polluted":true}}}\n\n';
  const d = new AgentStreamDecoder();
  const updates = d.feed(new TextEncoder().encode(sse));
  const content = updates.find((u) => u.type === "content").content;
  assert.ok(Object.hasOwn(content.data, "__proto__"));
  assert.deepEqual(Object.keys(content.data).sort(), ["__proto__", "constructor", "prototype"]);
  assert.equal(Object.getPrototypeOf(content.data), Object.prototype);
  assert.equal(content.data.polluted, undefined);
  const message = d.response().output[0];
  assert.ok(Object.hasOwn(message.metadata, "__proto__"));
  assert.equal({}.polluted, undefined);
  assert.equal(Object.prototype.polluted, undefined);
});
