/**
 * The error every agentwire API throws or rejects with: a real `Error` subclass with a stable,
 * kebab-case `code` and structured `details` (a plain object: the offending input, positions,
 * limits, and for stream failures `details.response`, everything received so far).
 *
 * Codes are listed in the README ("Errors"); they never change meaning between releases.
 */
export class ProtocolError extends Error {
  /** Stable kebab-case code, e.g. `http-status`, `event-too-large`, `parameter-out-of-range`. */
  readonly code: string;
  /** Structured details; the shape depends on `code`. */
  readonly details: { readonly [key: string]: unknown };

  constructor(code: string, message: string, details?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.details =
      details !== null && typeof details === "object" ? (details as { [key: string]: unknown }) : {};
  }
}

/**
 * @internal The `invalid-argument` error of the TypeScript layer: message `invalid argument
 * <what>: <reason>`, `details` `{what, reason}` and `extra`'s members (the wasm module's own
 * `invalid-argument` errors carry the same `details`).
 */
export function invalidArgument(what: string, reason: string, extra: { [key: string]: unknown } = {}): ProtocolError {
  return new ProtocolError("invalid-argument", `invalid argument ${what}: ${reason}`, { what, reason, ...extra });
}

/**
 * The `object-freed` error of a TypeScript method of an object whose `free()` has run, as the
 * wasm objects' methods throw it.
 */
export function objectFreed(): ProtocolError {
  return new ProtocolError("object-freed", "the object was used after its free() (or [Symbol.dispose]) released it", {});
}

/** Makes the error objects the wasm module throws (registered once per module instance). */
export function errorFactory(code: string, message: string, details: unknown): ProtocolError {
  return new ProtocolError(code, message, details);
}

/**
 * @internal A stream's failure reported to `onError` from a handler of its promise, where nothing
 * would see what `onError` throws (it became an unhandled rejection): the first throw is kept, and
 * the stream's outcome (`wrap`) rejects with it instead of the error, as for a throw from any other
 * handler.
 */
export class FailureReport {
  #thrown: { value: unknown } | undefined;

  /** Calls `onError(e)`, keeping what it throws. */
  report(onError: ((error: ProtocolError) => void) | undefined, e: ProtocolError): void {
    try {
      onError?.(e);
    } catch (thrown) {
      this.#thrown ??= { value: thrown };
    }
  }

  /**
   * `outcome`, rejecting with what `onError` threw when it did. Its handler runs after `report`'s
   * when `report` is called from a handler attached to `outcome` (or to a promise it awaits) first.
   */
  wrap<T>(outcome: Promise<T>): Promise<T> {
    return outcome.catch((e: unknown) => {
      throw this.#thrown === undefined ? e : this.#thrown.value;
    });
  }
}
