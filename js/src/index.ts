/**
 * agentwire: talk to AI agents from the browser and Node.
 *
 * The same module is built for three targets (see the package's `exports`): browsers (`web`: call
 * `await init()` once, which fetches `agentwire_bg.wasm` next to this file — bundlers such as Vite
 * handle that `new URL(…, import.meta.url)` reference), Node (`node`: loaded at import, `init()`
 * resolves at once) and bundlers with WebAssembly ESM integration (`bundler`: likewise).
 *
 * @module
 */
import * as raw from "./agentwire.js";
import { bind, isInitialized } from "./api.js";
import { guard } from "./guard.js";

/** What `init()` accepts in browsers: the wasm's URL, a `Response`, its bytes, or a module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

type WebInit = (options?: { module_or_path: InitInput | Promise<InitInput> }) => Promise<unknown>;
// Only the browser build has an async initializer; the others instantiate at import. It is read
// without a static member access: `raw.default` of a glue with no default export (the bundler and
// Node targets) is an import of a missing binding, which webpack 5 rejects as an error in an ES
// module package (the packaging test's webpack app).
const webInit = Reflect.get(raw, "default") as WebInit | undefined;
if (typeof webInit !== "function") bind(raw);

let pending: Promise<void> | undefined;

/**
 * Loads and instantiates the wasm module (once; later calls return the same promise). In Node and
 * with bundlers it is already loaded and this resolves at once.
 *
 * @throws if the module cannot be fetched or instantiated.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void> {
  pending ??=
    typeof webInit !== "function"
      ? Promise.resolve()
      : webInit(input === undefined ? undefined : { module_or_path: input }).then(() => bind(raw));
  return pending;
}

export default init;
export { isInitialized };

export { ProtocolError } from "./errors.js";
export { AgentClient, AgentStream } from "./api.js";
export type { AgentClientOptions, DeltaTarget, PartChange, StreamHandlers, StreamRequestOptions } from "./api.js";
export type { StreamViolation, ValidateWithOptions } from "./api.js";
export { AcpClient, AcpRunHandle, acpMessage } from "./acp.js";
export type { AcpClientOptions, AcpInput, AcpPartTarget, AcpRunHandlers, AcpRunOptions } from "./acp.js";
export { RunSession, toBody } from "./run.js";
export type { BodyInput, RunSessionOptions, RunSessionStep, RunSessionView, StateChangeListener } from "./run.js";
export { AgentxChat, AgentxClient, agentxUserMessage, isAgentxPart } from "./agentx.js";
export type {
  AgentxChatOptions,
  AgentxChatUpdate,
  AgentxClientOptions,
  AgentxHandlers,
  AgentxPartOfType,
  AgentxPartTarget,
  AgentxTarget,
} from "./agentx.js";
export { ClientTools, DEFAULT_MAX_TOOL_ROUNDS, MAX_RESULT_DEPTH, applyPartialChanges } from "./tools.js";
export type {
  StreamingToolCall,
  ToolCallContext,
  ToolFunction,
  ToolLoopHandlers,
  ToolOptions,
  ToolStreamHandlers,
} from "./tools.js";

// The wasm classes and functions. Using one before `init()` throws a `not-initialized` error.
export const SseDecoder = guard(raw.SseDecoder, "SseDecoder");
export type SseDecoder = raw.SseDecoder;
export const AgentStreamDecoder = guard(raw.AgentStreamDecoder, "AgentStreamDecoder");
export type AgentStreamDecoder = raw.AgentStreamDecoder;
export const RequestBuilder = guard(raw.RequestBuilder, "RequestBuilder");
export type RequestBuilder = raw.RequestBuilder;
export const ResponseBuilder = guard(raw.ResponseBuilder, "ResponseBuilder");
export type ResponseBuilder = raw.ResponseBuilder;
export type { MessageBuilder, ContentBuilder } from "./agentwire.js";
export const encodeAgentEvent = guard(raw.encodeAgentEvent, "encodeAgentEvent");
export const agentContentToPart = guard(raw.agentContentToPart, "agentContentToPart");
export const classifyUrl = guard(raw.classifyUrl, "classifyUrl");
export const Pattern = guard(raw.Pattern, "Pattern");
export type Pattern = raw.Pattern;
export const validateAgentRequest = guard(raw.validateAgentRequest, "validateAgentRequest");
export const MessageBody = guard(raw.MessageBody, "MessageBody");
export type MessageBody = raw.MessageBody;
export const BodySchema = guard(raw.BodySchema, "BodySchema");
export type BodySchema = raw.BodySchema;
export type SchemaWatch = raw.SchemaWatch;
export const validatePayload = guard(raw.validatePayload, "validatePayload");
export const StructuredMessage = guard(raw.StructuredMessage, "StructuredMessage");
export type StructuredMessage = raw.StructuredMessage;
export const CommunicationSchema = guard(raw.CommunicationSchema, "CommunicationSchema");
export type CommunicationSchema = raw.CommunicationSchema;
export const acpCheckInput = guard(raw.acpCheckInput, "acpCheckInput");
export const PartialJson = guard(raw.PartialJson, "PartialJson");
export type PartialJson = raw.PartialJson;
export const ToolRegistry = guard(raw.ToolRegistry, "ToolRegistry");
export type ToolRegistry = raw.ToolRegistry;
export const ToolArguments = guard(raw.ToolArguments, "ToolArguments");
export type ToolArguments = raw.ToolArguments;
export const toolExecutionError = guard(raw.toolExecutionError, "toolExecutionError");
export const agentToolContinuation = guard(raw.agentToolContinuation, "agentToolContinuation");
export const agentxToolContinuation = guard(raw.agentxToolContinuation, "agentxToolContinuation");
export const AgentxStreamDecoder = guard(raw.AgentxStreamDecoder, "AgentxStreamDecoder");
export type AgentxStreamDecoder = raw.AgentxStreamDecoder;

// Types generated from the Rust types (tsify).
export type * from "./types.js";
