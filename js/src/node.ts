/**
 * agentwire for Node.js (20+): the wasm module is loaded synchronously when this module is
 * imported, so `init()` resolves at once (it exists so code can be shared with browsers).
 *
 * @module
 */
import * as wasmModule from "../node/agentwire.js";
import { bind, isInitialized } from "./api.js";

export * from "./exports.js";

bind(wasmModule as unknown as Parameters<typeof bind>[0]);

/** Already done in Node; resolves at once. */
export function init(_input?: unknown): Promise<void> {
  return Promise.resolve();
}

export default init;

export { isInitialized };

export const SseDecoder = wasmModule.SseDecoder;
export type SseDecoder = wasmModule.SseDecoder;
export const AgentStreamDecoder = wasmModule.AgentStreamDecoder;
export type AgentStreamDecoder = wasmModule.AgentStreamDecoder;
export const RequestBuilder = wasmModule.RequestBuilder;
export type RequestBuilder = wasmModule.RequestBuilder;
export const ResponseBuilder = wasmModule.ResponseBuilder;
export type ResponseBuilder = wasmModule.ResponseBuilder;
export const encodeAgentEvent = wasmModule.encodeAgentEvent;
export const validateAgentRequest = wasmModule.validateAgentRequest;
export type { MessageBuilder, ContentBuilder } from "../node/agentwire.js";
