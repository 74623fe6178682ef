import { wasm } from "./api.js";

/**
 * Wraps a wasm export so that using it before `init()` throws a clear `not-initialized`
 * `ProtocolError` instead of a TypeError from inside the glue code. Classes keep `instanceof`,
 * static methods and their prototype.
 */
export function guard<T extends object>(target: T): T {
  return new Proxy(target, {
    construct(t, args, newTarget) {
      wasm();
      return Reflect.construct(t as unknown as new (...a: unknown[]) => object, args, newTarget);
    },
    apply(t, self, args) {
      wasm();
      return Reflect.apply(t as unknown as (...a: unknown[]) => unknown, self, args);
    },
  });
}
