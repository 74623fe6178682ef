// Tools on the JavaScript side: following a growing JSON value by its changes, the functions a
// client runs for the agent (`client.tools`), streamed tool-call arguments in Agent API streams,
// and the client-side tool loop. Parsing, validation and building the next request are the wasm
// module's (src/tool, src/wasm/tools.rs); this layer runs the functions and dispatches.
import type * as Wasm from "./agentwire.js";
import type {
  AgentRequest,
  AgentResponse,
  CheckedToolCall,
  Content,
  FunctionCall,
  JsonValue,
  NamedPart,
  PartialChange,
  SchemaWarning,
  StreamUpdate,
  ToolDefinition,
  ToolError,
  ToolOutcome,
} from "./agentwire.js";
import { built, wasm } from "./api.js";
import { ProtocolError, invalidArgument } from "./errors.js";

/** How many times a stream sends tool outcomes back (new requests) before giving up, by default. */
export const DEFAULT_MAX_TOOL_ROUNDS = 8;

type JsonObject = { [key: string]: JsonValue };

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function misfit(change: PartialChange | undefined, reason: string): ProtocolError {
  return invalidArgument("changes", reason, { path: change?.path ?? null });
}

/** Sets an own data property (a key such as `"__proto__"` stays data, as with `JSON.parse`). */
function setOwn(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The text of what a tool threw (or its result's `toJSON`): an `Error`'s `message` (when it is a
 * string), else `String(e)`; whatever the value (a `message` getter that throws, an object without `toString`), a string.
 */
function thrownMessage(e: unknown): string {
  try {
    if (e instanceof Error && typeof e.message === "string") return e.message;
    return String(e);
  } catch {
    try {
      return Object.prototype.toString.call(e);
    } catch {
      return "the tool threw a value that cannot be shown";
    }
  }
}

/**
 * A copy of a JSON value that shares no object or array with it (keys such as `__proto__` stay own
 * data, as with `JSON.parse`): what a `set` change puts into the value it is applied to, so that
 * two values that follow the same changes (a caller's copy and the stream's own) never share an
 * object an `append` would then change twice.
 */
function copyJson(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(copyJson);
  if (!isObject(v)) return v;
  const copy: JsonObject = {};
  for (const key of Object.keys(v)) setOwn(copy, key, copyJson(v[key] as JsonValue));
  return copy;
}

/** Whether `seg` can index an array: an integer from 0 (what `PartialJson`'s paths hold). */
function isIndex(seg: unknown): seg is number {
  return typeof seg === "number" && Number.isInteger(seg) && seg >= 0;
}

function child(parent: JsonValue | undefined, seg: string | number): JsonValue | undefined {
  if (Array.isArray(parent) && isIndex(seg)) return parent[seg];
  if (isObject(parent) && typeof seg === "string") return Object.hasOwn(parent, seg) ? parent[seg] : undefined;
  return undefined;
}

/**
 * Applies changes (from `PartialJson.push`, `ToolArguments.push`, or `onToolArguments`) to a copy
 * of the value, in place, and returns the copy's root (a new root when the changes set it: pass
 * `undefined` before the first change). Applied in order to a copy that followed every earlier
 * change, they reproduce the parser's value exactly; each costs the depth of its path plus the
 * size of what it adds, so a UI follows a growing value without it being re-sent. A `set` puts a
 * copy of its value in place, so the changes and every value they are applied to share nothing.
 *
 * ```ts
 * let args: JsonValue | undefined;
 * for (const delta of deltas) args = applyPartialChanges(args, parser.push(delta));
 * ```
 *
 * @throws ProtocolError `invalid-argument` for a change that does not fit (a path that does not
 *   exist, an index past the end, an append to something not a string) or is not a change (no
 *   `path` array, an `op` other than `set` and `append`); the changes before it are applied.
 *   `changes` not an array throws it before anything is applied.
 */
export function applyPartialChanges(
  target: JsonValue | undefined,
  changes: readonly PartialChange[],
): JsonValue | undefined {
  if (!Array.isArray(changes)) throw misfit(undefined, "it is not an array of changes");
  let root = target;
  for (const change of changes) {
    const c: unknown = change; // checked as what JavaScript may pass, not as the type says
    if (!isObject(c) || !Array.isArray(c.path) || (c.op !== "set" && c.op !== "append")) {
      throw misfit(undefined, "an element that is not a change ({op: \"set\" | \"append\", path, value})");
    }
    const path = change.path;
    if (path.length === 0) {
      if (change.op === "set") root = copyJson(change.value);
      else if (typeof root === "string") root = root + change.value;
      else throw misfit(change, "an append to a value that is not a string");
      continue;
    }
    let parent: JsonValue | undefined = root;
    for (let i = 0; i < path.length - 1; i++) parent = child(parent, path[i] as string | number);
    const last = path[path.length - 1] as string | number;
    if (Array.isArray(parent) && isIndex(last)) {
      if (change.op === "set") {
        if (last > parent.length) throw misfit(change, "an index past the end of an array");
        parent[last] = copyJson(change.value);
      } else {
        const s = parent[last];
        if (typeof s !== "string") throw misfit(change, "an append to a value that is not a string");
        parent[last] = s + change.value;
      }
    } else if (isObject(parent) && typeof last === "string") {
      // An own data property is assigned (the faster way); only a new key is defined, so that
      // a key such as "__proto__" becomes data, as with `JSON.parse`.
      const own = Object.hasOwn(parent, last);
      if (change.op === "set") {
        if (own) parent[last] = copyJson(change.value);
        else setOwn(parent, last, copyJson(change.value));
      } else {
        const s = own ? parent[last] : undefined;
        if (typeof s !== "string") throw misfit(change, "an append to a value that is not a string");
        parent[last] = s + change.value;
      }
    } else {
      throw misfit(change, "a path that does not exist");
    }
  }
  return root;
}

/** What a tool function receives besides its arguments. */
export interface ToolCallContext {
  /** The call's id (Agent API `call_id`, AgentX `tool_call_id`). */
  callId: string;
  /** The tool's name. */
  toolName: string;
  /**
   * Fires when the Agent API stream or AgentX chat that runs the tool is aborted (by its
   * `AbortSignal` or its `free()`): a long-running tool should stop then. The stream or chat
   * does not wait for a tool that ignores it: it rejects with `aborted` at once, and what the
   * tool returns later is dropped. Both always pass one; it is absent only when
   * `ClientTools.run` is called without a signal.
   */
  signal?: AbortSignal;
}

/**
 * A tool's implementation: called with the validated arguments (a JSON object); returns (or
 * resolves with) the result, any JSON-serializable value (`undefined` is sent as `null`) nested at
 * most `MAX_RESULT_DEPTH` (100) levels of arrays and objects. Throwing (or rejecting) sends an
 * `EXECUTION` tool error with the exception's message; so does a result JSON cannot hold or one
 * nested deeper.
 *
 * `Args` is the arguments' type as the tool's schema describes them (`{ timezone: string }`): the
 * arguments reach the function only once they pass that schema, which is what makes the type
 * hold (nothing checks that the type and the schema agree).
 */
export type ToolFunction<Args extends object = { [key: string]: JsonValue }> = (args: Args, context: ToolCallContext) => unknown;

/** Options of `ClientTools.register`. */
export interface ToolOptions {
  /** What the tool does and when to call it (the model reads this). */
  description?: string;
}

/**
 * Callbacks of the client-side tool loop (Agent API and AgentX; `Request` is the dialect's request
 * type). All are optional.
 */
export interface ToolLoopHandlers<Request = AgentRequest> {
  /**
   * A pending call was checked against its tool's schema: `call.error` is set (a `VALIDATION`
   * error, sent back instead of running the tool) or `call.arguments` holds the valid arguments
   * (the tool runs next).
   */
  onToolCheck?(call: CheckedToolCall): void;
  /** A call's outcome (the tool's result, or its `VALIDATION` / `EXECUTION` error), as sent back. */
  onToolResult?(outcome: ToolOutcome): void;
  /**
   * The outcomes go back to the agent in a new request (round `round`, counting from 1): a new
   * POST holding the whole conversation so far, not a resend of the first one.
   */
  onToolRound?(round: number, request: Request): void;
}

/**
 * @internal The `tools` option of a client: the `ClientTools` given, or a new one.
 *
 * @throws ProtocolError `invalid-argument` (`details.what` = `options.tools`) for anything else.
 */
export function toolsOption(tools: ClientTools | null | undefined): ClientTools {
  if (tools === undefined || tools === null) return new ClientTools();
  if (!(tools instanceof ClientTools)) throw invalidArgument("options.tools", "it is not a ClientTools");
  return tools;
}

/**
 * The tools a client runs for the agent: a `ToolRegistry` (definitions, schemas compiled once) and
 * the functions. `client.tools.register(name, parameters, fn, { description })`; the client sends
 * the definitions with every request and answers the agent's calls (see the README's "Tools").
 */
export class ClientTools {
  // Created on first use: a client that registers no tool never needs the `tools` feature.
  #registry: Wasm.ToolRegistry | undefined;
  readonly #fns = new Map<string, ToolFunction>();

  /** @throws ProtocolError `not-initialized` before `init()`. */
  constructor() {
    wasm();
  }

  /**
   * Registers (or replaces) a tool. `parameters` is a JSON Schema of its arguments (the supported
   * subset is the Rust `tool` module's); returns the schema's warnings (keywords not checked).
   *
   * @throws ProtocolError `invalid-schema` (and the other schema codes, with `details.pointer`) or
   *   `invalid-argument` when `fn` is not a function; nothing is registered then.
   */
  register<Args extends object = { [key: string]: JsonValue }>(
    name: string,
    parameters: JsonValue,
    fn: ToolFunction<Args>,
    options: ToolOptions | null = {},
  ): SchemaWarning[] {
    options ??= {}; // null: none
    if (typeof fn !== "function") {
      throw invalidArgument("fn", "it is not a function");
    }
    const warnings = this.registry.register({ name, description: options.description ?? "", parameters });
    // The schema checks the arguments before the function sees them (see ToolFunction).
    this.#fns.set(name, fn as ToolFunction);
    return warnings;
  }

  /** Removes a tool; says whether it was registered. */
  unregister(name: string): boolean {
    this.#fns.delete(name);
    return this.#registry?.remove(name) ?? false;
  }

  /** Whether a tool of this name is registered. */
  has(name: string): boolean {
    return this.#fns.has(name);
  }

  /** How many tools are registered. */
  get size(): number {
    return this.#fns.size;
  }

  /** The definitions, sorted by name (what is sent to the agent). */
  definitions(): ToolDefinition[] {
    return this.#registry?.definitions() ?? [];
  }

  /**
   * The registry (validation: `validateArguments`, `validateArgumentsText`).
   *
   * @throws ProtocolError `feature-not-built` in a build without the `tools` feature.
   */
  get registry(): Wasm.ToolRegistry {
    this.#registry ??= new (wasm().ToolRegistry)();
    return this.#registry;
  }

  /** Releases the registry's wasm memory now (it is also released when garbage collected). */
  free(): void {
    this.#fns.clear();
    this.#registry?.free();
    this.#registry = undefined;
  }

  [Symbol.dispose](): void {
    this.free();
  }

  /**
   * Runs checked calls one after the other, in order: a call with an `error` is not run (its
   * error is its outcome); otherwise the tool's function runs with the arguments. Calls
   * `onToolCheck` before and `onToolResult` after each.
   *
   * @throws ProtocolError `aborted` when `signal` fires, a handler's abort included (no handler
   *   and no tool runs after it, and no outcome is returned).
   */
  async run(
    calls: readonly CheckedToolCall[],
    handlers: Pick<ToolLoopHandlers<unknown>, "onToolCheck" | "onToolResult"> = {},
    signal?: AbortSignal,
  ): Promise<ToolOutcome[]> {
    const outcomes: ToolOutcome[] = [];
    for (const call of calls) {
      if (signal?.aborted) throw aborted();
      handlers.onToolCheck?.(call);
      if (signal?.aborted) throw aborted(); // `onToolCheck` aborted: the tool does not run
      const running = this.#runOne(call, signal);
      // A tool that ignores `ctx.signal` may never settle: the abort does not wait for it.
      const outcome = await (signal === undefined ? running : untilAborted(running, signal));
      handlers.onToolResult?.(outcome);
      outcomes.push(outcome);
    }
    // `onToolResult` aborted: no round is sent.
    if (signal?.aborted) throw aborted();
    return outcomes;
  }

  async #runOne(call: CheckedToolCall, signal: AbortSignal | undefined): Promise<ToolOutcome> {
    const { callId, toolName } = call;
    const fail = (error: ToolError): ToolOutcome => ({ type: "error", callId, toolName, error });
    if (call.error) return fail(call.error);
    const fn = this.#fns.get(toolName);
    if (fn === undefined || !isObject(call.arguments)) {
      // Checked calls of registered tools always have object arguments.
      return fail(wasm().toolExecutionError(toolName, "the tool is not registered"));
    }
    let result: unknown;
    try {
      const context: ToolCallContext = signal === undefined ? { callId, toolName } : { callId, toolName, signal };
      result = await fn(call.arguments, context);
    } catch (e) {
      return fail(wasm().toolExecutionError(toolName, thrownMessage(e)));
    }
    let value: JsonValue;
    try {
      const text = JSON.stringify(result ?? null) as string | undefined;
      value = text === undefined ? null : (JSON.parse(text) as JsonValue);
    } catch (e) {
      // What a `toJSON` of the result threw: any value, as what the tool itself throws.
      return fail(wasm().toolExecutionError(toolName, `its result cannot be converted to JSON (${thrownMessage(e)})`));
    }
    if (nestsDeeper(value, MAX_RESULT_DEPTH)) {
      // The request carrying it back could not be read (the module reads 127 levels, the
      // request's own among them): the call is answered with an error, the loop goes on.
      return fail(wasm().toolExecutionError(toolName, `its result nests more than ${MAX_RESULT_DEPTH} levels of arrays and objects`));
    }
    return { type: "result", callId, toolName, value };
  }
}

/**
 * The most levels of arrays and objects a tool's result may nest (`[[1]]` is 2). A deeper result
 * is answered with an `EXECUTION` error: the request that carries it back is read by the module,
 * which reads at most 127 levels, the request's own around the result among them.
 */
export const MAX_RESULT_DEPTH = 100;

/** Whether `value` nests more than `limit` levels of arrays and objects (read level by level). */
function nestsDeeper(value: JsonValue, limit: number): boolean {
  let level: JsonValue[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: JsonValue[] = [];
    for (const v of level) {
      if (v === null || typeof v !== "object") continue;
      if (depth >= limit) return true;
      for (const member of Array.isArray(v) ? v : Object.values(v)) next.push(member);
    }
    level = next;
  }
  return false;
}

/** `work`'s outcome, or an `aborted` rejection as soon as `signal` fires (whichever comes first). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(aborted());
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = (): void => signal.removeEventListener("abort", onAbort);
    work.then(
      (value) => {
        settle();
        if (signal.aborted) onAbort();
        else resolve(value);
      },
      (e: unknown) => {
        settle();
        reject(e);
      },
    );
  });
}

function aborted(details: { [key: string]: unknown } = {}): ProtocolError {
  return new ProtocolError("aborted", "the request was aborted", details);
}

/**
 * @internal `options.maxToolRounds`, checked: a non-negative integer (default
 * `DEFAULT_MAX_TOOL_ROUNDS`).
 */
export function maxToolRounds(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_TOOL_ROUNDS;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    const reason = "it is not a non-negative integer";
    throw invalidArgument("options.maxToolRounds", reason);
  }
  return value;
}

/** The error of a loop that reached `maxToolRounds` with calls still pending. */
export function roundsExceeded(max: number, pending: CheckedToolCall[], details: { [key: string]: unknown }): ProtocolError {
  const names = pending.map((c) => c.toolName).join(", ");
  return new ProtocolError(
    "tool-rounds-exceeded",
    `the agent still called tools (${names}) after ${max} tool rounds (maxToolRounds)`,
    { maxToolRounds: max, pending, ...details },
  );
}

/** A tool call of an Agent API stream, while its arguments stream and after. */
export interface StreamingToolCall {
  /** The call's `call_id` (`""` until the call's data carries it). */
  callId: string;
  /** The function's name (`""` until the call's data carries it). */
  name: string;
  /** The `function_call` message's id. */
  msgId: string;
  /** The data content's `index` in that message. */
  index: number;
  /** The `arguments` text so far. */
  argumentsText: string;
  /**
   * The best-effort arguments so far (`{"path": "/hel"}` while the string is still open), one
   * object updated in place after every delta; `undefined` until something shows.
   */
  arguments: JsonValue | undefined;
  /** Whether the call is complete (its content or message completed). */
  complete: boolean;
}

/** Callbacks for tool calls in Agent API streams (any stream, with or without registered tools). */
export interface ToolStreamHandlers extends ToolLoopHandlers<AgentRequest> {
  /**
   * A `function_call` content appeared: its arguments start streaming (`call.callId` and
   * `call.name` may still be `""`: they arrive with the call's first data).
   */
  onToolCallStart?(call: StreamingToolCall): void;
  /**
   * After every delta of a call's arguments: `value` is the best-effort partial arguments
   * (`call.arguments`), `changes` what the delta changed in it (appends carry only the new text).
   * Total work is linear in the argument length.
   */
  onToolArguments?(callId: string, value: JsonValue | undefined, changes: PartialChange[], call: StreamingToolCall): void;
  /**
   * A call is complete: its id, name and whole arguments text (not yet validated). Once per call:
   * when its content or its `function_call` message completes, or else when the response
   * completes (with the call as the response has it: what the tool loop runs).
   */
  onToolCall?(call: FunctionCall, state: StreamingToolCall): void;
  /** A call's arguments stopped being JSON (no more `onToolArguments` for it). */
  onWarning?(warning: ProtocolError): void;
}

/** @internal The Agent API statuses after which a message receives nothing more. */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "canceled", "rejected", "incomplete"]);

interface TrackedCall {
  state: StreamingToolCall;
  args: Wasm.ToolArguments | undefined;
}

/**
 * @internal Follows the `function_call` messages of one Agent API response and reports their
 * arguments as they stream (the parsing lives in wasm: one `ToolArguments` per open call).
 */
export class ToolCallTracker {
  readonly #handlers: ToolStreamHandlers;
  readonly #retain: boolean;
  readonly #types = new Map<string, string>();
  /** The calls, by message id, then content index. */
  readonly #calls = new Map<string, Map<number, TrackedCall>>();

  /**
   * `retainMessages`: as the stream's option; `false` forgets a message once it ends, as the
   * assembler does (which then skips what comes for it).
   */
  constructor(handlers: ToolStreamHandlers, retainMessages = true) {
    this.#handlers = handlers;
    this.#retain = retainMessages;
  }

  /** Feeds one update, in stream order. */
  update(u: StreamUpdate): void {
    switch (u.type) {
      case "message": {
        const m = u.message;
        if (!m.id) return;
        this.#types.set(m.id, m.type ?? "message");
        // A message update is an envelope (its contents arrive as content updates): a completed
        // `function_call` message completes the calls it opened that no content event completed.
        if (m.type === "function_call" && m.status === "completed") {
          for (const c of this.#calls.get(m.id)?.values() ?? []) this.#complete(c);
        }
        if (!this.#retain && m.status && TERMINAL_STATUSES.has(m.status)) {
          for (const c of this.#calls.get(m.id)?.values() ?? []) c.args?.free();
          this.#calls.delete(m.id);
          this.#types.delete(m.id);
        }
        break;
      }
      case "content":
        if (this.#types.get(u.msgId) === "function_call") {
          this.#content(u.msgId, u.content, u.content.status === "completed");
        }
        break;
      case "dataDelta":
        if (this.#types.get(u.msgId) === "function_call") this.#delta(u.msgId, u.index, u.delta);
        break;
      case "done":
        // A completed response's calls are complete, whatever their content and message said:
        // the tool loop runs them. Each one not reported yet is, as the response has it (the
        // text the loop validates), once.
        if (u.response.status === "completed") {
          for (const m of u.response.output ?? []) {
            if (m.type !== "function_call" || !m.id) continue;
            for (const content of m.content ?? []) {
              if (isObject(content.data)) this.#content(m.id, content, true);
            }
          }
        }
        this.close();
        break;
    }
  }

  /** Releases the wasm parsers of calls still open. */
  close(): void {
    for (const calls of this.#calls.values()) {
      for (const c of calls.values()) {
        c.args?.free();
        c.args = undefined;
      }
    }
  }

  #call(msgId: string, index: number): TrackedCall {
    let calls = this.#calls.get(msgId);
    if (calls === undefined) this.#calls.set(msgId, (calls = new Map()));
    let c = calls.get(index);
    if (c === undefined) {
      const state: StreamingToolCall = {
        callId: "",
        name: "",
        msgId,
        index,
        argumentsText: "",
        arguments: undefined,
        complete: false,
      };
      // A build without the `tools` feature has no argument parser: calls are still reported, with
      // their text but without partial values.
      c = { state, args: built("ToolArguments") ? new (wasm().ToolArguments)() : undefined };
      calls.set(index, c);
      this.#handlers.onToolCallStart?.(state);
    }
    return c;
  }

  #content(msgId: string, content: Content, complete: boolean): void {
    if (content.type !== "data") return;
    const c = this.#call(msgId, content.index ?? 0);
    if (c.state.complete) return;
    const data = content.data;
    if (isObject(data)) {
      if (typeof data.call_id === "string") c.state.callId = data.call_id;
      if (typeof data.name === "string") c.state.name = data.name;
      if (typeof data.arguments === "string") this.#apply(c, (a) => a.sync(data.arguments as string), data.arguments, true);
    }
    if (complete) this.#complete(c);
  }

  /** Marks a call complete (once) and reports it with its whole arguments text. */
  #complete(c: TrackedCall): void {
    const s = c.state;
    if (s.complete) return;
    s.complete = true;
    c.args?.free();
    c.args = undefined;
    this.#handlers.onToolCall?.({ call_id: s.callId, name: s.name, arguments: s.argumentsText }, s);
  }

  #delta(msgId: string, index: number, delta: JsonValue): void {
    if (!isObject(delta)) return;
    const c = this.#call(msgId, index);
    if (c.state.complete) return;
    // The Agent API merges data deltas: strings concatenate.
    if (typeof delta.call_id === "string") c.state.callId += delta.call_id;
    if (typeof delta.name === "string") c.state.name += delta.name;
    const piece = delta.arguments;
    if (typeof piece === "string" && piece !== "") this.#apply(c, (a) => a.push(piece), piece, false);
  }

  #apply(c: TrackedCall, step: (a: Wasm.ToolArguments) => PartialChange[], text: string, whole: boolean): void {
    const s = c.state;
    const before = s.argumentsText;
    s.argumentsText = whole ? text : before + text;
    if (c.args === undefined) return;
    let changes: PartialChange[];
    try {
      changes = step(c.args);
    } catch (e) {
      // Not JSON (or too large): no more partial values; validation reports it to the model.
      c.args.free();
      c.args = undefined;
      if (!(e instanceof ProtocolError)) throw e;
      this.#handlers.onWarning?.(e);
      return;
    }
    if (changes.length === 0) return;
    s.arguments = applyPartialChanges(s.arguments, changes);
    this.#handlers.onToolArguments?.(s.callId, s.arguments, changes, s);
  }
}

/** The handle of one response (a wasm `AgentStreamHandle`) or of the rounds of a tool loop. */
type RoundHandle = Wasm.AgentStreamHandle;

/**
 * @internal The rounds of an Agent API tool loop behind one handle: `response` resolves with the
 * last round's response; queries look at every round.
 */
export class ToolLoopHandle {
  readonly response: Promise<AgentResponse>;
  readonly #rounds: RoundHandle[];

  constructor(first: RoundHandle, run: (rounds: RoundHandle[]) => Promise<AgentResponse>) {
    this.#rounds = [first];
    this.response = run(this.#rounds);
  }

  /** The current round's response as assembled so far. */
  snapshot(): AgentResponse {
    return (this.#rounds[this.#rounds.length - 1] as RoundHandle).snapshot();
  }

  /** The body of message `msgId` in any round (`undefined` if none has it). */
  body(msgId: string): Wasm.Body | undefined {
    for (let i = this.#rounds.length - 1; i >= 0; i--) {
      const b = this.#rounds[i]?.body(msgId);
      if (b) return b;
    }
    return undefined;
  }

  /** Named parts matching `pattern` across every round, in order. */
  list(pattern: Wasm.Pattern): NamedPart[] {
    return this.#rounds.flatMap((h) => h.list(pattern));
  }

  free(): void {
    for (const h of this.#rounds) h.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }
}

/** @internal Options the Agent API tool loop reads. */
export interface LoopOptions {
  signal?: AbortSignal;
  maxToolRounds?: number;
}

/**
 * @internal The Agent API tool loop: sends `request` with the tools offered (synchronously, so an
 * invalid request throws at once), and while a completed response has pending calls, runs them and
 * sends the outcomes in a new request.
 */
export function agentToolLoop(
  open: (request: AgentRequest) => RoundHandle,
  tools: ClientTools,
  request: AgentRequest,
  handlers: ToolStreamHandlers & { onError?(error: ProtocolError): void },
  options: LoopOptions,
): ToolLoopHandle {
  const max = maxToolRounds(options.maxToolRounds);
  const signal = options.signal;
  let current = tools.registry.offerTools(request);
  const first = open(current);
  return new ToolLoopHandle(first, async (rounds) => {
    for (let round = 0; ; round++) {
      const response = await (rounds[round] as RoundHandle).response;
      if (response.status !== "completed") return response;
      const calls = tools.registry.checkAgentCalls(response);
      if (calls.length === 0) return response;
      if (round >= max) {
        const e = roundsExceeded(max, calls, { response });
        handlers.onError?.(e);
        throw e;
      }
      let outcomes: ToolOutcome[];
      try {
        outcomes = await tools.run(calls, handlers, signal);
      } catch (e) {
        if (e instanceof ProtocolError && e.code === "aborted") throw aborted({ response });
        throw e;
      }
      current = wasm().agentToolContinuation(current, response, outcomes);
      handlers.onToolRound?.(round + 1, current);
      // `onToolRound` aborted (or freed the stream): no round is opened.
      if (signal?.aborted) throw aborted({ response });
      rounds.push(open(current));
    }
  });
}
