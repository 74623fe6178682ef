// Type tests of the message-body and Atlas API (checked with `tsc --noEmit`, strict): positive
// assertions must compile, and every `@ts-expect-error` line must be an error.
import {
  AgentClient,
  BodySchema,
  MessageBody,
  Pattern,
  StructuredMessage,
  validatePayload,
  type AtlasStructuredMessage,
  type AtlasToolCall,
  type BodySchemaJson,
  type BuiltinBodySchemaName,
  type JsonValue,
  type Part,
  type PayloadReport,
  type SchemaWatch,
  type StreamViolation,
  type ValidationReport,
  type Violation,
  type ViolationCode,
} from "../../../pkg/web/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_?: T): void {}

export async function bodies(file: File, blob: Blob): Promise<void> {
  const body = MessageBody.fromJSON('{"parts": []}');
  const parts: Part[] = body.list("/sources/*");
  // The class doc's example: the parts `list` gives are named.
  for (const s of body.list("/sources/*")) body.readText(s.name);
  body.list(new Pattern("/**"));
  const one: Part | null = body.get("/a");
  const text: string = body.readText("/a");
  const json: JsonValue = body.readJson("/a");
  const bytes: Uint8Array = body.readBytes("/a");
  const url: string = body.readUrl("/a");
  const names: string[] = body.names();
  const problems: Violation[] = body.check();
  const code: ViolationCode = problems[0]!.code;
  const partIndex: number | null = problems[0]!.partIndex;
  void [parts, one, text, json, bytes, url, names, code, partIndex];
  // @ts-expect-error: a pattern is a string or a Pattern
  body.list(5);
  // @ts-expect-error: parts are an array
  new MessageBody({ parts: [] });

  const json1: BodySchemaJson = { parts: [{ name: "/sources/*", contentType: "text/x-uri", required: false }] };
  const schema = new BodySchema(json1);
  new BodySchema([{ contentType: "text/plain" }]);
  const name: BuiltinBodySchemaName = "researcher";
  const report: ValidationReport = schema.validate(body);
  schema.validate([{ content: "x" }]);
  body.validate(BodySchema.builtin(name));
  body.validate({ parts: [] });
  // @ts-expect-error: not a built-in
  BodySchema.builtin("poet");
  const watch: SchemaWatch = schema.watch();
  const v: Violation | null = watch.partStarted(0, null, "text/plain");
  void [report, v];

  const r1: PayloadReport = await validatePayload(file);
  await validatePayload(blob, schema, { maxBytes: 1024 });
  await validatePayload(new Uint8Array(1), null);
  await validatePayload("{}", { parts: [] });
  assertType<Equal<typeof r1.ok, boolean>>();
  // @ts-expect-error: limits are camelCase
  await validatePayload("{}", null, { max_bytes: 1 });
  // @ts-expect-error: numbers are not payloads
  await validatePayload(42);

  const stream = new AgentClient({ baseUrl: "http://x" }).stream({ input: [] });
  const stop: () => void = stream.validateWith(schema, (violation: StreamViolation) => {
    const msgId: string = violation.msgId;
    void msgId;
  }, { messageTypes: null });
  stop();
}

export function atlas(): void {
  const q = new StructuredMessage("hi", { messageType: "query", taskId: "t", sourceAgent: "user" });
  const r = StructuredMessage.createResponse("ok", q);
  const id: string = r.addToolCall("get_weather", { city: "Paris" });
  r.addToolResult("get_weather", { temp: 21 }, id, "success");
  r.addToolResult("get_weather", null, id, "error", "timeout");
  const wire: AtlasStructuredMessage = r.toJSON();
  const calls: AtlasToolCall[] = r.toolCalls;
  const t: number = r.timestamp;
  const source: string | null = r.sourceAgent;
  const kind: string | null = r.messageType;
  const back = StructuredMessage.fromJSON(wire, { strict: true });
  const body: MessageBody = back.toBody();
  StructuredMessage.fromBody(body);
  StructuredMessage.createError("failed");
  StructuredMessage.createTask("do", "a", "b", { priority: "high" });
  void [calls, t, source, kind];
  // @ts-expect-error: the init is camelCase
  new StructuredMessage("x", { task_id: "t" });
  // @ts-expect-error: arguments are an object
  r.addToolCall("x", "city=Paris");
}
