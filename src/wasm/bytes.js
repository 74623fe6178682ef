// The bytes of a chunk a JavaScript caller hands the module (`feed`, `pushBytes`,
// `validatePayload`, a custom `fetch`'s body), read here rather than through wasm-bindgen's imports:
// a getter or a `Proxy` trap that throws inside one of those imports unwinds through the module,
// which leaves the object whose method was running borrowed for good and loses the module's stack
// space (each such throw). Here it stays an exception of this function, which the module imports
// with `catch` (src/wasm/http.rs). Imported by src/wasm/http.rs (wasm-bindgen copies this file next
// to the glue, under snippets/).

const typedArray = Object.getPrototypeOf(Uint8Array.prototype);
const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
// The intrinsic getters read a typed array's internal slots: a subclass, an own `length` or a
// `Proxy` cannot change what they give.
const tagOf = getter(typedArray, Symbol.toStringTag);
const bufferOf = getter(typedArray, "buffer");
const offsetOf = getter(typedArray, "byteOffset");
const lengthOf = getter(typedArray, "byteLength");
const bufferLength = getter(ArrayBuffer.prototype, "byteLength");

/** Longest array of byte values read (a JavaScript array of that many numbers takes 2 GiB). */
const MAX_ARRAY = 2 ** 28;

/** What an exception says, without letting its own getters throw. */
function said(e) {
  try {
    return String(e instanceof Error ? e.message : e);
  } catch {
    return "it threw";
  }
}

/**
 * `value` as a `Uint8Array` of its bytes: a `Uint8Array` (a Node `Buffer` is one) viewed afresh
 * through its internal slots, an `ArrayBuffer` viewed, an array of byte values (integers from 0 to
 * 255, each element read once) copied. Throws a string, the reason, for anything else (a string, a
 * detached buffer, another typed array, an element that is not a byte value or cannot be read).
 */
export function byteChunk(value) {
  if (tagOf.call(value) === "Uint8Array") {
    const buffer = bufferOf.call(value);
    try {
      return new Uint8Array(buffer, offsetOf.call(value), lengthOf.call(value));
    } catch {
      throw "its ArrayBuffer is detached (transferred elsewhere): it has no bytes to read";
    }
  }
  let isBuffer = true;
  try {
    bufferLength.call(value);
  } catch {
    isBuffer = false;
  }
  if (isBuffer) {
    try {
      return new Uint8Array(value);
    } catch {
      throw "the ArrayBuffer is detached (transferred elsewhere): it has no bytes to read";
    }
  }
  if (typeof value === "string") {
    throw "it is a string, not bytes (encode it first: new TextEncoder().encode(text))";
  }
  let isArray;
  try {
    isArray = Array.isArray(value);
  } catch (e) {
    throw `it cannot be read: ${said(e)}`; // a revoked Proxy
  }
  if (!isArray) throw "it is neither a Uint8Array, an ArrayBuffer nor an array of byte values";
  let length;
  try {
    length = value.length;
  } catch (e) {
    throw `its length cannot be read: ${said(e)}`;
  }
  if (!(length <= MAX_ARRAY)) throw "it is an array of more than 2^28 elements (pass a Uint8Array)";
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    let v;
    try {
      v = value[i];
    } catch (e) {
      throw `element ${i} cannot be read: ${said(e)}`;
    }
    if (!(Number.isInteger(v) && v >= 0 && v <= 255)) {
      throw `element ${i} is not a byte value (an integer from 0 to 255)`;
    }
    bytes[i] = v;
  }
  return bytes;
}

/** `reader.read()` as a promise, a synchronous throw its rejection. */
export function readFrom(reader) {
  try {
    return Promise.resolve(reader.read());
  } catch (e) {
    return Promise.reject(e);
  }
}

/** What an exception says (its `message`, and its `cause`'s), `fallback` if it says nothing. */
export function describeError(e, fallback) {
  try {
    if (e instanceof Error) {
      const text = (err) => (typeof err.message === "string" ? err.message : "");
      return e.cause instanceof Error ? `${text(e)}: ${text(e.cause)}` : text(e);
    }
    return typeof e === "string" ? e : fallback;
  } catch {
    return fallback;
  }
}

/** The answer's header `name` (`null` if absent, or if reading it throws). */
export function headerOf(response, name) {
  try {
    const value = response.headers.get(name);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The answer's status, a number (0 if it has none, or if reading it throws). */
export function statusOf(response) {
  try {
    const status = response.status;
    return typeof status === "number" ? status : 0;
  } catch {
    return 0;
  }
}

/** A reader of the answer's body, `null` without a body; what reading it throws is the caller's. */
export function readerOf(response) {
  const body = response.body;
  return body ? body.getReader() : null;
}

/** `reader.cancel()`, whose synchronous throw or rejection is nobody's concern: what is not wanted
 * any more is let go. */
export function cancelQuietly(reader) {
  try {
    const cancelled = reader.cancel();
    if (cancelled && typeof cancelled.catch === "function") cancelled.catch(() => {});
  } catch {
    // A reader already released, or a mock's cancel that throws.
  }
}

/**
 * `promise`, or a rejection with `signal`'s reason as soon as it fires (no `signal`: `promise`
 * itself). A wait on a `fetch` that ignores the request's signal (a mock, a wrapper that drops it)
 * then ends at the abort all the same. The listener goes when either settles; a later rejection
 * of `promise` is handled here.
 */
export function untilAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    const settle = (then) => (value) => {
      signal.removeEventListener("abort", abort);
      then(value);
    };
    promise.then(settle(resolve), settle(reject));
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Cancels `reader` (quietly) when `signal` fires, so that a read waiting on a body that ignores
 * the request's signal (a custom `fetch`'s) ends then; returns the function that stops watching.
 * No `signal`: nothing to watch.
 */
export function cancelOnAbort(reader, signal) {
  if (!signal) return () => {};
  const cancel = () => cancelQuietly(reader);
  if (signal.aborted) {
    cancel();
    return () => {};
  }
  signal.addEventListener("abort", cancel, { once: true });
  return () => signal.removeEventListener("abort", cancel);
}
