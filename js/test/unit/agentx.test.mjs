// AgentxClient: the three flows of the AgentX documentation over the wire (a local server sends
// their exact JSON as SSE packets), and the client-side tool loop against the reference server's
// POST /chat (write_file without `path`, the VALIDATION tool_error, the corrected call, the result).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { agentwire, server, getJson, collect } from "../helpers.mjs";

const { AgentxClient, AgentxStreamDecoder, ProtocolError, agentxUserMessage, isAgentxPart } = await agentwire();

// "Communication and Message Architecture" (dustland/roboco docs/arch/04-communication.md), §3.1–3.3,
// whitespace included (as in tests/agentx.rs).
const FLOW1 = [
  `{ "role": "assistant", "parts": [{ "type": "text", "text": "Hello" }] }`,
  `{ "role": "assistant", "parts": [{ "type": "text", "text": " there!" }] }`,
];
const FLOW2 = [
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "Sure, I can write that file for you. I will now call the tool."
    },
    {
      "type": "tool_call",
      "tool_call_id": "tc_123",
      "tool_name": "write_file",
      "args": { "path": "/hello.txt", "content": "Hello, world!" }
    }
  ]
}`,
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_result",
      "tool_call_id": "tc_123",
      "result": { "status": "success", "message": "File written successfully." }
    }
  ]
}`,
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "I have successfully written the file to \`/hello.txt\`."
    }
  ]
}`,
];
const FLOW3 = [
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_call",
      "tool_call_id": "tc_456",
      "tool_name": "write_file",
      "args": { "content": "This call is missing the path." }
    }
  ]
}`,
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "tool_error",
      "tool_call_id": "tc_456",
      "error_type": "VALIDATION",
      "message": "Validation failed for tool 'write_file': Missing required argument 'path'."
    }
  ]
}`,
  `{
  "role": "assistant",
  "parts": [
    {
      "type": "text",
      "text": "My apologies, I missed a required parameter. I will correct it now."
    },
    {
      "type": "tool_call",
      "tool_call_id": "tc_789",
      "tool_name": "write_file",
      "args": {
        "path": "/corrected.txt",
        "content": "This call should now be valid."
      }
    }
  ]
}`,
];
const FLOW1_USER = `{
  "role": "user",
  "parts": [{ "type": "text", "text": "Hello, world!" }]
}`;

// Three packets of one message: three text parts, a part of a type AgentX does not define, a text.
const UNKNOWN_PART = [
  `{"role": "assistant", "parts": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}, {"type": "text", "text": "c"}]}`,
  `{"role": "assistant", "parts": [{"type": "nope", "x": 1}]}`,
  `{"role": "assistant", "parts": [{"type": "text", "text": "d"}]}`,
];

/** A packet as one SSE event (each line of its JSON a `data:` line). */
const sse = (packet) => packet.split("\n").map((l) => `data: ${l}\n`).join("") + "\n";

const WRITE_FILE = {
  type: "object",
  properties: { path: { type: "string", minLength: 1 }, content: { type: "string" } },
  required: ["path", "content"],
  additionalProperties: false,
};

// An agent that numbers its calls per turn (`call_0` every round) and first sends its arguments as
// JSON text instead of an object: the client answers with a VALIDATION error, the agent sends the
// same id again with an object, the client runs the tool, the agent finishes.
function perTurnIds(last) {
  const call = (args) => JSON.stringify({ role: "assistant", parts: [{ type: "tool_call", tool_call_id: "call_0", tool_name: "write_file", args }] });
  if (last.parts.some((p) => p.type === "tool_result")) return `{"role": "assistant", "parts": [{"type": "text", "text": "done"}]}`;
  if (last.parts.some((p) => p.type === "tool_error")) return call({ path: "/a.txt", content: "a" });
  return call('{"path": "/a.txt", "content": "a"}');
}

// A local AgentX server that answers with a documented flow, chosen by the path, and records the
// requests it received.
let local, localUrl;
const received = [];
before(async () => {
  local = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const request = JSON.parse(body);
      received.push({ url: req.url, request });
      const last = request.messages.at(-1);
      let packets;
      if (req.url === "/flow1") packets = FLOW1;
      else if (req.url === "/unknown-part") packets = UNKNOWN_PART;
      else if (req.url === "/flow2") packets = FLOW2;
      else if (req.url === "/per-turn-ids") packets = [perTurnIds(last)];
      else if (last.parts.some((p) => p.type === "tool_result")) {
        packets = [`{"role": "assistant", "parts": [{"type": "text", "text": "Done: /corrected.txt"}]}`];
      } else packets = FLOW3;
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Split across writes in the middle of packets, as networks do.
      const all = packets.map(sse).join("");
      let i = 0;
      const step = () => {
        if (i >= all.length) return res.end();
        res.write(all.slice(i, i + 37));
        i += 37;
        setImmediate(step);
      };
      step();
    });
  });
  await new Promise((r) => local.listen(0, "127.0.0.1", r));
  localUrl = `http://127.0.0.1:${local.address().port}`;
});
after(() => local?.close());

test("§3.1 simple text conversation: two packets are one message, text concatenated", async () => {
  const client = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow1" });
  const user = JSON.parse(FLOW1_USER);
  const deltas = [];
  const chat = client.chat([user], { onTextDelta: (d, at) => deltas.push([d, at.round, at.messageIndex, at.partIndex]) });
  const messages = await chat.messages;
  assert.deepEqual(messages, [user, { role: "assistant", parts: [{ type: "text", text: "Hello there!" }] }]);
  assert.deepEqual(deltas, [[" there!", 0, 0, 0]]);
  assert.deepEqual(received.at(-1).request, { messages: [user] }, "the request is {messages}");
});

test("a chat's options reach its decoder: strict refuses an unknown part type, limits cut a message", async () => {
  const client = new AgentxClient({ baseUrl: localUrl, endpoint: "/unknown-part" });
  const run = async (options) => {
    const issues = [];
    const handlers = { onWarning: (w) => issues.push(w.code), onError: (e) => issues.push(e.code) };
    const chat = client.chat([agentxUserMessage("hi")], handlers, options);
    const outcome = await chat.messages.then(
      (messages) => messages.at(-1),
      (e) => ({ rejected: e.code, kept: e.details.messages.at(-1) }),
    );
    return { issues, outcome };
  };
  const texts = (m) => m.parts.map((p) => p.text ?? p.type);
  const lenient = await run({});
  assert.deepEqual(lenient.issues, []);
  assert.deepEqual(texts(lenient.outcome), ["a", "b", "c", "nope", "d"], "lenient keeps the unknown part as sent");
  const strict = await run({ strict: true });
  assert.deepEqual(strict.issues, ["unknown-part-type"]);
  assert.equal(strict.outcome.rejected, "stream-incomplete");
  assert.deepEqual(texts(strict.outcome.kept), ["a", "b", "c", "nope"], "what came before is kept");
  const limited = await run({ limits: { maxParts: 2 } });
  assert.deepEqual(limited.issues, ["too-many-parts"]);
  assert.deepEqual(texts(limited.outcome), ["a", "b"]);
});

test("§3.2 successful tool call: the server ran the tool, so the client runs nothing", async () => {
  const client = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow2" });
  let ran = 0;
  client.tools.register("write_file", WRITE_FILE, () => ran++);
  const calls = [];
  const messages = await client.chat([agentxUserMessage("Write hello.txt")], { onToolCall: (c) => calls.push(c.tool_call_id) }).messages;
  assert.equal(ran, 0);
  assert.deepEqual(calls, ["tc_123"]);
  assert.equal(messages.length, 2);
  assert.deepEqual(messages[1].parts.map((p) => p.type), ["text", "tool_call", "tool_result", "text"]);
  assert.deepEqual(messages[1].parts[2].result, { status: "success", message: "File written successfully." });
  // The tools were offered (agentwire's `tools` field beside `messages`).
  assert.deepEqual(received.at(-1).request.tools.map((t) => t.name), ["write_file"]);
});

test("§3.3 self-correction: the pending corrected call is run and its tool_result sent in the next POST /chat", async () => {
  const client = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow3" });
  const written = [];
  client.tools.register("write_file", WRITE_FILE, async ({ path, content }) => {
    written.push([path, content]);
    return { status: "success" };
  });
  const start = received.length;
  const messages = await client.chat([agentxUserMessage("Write a file")]).messages;
  assert.deepEqual(written, [["/corrected.txt", "This call should now be valid."]]);
  const second = received[start + 1].request;
  assert.equal(second.messages.length, 3);
  assert.deepEqual(second.messages[1].parts.map((p) => p.type), ["tool_call", "tool_error", "text", "tool_call"]);
  const answer = second.messages[2];
  assert.equal(answer.role, "user");
  assert.match(answer.id, /^msg_[0-9a-f]{32}$/);
  assert.deepEqual(answer.parts, [{ type: "tool_result", tool_call_id: "tc_789", result: { status: "success" } }]);
  assert.equal(messages.at(-1).parts[0].text, "Done: /corrected.txt");
});

test("the reference agent corrects itself after the client's VALIDATION tool_error (exact wording), then finishes", async () => {
  const before = await getJson(`${server()}/stats`);
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=0" });
  const files = new Map();
  client.tools.register("write_file", WRITE_FILE, async ({ path, content }) => {
    files.set(path, content);
    return { status: "success", bytes: content.length };
  }, { description: "Write text to a file." });
  const log = [];
  const chat = client.chat([agentxUserMessage("Please write hello.txt")], {
    onToolCall: (c, at) => log.push(`call:${at.round}:${"path" in c.args ? "with path" : "no path"}`),
    onToolCheck: (c) => log.push(`check:${c.error ? c.error.message : "valid"}`),
    onToolResult: (o) => log.push(`${o.type}:${o.type === "error" ? o.error.errorType : JSON.stringify(o.value)}`),
    onToolRound: (round, request) => log.push(`round:${round}:${request.messages.length}`),
    onDone: (m, status, round) => log.push(`done:${round}:${status}`),
  });
  const rounds = new Set();
  let text = "";
  for await (const u of chat) {
    rounds.add(u.round);
    if (u.type === "part" && u.part.type === "text") text += u.part.text;
    if (u.type === "textDelta") text += u.delta;
  }
  const messages = await chat.messages;
  const wording = "Validation failed for tool 'write_file': Missing required argument 'path'.";
  assert.deepEqual(log, [
    "call:0:no path",
    "done:0:complete",
    `check:${wording}`,
    "error:VALIDATION",
    "round:1:3",
    "call:1:with path",
    "done:1:complete",
    "check:valid",
    'result:{"status":"success","bytes":13}',
    "round:2:5",
    "done:2:complete",
  ]);
  assert.deepEqual([...rounds], [0, 1, 2]);
  assert.deepEqual(files, new Map([["/hello.txt", "Hello, world!"]]));
  assert.deepEqual(messages.map((m) => `${m.role}:${m.parts.map((p) => p.type).join("+")}`), [
    "user:text",
    "assistant:text+tool_call",
    "user:tool_error",
    "assistant:text+tool_call",
    "user:tool_result",
    "assistant:text",
  ]);
  const error = messages[2].parts[0];
  assert.deepEqual(error, { type: "tool_error", tool_call_id: messages[1].parts[1].tool_call_id, error_type: "VALIDATION", message: wording });
  assert.equal(messages[3].parts[0].text, "My apologies, I missed a required parameter. I will correct it now.");
  assert.equal(messages[5].parts[0].text, "I have successfully written the file to `/hello.txt`.");
  assert.ok(text.endsWith("I have successfully written the file to `/hello.txt`."), text);
  const after = await getJson(`${server()}/stats`);
  assert.ok(after.started - before.started >= 3, "three POST /chat");
});

test("a call with arguments that are not an object is answered with a VALIDATION error; the same id in the next round is a new call", async () => {
  const client = new AgentxClient({ baseUrl: localUrl, endpoint: "/per-turn-ids" });
  const ran = [];
  const warnings = [];
  client.tools.register("write_file", WRITE_FILE, (args) => {
    ran.push(args);
    return { status: "success" };
  });
  const start = received.length;
  const calls = [];
  const parts = [];
  const messages = await client.chat([agentxUserMessage("Write a file")], {
    onWarning: (w) => warnings.push(w.code),
    onToolCall: (call, at) => calls.push([at.round, call.args]),
    onPart: (part) => parts.push(["text", "tool_call"].map((type) => isAgentxPart(part, type))),
  }).messages;
  assert.deepEqual(ran, [{ path: "/a.txt", content: "a" }]);
  // onToolCall gets the well-formed call only; the guard tells the two tool_call parts apart.
  assert.deepEqual(calls, [[1, { path: "/a.txt", content: "a" }]]);
  assert.deepEqual(parts, [[false, false], [false, true], [true, false]]);
  const sent = received.slice(start).map((r) => r.request.messages.at(-1).parts[0]);
  assert.equal(sent.length, 3, "three POST /chat");
  assert.equal(sent[1].type, "tool_error");
  assert.equal(sent[1].tool_call_id, "call_0");
  assert.equal(sent[1].error_type, "VALIDATION");
  assert.match(sent[1].message, /^Validation failed for tool 'write_file': .*JSON object/);
  assert.deepEqual([sent[2].type, sent[2].tool_call_id], ["tool_result", "call_0"]);
  assert.equal(messages.at(-1).parts[0].text, "done");
  assert.ok(warnings.includes("invalid-part"), "the packet's malformed part is still reported");
});

test("a tool that throws: an EXECUTION tool_error, and the agent reports it", async () => {
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=0" });
  client.tools.register("write_file", { type: "object" }, () => {
    throw new Error("disk full");
  });
  const chat = client.chat([agentxUserMessage("write")]);
  const messages = await chat.messages;
  assert.deepEqual(await collect(chat), [], "an iterator created after the end finishes at once");
  assert.deepEqual(messages[2].parts[0].error_type, "EXECUTION");
  assert.equal(messages[2].parts[0].message, "Execution of tool 'write_file' failed: disk full");
  assert.equal(messages.at(-1).parts[0].text, "The tool failed: Execution of tool 'write_file' failed: disk full");
});

test("maxToolRounds: an agent that never gets it right ends in tool-rounds-exceeded", async () => {
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=0" });
  client.tools.register("write_file", { ...WRITE_FILE, required: ["path", "content", "mode"] }, () => "ok");
  const errors = [];
  const chat = client.chat([agentxUserMessage("write")], { onError: (e) => errors.push(e.code) }, { maxToolRounds: 2 });
  await assert.rejects(chat.messages, (e) => {
    assert.ok(e instanceof ProtocolError);
    assert.equal(e.code, "tool-rounds-exceeded");
    assert.equal(e.details.maxToolRounds, 2);
    assert.equal(e.details.pending[0].error.message, "Validation failed for tool 'write_file': Missing required argument 'mode'.");
    assert.equal(e.details.messages.length, 6);
    return true;
  });
  assert.deepEqual(errors, ["tool-rounds-exceeded"]);
  // An iterator created after the end throws the chat's error at once.
  await assert.rejects(collect(chat), (e) => e.code === "tool-rounds-exceeded");
});

test("without registered tools the chat ends after one answer, the call unanswered", async () => {
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=0" });
  const chat = client.chat([agentxUserMessage("write")]);
  const messages = await chat.messages;
  assert.equal(messages.length, 2);
  assert.equal(messages[1].parts.at(-1).type, "tool_call");
  assert.equal(chat.round, 0);
  assert.equal(chat.snapshot().length, 1);
  const body = chat.body(0);
  assert.equal(body.parts.at(-1).type, "tool_call");
  assert.match(body.parts.at(-1).name, /^\/tool_calls\/tc_[0-9a-f]{32}$/);
});

test("HTTP errors, malformed requests and abort are typed errors", async () => {
  const missing = new AgentxClient({ baseUrl: server(), endpoint: "/no-such-chat" });
  await assert.rejects(missing.chat([agentxUserMessage("x")]).messages, (e) => e instanceof ProtocolError && ["http-status", "not-event-stream"].includes(e.code));
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=80" });
  assert.throws(() => client.chat([{ role: "user" }]), (e) => e instanceof ProtocolError && e.code === "invalid-argument");
});

test("abort and free() stop a chat under way (its request, its handlers, its tool loop); free() again does nothing", async () => {
  // During a round, by its signal or by free(): the request is closed, no handler runs after it,
  // `messages` rejects `aborted` with what the round received.
  const client = new AgentxClient({ baseUrl: server(), endpoint: "/chat?pace_ms=80" });
  for (const how of ["abort", "free"]) {
    const controller = new AbortController();
    let after = 0;
    let stopped = false;
    const chat = client.chat([agentxUserMessage("x")], {
      onPart: () => {
        if (stopped) after++;
        stopped = true;
        if (how === "abort") controller.abort();
        else chat.free();
      },
      onTextDelta: () => stopped && after++,
      onError: () => after++,
    }, { signal: controller.signal });
    await assert.rejects(chat.messages, (e) => e instanceof ProtocolError && e.code === "aborted" && Array.isArray(e.details.messages));
    const late = await collect(chat, 1000).catch((e) => e);
    assert.equal(late.code, "aborted", `${how}: an iterator created after it throws the chat's error`);
    assert.equal(after, 0, how);
    assert.equal(controller.signal.aborted, how === "abort", "free() does not fire the user's signal");
  }
  const chat = client.chat([agentxUserMessage("x")]);
  chat.free();
  await assert.rejects(chat.messages, (e) => e.code === "aborted");
  assert.throws(() => chat.snapshot(), (e) => e instanceof ProtocolError && e.code === "object-freed");
  chat.free();
  chat[Symbol.dispose]();

  // During a tool call: the tool's signal fires and no next POST /chat is sent.
  const tools = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow3" });
  let looped;
  tools.tools.register("write_file", WRITE_FILE, (_args, ctx) => new Promise((resolve) => {
    ctx.signal.addEventListener("abort", () => resolve({ status: "aborted" }));
    looped.free();
  }));
  const start = received.length;
  looped = tools.chat([agentxUserMessage("Write a file")]);
  await assert.rejects(looped.messages, (e) => e instanceof ProtocolError && e.code === "aborted");
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(received.length, start + 1, "one POST /chat, none after free()");

  // A tool that ignores its signal and never returns does not hold the chat.
  for (const how of ["abort", "free"]) {
    const controller = new AbortController();
    let stuck;
    const hung = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow3" });
    hung.tools.register("write_file", WRITE_FILE, () => {
      setTimeout(() => (how === "abort" ? controller.abort() : stuck.free()), 20);
      return new Promise(() => {});
    });
    stuck = hung.chat([agentxUserMessage("Write a file")], {}, { signal: controller.signal });
    const settled = await Promise.race([
      stuck.messages.then(() => "resolved", (e) => e.code),
      new Promise((resolve) => setTimeout(() => resolve("pending"), 3000)),
    ]);
    assert.equal(settled, "aborted", how);
  }

  // After the end: free() releases the answer; the conversation stays as it resolved.
  const done = new AgentxClient({ baseUrl: localUrl, endpoint: "/flow1" }).chat([agentxUserMessage("hi")]);
  const messages = await done.messages;
  done.free();
  assert.equal(messages.at(-1).parts[0].text, "Hello there!");
  assert.throws(() => done.body(0), (e) => e.code === "object-freed");
});

test("AgentxStreamDecoder: transport-independent, any split", () => {
  const bytes = new TextEncoder().encode(FLOW3.map(sse).join(""));
  const d = new AgentxStreamDecoder();
  const types = [];
  const issues = [];
  const take = (u) => {
    types.push(u.type);
    if (u.type === "issue") issues.push([u.severity, u.code, u.details.value]);
  };
  for (let i = 0; i < bytes.length; i += 5) d.feed(bytes.subarray(i, i + 5)).forEach(take);
  d.finish().forEach(take);
  assert.equal(d.status, "complete");
  assert.deepEqual(types, ["message", "part", "issue", "part", "part", "part", "issue", "done"]);
  // The document's own ids (`tc_456`) are not its `tc_` + 32 hex shape: kept, and reported.
  assert.deepEqual(issues, [["warning", "invalid-id", "tc_456"], ["warning", "invalid-id", "tc_789"]]);
  assert.deepEqual(d.messages()[0].parts.map((p) => p.type), ["tool_call", "tool_error", "text", "tool_call"]);
  assert.equal(d.body(0).parts.length, 4);
  // An index that is not an integer from 0 gives no body (wasm-bindgen's conversion wrapped
  // 2^32 to 0 and read NaN and 0.5 as 0).
  for (const i of [1, 2 ** 32, -1, NaN, 0.5, Infinity]) assert.equal(d.body(i), undefined, String(i));
});

test("AgentxStreamDecoder: a surrogate pair a JavaScript server cut between two packets is joined", () => {
  // JSON.stringify writes each half of a cut pair as an escape of its own ("\ud83d").
  const text = "I 😀 you, 東京 😀";
  const pieces = [text.slice(0, 3), text.slice(3, 14), text.slice(14)]; // both emoji cut
  const id = `msg_${"0".repeat(32)}`;
  const packets = pieces.map((t) => JSON.stringify({ id, role: "assistant", parts: [{ type: "text", text: t }] }));
  assert.match(packets[0], /\\ud83d"/);
  const bytes = new TextEncoder().encode(packets.map(sse).join(""));
  for (const size of [1, 7, bytes.length]) {
    const d = new AgentxStreamDecoder();
    const updates = [];
    for (let i = 0; i < bytes.length; i += size) updates.push(...d.feed(bytes.subarray(i, i + size)));
    updates.push(...d.finish());
    const streamed = updates.flatMap((u) => (u.type === "part" ? [u.part.text] : u.type === "textDelta" ? [u.delta] : []));
    assert.equal(streamed.join(""), text, `${size}-byte chunks`);
    assert.equal(d.messages()[0].parts[0].text, text);
    assert.deepEqual(updates.filter((u) => u.type === "issue"), []);
    d.free();
  }
});
