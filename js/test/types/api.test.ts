// Type tests of the public API (checked with `tsc --noEmit`, strict): positive assertions must
// compile, and every `@ts-expect-error` line must be an error.
import init, {
  AgentClient,
  AgentStream,
  AgentStreamDecoder,
  ProtocolError,
  RequestBuilder,
  ResponseBuilder,
  type AgentRequest,
  type AgentResponse,
  type Content,
  type JsonValue,
  type Role,
  type StreamUpdate,
} from "../../../pkg/web/index.js";
import * as web from "../../../pkg/web/index.js";
import * as node from "../../../pkg/node/index.js";
import * as bundler from "../../../pkg/bundler/index.js";
import * as agentApiOnly from "../../../pkg/agent-api/web/index.js";
import * as agentxOnly from "../../../pkg/agentx/web/index.js";
import * as acpOnly from "../../../pkg/acp/web/index.js";
import * as atlasOnly from "../../../pkg/atlas/web/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_?: T): void {}

export async function api(): Promise<void> {
  const ready: Promise<void> = init();
  await ready;

  const request: AgentRequest = new RequestBuilder().text("user", "hi").temperature(0.3).build();
  const client = new AgentClient({ baseUrl: "http://127.0.0.1:8787", headers: { a: "b" } });
  const stream = client.stream(request, {
    onTextDelta: (delta, target) => {
      assertType<Equal<typeof delta, string>>();
      assertType<Equal<typeof target.msgId, string>>();
    },
    onContent: (c) => assertType<Equal<typeof c, Content>>(),
    onError: (e) => assertType<Equal<typeof e, ProtocolError>>(),
  });
  assertType<Equal<typeof stream, AgentStream>>();
  assertType<Equal<typeof stream.response, Promise<AgentResponse>>>();
  // `null` handlers or options are none (the README's Errors).
  client.stream(request, null, null);

  for await (const u of stream) {
    assertType<Equal<typeof u, StreamUpdate>>();
    switch (u.type) {
      case "textDelta":
        assertType<Equal<typeof u.delta, string>>();
        assertType<Equal<typeof u.index, number>>();
        break;
      case "done":
        assertType<Equal<typeof u.response, AgentResponse>>();
        break;
      case "issue":
        assertType<Equal<typeof u.severity, "warning" | "error">>();
        break;
    }
  }

  const role: Role = "assistant";
  const custom: Role = "narrator"; // open union: unknown values are kept
  void role;
  void custom;

  const data: JsonValue = { a: [1, "x", null, { b: true }] };
  void data;

  const e = new ProtocolError("code", "message", { x: 1 });
  const asError: Error = e;
  void asError;
  assertType<Equal<typeof e.code, string>>();

  const decoder = new AgentStreamDecoder({ batch: true });
  const updates: StreamUpdate[] = decoder.feed(new Uint8Array());
  void updates;
  const response: AgentResponse = decoder.response();
  void response.output?.[0]?.content?.[0]?.text;

  const rb = new ResponseBuilder("s");
  rb.createMessageBuilder("assistant").createContentBuilder("text").addTextDelta("x");

  // The three entry points export the same API.
  assertType<Equal<keyof typeof node, keyof typeof web>>();
  assertType<Equal<keyof typeof bundler, keyof typeof web>>();
  // So do the smaller entry points, `agentwire/agent-api`, `agentwire/agentx`, `agentwire/acp` and
  // `agentwire/atlas` (what their builds left out throws `feature-not-built`).
  assertType<Equal<keyof typeof agentApiOnly, keyof typeof web>>();
  assertType<Equal<keyof typeof agentxOnly, keyof typeof web>>();
  assertType<Equal<keyof typeof acpOnly, keyof typeof web>>();
  assertType<Equal<keyof typeof atlasOnly, keyof typeof web>>();
  assertType<Equal<Parameters<typeof agentApiOnly.AgentClient.prototype.stream>[0], AgentRequest>>();

  // @ts-expect-error baseUrl is required
  new AgentClient({});
  // The client's options are the wasm client's generated config (with `resume`) and the layer's own.
  const resuming = new AgentClient({
    baseUrl: "http://127.0.0.1:8787",
    endpoint: "/process",
    credentials: "include",
    resume: { path: "/process/resume/{responseId}", maxAttempts: 5, initialDelayMs: 250 },
    fetch: (r: Request) => fetch(r),
  });
  void resuming;
  // @ts-expect-error resume's members are typed
  new AgentClient({ baseUrl: "http://x", resume: { maxAttempts: "5" } });
  // @ts-expect-error credentials is one of fetch's modes
  new AgentClient({ baseUrl: "http://x", credentials: "always" });
  // @ts-expect-error handlers are typed
  client.stream(request, { onTextDelta: (d: number) => d });
  // @ts-expect-error a request needs input
  client.stream({ stream: true });
  // @ts-expect-error updates are a closed union on `type`
  const bad: StreamUpdate = { type: "nope" };
  void bad;
}
