import { wasm } from "./api.js";
import { ProtocolError } from "./errors.js";

/**
 * Wraps a wasm export so that using it before `init()` throws a clear `not-initialized`
 * `ProtocolError` instead of a TypeError from inside the glue code: constructing it, calling it,
 * and calling its static methods (`StructuredMessage.fromJSON`). Classes keep `instanceof` and
 * their prototype.
 *
 * An export missing from the wasm module (a build with fewer cargo features, see the README's
 * "Feature builds") becomes a stub that throws `feature-not-built` when used.
 */
export function guard<T extends object>(target: T | undefined, name = "this API"): T {
  if (target === undefined) {
    // A function expression, not an arrow: the stub must be constructible for `new` to reach the trap.
    const missing = function (): never {
      throw notBuilt(name);
    };
    return new Proxy(missing, { construct: missing, apply: missing, get: (t, p) => (p === "prototype" ? {} : missing) }) as unknown as T;
  }
  return new Proxy(target, {
    construct(t, args, newTarget) {
      wasm();
      return Reflect.construct(t as unknown as new (...a: unknown[]) => object, args, newTarget);
    },
    apply(t, self, args) {
      wasm();
      return Reflect.apply(t as unknown as (...a: unknown[]) => unknown, self, args);
    },
    get(t, property, receiver) {
      const value: unknown = Reflect.get(t, property, receiver);
      if (typeof value !== "function" || property === "prototype" || property === "constructor") return value;
      // A static method: check initialization first, keep `this` as the class.
      return (...args: unknown[]) => {
        wasm();
        return Reflect.apply(value as (...a: unknown[]) => unknown, t, args);
      };
    },
  });
}

/** The `feature-not-built` error of `name` (`details.name`), an API this build left out. */
export function notBuilt(name: string): ProtocolError {
  return new ProtocolError(
    "feature-not-built",
    `${name} is not in this build of agentwire (it was built without the cargo feature that provides it)`,
    { name },
  );
}
