// Type tests of the tools, incremental JSON and AgentX API (checked with `tsc --noEmit`, strict).
import {
  AgentClient,
  AgentxClient,
  ClientTools,
  PartialJson,
  ProtocolError,
  ToolRegistry,
  agentxUserMessage,
  applyPartialChanges,
  isAgentxPart,
  type AgentRequest,
  type AgentxChat,
  type AgentxChatRequest,
  type AgentxChatUpdate,
  type AgentxMessage,
  type CheckedToolCall,
  type FunctionCall,
  type JsonValue,
  type PartialChange,
  type SchemaWarning,
  type StreamingToolCall,
  type ToolOutcome,
} from "../../../pkg/web/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_?: T): void {}

export async function tools(): Promise<void> {
  const p = new PartialJson();
  const changes = p.push('{"a": "b');
  assertType<Equal<typeof changes, PartialChange[]>>();
  const value: JsonValue | undefined = applyPartialChanges(undefined, changes);
  assertType<Equal<typeof p.value, JsonValue | undefined>>();
  assertType<Equal<ReturnType<typeof p.finish>, JsonValue>>();
  void value;
  // @ts-expect-error deltas are strings
  p.push(1);

  const client = new AgentClient({ baseUrl: "http://127.0.0.1:8787" });
  assertType<Equal<typeof client.tools, ClientTools>>();
  const warnings = client.tools.register("t", { type: "object" }, async (args, ctx) => {
    assertType<Equal<typeof args, { [key: string]: JsonValue }>>();
    assertType<Equal<typeof ctx.callId, string>>();
    return 1;
  }, { description: "d" });
  assertType<Equal<typeof warnings, SchemaWarning[]>>();
  // A tool's arguments may be typed as its schema describes them (the README's get_time).
  client.tools.register(
    "get_time",
    { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] },
    async ({ timezone }: { timezone: string }) => new Date().toLocaleTimeString("en-GB", { timeZone: timezone }),
  );
  interface Move { from: string; to: string }
  client.tools.register("move", { type: "object" }, (args: Move) => `${args.from} → ${args.to}`, null);
  // @ts-expect-error arguments are an object
  client.tools.register("n", { type: "object" }, (n: number) => n);
  client.stream({ input: [], stream: true }, {
    onToolArguments: (callId, partial, ch, call) => {
      assertType<Equal<typeof callId, string>>();
      assertType<Equal<typeof partial, JsonValue | undefined>>();
      assertType<Equal<typeof ch, PartialChange[]>>();
      assertType<Equal<typeof call, StreamingToolCall>>();
    },
    onToolCall: (call) => assertType<Equal<typeof call, FunctionCall>>(),
    onToolCheck: (call) => assertType<Equal<typeof call, CheckedToolCall>>(),
    onToolResult: (o) => assertType<Equal<typeof o, ToolOutcome>>(),
    onToolRound: (round, next) => assertType<Equal<typeof next, AgentRequest>>(),
  }, { maxToolRounds: 3 });

  const registry = new ToolRegistry();
  registry.validateArguments("t", { a: 1 });
  // @ts-expect-error a tool name is a string
  registry.validateArguments(1, {});

  const x = new AgentxClient({ baseUrl: "http://127.0.0.1:8787", endpoint: "/chat", tools: client.tools });
  // @ts-expect-error an AgentX client has no resume
  new AgentxClient({ baseUrl: "http://x", resume: {} });
  const chat = x.chat([agentxUserMessage("hi")], {
    onTextDelta: (d, at) => {
      assertType<Equal<typeof d, string>>();
      assertType<Equal<typeof at.round, number>>();
    },
    onError: (e) => assertType<Equal<typeof e, ProtocolError>>(),
    onToolRound: (round, next) => assertType<Equal<typeof next, AgentxChatRequest>>(),
  });
  assertType<Equal<typeof chat, AgentxChat>>();
  assertType<Equal<typeof chat.messages, Promise<AgentxMessage[]>>>();
  for await (const u of chat) assertType<Equal<typeof u, AgentxChatUpdate>>();
  // A part's type alone does not narrow (a known type may come with another shape); the guard does.
  x.chat([agentxUserMessage("hi")], {
    onPart: (part) => {
      // @ts-expect-error `text` may be any JSON value until the shape is checked
      const unchecked: string = part.type === "text" ? part.text : "";
      void unchecked;
      if (isAgentxPart(part, "text")) assertType<Equal<typeof part.text, string>>();
      if (isAgentxPart(part, "tool_call")) assertType<Equal<typeof part.tool_name, string>>();
    },
  });
  // @ts-expect-error the part types are named
  isAgentxPart({ type: "text", text: "a" }, "image");
  // @ts-expect-error messages are AgentX messages
  x.chat([{ text: "hi" }]);
  x.chat([agentxUserMessage("hi")], null, null);
  // A chat's options are the decoder's generated AgentxStreamOptions and the layer's own.
  x.chat([agentxUserMessage("hi")], {}, { strict: true, limits: { maxParts: 2 }, batch: true, maxEventSize: 1 << 16, maxToolRounds: 3 });
  // @ts-expect-error limits are typed
  x.chat([agentxUserMessage("hi")], {}, { limits: { maxParts: "2" } });
}
