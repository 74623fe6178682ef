// Message bodies from JavaScript: MessageBody (every constructor and query), BodySchema (JSON,
// built-ins, watch), validatePayload (strings, bytes, Blob, File, limits, over-size rejection before
// reading), prototype safety, and schema checks while a stream arrives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { agentwire, server } from "../helpers.mjs";

const {
  MessageBody,
  BodySchema,
  Pattern,
  ProtocolError,
  validatePayload,
  StructuredMessage,
  AgentClient,
  RequestBuilder,
} = await agentwire();

const utf8 = (s) => new TextEncoder().encode(s);
const b64 = (s) => Buffer.from(s).toString("base64");

/** Asserts `fn` throws a ProtocolError with `code`, and returns it. */
function throwsCode(fn, code) {
  let error;
  assert.throws(fn, (e) => {
    error = e;
    return e instanceof ProtocolError && e instanceof Error && e.code === code;
  });
  return error;
}

async function rejectsCode(promise, code) {
  let error;
  await assert.rejects(promise, (e) => {
    error = e;
    return e instanceof ProtocolError && e.code === code;
  });
  return error;
}

// A researcher's answer: a write-up, two sources, a JSON attachment, a base64 file and a URL part.
const parts = [
  { type: "text", contentType: "text/markdown", content: "# Findings" },
  { type: "text", name: "/sources/1", contentType: "text/x-uri", content: "https://example.org/a" },
  { type: "text", name: "/sources/2", contentType: "text/x-uri", content: "https://example.org/b" },
  { type: "data", name: "/meta.json", contentType: "application/json", content: '{"v": 2, "t": 1758972921.8811321}' },
  { type: "file", name: "/files/hello.txt", contentType: "text/plain", content: b64("héllo"), contentEncoding: "base64" },
  { type: "image", name: "/logo", contentType: "image/png", contentUrl: "https://example.org/logo.png" },
  { type: "text", contentType: "text/plain", content: "Thanks." },
];

test("new MessageBody(parts): parts, length, names, main, get, list by string and by Pattern", () => {
  const body = new MessageBody(parts);
  assert.equal(body.length, 7);
  assert.equal(body.parts.length, 7);
  assert.equal(body.parts[0].status, "complete"); // defaults filled in
  assert.equal(body.parts[0].contentEncoding, "plain");
  assert.deepEqual(body.names(), ["/sources/1", "/sources/2", "/meta.json", "/files/hello.txt", "/logo"]);
  assert.deepEqual(body.main().map((p) => p.content), ["# Findings", "Thanks."]);
  assert.equal(body.get("/sources/2").content, "https://example.org/b");
  assert.equal(body.get("/sources/3"), null);
  assert.deepEqual(body.list("/sources/*").map((p) => p.name), ["/sources/1", "/sources/2"]);
  assert.deepEqual(body.list("/**").length, 5);
  assert.deepEqual(body.list("/{meta.json,logo}").map((p) => p.name), ["/meta.json", "/logo"]);
  assert.deepEqual(body.list("/files/*.tx?").map((p) => p.name), ["/files/hello.txt"]);
  // A compiled Pattern is used as is, and stays usable (the body does not consume it).
  const sources = new Pattern("/sources/*");
  assert.equal(body.list(sources).length, 2);
  assert.equal(body.list(sources).length, 2);
  assert.ok(sources.isMatch("/sources/9"));
  // The parts getter is a copy.
  body.parts[0].content = "changed";
  assert.equal(body.parts[0].content, "# Findings");
});

test("list and the constructor reject bad input with typed errors", () => {
  const body = new MessageBody(parts);
  const e = throwsCode(() => body.list("/sources/{"), "unclosed-brace");
  assert.equal(e.details.pattern, "/sources/{");
  assert.equal(e.details.position, 9);
  throwsCode(() => body.list("/a**"), "invalid-recursive-wildcard");
  throwsCode(() => body.list(42), "invalid-argument");
  throwsCode(() => body.list({ source: "/**" }), "invalid-argument");
  throwsCode(() => new MessageBody({ parts }), "invalid-argument");
  throwsCode(() => new MessageBody([{ content: 5 }]), "invalid-argument");
  throwsCode(() => new MessageBody(), "invalid-argument");
});

test("read helpers: text (plain and base64), JSON, bytes, URL, and their errors", () => {
  const body = new MessageBody([
    ...parts,
    { type: "file", name: "/bad64", contentType: "application/octet-stream", content: "aG*k", contentEncoding: "base64" },
    { type: "file", name: "/binary", contentType: "application/octet-stream", content: "/w==", contentEncoding: "base64" },
    { type: "data", name: "/broken.json", contentType: "application/json", content: '{"a":\n 1,}' },
    { type: "text", name: "/gzip", contentType: "text/plain", content: "x", contentEncoding: "gzip" },
  ]);
  assert.equal(body.readText("/sources/1"), "https://example.org/a");
  assert.equal(body.readText("/files/hello.txt"), "héllo");
  const bytes = body.readBytes("/files/hello.txt");
  assert.ok(bytes instanceof Uint8Array);
  assert.deepEqual([...bytes], [...utf8("héllo")]);
  assert.deepEqual([...body.readBytes("/sources/1")], [...utf8("https://example.org/a")]);
  assert.deepEqual([...body.readBytes("/binary")], [0xff]);
  // JSON is parsed by JavaScript: numbers exactly as JSON.parse reads them.
  assert.deepEqual(body.readJson("/meta.json"), { v: 2, t: 1758972921.8811321 });
  assert.equal(body.readUrl("/logo"), "https://example.org/logo.png");

  assert.equal(throwsCode(() => body.readText("/nope"), "part-not-found").details.name, "/nope");
  throwsCode(() => body.readJson("/nope"), "part-not-found");
  throwsCode(() => body.readBytes("/nope"), "part-not-found");
  throwsCode(() => body.readUrl("/nope"), "part-not-found");
  assert.equal(throwsCode(() => body.readText("/logo"), "no-inline-content").details.hasUrl, true);
  throwsCode(() => body.readUrl("/sources/1"), "no-content-url");
  const bad = throwsCode(() => body.readBytes("/bad64"), "invalid-base64");
  assert.equal(bad.details.position, 2);
  assert.equal(throwsCode(() => body.readText("/binary"), "not-text").details.position, 0);
  const json = throwsCode(() => body.readJson("/broken.json"), "invalid-json");
  assert.equal(json.details.line, 2);
  assert.equal(json.details.name, "/broken.json");
  // What JSON.parse reads but agentwire's readers refuse (the Rust `read_json`, the streams,
  // `validatePayload`): a number beyond the largest double (JSON.parse: Infinity), and nesting
  // deeper than 127.
  const refused = new MessageBody([
    { name: "/huge.json", type: "data", contentType: "application/json", content: '{"x": [1,\n 1e400]}' },
    { name: "/deep.json", type: "data", contentType: "application/json", content: "[".repeat(128) + "]".repeat(128) },
    { name: "/ok.json", type: "data", contentType: "application/json", content: "[".repeat(127) + "1e308" + "]".repeat(127) },
  ]);
  const huge = throwsCode(() => refused.readJson("/huge.json"), "invalid-json");
  assert.deepEqual([huge.details.line, huge.details.column], [2, 6]);
  assert.match(huge.details.reason, /^number out of range/);
  assert.match(throwsCode(() => refused.readJson("/deep.json"), "invalid-json").details.reason, /^recursion limit exceeded/);
  assert.equal(refused.readJson("/ok.json").flat(Infinity)[0], 1e308);
  refused.free();
  throwsCode(() => body.readText("/gzip"), "unknown-content-encoding");
});

test("check() reports the part model and name rules; validate() the schema", () => {
  const body = new MessageBody([
    { type: "text", contentType: "text/plain", content: "hi" },
    { type: "text", name: "/notes/../x", contentType: "text/plain", content: "a" },
    { type: "text", name: "/n", contentType: "text/plain", content: "a" },
    { type: "text", name: "/n", contentType: "plain text", content: "b", contentUrl: "https://x" },
    { type: "text", name: "/empty", contentType: "text/plain" },
  ]);
  const v = body.check();
  assert.deepEqual(
    v.map((x) => [x.code, x.partIndex]),
    [
      ["invalid-part-name", 1],
      ["duplicate-part-name", 3],
      ["content-and-url", 3],
      ["invalid-content-type", 3],
      ["no-content", 4],
    ],
  );
  assert.match(v[0].message, /"\." or "\.\." segment/);
  assert.equal(v[0].name, "/notes/../x");
  assert.deepEqual(new MessageBody(parts).check(), []);

  const researcher = new MessageBody(parts).validate(BodySchema.builtin("researcher"));
  assert.deepEqual(
    researcher.violations.map((x) => [x.code, x.name]),
    [
      ["unexpected-part", "/meta.json"],
      ["unexpected-part", "/files/hello.txt"],
      ["unexpected-part", "/logo"],
    ],
  );
  // A schema as JSON works too, and a bad one is a typed error.
  const r = new MessageBody(parts.slice(0, 3)).validate({ parts: [{ contentType: "text/markdown", required: true }, { name: "/sources/*", contentType: "text/html" }] });
  assert.deepEqual(r.violations.map((x) => x.message), [
    "/sources/1: content type text/x-uri does not match text/html",
    "/sources/2: content type text/x-uri does not match text/html",
  ]);
  assert.equal(r.violations[0].schemaPart, 1);
  throwsCode(() => new MessageBody(parts).validate({ parts: 5 }), "invalid-schema");
});

test("MessageBody.fromJSON reads text or objects; invalid-body errors have line, column and syntax", () => {
  const text = JSON.stringify({ parts });
  const a = MessageBody.fromJSON(text);
  const b = MessageBody.fromJSON({ parts });
  assert.deepEqual(a.toJSON(), b.toJSON());
  assert.deepEqual(JSON.parse(JSON.stringify(a)), a.toJSON()); // toJSON is what JSON.stringify writes
  assert.equal(MessageBody.fromJSON(JSON.stringify(a)).length, 7);
  const syntax = throwsCode(() => MessageBody.fromJSON('{"parts": [\n  {"content": "x",}\n]}'), "invalid-body");
  assert.equal(syntax.details.syntax, true);
  assert.equal(syntax.details.line, 2);
  const shape = throwsCode(() => MessageBody.fromJSON('{"part": []}'), "invalid-body");
  assert.equal(shape.details.syntax, false);
  assert.equal(shape.details.reason, "missing field `parts`");
  throwsCode(() => MessageBody.fromJSON({ parts: [{ content: 5 }] }), "invalid-body");
  throwsCode(() => MessageBody.fromJSON({ parts: [], big: 10n }), "invalid-argument");
});

test("every dialect's message as a body: Agent API, ACP, AgentX, Atlas", () => {
  // Agent API: contents become parts; the name/content_type extension makes named parts.
  const agent = MessageBody.fromAgentMessage({
    id: "msg_1",
    object: "message",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [
      { type: "text", text: "It is 42." },
      { type: "text", name: "/sources/1", content_type: "text/x-uri", text: "https://example.org/paper" },
      { type: "data", data: { rows: [1, 2] } },
      { type: "image", image_url: "https://example.org/cat.png" },
    ],
  });
  assert.deepEqual(agent.parts.map((p) => [p.type, p.name ?? null, p.contentType]), [
    ["text", null, "text/plain"],
    ["text", "/sources/1", "text/x-uri"],
    ["data", null, "application/json"],
    ["image", null, "image/png"],
  ]);
  assert.deepEqual(JSON.parse(agent.parts[2].content), { rows: [1, 2] });
  assert.equal(agent.readText("/sources/1"), "https://example.org/paper");

  // ACP: parts one to one.
  const acp = MessageBody.fromAcpMessage({
    role: "agent/researcher",
    parts: [
      { content_type: "text/plain", content: "Two sources agree." },
      { name: "/sources/1", content_type: "text/x-uri", content: "https://example.org/a" },
    ],
    completed_at: "2025-01-01T00:00:00Z",
  });
  assert.deepEqual(acp.names(), ["/sources/1"]);
  assert.equal(acp.parts[0].status, "complete");

  // AgentX: tool calls and results are named parts.
  const agentx = MessageBody.fromAgentxMessage({
    id: "msg_0123456789abcdef0123456789abcdef",
    role: "assistant",
    parts: [
      { type: "text", text: "Let me look." },
      { type: "tool_call", tool_call_id: "tc_1", tool_name: "search", args: { q: "x" } },
      { type: "tool_result", tool_call_id: "tc_1", result: ["a"] },
    ],
  });
  assert.deepEqual(agentx.names(), ["/tool_calls/tc_1", "/tool_results/tc_1"]);
  assert.deepEqual(agentx.readJson("/tool_calls/tc_1"), { q: "x" });
  assert.equal(agentx.get("/tool_calls/tc_1").metadata.toolName, "search");

  // Atlas: from the class or its wire JSON.
  const m = new StructuredMessage("Sunny.", { taskId: "t-1", timestamp: 1712150400.123456 });
  const id = m.addToolCall("get_weather", { city: "Paris" });
  for (const body of [MessageBody.fromAtlasMessage(m), MessageBody.fromAtlasMessage(m.toJSON())]) {
    assert.deepEqual(body.names(), [`/tool_calls/${id}`, "/metadata"]);
    assert.equal(body.main()[0].content, "Sunny.");
    assert.equal(body.get("/metadata").metadata.timestamp, 1712150400.123456);
  }

  throwsCode(() => MessageBody.fromAgentMessage({ content: 5 }), "invalid-argument");
  throwsCode(() => MessageBody.fromAcpMessage({ parts: "x" }), "invalid-argument");
  throwsCode(() => MessageBody.fromAgentxMessage(7), "invalid-argument");
  throwsCode(() => MessageBody.fromAtlasMessage({ metadata: {} }), "missing-field");
});

test("BodySchema: proposal JSON or bare array, typed errors keeping the pointer and pattern, toJSON", () => {
  const s = new BodySchema({ parts: [{ name: "/sources/*", contentType: "text/x-uri" }, { contentType: "text/plain", required: true }] });
  assert.deepEqual(s.toJSON(), {
    parts: [
      { name: "/sources/*", contentType: "text/x-uri", required: false },
      { contentType: "text/plain", required: true },
    ],
  });
  assert.deepEqual(new BodySchema([{ content_type: "image/*" }]).toJSON(), { parts: [{ contentType: "image/*", required: false }] });
  assert.deepEqual(new BodySchema(s.toJSON()).toJSON(), s.toJSON());

  const e = throwsCode(() => new BodySchema({ parts: [{}, { name: "/a{" }] }), "invalid-schema");
  assert.equal(e.details.pointer, "/parts/1/name");
  assert.equal(e.details.value, "/a{");
  assert.equal(e.details.pattern.code, "unclosed-brace");
  assert.equal(throwsCode(() => new BodySchema([{ required: "yes" }]), "invalid-schema").details.pointer, "/0/required");
  assert.equal(throwsCode(() => new BodySchema({ parts: 5 }), "invalid-schema").details.pointer, "/parts");
  assert.equal(throwsCode(() => new BodySchema("text/plain"), "invalid-schema").details.pointer, "");
});

test("BodySchema built-ins: the proposal's four agents, by name", () => {
  assert.deepEqual(BodySchema.builtinNames(), ["chat", "multi-modal-chat", "software-writing", "researcher"]);
  const text = (ct, c = "x") => ({ type: "text", contentType: ct, content: c });
  const file = (name, ct) => ({ type: "file", name, contentType: ct, content: "x" });

  const chat = BodySchema.builtin("chat");
  assert.deepEqual(chat.validate([text("text/plain")]).violations, []);
  assert.deepEqual(chat.validate([]).violations.map((v) => v.code), ["missing-required-part"]);

  const mm = BodySchema.builtin("multi-modal-chat");
  assert.deepEqual(mm.validate([text("text/plain"), { type: "image", contentType: "image/png", contentUrl: "https://x/1.png" }]).violations, []);
  assert.deepEqual(mm.validate([{ type: "audio", contentType: "audio/wav", contentUrl: "https://x/a.wav" }]).violations.map((v) => v.code), ["content-type-mismatch", "missing-required-part"]);

  const sw = BodySchema.builtin("software-writing");
  assert.deepEqual(sw.validate({ parts: [text("text/markdown"), file("/src/main.rs", "text/x-rust"), file("/web/app.js", "application/javascript")] }).violations, []);
  assert.deepEqual(sw.validate([file("/app.bin", "application/octet-stream")]).violations.map((v) => v.code), ["content-type-mismatch", "missing-required-part"]);

  const researcher = BodySchema.builtin("researcher");
  const ok = new MessageBody([text("text/markdown", "# Findings"), { ...text("text/x-uri", "https://a"), name: "/sources/1" }]);
  assert.deepEqual(researcher.validate(ok).violations, []);
  const bad = researcher.validate([{ ...text("text/html"), name: "/sources/2" }]);
  assert.deepEqual(bad.violations.map((v) => v.message), [
    "/sources/2: content type text/html does not match text/x-uri",
    "missing required unnamed part (text/{markdown,plain})",
  ]);
  throwsCode(() => BodySchema.builtin("poet"), "invalid-argument");
  throwsCode(() => researcher.validate("parts"), "invalid-argument");
});

test("an object of another class is refused, not read through its toJSON; a freed one names itself", async () => {
  const schema = BodySchema.builtin("chat");
  const body = new MessageBody([{ name: "/a", content: "x" }]);
  const refused = (f, what, reason) =>
    assert.throws(f, (e) => e instanceof ProtocolError && e.code === "invalid-argument" && e.details.what === what && e.details.reason === reason, reason);
  refused(() => schema.validate(schema), "body", "expected a MessageBody, an array of parts or {parts}, got a BodySchema");
  refused(() => body.validate(body), "schema", "expected a BodySchema or its JSON, got a MessageBody");
  refused(() => body.list(schema), "pattern", "expected a string or a Pattern, got a BodySchema");
  refused(() => StructuredMessage.fromBody(new Pattern("/a")), "body", "expected a MessageBody, an array of parts or {parts}, got a Pattern");
  const report = await validatePayload('{"parts": []}', body).catch((e) => e);
  assert.equal(report.code, "invalid-argument");
  assert.equal(report.details.reason, "expected a BodySchema or its JSON, got a MessageBody");
  const freed = new MessageBody([]);
  freed.free();
  refused(() => schema.validate(freed), "body", "expected a MessageBody, an array of parts or {parts}, got a MessageBody that was freed");
  // One whose own method is running (here its metadata setter, reading a getter) is in use.
  const message = new StructuredMessage("x");
  let inUse;
  message.metadata = {
    get type() {
      try { StructuredMessage.createResponse("r", message); } catch (e) { inUse = e; }
      return "query";
    },
  };
  assert.equal(inUse?.code, "object-in-use", String(inUse));
  // The objects given are untouched.
  assert.equal(body.length, 1);
  assert.deepEqual(schema.validate(body).violations.map((v) => v.code), ["unexpected-part", "missing-required-part"]);
});

test("SchemaWatch: a part that can match nothing is reported as it starts; required at finish", () => {
  const watch = BodySchema.builtin("researcher").watch();
  assert.equal(watch.partStarted(0, null, "text/markdown"), null);
  assert.equal(watch.partStarted(1, "/sources/1", "text/x-uri"), null);
  const v = watch.partStarted(2, "/notes", "text/plain");
  assert.equal(v.code, "unexpected-part");
  assert.equal(v.partIndex, 2);
  const m = watch.partStarted(3, "/sources/2", "text/html; charset=utf-8");
  assert.equal(m.code, "content-type-mismatch");
  assert.equal(m.schemaPart, 1);
  assert.deepEqual(watch.finish(), []);
  watch.reset();
  assert.deepEqual(watch.finish().map((x) => [x.code, x.schemaPart, x.name]), [["missing-required-part", 0, null]]);
  assert.equal(watch.partStarted(0, undefined, "text/plain"), null); // undefined: unnamed
  // An index that is not an integer from 0 to 2^32 - 1 (-1 read as 4294967295).
  for (const bad of [-1, 1.5, NaN, 2 ** 32]) {
    assert.throws(() => watch.partStarted(bad, null, "text/plain"), (e) => e.code === "invalid-argument" && e.details.what === "index", String(bad));
  }
  assert.deepEqual(watch.finish(), []);
  watch.free();
});

// ---------------------------------------------------------------------------------------------
// validatePayload

const payload = JSON.stringify({ parts: parts.slice(0, 3) });

test("validatePayload: strings, Uint8Array, ArrayBuffer, Blob and File, with and without a schema", async () => {
  const researcher = BodySchema.builtin("researcher");
  for (const input of [payload, utf8(payload), utf8(payload).buffer, new Blob([payload]), new File([payload], "m.json", { type: "application/json" })]) {
    assert.deepEqual(await validatePayload(input), { ok: true, errors: [] });
    assert.deepEqual(await validatePayload(input, researcher), { ok: true, errors: [] });
  }
  // A schema as JSON, as null, and its violations located at the part.
  const r = await validatePayload(payload, { parts: [{ contentType: "text/plain", required: true }] });
  assert.equal(r.ok, false);
  assert.deepEqual(r.errors.map((e) => [e.code, e.partIndex, e.name]), [
    ["content-type-mismatch", 0, null],
    ["unexpected-part", 1, "/sources/1"],
    ["unexpected-part", 2, "/sources/2"],
    ["missing-required-part", null, null],
  ]);
  assert.equal(r.errors[1].line, 1); // the payload is one line
  assert.ok(r.errors[1].column > r.errors[0].column);
  assert.equal((await validatePayload(payload, null)).ok, true);
  // A detached ArrayBuffer (transferred to a worker) has no bytes to read: a typed rejection.
  const detached = utf8(payload).buffer;
  structuredClone(detached, { transfer: [detached] });
  await assert.rejects(validatePayload(detached), (e) => e.code === "invalid-argument" && e.details.what === "input" && /detached/.test(e.details.reason));
  // A Blob whose size getter throws, or whose arrayBuffer() gives something else than bytes:
  // payload-unreadable (the size's exception was thrown synchronously; a number was read as that
  // many zero bytes; -1 or a detached buffer threw from inside the module, uncaught).
  const unreadable = (e) => e.code === "payload-unreadable";
  await assert.rejects(validatePayload(new (class extends Blob { get size() { throw new Error("size"); } })([payload])), unreadable);
  for (const gave of [5, -1, detached]) {
    const blob = new Blob([payload]);
    blob.arrayBuffer = async () => gave;
    await assert.rejects(validatePayload(blob), (e) => unreadable(e) && /arrayBuffer\(\) gave something else than bytes/.test(e.message), String(gave));
  }
});

test("validatePayload locates syntax errors by line and column, and part errors by index and name", async () => {
  const syntax = await validatePayload('{"parts": [\n  {"content": "é", }\n]}');
  assert.equal(syntax.ok, false);
  // At the `}` after the trailing comma: column 20 counts characters (the `é` is two bytes).
  assert.deepEqual(syntax.errors.map((e) => [e.code, e.line, e.column]), [["invalid-json", 2, 20]]);
  assert.match(syntax.errors[0].message, /line 2, column 20/);

  const text = '{"parts": [\n  {"content": "hi"},\n  {"name": "/a/../b", "contentType": "text/plain", "content": "x"},\n  {"name": "/c", "content": 5}\n]}';
  const r = await validatePayload(text, BodySchema.builtin("chat"));
  assert.deepEqual(r.errors.map((e) => [e.code, e.partIndex, e.name, e.line, e.column]), [
    ["invalid-part", 2, "/c", 4, 3],
    ["invalid-part-name", 1, "/a/../b", 3, 3],
    ["unexpected-part", 1, "/a/../b", 3, 3],
  ]);

  const badUtf8 = await validatePayload(new Uint8Array([0x7b, 0xff, 0x7d]));
  assert.deepEqual(badUtf8.errors.map((e) => [e.code, e.offset]), [["invalid-utf8", 1]]);
  assert.equal((await validatePayload("[1]")).errors[0].code, "invalid-message");
});

test("validatePayload limits: camelCase, with the documented defaults", async () => {
  const deep = `{"parts": [], "x": ${"[".repeat(70)}${"]".repeat(70)}}`;
  assert.equal((await validatePayload(deep)).errors[0].code, "nesting-too-deep"); // default maxDepth 64
  assert.equal((await validatePayload(deep, null, { maxDepth: 100 })).ok, true);

  const many = JSON.stringify({ parts: Array.from({ length: 1001 }, () => ({ content: "x" })) });
  assert.equal((await validatePayload(many)).errors[0].code, "too-many-parts"); // default maxParts 1000
  assert.equal((await validatePayload(many, null, { maxParts: 2000 })).ok, true);

  const big = JSON.stringify({ parts: [{ content: "x".repeat(100) }] });
  const r = await validatePayload(big, null, { maxPartBytes: 50 });
  assert.deepEqual(r.errors.map((e) => [e.code, e.partIndex]), [["part-too-large", 0]]);
  const tooBig = await validatePayload(big, null, { maxBytes: 10 });
  // A string longer than maxBytes is refused from its length, before it is copied into wasm.
  assert.deepEqual(tooBig.errors.map((e) => [e.code, e.message]), [["payload-too-large", `payload is at least ${big.length} bytes, more than the limit of 10`]]);
  // One within it in UTF-16 code units but over it in UTF-8 is measured exactly.
  const euros = await validatePayload("€".repeat(5), null, { maxBytes: 10 });
  assert.deepEqual(euros.errors.map((e) => e.message), ["payload is 15 bytes, more than the limit of 10"]);
  assert.equal((await validatePayload(utf8(big), null, { maxBytes: 10 })).errors[0].message, `payload is ${big.length} bytes, more than the limit of 10`);

  // The default maxBytes is 10 MiB: one byte more is rejected.
  const over = new Uint8Array(10 * 1024 * 1024 + 1);
  assert.equal((await validatePayload(over)).errors[0].code, "payload-too-large");

  await rejectsCode(validatePayload(payload, null, { maxBytes: -1 }), "invalid-argument");
  await rejectsCode(validatePayload(payload, null, { maxBytes: "10" }), "invalid-argument");
  await rejectsCode(validatePayload(payload, { parts: [{ name: "/a{" }] }), "invalid-schema");
  await rejectsCode(validatePayload(42), "invalid-argument");
  await rejectsCode(validatePayload({ parts: [] }), "invalid-argument");
});

test("an over-size Blob or File is rejected from its size, without being read", async () => {
  let reads = 0;
  const refuse = () => {
    reads++;
    throw new Error("the payload was read");
  };
  // A Blob whose size is huge and whose every way of reading throws.
  class HugeBlob extends Blob {
    get size() {
      return 64 * 1024 * 1024 * 1024;
    }
    arrayBuffer() { return refuse(); }
    stream() { return refuse(); }
    text() { return refuse(); }
    slice() { return refuse(); }
    bytes() { return refuse(); }
  }
  const r = await validatePayload(new HugeBlob(["{}"]));
  assert.deepEqual(r.errors.map((e) => [e.code, e.message]), [["payload-too-large", "payload is 68719476736 bytes, more than the limit of 10485760"]]);
  assert.equal(reads, 0);

  class LimitFile extends File {
    arrayBuffer() { return refuse(); }
    stream() { return refuse(); }
    text() { return refuse(); }
  }
  const f = new LimitFile(["x".repeat(200)], "big.json");
  assert.equal((await validatePayload(f, null, { maxBytes: 100 })).errors[0].code, "payload-too-large");
  assert.equal(reads, 0);
  // Within the limit it is read (once), and a failing read is a typed rejection.
  const e = await rejectsCode(validatePayload(f), "payload-unreadable");
  assert.match(e.message, /the payload was read/);
  assert.equal(reads, 1);
  class Rejecting extends Blob {
    arrayBuffer() { return Promise.reject(new Error("disk gone")); }
  }
  assert.match((await rejectsCode(validatePayload(new Rejecting(["{}"])), "payload-unreadable")).details.reason, /disk gone/);
});

test("validatePayload never throws on malformed input", async () => {
  const inputs = ["", "{", "}", "null", '{"parts": null}', '{"parts": [null, 1, "x", []]}', "\u0000", '{"parts": [{"name": 5}]}', "[".repeat(10000)];
  for (const input of inputs) {
    const r = await validatePayload(input);
    assert.equal(r.ok, false, JSON.stringify(input).slice(0, 40));
    assert.ok(r.errors.length > 0);
  }
});

test("parsed JSON is prototype-safe: __proto__ keys stay data", async () => {
  const hostile = '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}';
  const body = new MessageBody([
    { type: "data", name: "/evil.json", contentType: "application/json", content: hostile, metadata: JSON.parse(hostile) },
  ]);
  const value = body.readJson("/evil.json");
  assert.ok(Object.hasOwn(value, "__proto__"));
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(value.polluted, undefined);
  const meta = body.get("/evil.json").metadata;
  assert.ok(Object.hasOwn(meta, "__proto__"));
  assert.equal(meta.polluted, undefined);
  const fromText = MessageBody.fromJSON(`{"parts": [{"content": "x", "metadata": ${hostile}}], "__proto__": {"polluted": true}}`);
  assert.ok(Object.hasOwn(fromText.parts[0].metadata, "__proto__"));
  const r = await validatePayload(`{"parts": [], "__proto__": {"polluted": true}}`);
  assert.equal(r.ok, true);
  assert.equal({}.polluted, undefined);
  assert.equal(Object.prototype.polluted, undefined);
});

// ---------------------------------------------------------------------------------------------
// While streaming

const request = (text) => new RequestBuilder().text("user", text).sessionId("body").build();

test("stream.validateWith reports a part that matches nothing as it starts, before the response ends", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const log = [];
  const stream = client.stream(request("sources please"), { onUpdate: (u) => log.push(u.type) });
  const violations = [];
  stream.validateWith(BodySchema.builtin("researcher"), (v) => {
    violations.push(v);
    log.push(`violation:${v.code}:${v.partIndex}`);
  });
  const response = await stream.response;
  assert.equal(response.status, "completed");
  const answer = response.output.find((m) => m.type === "message");
  // The answer has its text (ok), a data table and an image (no unnamed schema part admits them),
  // and two sources (ok).
  assert.deepEqual(violations.map((v) => [v.code, v.partIndex, v.contentType, v.msgId]), [
    ["content-type-mismatch", 1, "application/json", answer.id],
    ["content-type-mismatch", 2, "image/svg+xml", answer.id],
  ]);
  // Reported while streaming: the image's violation comes before the sources' parts and the end.
  const at = log.indexOf("violation:content-type-mismatch:2");
  assert.ok(at > 0 && at < log.lastIndexOf("content") && at < log.indexOf("done"), log.join(" "));
});

test("stream.validateWith checks required parts when a message completes; stop() ends the checks", async () => {
  const client = new AgentClient({ baseUrl: server() });
  const stream = client.stream(request("summary?"));
  const seen = [];
  const schema = { parts: [{ contentType: "*/*" }, { name: "/sources/*", contentType: "text/x-uri" }, { name: "/summary", contentType: "text/plain", required: true }] };
  stream.validateWith(schema, (v) => seen.push(v));
  // Every message type, including reasoning and the tool call (named /function).
  const all = [];
  stream.validateWith(new BodySchema(schema), (v) => all.push(v), { messageTypes: null });
  const stopped = [];
  const stop = stream.validateWith(schema, (v) => stopped.push(v), { messageTypes: null });
  stop();
  await stream.response;
  assert.deepEqual(seen.map((v) => [v.code, v.name, v.schemaPart]), [["missing-required-part", "/summary", 2]]);
  assert.ok(all.some((v) => v.code === "unexpected-part" && v.name === "/function"), JSON.stringify(all));
  assert.equal(all.filter((v) => v.code === "missing-required-part").length, 4); // one per message
  assert.deepEqual(stopped, []);
  assert.throws(() => stream.validateWith({ parts: [{ name: "/a{" }] }, () => {}), (e) => e.code === "invalid-schema");
});

// ---------------------------------------------------------------------------------------------
// The README's examples of this API run as they are.

test("the README's message-body and Atlas examples run", async () => {
  const { readFile, writeFile, mkdir } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { pathToFileURL } = await import("node:url");
  const { root, pkgDir } = await import("../helpers.mjs");
  const readme = await readFile(join(root, "README.md"), "utf8");
  const dir = join(root, "target", "readme-examples");
  await mkdir(dir, { recursive: true });
  for (const marker of ["readme-body-example", "readme-atlas-example"]) {
    const m = readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`js\\n([\\s\\S]*?)\`\`\``));
    assert.ok(m, `README has an example marked <!-- ${marker} -->`);
    const entry = pathToFileURL(join(pkgDir, "node/index.js")).href;
    const code = m[1].replaceAll('from "agentwire"', `from ${JSON.stringify(entry)}`);
    const file = join(dir, `${marker}.mjs`);
    await writeFile(file, code);
    await import(pathToFileURL(file).href);
  }
});
