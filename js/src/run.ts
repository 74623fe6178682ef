// Run sessions: a run of a communication schema that refuses to send what its state does not allow
// and checks what it receives. The logic is in wasm (`RunSession`, `CommunicationSchema`); this
// file adds listeners and friendlier arguments.
import type * as Wasm from "./agentwire.js";
import type {
  Body,
  BuiltinCommunicationSchemaName,
  CommunicationSchemaJson,
  Move,
  Part,
  Party,
  RunMessage,
  RunSessionConfig,
  RunStep,
} from "./agentwire.js";
import { ProtocolError, invalidArgument } from "./errors.js";
import { checkCallbacks, wasm } from "./api.js";

/** Called when a run's state changes: the state before, after, and the move that was made. */
export type StateChangeListener = (from: string, to: string, move: Move) => void;

/**
 * What every run session offers a UI: its state, what happened, and what may happen next. Both
 * `RunSession` and the lifecycle of an ACP run (`AcpRunHandle.session`) implement it.
 */
export interface RunSessionView {
  /** The current state (every run starts in `idle`). */
  readonly state: string;
  /** The messages accepted so far, in order, each with the states before and after it. */
  readonly messages: RunMessage[];
  /** Whether the run is in a terminal state (a state with no moves): it is over. */
  readonly isTerminal: boolean;
  /** The moves allowed now (of `party` only, when given): what a UI enables. */
  allowedMoves(party?: Party): Move[];
  /** Calls `fn` on every change of state, from now on; returns a function that stops it. */
  onStateChange(fn: StateChangeListener): () => void;
}

/** What one move of a `RunSession` did (`warning`: the problem a lenient session tolerated). */
export type RunSessionStep = Omit<RunStep, "warning"> & { warning: ProtocolError | null };

/** A message body as `send`/`receive` take it: a text, parts, or a whole body. */
export type BodyInput = string | Part[] | Body;

/**
 * Options of `new RunSession(schema, options)`: the wasm session's generated `RunSessionConfig`
 * (`id`, `strict`), and the listeners. A lenient session (not `strict`) reports a problem to
 * `onWarning` as well as in the step's `warning`.
 */
export interface RunSessionOptions extends RunSessionConfig {
  /** Called on every change of state. */
  onStateChange?: StateChangeListener;
  /** Called for every message accepted (sent or received), in order. */
  onMessage?(message: RunMessage): void;
  /** Called for a received message a lenient session tolerated (`move-not-allowed`, `body-mismatch`). */
  onWarning?(warning: ProtocolError): void;
}

/** `"Hello"` → a body of one `text/plain` part; parts → their body. */
export function toBody(input: BodyInput | undefined): Body | undefined {
  if (input === undefined) return undefined;
  if (typeof input === "string") {
    return {
      parts: [{ type: "text", contentType: "text/plain", content: input, contentEncoding: "plain", status: "complete" }],
    };
  }
  return Array.isArray(input) ? { parts: input } : input;
}

/**
 * Listeners of one kind, called in registration order. One removed while they are being called
 * (by an earlier one) is not called; one added then is called from the next time on.
 */
export class Listeners<F extends (...args: never[]) => void> {
  #entries: Array<{ fn: F; removed: boolean }> = [];

  /**
   * @throws ProtocolError `invalid-argument` (`details.what` = `fn`) when `fn` is not a function.
   */
  add(fn: F): () => void {
    if (typeof fn !== "function") throw invalidArgument("fn", "it is not a function");
    const entry = { fn, removed: false };
    this.#entries.push(entry);
    return () => {
      if (entry.removed) return;
      entry.removed = true;
      this.#entries = this.#entries.filter((e) => e !== entry);
    };
  }

  call(...args: Parameters<F>): void {
    for (const e of this.#entries) if (!e.removed) e.fn(...args);
  }
}

/**
 * A run of a communication schema, kept in step with the other side:
 *
 * - `send(type, body)` is the outbound check: a client message the state does not allow throws a
 *   `ProtocolError` (`move-not-allowed`, naming the state and listing the moves allowed there, or
 *   `body-mismatch`) and nothing changes;
 * - `receive(type, body)` is the inbound check of a server message: it throws in strict mode,
 *   and in lenient mode (the default) reports the problem to `onWarning` and goes on;
 * - `onStateChange(from, to, move)` follows the state; `allowedMoves()` tells a UI which buttons
 *   to enable.
 *
 * ```ts
 * const session = new RunSession("interruptibleChat", { onStateChange: (from, to) => render(to) });
 * session.send("message", "Hello!");           // idle → running
 * session.allowedMoves("client");              // [{ party: "client", type: "cancel", nextState: "idle" }]
 * session.send("message", "Again?");           // throws ProtocolError move-not-allowed
 * ```
 */
export class RunSession implements RunSessionView {
  readonly #inner: Wasm.RunSession;
  readonly #stateChanges = new Listeners<StateChangeListener>();
  readonly #messages = new Listeners<(message: RunMessage) => void>();
  readonly #warnings = new Listeners<(warning: ProtocolError) => void>();

  /**
   * A session of `schema` (a `CommunicationSchema`, its JSON, or the name of a built-in one), in
   * state `idle`.
   *
   * @throws ProtocolError for an invalid schema (see `CommunicationSchema.fromJson`), an unknown
   *   built-in name or options of the wrong shape (`invalid-argument`).
   */
  constructor(schema: Wasm.CommunicationSchema | CommunicationSchemaJson | BuiltinCommunicationSchemaName, options: RunSessionOptions = {}) {
    options = checkCallbacks(options, "options"); // null: none
    const w = wasm();
    const config = { id: options.id, strict: options.strict };
    if (schema instanceof w.CommunicationSchema) {
      this.#inner = new w.RunSession(schema, config);
    } else {
      const made = typeof schema === "string" ? w.CommunicationSchema.builtin(schema) : w.CommunicationSchema.fromJson(schema);
      try {
        this.#inner = new w.RunSession(made, config);
      } finally {
        made.free();
      }
    }
    if (options.onStateChange) this.#stateChanges.add(options.onStateChange);
    if (options.onMessage) this.#messages.add((m) => options.onMessage?.(m));
    if (options.onWarning) this.#warnings.add((e) => options.onWarning?.(e));
  }

  /** The run's id. */
  get id(): string {
    return this.#inner.id;
  }

  get state(): string {
    return this.#inner.state;
  }

  /** Whether received messages are checked strictly. */
  get strict(): boolean {
    return this.#inner.strict;
  }

  get isTerminal(): boolean {
    return this.#inner.isTerminal;
  }

  get messages(): RunMessage[] {
    return this.#inner.messages;
  }

  /** The schema (a new object each time, sharing the session's schema in wasm memory; free it when
   * done, or let the garbage collector). */
  get schema(): Wasm.CommunicationSchema {
    return this.#inner.schema;
  }

  allowedMoves(party?: Party): Move[] {
    return this.#inner.allowedMoves(party);
  }

  /** Whether the client may send a `type` message with `body` now. */
  canSend(type: string, body?: BodyInput): boolean {
    return this.#inner.canSend(type, toBody(body));
  }

  /**
   * Sends a client message: the run moves, or this throws and nothing changes. (A listener that
   * throws, `onMessage` or `onStateChange`, is called after the move: its exception propagates
   * from here with the move made, and the listeners after it are not called.)
   *
   * @throws ProtocolError `move-not-allowed` (`details.state`, `details.allowed`,
   *   `details.terminal`), `body-mismatch` (`details.violations`), `invalid-argument`.
   */
  send(type: string, body?: BodyInput): RunSessionStep {
    return this.#after(this.#inner.send(type, toBody(body)));
  }

  /**
   * Records a server message. Strict sessions throw for a message the state does not allow (or
   * whose body breaks its schema) and nothing changes; lenient ones call `onWarning`, return the
   * problem as the step's `warning`, and go on (making the move when only the body is wrong).
   *
   * @throws ProtocolError `move-not-allowed`, `body-mismatch` (strict sessions), `invalid-argument`.
   */
  receive(type: string, body?: BodyInput): RunSessionStep {
    return this.#after(this.#inner.receive(type, toBody(body)));
  }

  #after(step: RunStep): RunSessionStep {
    const warning = step.warning instanceof ProtocolError ? step.warning : null;
    if (step.move !== null) {
      const last = this.#inner.lastMessage;
      if (last) this.#messages.call(last);
      if (step.from !== step.to) this.#stateChanges.call(step.from, step.to, step.move);
    }
    if (warning !== null) this.#warnings.call(warning);
    return { ...step, warning };
  }

  /**
   * Calls `fn(from, to, move)` for every change of state from now on; returns a function that
   * stops it.
   *
   * @throws ProtocolError `invalid-argument` when `fn` is not a function.
   */
  onStateChange(fn: StateChangeListener): () => void {
    return this.#stateChanges.add(fn);
  }

  /**
   * Calls `fn` for every message accepted from now on; returns a function that stops it.
   *
   * @throws ProtocolError `invalid-argument` when `fn` is not a function.
   */
  onMessage(fn: (message: RunMessage) => void): () => void {
    return this.#messages.add(fn);
  }

  /**
   * Calls `fn` for every problem a lenient session tolerates from now on; returns a function that
   * stops it.
   *
   * @throws ProtocolError `invalid-argument` when `fn` is not a function.
   */
  onWarning(fn: (warning: ProtocolError) => void): () => void {
    return this.#warnings.add(fn);
  }

  /** The schema as a Mermaid state diagram. */
  toMermaid(): string {
    const s = this.#inner.schema;
    try {
      return s.toMermaid();
    } finally {
      s.free();
    }
  }

  /** Releases the wasm memory of this session now (it is also released when garbage collected). */
  free(): void {
    this.#inner.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
