// The Agent Communication Protocol client: `AcpClient` and the handle of one run. The wasm module
// does the protocol (requests, SSE, assembly, the run lifecycle); this file dispatches updates to
// handlers, to async iterators and to the lifecycle's listeners.
import type * as Wasm from "./agentwire.js";
import type {
  AcpAgentManifest,
  AcpAwaitRequest,
  AcpClientConfig,
  AcpEvent,
  AcpMessage,
  AcpMessagePart,
  AcpNamedPart,
  AcpRun,
  AcpRunConfig,
  AcpRunUpdate,
  Body,
  JsonValue,
  Move,
  Party,
  RunMessage,
} from "./agentwire.js";
import { ProtocolError } from "./errors.js";
import { checkCallbacks, ownSignal, wasm, withPattern } from "./api.js";
import { Fanout } from "./queue.js";
import { Listeners, type RunSessionView, type StateChangeListener } from "./run.js";

/**
 * Options of `new AcpClient(options)`: the wasm client's `AcpClientConfig` (`baseUrl`, `headers`,
 * `credentials`), and this.
 */
export interface AcpClientOptions extends AcpClientConfig {
  /** A `fetch` to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

/** Where a part or a text delta belongs: positions in the run's `output` and the message's `parts` (0-based). */
export interface AcpPartTarget {
  messageIndex: number;
  partIndex: number;
}

/**
 * Callbacks of a run, called in order as the run goes on (across resumes). All are optional. No
 * callback runs after the run's `AbortSignal` fires. A callback that throws ends the run's request
 * (the run on the server is not cancelled) and `run` rejects with what it threw.
 */
export interface AcpRunHandlers {
  /** The run changed (a `run.*` event: status, id, await request, error); its `output` is empty here. */
  onRun?(run: AcpRun): void;
  /** A message appeared, or was replaced by the server's version: the whole message. */
  onMessage?(message: AcpMessage, index: number): void;
  /** A part was appended to a message (as it arrived: a text part with its first chunk). */
  onPart?(part: AcpMessagePart, target: AcpPartTarget): void;
  /**
   * Text appended to a text part: a streamed chunk joined to the previous one (only the new text).
   * A part's first chunk comes with `onPart`, not here (unlike the Agent API, whose contents' text
   * comes only in deltas): a UI adds `part.content` in `onPart` and each delta here.
   */
  onTextDelta?(delta: string, target: AcpPartTarget): void;
  /** A message completed: the whole message. */
  onMessageCompleted?(message: AcpMessage, index: number): void;
  /** The run awaits the client: answer with `resume(message)` (or `cancel()`). */
  onAwaiting?(request: AcpAwaitRequest): void;
  /** A `generic` event's payload. */
  onGeneric?(payload: JsonValue): void;
  /** The lifecycle's state changed (`created` → `in-progress` → `awaiting` …). */
  onStateChange?: StateChangeListener;
  /** A tolerated problem (malformed event skipped, a server event the lifecycle does not allow in lenient mode…). */
  onWarning?(warning: ProtocolError): void;
  /** The agent failed (`run.failed`, `error`) or the run broke (`http-error`, `stream-incomplete`…), once per failure. */
  onError?(error: ProtocolError): void;
  /** One answer of the server is over: the run awaits the client or reached a terminal status. */
  onDone?(run: AcpRun): void;
  /** Every update, in order. */
  onUpdate?(update: AcpRunUpdate): void;
  /** All updates of one network chunk, poll or client move, in one call. */
  onBatch?(updates: AcpRunUpdate[]): void;
}

/**
 * Options of `AcpClient.run`: the handlers, the wasm run's generated `AcpRunConfig` (`mode`,
 * `sessionId`, `pollInterval`, `strict`, `joinText`, `batch`, `maxEventSize`, `limits`,
 * `checkInput`, `stallTimeoutMs`), and `signal`.
 */
export interface AcpRunOptions extends AcpRunHandlers, AcpRunConfig {
  /** Aborts the run's requests (locally: use `cancel()` to cancel it on the server). */
  signal?: AbortSignal;
}

/** A run's input: a text (one user message), a message, or messages. */
export type AcpInput = string | AcpMessage | AcpMessage[];

/** A message of `role` (default `user`) with one `text/plain` part, or `message` as is. */
export function acpMessage(message: string | AcpMessage, role = "user"): AcpMessage {
  if (typeof message !== "string") return message;
  return { role, parts: [{ content_type: "text/plain", content: message }] };
}

function issueError(u: Extract<AcpRunUpdate, { type: "issue" }>): ProtocolError {
  const details = u.details !== null && typeof u.details === "object" ? u.details : { value: u.details };
  return new ProtocolError(u.code, u.message, details);
}

/**
 * One ACP run: handlers fire as it goes, it is an async iterator of its updates (across resumes,
 * from the moment the iterator is created; one created after the end finishes at once, or throws
 * the run's error), and `run` resolves with the assembled run once it
 * reaches a terminal status. While the run awaits the client, `awaiting` has the agent's request
 * and `resume(message)` answers it; `cancel()` asks the server to cancel. `session` is the run's
 * lifecycle (the `acpRun` communication schema): `session.allowedMoves("client")` says which of
 * `resume` and `cancel` may be called now — the others throw `move-not-allowed`.
 */
export class AcpRunHandle implements AsyncIterable<AcpRunUpdate> {
  /**
   * The assembled run once it reaches a terminal status: `completed`, `failed` (with `error`, the
   * partial output kept) or `cancelled`. Rejects with a `ProtocolError`: `http-error`,
   * `not-event-stream`, `network-error`, `stream-incomplete`, `aborted`, `move-not-allowed`
   * (strict runs), `invalid-json`. Once the server has given the run (its id), `details.run` has
   * everything received; before that nothing was, and there is no `details.run`.
   */
  readonly run: Promise<AcpRun>;
  /** The run's lifecycle. */
  readonly session: RunSessionView;
  readonly #call: Wasm.AcpRunCall;
  #updates = new Fanout<AcpRunUpdate>();
  #stop: AbortController;
  #freed = false;

  /**
   * @internal `signal` is in every request of the run; it includes `stop`'s, which `free()`
   * fires.
   */
  constructor(
    start: (sink: (updates: AcpRunUpdate[]) => void) => Wasm.AcpRunCall,
    handlers: AcpRunHandlers,
    signal: AbortSignal,
    stop: AbortController,
  ) {
    this.#stop = stop;
    const stateChanges = new Listeners<StateChangeListener>();
    if (handlers.onStateChange) stateChanges.add(handlers.onStateChange);
    let errored = false;
    const sink = (updates: AcpRunUpdate[]): void =>
      this.#updates.deliver(updates, () => {
        if (signal.aborted) return false;
        handlers.onBatch?.(updates);
        for (const u of updates) {
          if (signal.aborted) return false; // a handler aborted: nothing more runs
          if (u.type === "issue" && u.severity === "error") errored = true;
          dispatch(handlers, stateChanges, u);
        }
        return true;
      });
    this.#call = start(sink);
    const call = this.#call;
    this.session = {
      get state() {
        return call.state;
      },
      get messages(): RunMessage[] {
        return call.messages;
      },
      get isTerminal() {
        return call.isTerminal;
      },
      allowedMoves: (party?: Party): Move[] => call.allowedMoves(party),
      onStateChange: (fn: StateChangeListener) => stateChanges.add(fn),
    };
    // The failure goes to `onError` first (what it throws rejects `run` instead), then to the
    // iterators; a caller that never awaits `run` must not get an unhandled rejection.
    // The wasm side rejects `run` when the signal fires during a request; while the run awaits
    // the client no request is under way, so the abort settles it here.
    const abortedRun = new Promise<never>((_, reject) => {
      const onAbort = (): void => {
        let details = {};
        try {
          if (call.runId !== undefined) details = { run: call.snapshot() };
        } catch {
          // The call is in use (an abort from inside one of its methods): no run in the details.
        }
        reject(new ProtocolError("aborted", "the request was aborted", details));
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    this.run = Promise.race([call.run, abortedRun]).catch((e: unknown) => {
      if (!errored && !signal.aborted && e instanceof ProtocolError) handlers.onError?.(e);
      throw e;
    });
    this.#updates.follow(this.run);
  }

  [Symbol.asyncIterator](): AsyncIterator<AcpRunUpdate> {
    return this.#updates.iterator();
  }

  /** The run's id, once the server has said it (`null` before). */
  get runId(): string | null {
    return this.#call.runId ?? null;
  }

  /** What the agent waits for while the run is `awaiting`, else `null`. */
  get awaiting(): AcpAwaitRequest | null {
    return this.#call.awaiting ?? null;
  }

  /** The lifecycle's state (`session.state`). */
  get state(): string {
    return this.#call.state;
  }

  /** The run as assembled so far. */
  snapshot(): AcpRun {
    return this.#call.snapshot();
  }

  /**
   * Resolves (never rejects) with the run once no answer is under way: it awaits the client, is
   * over, or failed.
   *
   * @throws ProtocolError `object-freed` after `free()` (as every method).
   */
  stopped(): Promise<AcpRun> {
    return this.#call.stopped();
  }

  /** The body of output message `index` (0-based) as it is now (parts grow while they stream), or `null`. */
  body(index: number): Body | null {
    return this.#call.body(index) ?? null;
  }

  /**
   * Named parts whose names match `pattern` (a glob: `*` within a segment, `**` across segments,
   * `{a,b}`, `?`, `[…]`), across the output, in order — as they are now.
   *
   * @throws ProtocolError for an invalid pattern (its code names the problem).
   */
  list(pattern: string | Wasm.Pattern): AcpNamedPart[] {
    return withPattern(pattern, (p) => this.#call.list(p));
  }

  /**
   * Answers the await request (`POST /runs/{run_id}`): the same run goes on, with the same
   * handlers. Resolves with the run when that answer is over (awaiting again, or over).
   *
   * @throws ProtocolError `move-not-allowed` unless the run is `awaiting` (`details.state`,
   *   `details.allowed`).
   */
  resume(message: string | AcpMessage): Promise<AcpRun> {
    return handled(this.#call.resume(acpMessage(message)));
  }

  /**
   * Asks the server to cancel the run (`POST /runs/{run_id}/cancel`); the lifecycle is `cancelling`
   * at once and the run ends `cancelled` (its stream ends; a run that was awaiting is polled until
   * the server ends it). Resolves with the server's answer (the run, status `cancelling`).
   *
   * @throws ProtocolError `move-not-allowed` unless the run is `created`, `in-progress` or `awaiting`.
   */
  cancel(): Promise<AcpRun> {
    return handled(this.#call.cancel());
  }

  /**
   * Releases the wasm memory of this run now (it is also released when garbage collected). A run
   * still under way is aborted first, as by its `AbortSignal`: its request is closed (the run on
   * the server is not cancelled: `cancel()` asks for that), no handler runs after it, and `run`
   * rejects with `aborted`. Calling it again does nothing.
   */
  free(): void {
    if (this.#freed) return;
    this.#freed = true;
    this.#stop.abort();
    this.#call.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }
}

/** `p`, marked handled: a caller that ignores it gets no unhandled rejection (one that awaits it still sees it). */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

function dispatch(h: AcpRunHandlers, stateChanges: Listeners<StateChangeListener>, u: AcpRunUpdate): void {
  h.onUpdate?.(u);
  switch (u.type) {
    case "run":
      h.onRun?.(u.run);
      break;
    case "message":
      h.onMessage?.(u.message, u.index);
      break;
    case "part":
      h.onPart?.(u.part, { messageIndex: u.messageIndex, partIndex: u.partIndex });
      break;
    case "textDelta":
      h.onTextDelta?.(u.delta, { messageIndex: u.messageIndex, partIndex: u.partIndex });
      break;
    case "messageCompleted":
      h.onMessageCompleted?.(u.message, u.index);
      break;
    case "awaiting":
      h.onAwaiting?.(u.awaitRequest);
      break;
    case "generic":
      h.onGeneric?.(u.generic);
      break;
    case "state":
      stateChanges.call(u.from, u.to, u.move);
      break;
    case "issue":
      if (u.severity === "error") h.onError?.(issueError(u));
      else h.onWarning?.(issueError(u));
      break;
    case "done":
      h.onDone?.(u.run);
      break;
  }
}

/**
 * An ACP client over `fetch`: lists the agents, starts runs and follows them (streamed, `sync` or
 * polled `async` runs), resumes and cancels them.
 *
 * ```ts
 * const client = new AcpClient({ baseUrl: "http://127.0.0.1:8000" });
 * await client.agents(); // the manifests: later runs check their input against them
 * const handle = client.run("approval", "Deploy?", { onTextDelta: (t) => (out.textContent += t) });
 * const stopped = await handle.stopped();
 * if (stopped.status === "awaiting") handle.resume("yes");
 * const run = await handle.run; // completed
 * ```
 */
export class AcpClient {
  readonly #inner: Wasm.AcpClient;
  #freed = false;

  /**
   * @throws ProtocolError `invalid-argument` if the options have the wrong shape,
   *   `not-initialized` before `init()`.
   */
  constructor(options: AcpClientOptions) {
    this.#inner = new (wasm().AcpClient)(options);
  }

  /** The base URL, without a trailing `/`. */
  get baseUrl(): string {
    return this.#inner.baseUrl;
  }

  /**
   * `GET /agents`: the agents' manifests (kept: later runs check their input against them).
   * Rejects with `http-error`, `network-error`, `invalid-json`, `invalid-event`.
   */
  agents(): Promise<AcpAgentManifest[]> {
    return this.#inner.agents();
  }

  /** `GET /agents/{name}`: one agent's manifest (kept). Rejects as `agents()` (404: `http-error`). */
  agent(name: string): Promise<AcpAgentManifest> {
    return this.#inner.agent(name);
  }

  /** The manifest of `name` read so far, or `null`. */
  manifest(name: string): AcpAgentManifest | null {
    return this.#inner.manifest(name) ?? null;
  }

  /** `GET /runs/{run_id}`: a run as the server has it now. */
  readRun(runId: string): Promise<AcpRun> {
    return this.#inner.readRun(runId);
  }

  /** `GET /runs/{run_id}/events`: the run's events so far. */
  runEvents(runId: string): Promise<AcpEvent[]> {
    return this.#inner.runEvents(runId);
  }

  /**
   * Starts a run of `agentName` on `input` (`POST /runs`) and follows it.
   *
   * @throws ProtocolError synchronously: `content-type-not-accepted` (a part the agent's manifest
   *   does not accept, once read with `agents()`), `invalid-argument` (also for an `on…` option
   *   that is not a function). The handle's `run` rejects
   *   as documented there.
   */
  run(agentName: string, input: AcpInput, options: AcpRunOptions | null = {}): AcpRunHandle {
    options = checkCallbacks(options, "options");
    const messages = Array.isArray(input) ? input : [acpMessage(input)];
    const inner = this.#inner;
    const { stop, signal } = ownSignal(options.signal);
    const callOptions = { ...options, signal };
    return new AcpRunHandle((sink) => inner.run(agentName, messages, callOptions, sink), options, signal, stop);
  }

  /**
   * Releases the wasm memory of this client now (it is also released when garbage collected).
   * Runs already started go on (each holds what its requests need). Calling it again does
   * nothing.
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
