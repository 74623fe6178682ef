// Type tests of the ACP client and run sessions (checked with `tsc --noEmit`, strict).
import {
  AcpClient,
  AcpRunHandle,
  CommunicationSchema,
  ProtocolError,
  RunSession,
  type AcpAwaitRequest,
  type AcpMessage,
  type AcpRun,
  type AcpRunUpdate,
  type Move,
  type RunSessionStep,
  type RunSessionView,
} from "../../../pkg/web/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_?: T): void {}

export async function acp(): Promise<void> {
  const client = new AcpClient({ baseUrl: "http://127.0.0.1:8000", headers: { a: "b" }, fetch: (r: Request) => fetch(r) });
  // @ts-expect-error an ACP client's base URL has its path prefix: there is no endpoint
  new AcpClient({ baseUrl: "http://x", endpoint: "/runs" });
  const agents = await client.agents();
  void agents[0]?.input_content_types;
  const handle = client.run("approval", "Deploy?", {
    mode: "stream",
    sessionId: "s",
    pollInterval: 250,
    limits: { maxParts: 100, maxStreamBytes: 1 << 20 },
    onTextDelta: (delta, target) => {
      assertType<Equal<typeof delta, string>>();
      assertType<Equal<typeof target.messageIndex, number>>();
    },
    onAwaiting: (r) => assertType<Equal<typeof r, AcpAwaitRequest>>(),
    onStateChange: (from, to, move) => {
      assertType<Equal<typeof from, string>>();
      assertType<Equal<typeof move, Move>>();
      void to;
    },
    onError: (e) => assertType<Equal<typeof e, ProtocolError>>(),
  });
  assertType<Equal<typeof handle, AcpRunHandle>>();
  assertType<Equal<typeof handle.run, Promise<AcpRun>>>();
  const session: RunSessionView = handle.session;
  const moves: Move[] = session.allowedMoves("client");
  void moves;
  const awaiting: AcpAwaitRequest | null = handle.awaiting;
  void awaiting;
  const message: AcpMessage = { role: "user", parts: [{ content: "yes" }] };
  const resumed: Promise<AcpRun> = handle.resume(message);
  void resumed;
  void handle.list("/sources/*")[0]?.part.contentType;

  for await (const u of handle) {
    assertType<Equal<typeof u, AcpRunUpdate>>();
    switch (u.type) {
      case "state":
        assertType<Equal<typeof u.to, string>>();
        break;
      case "textDelta":
        assertType<Equal<typeof u.partIndex, number>>();
        break;
      case "done":
        assertType<Equal<typeof u.run, AcpRun>>();
        break;
    }
  }

  const schema = CommunicationSchema.builtin("acpRun");
  const mermaid: string = schema.toMermaid();
  void mermaid;
  const run = new RunSession(schema, { strict: true, onStateChange: (from, to) => void [from, to] });
  const step: RunSessionStep = run.send("create", "hello");
  const warning: ProtocolError | null = step.warning;
  void warning;
  new RunSession({ idle: [{ party: "client", type: "go", schema: [], nextState: "idle" }] });

  // @ts-expect-error modes are a closed union
  client.run("echo", "hi", { mode: "later" });
  client.run("echo", "hi", null);
  // @ts-expect-error the built-in schemas are named
  new RunSession("poet");
  // @ts-expect-error parties are client or server
  run.allowedMoves("agent");
  // @ts-expect-error a transition needs a party
  new RunSession({ idle: [{ type: "go", schema: [], nextState: "idle" }] });
}
