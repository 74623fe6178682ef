// The AgentX client: `POST /chat` with the conversation, message packets streamed back and
// assembled in wasm (src/wasm/agentx.rs), handlers and async iteration here, and the client-side
// tool loop (`tool_call` → `tool_result` / `tool_error` in the next `POST /chat`).
import type * as Wasm from "./agentwire.js";
import type {
  AgentxChatRequest,
  AgentxClientConfig,
  AgentxMessage,
  AgentxPart,
  AgentxStreamOptions,
  AgentxStreamStatus,
  AgentxStreamUpdate,
  AgentxTextPart,
  AgentxToolCallPart,
  AgentxToolErrorPart,
  AgentxToolResultPart,
  Body,
  JsonValue,
} from "./agentwire.js";
import { built, checkCallbacks, ownSignal, wasm } from "./api.js";
import { notBuilt } from "./guard.js";
import { Fanout } from "./queue.js";
import { FailureReport, ProtocolError } from "./errors.js";
import { ClientTools, maxToolRounds, roundsExceeded, toolsOption } from "./tools.js";
import type { ToolLoopHandlers } from "./tools.js";

/** The part of each AgentX part type, with the shape the AgentX document gives it. */
export interface AgentxPartOfType {
  text: { type: "text" } & AgentxTextPart;
  tool_call: { type: "tool_call" } & AgentxToolCallPart;
  tool_result: { type: "tool_result" } & AgentxToolResultPart;
  tool_error: { type: "tool_error" } & AgentxToolErrorPart;
}

/**
 * Whether `part` is a part of `type` with that type's shape: a `text` part's `text` is a string, a
 * `tool_call`'s `tool_call_id` and `tool_name` are strings and its `args` an object, a
 * `tool_result` has a string `tool_call_id` and a `result`, a `tool_error` a string
 * `tool_call_id`, `error_type` and `message`. A part of a known type with another shape is kept
 * whole as sent (and reported as `invalid-part`), so `part.type === "text"` alone does not make
 * `part.text` a string; this guard does:
 *
 * ```ts
 * onPart: (part) => { if (isAgentxPart(part, "text")) out.textContent += part.text; }
 * ```
 */
export function isAgentxPart<T extends keyof AgentxPartOfType>(part: AgentxPart, type: T): part is AgentxPart & AgentxPartOfType[T] {
  const p = part as { [key: string]: JsonValue | undefined };
  if (p.type !== type) return false;
  switch (type) {
    case "text":
      return typeof p.text === "string";
    case "tool_call":
      return typeof p.tool_call_id === "string" && typeof p.tool_name === "string" && isJsonObject(p.args);
    case "tool_result":
      return typeof p.tool_call_id === "string" && p.result !== undefined;
    default:
      return typeof p.tool_call_id === "string" && typeof p.error_type === "string" && typeof p.message === "string";
  }
}

function isJsonObject(v: JsonValue | undefined): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An update of an AgentX chat: a stream update of round `round` (0 for the first `POST /chat`). */
export type AgentxChatUpdate = AgentxStreamUpdate & { round: number };

/** Where a message is: its round and its position among that round's messages (0-based). */
export interface AgentxTarget {
  /** The round (0 for the first `POST /chat`, 1 after the first tool outcomes were sent…). */
  round: number;
  /** The message's position in the round's answer. */
  messageIndex: number;
}

/** Where a part is. */
export interface AgentxPartTarget extends AgentxTarget {
  /** The part's position in its message. */
  partIndex: number;
}

/**
 * Callbacks of `AgentxClient.chat`, in stream order; all optional. No callback runs after the
 * chat's `AbortSignal` fires. A callback that throws ends the chat: its request is aborted and
 * `messages` rejects with what it threw.
 */
export interface AgentxHandlers extends ToolLoopHandlers<AgentxChatRequest> {
  /** A logical message began (its envelope: id, role, unknown fields; `parts` empty). */
  onMessage?(message: AgentxMessage, at: AgentxTarget): void;
  /** A part was appended to a message (the part as it arrived: a text part with its first text). */
  onPart?(part: AgentxPart, at: AgentxPartTarget): void;
  /**
   * Text appended to a text part (only the new text). A part's first text comes with `onPart`,
   * not here (unlike the Agent API, whose contents' text comes only in deltas): a UI that shows
   * text as it arrives adds `part.text` in `onPart` and each delta here.
   */
  onTextDelta?(delta: string, at: AgentxPartTarget): void;
  /** A `tool_call` part arrived (also reported by `onPart`). */
  onToolCall?(call: AgentxToolCallPart, at: AgentxPartTarget): void;
  /** A tolerated problem (a malformed packet skipped, an odd id): the stream goes on. */
  onWarning?(warning: ProtocolError): void;
  /** The chat failed (once, for the error that ends it). */
  onError?(error: ProtocolError): void;
  /** One round's answer ended: its status and messages. */
  onDone?(messages: AgentxMessage[], status: AgentxStreamStatus, round: number): void;
  /** Every update, in order. */
  onUpdate?(update: AgentxChatUpdate): void;
  /** All updates of one network chunk, in one call. */
  onBatch?(updates: AgentxChatUpdate[]): void;
}

/**
 * Options of one `AgentxClient.chat` call: the decoder's generated `AgentxStreamOptions` (`batch`,
 * `maxEventSize`, `strict`, `limits`, `stallTimeoutMs`), and these.
 */
export interface AgentxChatOptions extends AgentxStreamOptions {
  /** Aborts the chat (the request, or the tool running); it then rejects with code `aborted`. */
  signal?: AbortSignal;
  /**
   * With registered tools: how many times tool outcomes may be sent back (each a new `POST
   * /chat`) before the chat fails with `tool-rounds-exceeded` (default 8). A non-negative
   * integer, checked with tools or without (`invalid-argument`).
   */
  maxToolRounds?: number;
}

/**
 * Options of `new AgentxClient(options)`: the wasm client's `AgentxClientConfig` (`baseUrl`,
 * `endpoint`, `headers`, `credentials`), and these.
 */
export interface AgentxClientOptions extends AgentxClientConfig {
  /** A `fetch` to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Tools to share with other clients (default: a new, empty `ClientTools`). */
  tools?: ClientTools;
}

function issueError(u: Extract<AgentxStreamUpdate, { type: "issue" }>): ProtocolError {
  const details = u.details !== null && typeof u.details === "object" ? u.details : { value: u.details };
  return new ProtocolError(u.code, u.message, details);
}

function dispatch(h: AgentxHandlers, u: AgentxChatUpdate): void {
  h.onUpdate?.(u);
  const round = u.round;
  switch (u.type) {
    case "message":
      h.onMessage?.(u.message, { round, messageIndex: u.messageIndex });
      break;
    case "part": {
      const at = { round, messageIndex: u.messageIndex, partIndex: u.partIndex };
      h.onPart?.(u.part, at);
      if (isAgentxPart(u.part, "tool_call")) h.onToolCall?.(u.part, at);
      break;
    }
    case "textDelta":
      h.onTextDelta?.(u.delta, { round, messageIndex: u.messageIndex, partIndex: u.partIndex });
      break;
    case "issue":
      if (u.severity === "error") h.onError?.(issueError(u));
      else h.onWarning?.(issueError(u));
      break;
    case "done":
      h.onDone?.(u.messages, u.status, round);
      break;
  }
}

/**
 * One AgentX chat: handlers fire as packets arrive; it is also an async iterator of the updates
 * of every round (create the iterator before awaiting anything; one created after the end
 * finishes at once, or throws the chat's error), and `messages` resolves with the
 * whole conversation at the end (the messages sent, every answer, and the tool outcomes sent
 * back): append a user message to it to continue the chat. `free()` (or `using chat = …`)
 * releases the current round's wasm memory, aborting the chat first if it is still under way.
 */
export class AgentxChat implements AsyncIterable<AgentxChatUpdate> {
  /** The conversation when the chat ends (rejects with a `ProtocolError`, see `AgentxClient.chat`). */
  readonly messages: Promise<AgentxMessage[]>;
  #updates = new Fanout<AgentxChatUpdate>();
  #handle: Wasm.AgentxChatHandle | undefined;
  #round = 0;
  #stop: AbortController;
  #freed = false;

  /**
   * @internal `stop` aborts the chat's requests and its tool calls (its signal is in each); `free()`
   * fires it.
   */
  constructor(
    run: (chat: AgentxChat, deliver: (updates: AgentxChatUpdate[], handle: () => boolean) => void) => Promise<AgentxMessage[]>,
    stop: AbortController,
  ) {
    this.#stop = stop;
    this.messages = this.failures.wrap(run(this, (updates, handle) => this.#updates.deliver(updates, handle)));
    this.#updates.follow(this.messages);
  }

  /** @internal How the chat's failure reaches `onError` (what it throws rejects `messages`). */
  readonly failures = new FailureReport();

  /** @internal The current round's request handle. */
  setRound(round: number, handle: Wasm.AgentxChatHandle): void {
    this.#handle?.free();
    this.#round = round;
    this.#handle = handle;
  }

  /**
   * Releases the current round's wasm memory now (the answer assembled so far; `snapshot()` and
   * `body()` throw `object-freed` after it); without it, it is released when the chat is garbage
   * collected. A chat still under way is aborted first, as by its `AbortSignal`: the request is
   * closed, no handler runs after it, a tool loop sends nothing more, and `messages` rejects with
   * `aborted`. Calling it again does nothing.
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#stop.abort();
    this.#handle?.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentxChatUpdate> {
    return this.#updates.iterator();
  }

  /** The current round (0 for the first `POST /chat`). */
  get round(): number {
    return this.#round;
  }

  /** The current round's answer as assembled so far. */
  snapshot(): AgentxMessage[] {
    return this.#handle?.snapshot() ?? [];
  }

  /** Message `messageIndex` of the current round's answer as a body, as it is now, or `null`. */
  body(messageIndex: number): Body | null {
    return this.#handle?.body(messageIndex) ?? null;
  }
}

/**
 * An AgentX client: POSTs `{messages}` to `baseUrl + endpoint` (`/chat`) with `fetch` and streams
 * the message packets of the answer (server-sent events, one packet per event) through the wasm
 * decoder and assembler.
 *
 * ```ts
 * const client = new AgentxClient({ baseUrl: "http://127.0.0.1:8787" });
 * client.tools.register("write_file", schema, async ({ path, content }) => save(path, content));
 * const chat = client.chat([agentxUserMessage("Write hello.txt")], { onTextDelta: (t) => show(t) });
 * const conversation = await chat.messages;
 * ```
 */
export class AgentxClient {
  readonly #inner: Wasm.AgentxClient;
  #freed = false;
  /**
   * The tools this client runs for the agent. When any is registered, `chat` sends their
   * definitions in the request's `tools` field (agentwire's addition to `{messages}`), answers the
   * agent's `tool_call`s of them and continues the chat.
   */
  readonly tools: ClientTools;

  /**
   * @throws ProtocolError `invalid-argument` if the options have the wrong shape,
   *   `not-initialized` before `init()`.
   */
  constructor(options: AgentxClientOptions) {
    this.#inner = new (wasm().AgentxClient)(options);
    this.tools = toolsOption(options.tools);
  }

  /** The URL requests go to. */
  get url(): string {
    return this.#inner.url;
  }

  /**
   * Sends the conversation (`messages`, oldest first, the new user message last; or a whole
   * `AgentxChatRequest`) and streams the answer.
   *
   * With registered tools this is the client-side tool loop: when an answer ends with `tool_call`
   * parts that nothing answers yet, each is checked against its tool's schema (a `tool_error` of
   * type `VALIDATION` the agent can correct itself from, e.g. `Validation failed for tool
   * 'write_file': Missing required argument 'path'.`) or run (a `tool_result`, or a `tool_error`
   * of type `EXECUTION` if it throws), and the parts go back in one `user` message in a new `POST
   * /chat` of the conversation so far; at most `maxToolRounds` times.
   *
   * @throws ProtocolError `invalid-argument` synchronously for messages of the wrong shape or a
   *   handler that is not a function (`details.what` `handlers.onPart`, …). The
   *   chat's `messages` rejects with `http-status`, `not-event-stream`, `network-error`,
   *   `stream-incomplete`, `aborted` (with `details.messages`, what the round received, once its
   *   event stream has begun) or `tool-rounds-exceeded` (with `details.pending` and
   *   `details.messages`).
   */
  chat(
    messages: AgentxMessage[] | AgentxChatRequest,
    handlers: AgentxHandlers | null = {},
    options: AgentxChatOptions | null = {},
  ): AgentxChat {
    handlers = checkCallbacks(handlers, "handlers");
    options = checkCallbacks(options, "options");
    const inner = this.#inner;
    const tools = this.tools;
    const { stop, signal } = ownSignal(options.signal);
    const roundOptions = { ...options, signal };
    const max = maxToolRounds(options.maxToolRounds);
    let request: AgentxChatRequest = Array.isArray(messages) ? { messages } : { ...messages };
    if (tools.size > 0 && request.tools === undefined) {
      request = { ...request, tools: tools.definitions() as unknown as JsonValue };
    }
    // One POST /chat: its updates go to the handlers and the iterators, tagged with the round.
    const open = (
      chat: AgentxChat,
      deliver: (u: AgentxChatUpdate[], handle: () => boolean) => void,
      round: number,
      r: AgentxChatRequest,
    ) => {
      let errored = false;
      const sink = (raw: AgentxStreamUpdate[]): void => {
        if (signal.aborted) return;
        const updates = raw as AgentxChatUpdate[];
        for (const u of updates) u.round = round;
        deliver(updates, () => {
          handlers.onBatch?.(updates);
          for (const u of updates) {
            if (signal.aborted) return false;
            if (u.type === "issue" && u.severity === "error") errored = true;
            dispatch(handlers, u);
          }
          return true;
        });
      };
      const handle = inner.chat(r, sink, roundOptions);
      chat.setRound(round, handle);
      handle.messages.catch((e: unknown) => {
        if (!errored && !signal.aborted && e instanceof ProtocolError) chat.failures.report(handlers.onError, e);
      });
      return handle;
    };
    return new AgentxChat((self, deliver) => {
      // The first request is sent synchronously, so that a malformed one throws here.
      const first = open(self, deliver, 0, request);
      return (async () => {
        let current = request;
        let pending: Wasm.AgentxChatHandle = first;
        for (let round = 0; ; round++) {
          const answer = await pending.messages;
          const conversation = current.messages;
          const calls = tools.size > 0 ? tools.registry.checkAgentxCalls(conversation, answer) : [];
          if (calls.length === 0) return [...conversation, ...answer];
          if (round >= max) {
            const e = roundsExceeded(max, calls, { messages: [...conversation, ...answer] });
            handlers.onError?.(e);
            throw e;
          }
          let outcomes;
          try {
            outcomes = await tools.run(calls, handlers, signal);
          } catch (e) {
            if (e instanceof ProtocolError && e.code === "aborted") {
              throw new ProtocolError("aborted", e.message, { messages: answer });
            }
            throw e;
          }
          current = wasm().agentxToolContinuation(current, answer, outcomes);
          handlers.onToolRound?.(round + 1, current);
          // `onToolRound` aborted (or freed the chat): no round is opened.
          if (signal.aborted) throw new ProtocolError("aborted", "the request was aborted", { messages: answer });
          pending = open(self, deliver, round + 1, current);
        }
      })();
    }, stop);
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

/**
 * A new user message with one text part (and a new `msg_` id), to start or continue a chat.
 *
 * @throws ProtocolError `feature-not-built` in a build without the `agentx` feature.
 */
export function agentxUserMessage(text: string): AgentxMessage {
  const module = wasm();
  // The message's id comes from the wasm module's AgentX code (the `agentx` feature).
  if (!built("agentxUserText")) throw notBuilt("agentxUserMessage");
  return module.agentxUserText(text);
}
