/**
 * agentwire for bundlers with WebAssembly ESM integration (webpack 5 `experiments.asyncWebAssembly`,
 * Vite with `vite-plugin-wasm`): the wasm module is instantiated by the bundler, so `init()`
 * resolves at once. Without such a bundler, import "agentwire" (the browser entry) instead.
 *
 * @module
 */
import * as wasmModule from "../bundler/agentwire.js";
import { bind, isInitialized } from "./api.js";

export * from "./exports.js";

bind(wasmModule as unknown as Parameters<typeof bind>[0]);

/** Already done by the bundler; resolves at once. */
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
export type { MessageBuilder, ContentBuilder } from "../bundler/agentwire.js";
