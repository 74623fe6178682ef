/**
 * agentwire for browsers (and any ESM environment with `fetch`): call `await init()` once, then use
 * the API. `init()` fetches `agentwire_bg.wasm` next to this module (bundlers such as Vite handle
 * the `new URL(…, import.meta.url)` reference), or takes the module's bytes / URL / `Response`.
 *
 * @module
 */
import wasmInit, * as wasmModule from "../web/agentwire.js";
import { bind, isInitialized } from "./api.js";
import { guard } from "./guard.js";

export * from "./exports.js";

/** What `init()` accepts: the wasm's URL, a `Response`, its bytes, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

let pending: Promise<void> | undefined;

/**
 * Loads and instantiates the wasm module (once; later calls return the same promise).
 *
 * @throws if the module cannot be fetched or instantiated.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void> {
  pending ??= wasmInit(input === undefined ? undefined : { module_or_path: input }).then(() => {
    bind(wasmModule);
  });
  return pending;
}

export default init;

export { isInitialized };

export const SseDecoder = guard(wasmModule.SseDecoder);
export type SseDecoder = wasmModule.SseDecoder;
export const AgentStreamDecoder = guard(wasmModule.AgentStreamDecoder);
export type AgentStreamDecoder = wasmModule.AgentStreamDecoder;
export const RequestBuilder = guard(wasmModule.RequestBuilder);
export type RequestBuilder = wasmModule.RequestBuilder;
export const ResponseBuilder = guard(wasmModule.ResponseBuilder);
export type ResponseBuilder = wasmModule.ResponseBuilder;
export const encodeAgentEvent = guard(wasmModule.encodeAgentEvent);
export const validateAgentRequest = guard(wasmModule.validateAgentRequest);
export type { MessageBuilder, ContentBuilder } from "../web/agentwire.js";
