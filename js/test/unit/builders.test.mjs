// Request and response builders from JavaScript.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire } from "../helpers.mjs";

const { RequestBuilder, ResponseBuilder, AgentStreamDecoder, encodeAgentEvent, validateAgentRequest, ProtocolError, Pattern } = await agentwire();

test("RequestBuilder chains, joins contents of one role, and checks ranges with typed errors", () => {
  const r = new RequestBuilder()
    .text("user", "What is this?")
    .image("user", "https://example.com/a.png")
    .data("user", { k: [1, 2] })
    .tool({ type: "function", function: { name: "get_time", description: "Now", parameters: { type: "object", properties: {} } } })
    .temperature(0.5)
    .topP(0.9)
    .n(2)
    .maxTokens(100)
    .stop(["\n\n"])
    .extra("user_id", "u1")
    .build();
  assert.equal(r.input.length, 1);
  assert.deepEqual(r.input[0].content.map((c) => c.type), ["text", "image", "data"]);
  assert.equal(r.stream, true);
  assert.equal(r.user_id, "u1");
  for (const [f, v] of [["temperature", 2.1], ["topP", -1], ["n", 6], ["n", 0], ["maxTokens", 0], ["frequencyPenalty", 3]]) {
    assert.throws(() => new RequestBuilder()[f](v), (e) => e instanceof ProtocolError && e.code === "parameter-out-of-range", f);
  }
  assert.throws(() => validateAgentRequest({ input: [], top_p: 2 }), (e) => e.code === "parameter-out-of-range");
  // A tool's `parameters` is required and an object (agentscope-runtime's FunctionTool): it was
  // filled in as `null`, which the server refuses.
  const weather = { name: "weather", parameters: { type: "object" } };
  assert.deepEqual(validateAgentRequest({ input: [], tools: [{ function: weather }] }).tools, [{ type: "function", function: { ...weather, description: "" } }]);
  for (const fn of [{ name: "weather" }, { name: "weather", parameters: null }, { name: "weather", parameters: "{}" }]) {
    const invalid = (e) => e instanceof ProtocolError && e.code === "invalid-argument" && /parameters/.test(e.message);
    assert.throws(() => validateAgentRequest({ input: [], tools: [{ type: "function", function: fn }] }), invalid, JSON.stringify(fn));
    assert.throws(() => new RequestBuilder().tool({ type: "function", function: fn }), invalid, JSON.stringify(fn));
  }
  // Integer parameters are not truncated: a fraction, NaN or an infinity is named as given.
  for (const [f, v, range] of [["maxTokens", 1.5, "an integer, 1 or more"], ["maxTokens", -1, "an integer, 1 or more"], ["n", 2.5, "an integer, 1 to 5"],
    ["seed", 1.5, "an integer"], ["seed", NaN, "an integer"], ["seed", Infinity, "an integer"], ["seed", 2 ** 63, "an integer"]]) {
    assert.throws(() => new RequestBuilder()[f](v), (e) => e instanceof ProtocolError && e.code === "parameter-out-of-range" &&
      e.details.range === range && (Number.isNaN(v) || e.message.includes(f === "maxTokens" ? "max_tokens" : f)), `${f}(${v})`);
  }
  assert.deepEqual([-(2 ** 63), -7, 0, 2 ** 53].map((s) => new RequestBuilder().seed(s).build().seed), [-(2 ** 63), -7, 0, 2 ** 53]);
});

test("RequestBuilder: a method changes the builder, so it works unchained; a throwing method leaves it as it was", () => {
  const b = new RequestBuilder();
  b.text("user", "Hello");
  const same = b.model("m1");
  b.temperature(0.5);
  // Each call returns another handle to the same builder.
  same.text("user", " there");
  assert.deepEqual(b.build(), same.build());
  const r = b.build();
  assert.equal(r.model, "m1");
  assert.equal(r.temperature, 0.5);
  assert.deepEqual(r.input.map((m) => m.content.map((c) => c.text)), [["Hello", " there"]]);

  // Out of range, or not JSON: a typed error, and nothing already built is lost.
  assert.throws(() => b.temperature(7), (e) => e instanceof ProtocolError && e.code === "parameter-out-of-range");
  assert.throws(() => b.n(1.5), (e) => e.code === "parameter-out-of-range");
  assert.throws(() => b.stop(5), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
  assert.throws(() => b.data("user", { n: 1n }), (e) => e.code === "invalid-argument");
  assert.deepEqual(b.build(), r);

  // build() leaves the builder usable: more changes give another request.
  b.text("assistant", "Hi").maxTokens(10);
  const r2 = b.build();
  assert.equal(r2.input.length, 2);
  assert.equal(r2.max_tokens, 10);
  assert.equal(r.input.length, 1, "the first request is a copy");
  same.free();
  assert.equal(b.build().input.length, 2, "freeing one handle leaves the others");
});

test("a string parameter given another type throws invalid-argument (not a TypeError, not an empty string)", () => {
  const b = new RequestBuilder().text("user", "kept");
  for (const [value, type] of [[42, "number"], [{ text: "hi" }, "object"], [undefined, "undefined"], [null, "object"], [Symbol("s"), "symbol"]]) {
    assert.throws(() => b.text("user", value), (e) => e instanceof ProtocolError && e.code === "invalid-argument" &&
      e.details.what === "argument" && e.details.reason === `expected a string, got ${type}`, String(type));
  }
  assert.throws(() => new Pattern(5), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
  // A wasm object's free() (and [Symbol.dispose]) does nothing the second time.
  const p = new Pattern("/a/*");
  p.free();
  p.free();
  p[Symbol.dispose]();
  // Optional string parameters still take null and undefined.
  b.file("user", "https://example.com/a.pdf", undefined);
  assert.deepEqual(b.build().input[0].content.map((c) => c.type), ["text", "file"]);
  assert.equal(b.build().input[0].content[0].text, "kept");
});

test("a value that is not JSON (a function, a symbol, a BigInt, a cycle) given for a JSON argument throws invalid-argument", () => {
  const cycle = {};
  cycle.self = cycle;
  const b = new RequestBuilder().text("user", "kept");
  for (const value of [() => 1, Symbol("s"), 10n, cycle]) {
    const typed = (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.reason === "it cannot be converted to JSON";
    assert.throws(() => b.data("user", value), typed, String(typeof value));
    assert.throws(() => new AgentStreamDecoder(value), typed, String(typeof value));
    assert.throws(() => validateAgentRequest(value), typed, String(typeof value));
    if (typeof value !== "bigint") assert.throws(() => encodeAgentEvent(value), typed, String(typeof value));
  }
  assert.deepEqual(b.build().input[0].content.map((c) => c.text), ["kept"], "nothing was added");
});

test("ResponseBuilder emits the protocol's sequence and the decoder rebuilds it", () => {
  const rb = new ResponseBuilder("sess");
  for (const tokens of [undefined, null, "Hello", [1, "a"]]) {
    assert.throws(() => rb.generateStreamingResponse(tokens),
      (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === "textTokens", JSON.stringify(tokens));
  }
  const events = rb.generateStreamingResponse(["Hel", "lo"]);
  assert.deepEqual(events.map((e) => `${e.object}:${e.status}`), [
    // A message starts `in_progress`, as agentscope-runtime's MessageBuilder starts one.
    "response:created", "response:in_progress", "message:in_progress",
    "content:in_progress", "content:in_progress", "content:completed", "message:completed", "response:completed",
  ]);
  const sse = events.map(encodeAgentEvent).join("");
  const d = new AgentStreamDecoder();
  d.feed(new TextEncoder().encode(sse));
  const r = d.response();
  assert.equal(r.status, "completed");
  assert.equal(r.output[0].content[0].text, "Hello");

  const rb2 = new ResponseBuilder();
  const mb = rb2.createMessageBuilder("assistant", "function_call");
  const cb = mb.createContentBuilder("data");
  cb.addDataDelta({ call_id: "c1", name: "f", arguments: "{\"a\":" });
  cb.addDataDelta({ arguments: "1}" });
  const done = cb.complete();
  assert.equal(done.data.arguments, "{\"a\":1}");
  assert.throws(() => cb.addTextDelta("x"), (e) => e.code === "wrong-content-kind");
});

test("the builders write what agentscope-runtime's builders and models do", () => {
  // An empty text delta still makes the text "" (the protocol joins a non-empty list of tokens).
  const text = new ResponseBuilder().createMessageBuilder("assistant").createContentBuilder("text");
  text.addTextDelta("");
  const completed = text.complete();
  assert.equal(completed.text, "");
  assert.equal(new ResponseBuilder().createMessageBuilder("assistant").createContentBuilder("text").complete().text, undefined);
  // `DataContent.data` is an object (a `Dict`): anything else is refused where it is written.
  const data = new ResponseBuilder().createMessageBuilder("assistant").createContentBuilder("data");
  for (const bad of [[1, 2], 5, "x", null]) {
    assert.throws(() => data.setData(bad), (e) => e.code === "invalid-argument" && e.details.what === "data" && /not a JSON object/.test(e.details.reason), JSON.stringify(bad));
    assert.throws(() => data.addDataDelta(bad), (e) => e.code === "invalid-argument" && e.details.what === "delta", JSON.stringify(bad));
    assert.throws(() => new RequestBuilder().data("user", bad), (e) => e.code === "invalid-argument" && e.details.what === "data", JSON.stringify(bad));
  }
  assert.deepEqual(data.addDataDelta({ a: 1 }).data, { a: 1 });
  // The request's `id` is the id the runner gives its response; `user_id` is the protocol's too.
  const request = new RequestBuilder().text("user", "hi").responseId("resp-1").userId("u-1").build();
  assert.equal(request.id, "resp-1");
  assert.equal(request.user_id, "u-1");
  assert.equal("response_id" in request, false);
  // A builder made with a response id uses it (the protocol's `ResponseBuilder(session_id, response_id)`).
  assert.equal(new ResponseBuilder("s", "resp-2").created().id, "resp-2");
  assert.match(new ResponseBuilder("s").created().id, /^response_/);
  // The protocol's set_refusal and canceled, which the Rust builders had and JavaScript did not.
  const rb = new ResponseBuilder();
  const refusal = rb.createMessageBuilder("assistant").createContentBuilder("refusal");
  assert.equal(refusal.setRefusal("I cannot help with that.").refusal, "I cannot help with that.");
  assert.equal(refusal.complete().refusal, "I cannot help with that.");
  assert.equal(rb.canceled().status, "canceled");
  // `usage` (the protocol's AgentResponse.usage and Message.usage), which could not be set.
  const ub = new ResponseBuilder();
  const um = ub.createMessageBuilder("assistant");
  assert.equal(um.message().usage, undefined);
  um.setUsage({ output_tokens: 7 });
  assert.deepEqual(um.complete().usage, { output_tokens: 7 });
  ub.setUsage({ input_tokens: 12, output_tokens: 30 });
  const usageDone = ub.completed();
  assert.deepEqual(usageDone.usage, { input_tokens: 12, output_tokens: 30 });
  assert.deepEqual(usageDone.output[0].usage, { output_tokens: 7 });
  const ud = new AgentStreamDecoder();
  ud.feed(new TextEncoder().encode([ub.created(), usageDone].map(encodeAgentEvent).join("")));
  assert.deepEqual(ud.response().usage, { input_tokens: 12, output_tokens: 30 });
  for (const bad of [[1], 5, "x", null, undefined]) {
    assert.throws(() => ub.setUsage(bad), (e) => e.code === "invalid-argument" && e.details.what === "usage", JSON.stringify(bad));
    assert.throws(() => um.setUsage(bad), (e) => e.code === "invalid-argument" && e.details.what === "usage", JSON.stringify(bad));
  }
  assert.throws(() => new ResponseBuilder().createMessageBuilder("assistant").createContentBuilder("text").setRefusal("x"), (e) => e.code === "wrong-content-kind");
  // Roles and content types are the protocol's where they are written (agentscope-runtime
  // refuses others: "Input should be 'assistant', 'system', 'user' or 'tool'").
  for (const write of [(r) => new RequestBuilder().text(r, "x"), (r) => new RequestBuilder().image(r, "https://e.com/a.png"), (r) => new RequestBuilder().data(r, {}), (r) => new RequestBuilder().file(r, "https://e.com/a.pdf"), (r) => new ResponseBuilder().createMessageBuilder(r), (r) => new ResponseBuilder().generateStreamingResponse(["x"], r)]) {
    assert.throws(() => write("developer"), (e) => e.code === "invalid-argument" && e.details.what === "role" && /`developer` is not an Agent API role/.test(e.details.reason));
    for (const role of ["assistant", "user", "system", "tool"]) write(role);
  }
  assert.throws(() => new ResponseBuilder().createMessageBuilder("assistant").createContentBuilder("bogus"), (e) => e.code === "invalid-argument" && e.details.what === "contentType");
  // `stream` takes a boolean: wasm-bindgen's conversion read "true" as false.
  assert.equal(new RequestBuilder().text("user", "x").stream(false).build().stream, false);
  for (const bad of ["true", 1, null]) {
    assert.throws(() => new RequestBuilder().stream(bad), (e) => e.code === "invalid-argument" && e.details.what === "stream", String(bad));
  }
});
