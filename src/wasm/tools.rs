//! Tools for JavaScript: `ToolRegistry` (definitions, JSON Schema validation with messages for the
//! model), `ToolArguments` (one call's arguments while they stream), and the pure steps of the
//! client-side tool loop (pending calls checked, the next request). The loop itself, which runs
//! the registered JavaScript functions, is the TypeScript layer's (`js/src/tools.ts`).

use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_ts, to_js, to_ts};
use super::error::js_error;
use super::json::{ChangesToJs, Utf16Pieces};
use crate::json::PartialJsonLimits;
use crate::tool::{round, StreamedArguments, ToolDefinition, ToolError, ToolOutcome, ToolRegistry};

/// Tool definitions by name, with their JSON Schemas compiled once (the supported subset and the
/// exact messages are the Rust `tool` module's).
///
/// ```js
/// const tools = new ToolRegistry();
/// tools.register({ name: "write_file", description: "Write a file.", parameters: {
///   type: "object", properties: { path: { type: "string" } }, required: ["path"] } });
/// tools.validateArguments("write_file", {}); // throws ProtocolError `tool-validation`:
/// // "Validation failed for tool 'write_file': Missing required argument 'path'."
/// ```
#[wasm_bindgen(js_name = ToolRegistry)]
pub struct JsToolRegistry(pub(crate) ToolRegistry);

#[wasm_bindgen(js_class = ToolRegistry)]
impl JsToolRegistry {
    /// An empty registry.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsToolRegistry {
        Self(ToolRegistry::new())
    }

    /// Compiles the tool's `parameters` schema and adds the tool (replacing one of the same name).
    /// Returns the schema's warnings: keywords that compiled but are not checked (a remote
    /// `$ref`, `contentSchema`, a keyword JSON Schema does not define such as `nullable`, …).
    ///
    /// # Errors
    /// `invalid-argument` if `definition` is not `{name, description?, parameters?}`;
    /// `invalid-tool-name` (`details.name`, `reason`) for an empty name; the schema's error
    /// otherwise (`invalid-schema`, `unresolved-schema-ref`, `schema-ref-cycle`,
    /// `schema-too-large`, with the JSON Pointer in `details.pointer`). The registry is then
    /// unchanged.
    #[wasm_bindgen(unchecked_return_type = "SchemaWarning[]")]
    pub fn register(&mut self, definition: Ts<ToolDefinition>) -> Result<JsValue, JsValue> {
        let definition: ToolDefinition = from_ts(&definition, "definition")?;
        let warnings = self.0.register(definition).map_err(|e| js_error(&e))?;
        to_js(&warnings)
    }

    /// Removes a tool; says whether it was registered.
    pub fn remove(&mut self, name: &str) -> bool {
        self.0.remove(name).is_some()
    }

    /// Whether a tool of this name is registered.
    pub fn has(&self, name: &str) -> bool {
        self.0.get(name).is_some()
    }

    /// A tool's definition, or `undefined`.
    pub fn get(&self, name: &str) -> Result<Option<Ts<ToolDefinition>>, JsValue> {
        self.0.get(name).map(to_ts).transpose()
    }

    /// The definitions, sorted by name.
    #[wasm_bindgen(unchecked_return_type = "ToolDefinition[]")]
    pub fn definitions(&self) -> Result<JsValue, JsValue> {
        let all: Vec<&ToolDefinition> = self.0.definitions().collect();
        to_js(&all)
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.0.names().map(str::to_owned).collect()
    }

    /// How many tools are registered.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32::try_from(self.0.len()).unwrap_or(u32::MAX)
    }

    /// Checks a call's arguments (a JSON object) against the tool's schema.
    ///
    /// # Errors
    /// A `ProtocolError` whose `message` is the sentence for the model (`Validation failed for tool
    /// 'write_file': Missing required argument 'path'.`) and `details` `{errorType: "VALIDATION",
    /// problems}`; code `unknown-tool`, `arguments-not-object` or `tool-validation`.
    #[wasm_bindgen(js_name = validateArguments)]
    pub fn validate_arguments(
        &self,
        tool_name: &str,
        #[wasm_bindgen(unchecked_param_type = "JsonValue")] args: JsValue,
    ) -> Result<(), JsValue> {
        let args: serde_json::Value = from_js(&args, "args")?;
        self.0
            .validate_arguments(tool_name, &args)
            .map_err(|e| js_error(&e))
    }

    /// Parses a call's arguments text (Agent API `arguments`; `""` reads as `{}`) and checks it;
    /// returns the parsed arguments.
    ///
    /// # Errors
    /// As `validateArguments`, and code `invalid-arguments-json` (`Validation failed for tool 'x':
    /// Arguments are not valid JSON: … at line 1 column 9.`).
    #[wasm_bindgen(js_name = validateArgumentsText, unchecked_return_type = "JsonValue")]
    pub fn validate_arguments_text(
        &self,
        tool_name: &str,
        arguments: &str,
    ) -> Result<JsValue, JsValue> {
        let value = self
            .0
            .validate_arguments_text(tool_name, arguments)
            .map_err(|e| js_error(&e))?;
        to_js(&value)
    }

    /// The calls of an Agent API response the client must answer (`function_call` contents without
    /// a `function_call_output` in the same response), each with its arguments parsed and checked
    /// (`arguments` that is not text, an object say, gets a `VALIDATION` error).
    ///
    /// # Errors
    /// `invalid-argument` if `response` is not an `AgentResponse`.
    #[cfg(feature = "agent-api")]
    #[wasm_bindgen(js_name = checkAgentCalls, unchecked_return_type = "CheckedToolCall[]")]
    pub fn check_agent_calls(
        &self,
        response: Ts<crate::dialect::agent_api::AgentResponse>,
    ) -> Result<JsValue, JsValue> {
        let response = from_ts(&response, "response")?;
        to_js(&round::check_function_calls(&self.0, &response))
    }

    /// The tool calls of an AgentX answer (`response`, the messages of one `POST /chat`) that no
    /// later `tool_result` or `tool_error` of `response` answers, each checked (a `tool_call`
    /// whose `args` is not an object gets a `VALIDATION` error). (A result in `conversation`, the
    /// messages before, answers an earlier call with the same id.)
    ///
    /// # Errors
    /// `invalid-argument` if either is not a list of AgentX messages.
    #[cfg(feature = "agentx")]
    #[wasm_bindgen(js_name = checkAgentxCalls, unchecked_return_type = "CheckedToolCall[]")]
    pub fn check_agentx_calls(
        &self,
        #[wasm_bindgen(unchecked_param_type = "AgentxMessage[]")] conversation: JsValue,
        #[wasm_bindgen(unchecked_param_type = "AgentxMessage[]")] response: JsValue,
    ) -> Result<JsValue, JsValue> {
        let conversation: Vec<crate::dialect::agentx::Message> =
            from_js(&conversation, "conversation")?;
        let response: Vec<crate::dialect::agentx::Message> = from_js(&response, "response")?;
        to_js(&round::check_tool_calls(&self.0, &conversation, &response))
    }

    /// `request` with the registered tools added to its `tools` (Agent API `{type: "function",
    /// function: {name, description, parameters}}`), except names it already offers.
    ///
    /// # Errors
    /// `invalid-argument` if `request` is not an `AgentRequest`.
    #[cfg(feature = "agent-api")]
    #[wasm_bindgen(js_name = offerTools)]
    pub fn offer_tools(
        &self,
        request: Ts<crate::dialect::agent_api::AgentRequest>,
    ) -> Result<Ts<crate::dialect::agent_api::AgentRequest>, JsValue> {
        let mut request = from_ts(&request, "request")?;
        round::offer_tools(&mut request, &self.0);
        to_ts(&request)
    }
}

impl Default for JsToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

/// The `EXECUTION` error of a tool that threw: message `Execution of tool '<toolName>' failed:
/// <message>`.
#[wasm_bindgen(js_name = toolExecutionError)]
pub fn tool_execution_error(tool_name: &str, message: &str) -> Result<Ts<ToolError>, JsValue> {
    to_ts(&ToolError::execution(tool_name, message))
}

/// The next Agent API request of the tool loop: `request` whose `input` gains the response's
/// `output` messages and one `function_call_output` message (role `tool`) per outcome. A new
/// request holding the conversation so far, not a resend. Outputs are text: a string result as
/// is, another result as JSON text, an error as `{"error_type": …, "message": …}` JSON text.
///
/// # Errors
/// `invalid-argument` if an argument has the wrong shape.
#[cfg(feature = "agent-api")]
#[wasm_bindgen(js_name = agentToolContinuation)]
pub fn agent_tool_continuation(
    request: Ts<crate::dialect::agent_api::AgentRequest>,
    response: Ts<crate::dialect::agent_api::AgentResponse>,
    #[wasm_bindgen(unchecked_param_type = "ToolOutcome[]")] outcomes: JsValue,
) -> Result<Ts<crate::dialect::agent_api::AgentRequest>, JsValue> {
    let request = from_ts(&request, "request")?;
    let response = from_ts(&response, "response")?;
    let outcomes: Vec<ToolOutcome> = from_js(&outcomes, "outcomes")?;
    to_ts(&round::continue_request(&request, &response, &outcomes))
}

/// The next AgentX request of the tool loop: `request` whose `messages` gain the answer's
/// `response` messages and one `user` message with a `tool_result` or `tool_error` part per
/// outcome.
///
/// # Errors
/// `invalid-argument` if an argument has the wrong shape.
#[cfg(feature = "agentx")]
#[wasm_bindgen(js_name = agentxToolContinuation)]
pub fn agentx_tool_continuation(
    request: Ts<crate::dialect::agentx::ChatRequest>,
    #[wasm_bindgen(unchecked_param_type = "AgentxMessage[]")] response: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ToolOutcome[]")] outcomes: JsValue,
) -> Result<Ts<crate::dialect::agentx::ChatRequest>, JsValue> {
    let request = from_ts(&request, "request")?;
    let response: Vec<crate::dialect::agentx::Message> = from_js(&response, "response")?;
    let outcomes: Vec<ToolOutcome> = from_js(&outcomes, "outcomes")?;
    to_ts(&round::continue_chat(&request, &response, &outcomes))
}

/// One tool call's arguments while they stream: `push` each delta of the arguments text (or
/// `sync` the whole text so far), get what changed in the best-effort value. Total work is linear
/// in the argument length.
#[wasm_bindgen(js_name = ToolArguments)]
pub struct JsToolArguments {
    arguments: StreamedArguments,
    changes: ChangesToJs,
    pieces: Utf16Pieces,
}

#[wasm_bindgen(js_class = ToolArguments)]
impl JsToolArguments {
    /// Empty arguments (`limits` as for `PartialJson`, but `maxDepth` defaults to 127 levels,
    /// the depth `validateArgumentsText` reads, so every call that can validate also streams).
    ///
    /// # Errors
    /// `invalid-argument` if `limits` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(limits: Option<Ts<PartialJsonLimits>>) -> Result<JsToolArguments, JsValue> {
        let defaults = StreamedArguments::default_limits();
        let limits = match limits {
            Some(l) => {
                let mut given: PartialJsonLimits = from_ts(&l, "limits")?;
                // A `maxDepth` left out is the tools' default, not `PartialJson`'s.
                let depth = js_sys::Reflect::get(&l.js_value(), &"maxDepth".into());
                if depth.is_ok_and(|d| d.is_undefined()) {
                    given.max_depth = defaults.max_depth;
                }
                given
            }
            None => defaults,
        };
        Ok(Self {
            arguments: StreamedArguments::new(limits),
            changes: ChangesToJs::default(),
            pieces: Utf16Pieces::default(),
        })
    }

    /// Reads the next delta; returns what it changed (see `PartialJson.push`).
    ///
    /// # Errors
    /// The `json-*` error of the first byte that is not JSON; later pushes throw it again.
    /// `invalid-argument` if `delta` is not a string.
    ///
    /// A delta that ends between the two halves of a surrogate pair holds the high half until the
    /// next push (as `PartialJson.push`).
    #[wasm_bindgen(unchecked_return_type = "PartialChange[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] delta: JsValue,
    ) -> Result<JsValue, JsValue> {
        let delta = self.pieces.text(&delta, "delta")?;
        let changes = self.arguments.push(&delta).map_err(|e| js_error(&e))?;
        self.changes.convert(changes)
    }

    /// Catches up with the whole arguments text so far: reads only what was not pushed yet (no
    /// changes when it is the same text). Text that does not extend what was pushed starts over:
    /// the changes then begin with a `set` of the root to `null`.
    ///
    /// # Errors
    /// As `push`.
    #[wasm_bindgen(unchecked_return_type = "PartialChange[]")]
    pub fn sync(&mut self, text: &str) -> Result<JsValue, JsValue> {
        // The whole text so far: a half held from a push is in it, or was replaced.
        self.pieces = Utf16Pieces::default();
        let changes = self.arguments.sync(text).map_err(|e| js_error(&e))?;
        self.changes.convert(changes)
    }

    /// The best-effort value so far, converted anew (`undefined` before anything shows); to follow
    /// it, apply the changes instead.
    #[wasm_bindgen(getter, unchecked_return_type = "JsonValue | undefined")]
    pub fn value(&self) -> Result<JsValue, JsValue> {
        match self.arguments.value() {
            Some(v) => to_js(v),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The arguments text read so far.
    #[wasm_bindgen(getter)]
    pub fn text(&self) -> String {
        self.arguments.text().to_owned()
    }

    /// Whether the text so far is a complete JSON value.
    #[wasm_bindgen(getter, js_name = isComplete)]
    pub fn is_complete(&self) -> bool {
        self.arguments.is_complete()
    }
}
