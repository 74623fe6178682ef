// The environment-independent part of the package: it works on whichever wasm module an entry point
// (web.ts, node.ts, bundler.ts) binds.
import type * as Wasm from "./agentwire.js";
import type { AgentRequest, AgentResponse, Body, Content, JsonValue, Message, NamedPart, Part, StreamOptions, StreamUpdate } from "./agentwire.js";
import type { AgentClientConfig, BodySchemaJson, Violation } from "./agentwire.js";
import { FailureReport, ProtocolError, errorFactory, invalidArgument, objectFreed } from "./errors.js";
import { guard } from "./guard.js";
import { Fanout } from "./queue.js";
import { ClientTools, TERMINAL_STATUSES, ToolCallTracker, agentToolLoop, maxToolRounds, toolsOption } from "./tools.js";
import type { ToolStreamHandlers } from "./tools.js";

type WasmModule = typeof Wasm;

let bound: WasmModule | undefined;
let raw: WasmModule | undefined;

/** Whether this build of the wasm module has the export `name` (see the README's "Feature builds"). */
export function built(name: keyof WasmModule): boolean {
  wasm();
  return raw?.[name] !== undefined;
}

/** Binds the initialized wasm module (called by each entry point). */
export function bind(module: WasmModule): void {
  module.__setErrorFactory(errorFactory);
  // An export a feature build left out (absent, or declared `undefined`: scripts/declare-missing.mjs)
  // reads as a stub that throws `feature-not-built` when used; `built(name)` tells whether it is
  // there.
  raw = module;
  bound = new Proxy(module, {
    get(target, property, receiver): unknown {
      const value: unknown = Reflect.get(target, property, receiver);
      const stub = value === undefined && typeof property === "string" && property !== "then";
      return stub ? guard(undefined, property) : value;
    },
  });
}

/** The bound wasm module; throws a clear `not-initialized` error before `init()`. */
export function wasm(): WasmModule {
  if (bound === undefined) {
    throw new ProtocolError(
      "not-initialized",
      "agentwire is not initialized: call `await init()` (from \"agentwire\") before using it",
      {},
    );
  }
  return bound;
}

/**
 * @internal `callbacks` (`null` or `undefined`: none) with each member named `on…` that is set
 * checked to be a function, so that a mistake throws when the stream starts, not from inside it.
 *
 * @throws ProtocolError `invalid-argument` (`details.what` = `<what>.<name>`) for a member set to
 *   something else, or when `callbacks` is not an object.
 */
export function checkCallbacks<T extends object>(callbacks: T | null | undefined, what: string): T {
  if (callbacks === null || callbacks === undefined) return {} as T;
  if (typeof callbacks !== "object") throw invalidArgument(what, "it is not an object");
  for (const [key, value] of Object.entries(callbacks)) {
    if (/^on[A-Z]/.test(key) && value !== undefined && value !== null && typeof value !== "function") {
      throw invalidArgument(`${what}.${key}`, "it is not a function");
    }
  }
  return callbacks;
}

/**
 * @internal A stream's or a run's own `AbortController` (its `free()` fires it) and the signal its
 * requests carry: the controller's, combined with the user's signal if there is one (the user's
 * signal itself is never fired).
 */
export function ownSignal(user: AbortSignal | null | undefined): { stop: AbortController; signal: AbortSignal } {
  if (user !== undefined && user !== null && !(user instanceof AbortSignal)) {
    throw invalidArgument("options.signal", "it is not an AbortSignal");
  }
  const stop = new AbortController();
  return { stop, signal: user === undefined || user === null ? stop.signal : AbortSignal.any([user, stop.signal]) };
}

/**
 * Runs `use` with `pattern` compiled: a string is compiled for the call and freed after it, a
 * `Pattern` is used as it is.
 *
 * @throws ProtocolError for an invalid pattern string (its code names the problem).
 */
export function withPattern<T>(pattern: string | Wasm.Pattern, use: (p: Wasm.Pattern) => T): T {
  if (typeof pattern !== "string") return use(pattern);
  const p = new (wasm().Pattern)(pattern);
  try {
    return use(p);
  } finally {
    p.free();
  }
}

/** Whether `init()` has completed. */
export function isInitialized(): boolean {
  return bound !== undefined;
}

/** Where the updates of one text or data delta belong. */
export interface DeltaTarget {
  /** The message id. */
  msgId: string;
  /** The content's `index` in the message. */
  index: number;
}

/**
 * Callbacks of `AgentClient.stream`, called as parts arrive, in stream order. All are optional.
 * No callback runs after the stream's `AbortSignal` fires. A callback that throws ends the stream:
 * the request is aborted and `response` rejects with what it threw. The tool callbacks (`onToolArguments`,
 * `onToolCall`, and with registered tools `onToolCheck`, `onToolResult`, `onToolRound`) are
 * `ToolStreamHandlers`'; with registered tools, the others fire for every round's response.
 */
export interface StreamHandlers extends ToolStreamHandlers {
  /** The response envelope changed (status, id, usage, error); `output` is empty here. */
  onResponse?(response: AgentResponse): void;
  /** A message appeared or changed (status, role): its envelope; contents arrive through `onContent` and the deltas. */
  onMessage?(message: Message): void;
  /** A content item started, was replaced or completed (the whole item). */
  onContent?(content: Content): void;
  /** Text appended to a text content (only the new text). */
  onTextDelta?(delta: string, target: DeltaTarget): void;
  /** A data delta merged into a data content (the delta as sent). */
  onDataDelta?(delta: JsonValue, target: DeltaTarget): void;
  /** A tolerated problem (malformed event skipped, mismatch): the stream goes on. */
  onWarning?(warning: ProtocolError): void;
  /**
   * The agent failed or the stream broke (called once, for the first error that ends the stream:
   * an `issue` of severity `error`, or the request's failure such as `http-status`).
   */
  onError?(error: ProtocolError): void;
  /** The response ended (any terminal status): the whole response. */
  onDone?(response: AgentResponse): void;
  /** Every update, in order. */
  onUpdate?(update: StreamUpdate): void;
  /** All updates of one network chunk, in one call (see `batch`). */
  onBatch?(updates: StreamUpdate[]): void;
}

/**
 * Options of one `AgentClient.stream` call: the decoder's `StreamOptions` (`batch`,
 * `maxEventSize`, `strict`, `limits`, `stallTimeoutMs`, `retainMessages`; `updates` is always on
 * here), and these.
 */
export interface StreamRequestOptions extends Omit<StreamOptions, "updates"> {
  /** Aborts the request; the stream then rejects with code `aborted`. */
  signal?: AbortSignal;
  /**
   * With registered tools: how many times the outcomes of tool calls may be sent back (each a new
   * request) before the stream fails with `tool-rounds-exceeded` (default 8). A non-negative
   * integer, checked with tools or without (`invalid-argument`).
   */
  maxToolRounds?: number;
}

/**
 * Options of `new AgentClient(options)`: the wasm client's `AgentClientConfig` (`baseUrl`,
 * `endpoint`, `headers`, `credentials`, `resume`), and these.
 */
export interface AgentClientOptions extends AgentClientConfig {
  /** A `fetch` to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Tools to share with other clients (default: a new, empty `ClientTools`). */
  tools?: ClientTools;
}

function issueError(u: Extract<StreamUpdate, { type: "issue" }>): ProtocolError {
  const details = u.details !== null && typeof u.details === "object" ? u.details : { value: u.details };
  return new ProtocolError(u.code, u.message, details);
}

/** Calls the handlers for one update. */
function dispatch(h: StreamHandlers, u: StreamUpdate): void {
  h.onUpdate?.(u);
  switch (u.type) {
    case "response":
      h.onResponse?.(u.response);
      break;
    case "message":
      h.onMessage?.(u.message);
      break;
    case "content":
      h.onContent?.(u.content);
      break;
    case "textDelta":
      h.onTextDelta?.(u.delta, { msgId: u.msgId, index: u.index });
      break;
    case "dataDelta":
      h.onDataDelta?.(u.delta, { msgId: u.msgId, index: u.index });
      break;
    case "issue":
      if (u.severity === "error") h.onError?.(issueError(u));
      else h.onWarning?.(issueError(u));
      break;
    case "done":
      h.onDone?.(u.response);
      break;
  }
}

/** What changed about a watched part (see `AgentStream.onPart`). */
export type PartChange =
  /** The part appeared, was replaced or completed: `part` is its whole current state. */
  | { type: "part"; msgId: string; index: number }
  /** Text was appended to the part: `delta` is the new text (already in `part.content`). */
  | { type: "delta"; msgId: string; index: number; delta: string }
  /** A data delta was merged into a `data` content behind the part (the delta as sent). */
  | { type: "dataDelta"; msgId: string; index: number; delta: JsonValue };

/** A body-schema violation found while a stream's messages arrive: which message, and what. */
export type StreamViolation = Violation & {
  /** The id of the message the violation is about. */
  msgId: string;
};

/** Options of `AgentStream.validateWith`. */
export interface ValidateWithOptions {
  /**
   * The message types checked (Agent API `message.type`); default `["message"]`: the agent's
   * answers, not its reasoning or tool calls. `null` checks every message.
   */
  messageTypes?: string[] | null;
}

interface SchemaCheck {
  schema: Wasm.BodySchema;
  fn: (violation: StreamViolation) => void;
  types: Set<string> | null;
  /** Per message: its watch and the content indexes already started. */
  messages: Map<string, { watch: Wasm.SchemaWatch; started: Set<number>; finished: boolean }>;
  /** Stops the check (what `validateWith` returns); `stopped` once it ran. */
  stop: () => void;
  stopped: boolean;
}

interface PartWatch {
  pattern: Wasm.Pattern;
  fn: (part: Part, change: PartChange) => void;
  /** Parts that matched, by message id, then content index: their last known state, to which deltas are appended. */
  parts: Map<string, Map<number, Part>>;
  /** Stops the watch (what `onPart` returns); `stopped` once it ran. */
  stop: () => void;
  stopped: boolean;
}

/**
 * One streaming response: handlers fire as parts arrive; it is also an async iterator of the
 * updates (from the moment the iterator is created: create it before awaiting anything; one
 * created after the end finishes at once, or throws the stream's error), and
 * `response` resolves with the assembled response (or rejects with a `ProtocolError`: once the
 * server's event stream has begun, its `details.response` keeps everything received). While it
 * streams, `body(msgId)` and `list(pattern)` query what has arrived, and `onPart(pattern, fn)`
 * watches named parts.
 */
export class AgentStream implements AsyncIterable<StreamUpdate> {
  /**
   * The assembled response, once the stream has ended: the object `onDone` (the `done` update)
   * received, unless updates followed it (lenient mode applies events after the end).
   */
  readonly response: Promise<AgentResponse>;
  #updates = new Fanout<StreamUpdate>();
  #handle: Wasm.AgentStreamHandle;
  #watches: PartWatch[] = [];
  #checks: SchemaCheck[] = [];
  #messageTypes = new Map<string, { type: string; status: string | null }>();
  #stop: AbortController;
  #retain: boolean;
  #freed = false;

  /**
   * @internal `stop` aborts the stream's requests (its signal is in every request's); `free()`
   * fires it. `retainMessages`: as the stream's option; `false` lets the watches forget a message
   * once it ends, as the assembler does.
   */
  constructor(
    start: (toQueues: (updates: StreamUpdate[], handle: () => boolean) => void) => Wasm.AgentStreamHandle,
    stop: AbortController,
    retainMessages = true,
  ) {
    this.#stop = stop;
    this.#retain = retainMessages;
    this.#handle = start((updates, handle) => this.#updates.deliver(updates, handle));
    this.response = this.failures.wrap(this.#handle.response);
    // The stream's own outcome ends the iterators (and is handled: a caller that never awaits
    // `response` gets no unhandled rejection).
    this.#updates.follow(this.response);
    // Nothing more arrives after the end: release the schema watches (the checks stay, finished).
    const release = (): void => {
      for (const c of this.#checks) for (const m of c.messages.values()) m.watch.free();
      for (const c of this.#checks) c.messages.clear();
    };
    this.response.then(release, release);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamUpdate> {
    return this.#updates.iterator();
  }

  /**
   * Releases the stream's wasm memory now (the assembled response and decoder state; queries such
   * as `body()` no longer work after it). Without it, the memory is released when the stream
   * object is garbage collected, which V8 schedules by JavaScript heap pressure, not wasm memory:
   * apps that open many streams should free them (or use `using stream = client.stream(…)`).
   * A stream still under way is aborted first, as by its `AbortSignal`: the request is closed, no
   * handler runs after it, and `response` rejects with `aborted`. Calling it again does nothing.
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#stop.abort();
    for (const w of this.#watches) w.stop();
    for (const c of this.#checks) c.stop();
    this.#handle.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }

  /** The response as assembled so far. */
  snapshot(): AgentResponse {
    return this.#handle.snapshot();
  }

  /** The body of message `msgId` as it is now (parts grow while they stream), or `null`. */
  body(msgId: string): Body | null {
    return this.#handle.body(msgId) ?? null;
  }

  /**
   * Named parts whose names match `pattern` (a glob: `*` within a segment, `**` across segments,
   * `{a,b}`, `?`, `[…]`), across the response's messages, in order — as they are now.
   *
   * @throws ProtocolError for an invalid pattern (its code names the problem).
   */
  list(pattern: string | Wasm.Pattern): NamedPart[] {
    return withPattern(pattern, (p) => this.#handle.list(p));
  }

  /**
   * Calls `fn` whenever a named part matching `pattern` appears, grows or completes, from now on:
   * `stream.onPart("/sources/*", (part) => render(part))`. Returns a function that stops watching
   * (and frees the pattern compiled from a string); calling it again does nothing.
   *
   * @throws ProtocolError for an invalid pattern; `object-freed` after `free()`.
   */
  onPart(pattern: string | Wasm.Pattern, fn: (part: Part, change: PartChange) => void): () => void {
    if (this.#freed) throw objectFreed();
    if (typeof fn !== "function") throw invalidArgument("fn", "it is not a function");
    const owned = typeof pattern === "string";
    const compiled = owned ? new (wasm().Pattern)(pattern) : pattern;
    const watch: PartWatch = {
      pattern: compiled,
      fn,
      parts: new Map(),
      stopped: false,
      stop: () => {
        if (watch.stopped) return;
        watch.stopped = true;
        this.#watches = this.#watches.filter((w) => w !== watch);
        watch.parts.clear();
        if (owned) compiled.free();
      },
    };
    this.#watches.push(watch);
    return watch.stop;
  }

  /**
   * Checks the stream's messages against a body schema (a `BodySchema` or its JSON) as they
   * arrive: a part that can match no schema part is reported as soon as it starts (its name and
   * content type known), and the `required` schema parts a message lacks when it reaches a
   * terminal status (`completed`, `failed`, …). By default only messages of type `message` are
   * checked (see `options.messageTypes`). Only parts that start from now on are seen. Returns a
   * function that stops checking (a violation already found for the same update is not reported
   * after it).
   *
   * ```ts
   * stream.validateWith(BodySchema.builtin("researcher"), (v) => console.warn(v.msgId, v.code, v.message));
   * ```
   *
   * @throws ProtocolError `invalid-schema` for schema JSON that is not a schema;
   *   `invalid-argument` when `onViolation` is not a function; `object-freed` after `free()`.
   */
  validateWith(
    schema: Wasm.BodySchema | BodySchemaJson,
    onViolation: (violation: StreamViolation) => void,
    options: ValidateWithOptions = {},
  ): () => void {
    if (this.#freed) throw objectFreed();
    if (typeof onViolation !== "function") throw invalidArgument("onViolation", "it is not a function");
    options ??= {}; // null: none
    const w = wasm();
    const owned = !(schema instanceof w.BodySchema); // compiled here from JSON: freed by stop()
    const compiled = schema instanceof w.BodySchema ? schema : new w.BodySchema(schema);
    const types = options.messageTypes === null ? null : new Set(options.messageTypes ?? ["message"]);
    const check: SchemaCheck = {
      schema: compiled,
      fn: onViolation,
      types,
      messages: new Map(),
      stopped: false,
      stop: () => {
        if (check.stopped) return;
        check.stopped = true;
        this.#checks = this.#checks.filter((c) => c !== check);
        for (const m of check.messages.values()) m.watch.free();
        check.messages.clear();
        if (owned) compiled.free();
      },
    };
    this.#checks.push(check);
    return check.stop;
  }

  /** @internal How the stream's failure reaches `onError` (what it throws rejects `response`). */
  readonly failures = new FailureReport();

  /** @internal Feeds an update to the part watches and schema checks (called in stream order). */
  watchUpdate(u: StreamUpdate): void {
    if (u.type === "message") {
      const m = u.message;
      if (m.id) this.#messageTypes.set(m.id, { type: m.type ?? "message", status: m.status ?? null });
    }
    if (this.#watches.length > 0 || this.#checks.length > 0) this.#watchUpdate(u);
    // With `retainMessages: false` the assembler releases a message when it ends and skips what
    // comes for it later: nothing more is needed of it here either.
    if (!this.#retain && u.type === "message" && u.message.id && TERMINAL_STATUSES.has(u.message.status ?? "")) {
      this.#forget(u.message.id);
    }
  }

  #watchUpdate(u: StreamUpdate): void {
    switch (u.type) {
      case "content":
        this.#contentStarted(u.msgId, u.content);
        break;
      case "message":
        if (u.message.id) {
          for (const c of u.message.content ?? []) this.#contentStarted(u.message.id, c);
          if (u.message.status && TERMINAL_STATUSES.has(u.message.status)) this.#messageEnded(u.message.id);
        }
        break;
      case "textDelta":
        for (const w of this.#watches) {
          const part = w.stopped ? undefined : w.parts.get(u.msgId)?.get(u.index);
          if (part === undefined) continue;
          part.content = (part.content ?? "") + u.delta;
          w.fn(part, { type: "delta", msgId: u.msgId, index: u.index, delta: u.delta });
        }
        break;
      case "dataDelta":
        for (const w of this.#watches) {
          const part = w.stopped ? undefined : w.parts.get(u.msgId)?.get(u.index);
          if (part === undefined) continue;
          const d = u.delta;
          const args = d !== null && typeof d === "object" && !Array.isArray(d) ? d.arguments : undefined;
          if (part.type === "tool_call" && typeof args === "string") {
            // A tool call's part content is its arguments text, which streams as data deltas.
            part.content = (part.content ?? "") + args;
            w.fn(part, { type: "delta", msgId: u.msgId, index: u.index, delta: args });
          } else {
            w.fn(part, { type: "dataDelta", msgId: u.msgId, index: u.index, delta: d });
          }
        }
        break;
    }
  }

  /** Drops what the watches and checks keep of message `msgId` (it ended and was released). */
  #forget(msgId: string): void {
    this.#messageTypes.delete(msgId);
    for (const w of this.#watches) w.parts.delete(msgId);
    for (const c of this.#checks) {
      c.messages.get(msgId)?.watch.free();
      c.messages.delete(msgId);
    }
  }

  #contentStarted(msgId: string, content: Content): void {
    const m = this.#messageTypes.get(msgId);
    const part = wasm().agentContentToPart(content, m?.type ?? "message", m?.status ?? undefined);
    if (this.#watches.length > 0) this.#watchContent(msgId, content, part);
    const index = content.index ?? 0;
    for (const check of this.#checks) {
      const entry = this.#checkEntry(check, msgId);
      if (entry === undefined || entry.started.has(index)) continue;
      entry.started.add(index);
      const v = entry.watch.partStarted(index, part.name ?? null, part.contentType ?? "text/plain");
      if (v) check.fn({ ...v, msgId });
    }
  }

  /**
   * The schema check's state for message `msgId`, or `undefined` when its type is not checked or
   * the check was stopped (by an earlier callback of the same update).
   */
  #checkEntry(check: SchemaCheck, msgId: string) {
    if (check.stopped) return undefined;
    let entry = check.messages.get(msgId);
    if (entry === undefined) {
      const type = this.#messageTypes.get(msgId)?.type ?? "message";
      if (check.types !== null && !check.types.has(type)) return undefined;
      entry = { watch: check.schema.watch(), started: new Set(), finished: false };
      check.messages.set(msgId, entry);
    }
    return entry;
  }

  #messageEnded(msgId: string): void {
    for (const check of this.#checks) {
      const entry = this.#checkEntry(check, msgId);
      if (entry === undefined || entry.finished) continue;
      entry.finished = true;
      for (const v of entry.watch.finish()) {
        if (check.stopped) break;
        check.fn({ ...v, msgId });
      }
    }
  }

  #watchContent(msgId: string, content: Content, part: Part): void {
    if (!part.name) return;
    const index = content.index ?? 0;
    for (const w of this.#watches) {
      if (w.stopped || !w.pattern.isMatch(part.name)) continue;
      const own = { ...part };
      let parts = w.parts.get(msgId);
      if (parts === undefined) w.parts.set(msgId, (parts = new Map()));
      parts.set(index, own);
      w.fn(own, { type: "part", msgId, index });
    }
  }
}

/**
 * An Agent API client: POSTs requests to `baseUrl + endpoint` with `fetch` and streams the
 * `text/event-stream` response through the wasm decoder and assembler.
 *
 * ```ts
 * const client = new AgentClient({ baseUrl: "http://127.0.0.1:8787" });
 * const stream = client.stream(request, { onTextDelta: (t) => (out.textContent += t) });
 * const response = await stream.response;
 * ```
 */
export class AgentClient {
  readonly #inner: Wasm.AgentClient;
  #freed = false;
  /**
   * The tools this client runs for the agent: `client.tools.register(name, parameters, fn,
   * { description })`. When any is registered, `stream` offers them in the request's `tools`,
   * runs the agent's calls of them and sends the outcomes back (see `stream`).
   */
  readonly tools: ClientTools;

  /**
   * @throws ProtocolError `invalid-argument` if the options have the wrong shape,
   *   `not-initialized` before `init()`.
   */
  constructor(options: AgentClientOptions) {
    this.#inner = new (wasm().AgentClient)(options);
    this.tools = toolsOption(options.tools);
  }

  /** The URL requests go to. */
  get url(): string {
    return this.#inner.url;
  }

  /**
   * POSTs `request` and streams the response. Tool calls' arguments are reported as they stream
   * (`onToolArguments`).
   *
   * With registered tools (`client.tools`), this is the client-side tool loop: the request offers
   * them (`tools`), and when a completed response has `function_call`s that nothing in it answers,
   * each is checked against its tool's schema and run (a `VALIDATION` error the model can correct
   * itself from, or the function's result, or an `EXECUTION` error if it throws), and the outcomes
   * go back as `function_call_output` messages in a **new request** holding the conversation so
   * far (the input, the response's output, the outputs): a new POST, not a resend. Its response
   * streams into the same handlers and iterator, and so on, at most `maxToolRounds` times;
   * `response` resolves with the last response.
   *
   * @throws ProtocolError synchronously for an invalid request (`invalid-argument`,
   *   `parameter-out-of-range`) or a handler that is not a function (`invalid-argument`,
   *   `details.what` `handlers.onTextDelta`, …; `null` handlers or options are none), or
   *   `retainMessages: false` with tools registered (`invalid-argument`: the tool loop's next
   *   request holds the response's messages); the
   *   stream's `response` rejects with `http-status`, `not-event-stream`, `network-error`,
   *   `stream-incomplete`, `stalled` (no byte for `stallTimeoutMs`), `aborted` or, in the tool
   *   loop, `tool-rounds-exceeded` (with `details.pending` and `details.response`).
   */
  stream(request: AgentRequest, handlers: StreamHandlers | null = {}, userOptions: StreamRequestOptions | null = {}): AgentStream {
    handlers = checkCallbacks(handlers, "handlers");
    userOptions = checkCallbacks(userOptions, "options");
    const tools = this.tools;
    if (tools.size > 0 && userOptions.retainMessages === false) {
      throw invalidArgument(
        "options.retainMessages",
        "the tool loop sends the response's messages back in its next request: keep them (leave retainMessages on) while tools are registered",
      );
    }
    // Checked whether or not tools are registered, as AgentX's chat does: a wrong value is wrong
    // before the first tool is registered too.
    maxToolRounds(userOptions.maxToolRounds);
    const { stop, signal } = ownSignal(userOptions.signal);
    // `updates` is always on here (handlers, iterators, watches and the tool loop run on them): a
    // JavaScript caller's `updates: false` silenced every handler while `response` resolved.
    const options = { ...userOptions, signal, updates: true };
    const inner = this.#inner;
    const stream: AgentStream = new AgentStream((toQueues) => {
      // One response (one POST): the tool loop opens one per round.
      const open = (r: AgentRequest): Wasm.AgentStreamHandle => {
        let errored = false;
        const tracker = new ToolCallTracker(handlers, userOptions.retainMessages !== false);
        const sink = (updates: StreamUpdate[]): void =>
          toQueues(updates, () => {
            if (signal.aborted) return false;
            handlers.onBatch?.(updates);
            for (const u of updates) {
              if (signal.aborted) return false; // a handler aborted: nothing more runs
              if (u.type === "issue" && u.severity === "error") errored = true;
              dispatch(handlers, u);
              tracker.update(u);
              stream.watchUpdate(u);
            }
            return true;
          });
        const handle = inner.stream(r, sink, options);
        handle.response.catch((e: unknown) => {
          tracker.close();
          // One onError per failure: a broken stream already reported itself as an issue update;
          // a user's abort calls no handler at all.
          if (!errored && !signal.aborted && e instanceof ProtocolError) stream.failures.report(handlers.onError, e);
        });
        return handle;
      };
      return tools.size > 0 ? agentToolLoop(open, tools, request, handlers, options) : open(request);
    }, stop, userOptions.retainMessages !== false);
    return stream;
  }

  /**
   * Releases the wasm memory of this client now (it is also released when garbage collected).
   * Free it once its streams have ended: a response under way goes on, but a tool loop's next
   * request needs the client. Calling it again does nothing.
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#inner.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
