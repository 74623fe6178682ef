// What every entry point exports besides the wasm classes it binds itself.
export { ProtocolError } from "./errors.js";
export { AgentClient, AgentStream } from "./api.js";
export type {
  AgentClientOptions,
  DeltaTarget,
  StreamHandlers,
  StreamRequestOptions,
} from "./api.js";
export type {
  AgentEventJs,
  AgentRequest,
  AgentResponse,
  Content,
  ContentKind,
  ErrorInfo,
  FunctionCall,
  FunctionCallOutput,
  FunctionTool,
  JsonValue,
  Message,
  MessageType,
  Role,
  RunStatus,
  Severity,
  SseDecoderItem,
  SseDecoderOptions,
  Stop,
  StreamOptions,
  StreamUpdate,
  Tool,
  Part,
  PartKind,
  PartStatus,
  ContentEncoding,
  Body,
} from "../web/agentwire.js";
