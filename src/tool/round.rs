//! The client-side tool loop, minus running the tools: which calls of an agent's answer the client
//! must answer, their arguments checked against a [`ToolRegistry`], and the next request carrying
//! the outcomes back.
//!
//! One *round*: the client sends a request, the agent answers with tool calls, the client runs them
//! (in JavaScript, the functions registered with `client.tools.register`) and sends their outcomes
//! in a **new request** holding the conversation so far; the agent's answer to that request is the
//! next round. Nothing is resent: each round is a request of its own.
//!
//! | dialect | a call | answered by | the next request |
//! |---|---|---|---|
//! | Agent API | a `data` content `{call_id, name, arguments}` of a `function_call` message | a `function_call_output` message (role `tool`) whose `data` is `{call_id, name, output}` | `POST /process` with `input` = the previous input, the response's `output` messages, then one `function_call_output` message per call |
//! | AgentX | a `tool_call` part `{tool_call_id, tool_name, args}` | a `tool_result` part `{tool_call_id, result}` or a `tool_error` part `{tool_call_id, error_type, message}` | `POST /chat` with `messages` = the previous messages, the response's messages, then one `user` message carrying a result or error part per call |
//!
//! A call is *pending* when nothing in the same answer (for AgentX, nothing after the call in it)
//! answers it yet: a server that runs a tool itself streams its output or result, and the client
//! leaves that call alone. An AgentX result earlier in the conversation answers an earlier call
//! with the same id (agents that number calls per turn reuse `call_0`), not this one.
//!
//! Agent API outputs are text (`FunctionCallOutput.output`): a result that is a JSON string is sent
//! as that string, any other result as its JSON text, and a tool error as the JSON text
//! `{"error_type": "VALIDATION", "message": "Validation failed for tool …"}` (the field names of
//! AgentX's `tool_error` part). AgentX's `user` role for the results is agentwire's choice: the
//! format's document has the agent's own framework run tools and defines no role for a client's
//! results.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ToolError, ToolErrorType, ToolRegistry};

/// A pending call with its arguments checked: run the tool with [`arguments`](Self::arguments), or
/// send [`error`](Self::error) back instead.
///
/// JSON (camelCase): `{"callId": "call_1", "toolName": "get_time", "arguments": {"timezone":
/// "Europe/Paris"}}`, or with `"arguments": null` and `"error": {ToolError}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CheckedToolCall {
    /// The call's id (Agent API `call_id`, AgentX `tool_call_id`); results refer to it.
    pub call_id: String,
    /// The tool called.
    pub tool_name: String,
    /// The arguments, parsed and valid against the tool's schema (a JSON object); `null` when
    /// [`error`](Self::error) is set.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
    pub arguments: Value,
    /// Why the tool must not run: a `VALIDATION` error (unknown tool, arguments that are not JSON
    /// or break the schema) to send back so the model can correct the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub error: Option<ToolError>,
}

impl CheckedToolCall {
    fn new(call_id: &str, tool_name: &str, checked: Result<Value, ToolError>) -> Self {
        let (arguments, error) = match checked {
            Ok(v) => (v, None),
            Err(e) => (Value::Null, Some(e)),
        };
        Self {
            call_id: call_id.to_owned(),
            tool_name: tool_name.to_owned(),
            arguments,
            error,
        }
    }

    /// The outcome of a call that failed its check, `None` for a call to run.
    pub fn failed(&self) -> Option<ToolOutcome> {
        self.error.as_ref().map(|error| ToolOutcome::Error {
            call_id: self.call_id.clone(),
            tool_name: self.tool_name.clone(),
            error: error.clone(),
        })
    }
}

/// What one client-side call came to, to send back to the agent.
///
/// JSON (camelCase, tagged by `type`): `{"type": "result", "callId": "…", "toolName": "…",
/// "value": <the tool's result>}` or `{"type": "error", "callId": "…", "toolName": "…", "error":
/// {ToolError}}`. Every field named is required; others are ignored.
// Read as a JSON object, then by hand on its `type` (`ToolOutcome::from_map`); written as serde's
// internally tagged enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ToolOutcome {
    /// The tool ran and returned `value`.
    Result {
        /// The call answered.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// What the tool returned (any JSON).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        value: Value,
    },
    /// The call failed validation (`VALIDATION`, not run) or the tool threw (`EXECUTION`).
    Error {
        /// The call answered.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// The error, with the message the model reads.
        error: ToolError,
    },
}

impl ToolOutcome {
    /// The call this answers.
    pub fn call_id(&self) -> &str {
        match self {
            ToolOutcome::Result { call_id, .. } | ToolOutcome::Error { call_id, .. } => call_id,
        }
    }

    /// The tool.
    pub fn tool_name(&self) -> &str {
        match self {
            ToolOutcome::Result { tool_name, .. } | ToolOutcome::Error { tool_name, .. } => {
                tool_name
            }
        }
    }

    /// Reads an outcome from its JSON object: `type` `"result"` or `"error"`, then that variant's
    /// fields (`callId` and `toolName` strings, `value` any JSON, `error` a [`ToolError`]); other
    /// members are ignored.
    ///
    /// # Errors
    /// serde's messages: ``missing field `callId` ``, ``unknown variant `x`, expected `result` or
    /// `error` ``, ``invalid type: integer `1`, expected a string``, and [`ToolError`]'s own.
    ///
    /// By hand rather than as serde's internally tagged enum, which buffers the object and compiles
    /// a reader for each variant's fields over the buffer: 6 KB of the wasm module.
    pub fn from_map(mut map: serde_json::Map<String, Value>) -> Result<Self, serde_json::Error> {
        use agentwire_core::json::from_tree;
        use serde::de::Error as _;
        let mut take = |name: &'static str| {
            map.shift_remove(name)
                .ok_or_else(|| serde_json::Error::missing_field(name))
        };
        let kind: String = from_tree(take("type")?)?;
        let is_result = match kind.as_str() {
            "result" => true,
            "error" => false,
            other => {
                return Err(serde_json::Error::unknown_variant(
                    other,
                    &["result", "error"],
                ))
            }
        };
        let call_id: String = from_tree(take("callId")?)?;
        let tool_name: String = from_tree(take("toolName")?)?;
        Ok(if is_result {
            ToolOutcome::Result {
                call_id,
                tool_name,
                value: take("value")?,
            }
        } else {
            ToolOutcome::Error {
                call_id,
                tool_name,
                error: from_tree(take("error")?)?,
            }
        })
    }
}

impl<'de> Deserialize<'de> for ToolOutcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = serde_json::Map::deserialize(deserializer)?;
        ToolOutcome::from_map(map).map_err(serde::de::Error::custom)
    }
}

fn error_type_name(t: ToolErrorType) -> &'static str {
    match t {
        ToolErrorType::Validation => "VALIDATION",
        ToolErrorType::Execution => "EXECUTION",
    }
}

#[cfg(feature = "agent-api")]
mod agent_api {
    use super::*;
    use crate::dialect::agent_api::{
        AgentRequest, AgentResponse, Content, FunctionCall, FunctionCallOutput, Message,
        MessageType, Role, Tool,
    };

    /// A pending call: read as a [`FunctionCall`], or one whose `data.arguments` is not text (an
    /// object, `null`…), which `FunctionCall` cannot hold and which is answered with an error.
    enum Pending<'a> {
        Call(FunctionCall),
        NotText {
            call_id: String,
            name: String,
            arguments: &'a Value,
        },
    }

    /// A `data` object that [`FunctionCall`] does not read: its `call_id` or `name` is `null` (a
    /// Python server's `None`: read as absent, `""`) or not a string (read as its JSON text: a
    /// `call_id` of `5` is `"5"`), or its `arguments` is there but not a string (a server that
    /// sends the arguments as an object; answered with an error). Such a call is run (or
    /// answered) as any other, not dropped.
    #[inline(never)]
    fn loose_call(c: &Content) -> Option<Pending<'_>> {
        let data = c.data.as_ref()?.as_object()?;
        let text = |key: &str| match data.get(key) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => agentwire_core::json::json_text(other),
        };
        let (call_id, name) = (text("call_id"), text("name"));
        Some(match data.get("arguments") {
            None => Pending::Call(FunctionCall {
                call_id,
                name,
                arguments: String::new(),
            }),
            Some(Value::String(arguments)) => Pending::Call(FunctionCall {
                call_id,
                name,
                arguments: arguments.clone(),
            }),
            Some(arguments) => Pending::NotText {
                call_id,
                name,
                arguments,
            },
        })
    }

    fn pending(response: &AgentResponse) -> Vec<Pending<'_>> {
        // (Built by inserting: `collect` into a set compiles a sort per iterator type.)
        let mut answered = crate::set::Set::new();
        for o in response
            .output
            .iter()
            .filter(|m| m.kind == MessageType::FunctionCallOutput)
            .flat_map(|m| &m.content)
            .filter_map(|c| c.function_call_output())
        {
            answered.insert(o.call_id);
        }
        response
            .output
            .iter()
            .filter(|m| m.kind == MessageType::FunctionCall)
            .flat_map(|m| &m.content)
            .filter_map(|c| {
                c.function_call()
                    .map(Pending::Call)
                    .or_else(|| loose_call(c))
            })
            .filter(|p| match p {
                Pending::Call(call) => !answered.contains(&call.call_id),
                Pending::NotText { call_id, .. } => !answered.contains(call_id),
            })
            .collect()
    }

    /// The `function_call` contents of `response` that no `function_call_output` of the same
    /// response answers (by `call_id`), in order: the calls the client must run. (A call whose
    /// `arguments` is not text, say an object, is not one of them: [`check_function_calls`]
    /// answers it with an error.)
    pub fn pending_function_calls(response: &AgentResponse) -> Vec<FunctionCall> {
        pending(response)
            .into_iter()
            .filter_map(|p| match p {
                Pending::Call(call) => Some(call),
                Pending::NotText { .. } => None,
            })
            .collect()
    }

    /// [`pending_function_calls`] with each call's `arguments` text parsed and checked against
    /// `registry` ([`ToolRegistry::validate_call`]), and the pending calls whose `arguments` is
    /// not text (an object, say) with a `VALIDATION` error (`Arguments must be JSON text (a
    /// string holding a JSON object), got object.`), so that the model can correct them.
    pub fn check_function_calls(
        registry: &ToolRegistry,
        response: &AgentResponse,
    ) -> Vec<CheckedToolCall> {
        pending(response)
            .into_iter()
            .map(|p| match p {
                Pending::Call(call) => {
                    let checked = registry.validate_call(&call);
                    CheckedToolCall::new(&call.call_id, &call.name, checked)
                }
                Pending::NotText {
                    call_id,
                    name,
                    arguments,
                } => {
                    let error = registry.arguments_not_text(&name, arguments);
                    CheckedToolCall::new(&call_id, &name, Err(error))
                }
            })
            .collect()
    }

    /// The `function_call_output` answering a call: a string result as is, another result as
    /// JSON text, an error as the JSON text `{"error_type": …, "message": …}`.
    pub fn function_call_output(outcome: &ToolOutcome) -> FunctionCallOutput {
        let output = match outcome {
            ToolOutcome::Result {
                value: Value::String(s),
                ..
            } => s.clone(),
            ToolOutcome::Result { value, .. } => serde_json::to_string(value).unwrap_or_default(),
            ToolOutcome::Error { error, .. } => {
                // As `json!` would write it, without compiling serde_json's `Value` serializer.
                let mut o = serde_json::Map::new();
                o.insert(
                    "error_type".into(),
                    error_type_name(error.error_type).into(),
                );
                o.insert("message".into(), error.message.as_str().into());
                agentwire_core::json::json_text(&Value::Object(o))
            }
        };
        FunctionCallOutput {
            call_id: outcome.call_id().to_owned(),
            name: Some(outcome.tool_name().to_owned()),
            output,
        }
    }

    /// Adds the registry's tools to `request.tools` (Agent API `Tool {type: "function",
    /// function: {name, description, parameters}}`), except names the request already offers.
    pub fn offer_tools(request: &mut AgentRequest, registry: &ToolRegistry) {
        if registry.is_empty() {
            return;
        }
        let tools = request.tools.get_or_insert_with(Vec::new);
        for definition in registry.definitions() {
            if !tools.iter().any(|t| t.function.name == definition.name) {
                tools.push(Tool::from(crate::dialect::agent_api::FunctionTool::from(
                    definition.clone(),
                )));
            }
        }
    }

    /// The next round's request: `request` (its tools and parameters kept) whose `input` is the
    /// previous input, then every message of `response.output`, then one `function_call_output`
    /// message per outcome, in order. A new request, not a resend: the agent reads the whole
    /// conversation again.
    pub fn continue_request(
        request: &AgentRequest,
        response: &AgentResponse,
        outcomes: &[ToolOutcome],
    ) -> AgentRequest {
        let mut next = request.clone();
        next.input.extend(response.output.iter().cloned());
        for outcome in outcomes {
            // As `RequestBuilder::function_call_output` writes it.
            let data =
                agentwire_core::json::to_tree(&function_call_output(outcome)).unwrap_or_default();
            next.input.push(Message {
                kind: MessageType::FunctionCallOutput,
                ..Message::new(Role::Tool, vec![Content::data(data)])
            });
        }
        next
    }
}

#[cfg(feature = "agent-api")]
pub use agent_api::{
    check_function_calls, continue_request, function_call_output, offer_tools,
    pending_function_calls,
};

#[cfg(feature = "agentx")]
mod agentx {
    use crate::set::Set;

    use super::*;
    use crate::dialect::agentx::{self as x, ChatRequest, Message, Part, Role, ToolCallPart};
    use crate::wire::JsonMap;

    /// A `tool_call` part the client must answer: a [`ToolCallPart`], or a `tool_call` part
    /// whose `args` is not an object (missing, a string…), which the reader keeps as
    /// [`Part::Other`] and which is answered with a `VALIDATION` error.
    enum Pending<'a> {
        Call(&'a ToolCallPart),
        NotObject {
            id: &'a str,
            name: &'a str,
            args: Option<&'a Value>,
        },
    }

    impl Pending<'_> {
        fn id(&self) -> &str {
            match self {
                Pending::Call(c) => &c.tool_call_id,
                Pending::NotObject { id, .. } => id,
            }
        }
    }

    /// A `tool_call` part kept as [`Part::Other`] for its `args` alone: `tool_call_id` and
    /// `tool_name` strings, `args` not an object.
    fn not_object(part: &JsonMap) -> Option<Pending<'_>> {
        let args = part.get("args");
        if part.get("type")?.as_str()? != "tool_call" || args.is_some_and(Value::is_object) {
            return None;
        }
        Some(Pending::NotObject {
            id: part.get("tool_call_id")?.as_str()?,
            name: part.get("tool_name")?.as_str()?,
            args,
        })
    }

    /// The calls of `response` no later result or error part of `response` answers, in order.
    fn pending(response: &[Message]) -> Vec<Pending<'_>> {
        // Backwards, so that the answers seen are those after each call. (Built by inserting:
        // `collect` into a set compiles a sort per iterator type.)
        let mut answered = Set::new();
        let mut pending = Vec::new();
        for p in response.iter().rev().flat_map(|m| m.parts.iter().rev()) {
            let call = match p {
                // (Owned keys: the tool loops' other sets are of `String`s, whose B-tree code is
                // compiled already.)
                Part::ToolResult(r) => {
                    answered.insert(r.tool_call_id.clone());
                    continue;
                }
                Part::ToolError(e) => {
                    answered.insert(e.tool_call_id.clone());
                    continue;
                }
                Part::ToolCall(c) => Pending::Call(c),
                Part::Other(map) => match not_object(map) {
                    Some(call) => call,
                    None => continue,
                },
                Part::Text(_) => continue,
            };
            if !answered.contains(call.id()) {
                pending.push(call);
            }
        }
        pending.reverse();
        pending
    }

    /// The `tool_call` parts of `response` that no later `tool_result` or `tool_error` part of
    /// `response` answers (by `tool_call_id`), in order.
    ///
    /// A result in `conversation` (the messages before `response`) answers an earlier call, not
    /// one of `response`: agents that number calls per turn send `call_0` every round, and each
    /// round's `call_0` is a new call. (`conversation` is kept in the signature for the callers
    /// that pass it.) A `tool_call` part whose `args` is not an object is a [`Part::Other`], not
    /// one of these: [`check_tool_calls`] answers it with an error.
    pub fn pending_tool_calls(conversation: &[Message], response: &[Message]) -> Vec<ToolCallPart> {
        let _ = conversation;
        pending(response)
            .into_iter()
            .filter_map(|p| match p {
                Pending::Call(c) => Some(c.clone()),
                Pending::NotObject { .. } => None,
            })
            .collect()
    }

    /// [`pending_tool_calls`] with each call's `args` checked against `registry`, and the pending
    /// `tool_call` parts whose `args` is not an object (kept as [`Part::Other`]: missing, a
    /// string, an array…) with a `VALIDATION` error (`Validation failed for tool 'x': Arguments
    /// must be a JSON object, got string "…".`, a missing `args` as `null`), so that the model can
    /// correct them.
    pub fn check_tool_calls(
        registry: &ToolRegistry,
        conversation: &[Message],
        response: &[Message],
    ) -> Vec<CheckedToolCall> {
        let _ = conversation;
        pending(response)
            .into_iter()
            .map(|p| {
                let (id, name, args) = match p {
                    Pending::Call(c) => (
                        c.tool_call_id.as_str(),
                        c.tool_name.as_str(),
                        Value::Object(c.args.clone()),
                    ),
                    Pending::NotObject { id, name, args } => {
                        (id, name, args.cloned().unwrap_or(Value::Null))
                    }
                };
                let checked = registry.validate_arguments(name, &args).map(|()| args);
                CheckedToolCall::new(id, name, checked)
            })
            .collect()
    }

    /// The part answering a call: `tool_result {tool_call_id, result}` or `tool_error
    /// {tool_call_id, error_type, message}`.
    pub fn outcome_part(outcome: &ToolOutcome) -> Part {
        match outcome {
            ToolOutcome::Result { call_id, value, .. } => Part::tool_result(call_id, value.clone()),
            ToolOutcome::Error { call_id, error, .. } => {
                let kind = match error.error_type {
                    ToolErrorType::Validation => x::ToolErrorType::Validation,
                    ToolErrorType::Execution => x::ToolErrorType::Execution,
                };
                Part::tool_error(call_id, kind, &error.message)
            }
        }
    }

    /// The next round's request: `request` (its unknown fields kept) whose `messages` are the
    /// previous messages, then `response`, then one `user` message (a new id) with a result or
    /// error part per outcome, in order.
    pub fn continue_chat(
        request: &ChatRequest,
        response: &[Message],
        outcomes: &[ToolOutcome],
    ) -> ChatRequest {
        let mut next = request.clone();
        next.messages.extend(response.iter().cloned());
        if !outcomes.is_empty() {
            let parts = outcomes.iter().map(outcome_part).collect();
            next.messages.push(Message::new(Role::User, parts));
        }
        next
    }
}

#[cfg(feature = "agentx")]
pub use agentx::{check_tool_calls, continue_chat, outcome_part, pending_tool_calls};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolDefinition;
    use serde_json::json;

    fn registry() -> ToolRegistry {
        let mut r = ToolRegistry::new();
        r.register(ToolDefinition {
            name: "get_time".into(),
            description: "The time in a timezone.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
                "additionalProperties": false,
            }),
        })
        .unwrap();
        r
    }

    #[test]
    fn outcomes_serialize_tagged_and_camel_case() {
        let o = ToolOutcome::Result {
            call_id: "c".into(),
            tool_name: "t".into(),
            value: json!({"a": 1}),
        };
        assert_eq!(
            serde_json::to_value(&o).unwrap(),
            json!({"type": "result", "callId": "c", "toolName": "t", "value": {"a": 1}})
        );
        let back: ToolOutcome = serde_json::from_value(serde_json::to_value(&o).unwrap()).unwrap();
        assert_eq!(back, o);
    }

    #[cfg(feature = "agent-api")]
    #[test]
    fn agent_api_round() {
        use crate::dialect::agent_api::{
            AgentRequest, AgentResponse, Content, Message, MessageType, RequestBuilder, Role,
            RunStatus,
        };
        let call = |id: &str, name: &str, args: &str| Message {
            kind: MessageType::FunctionCall,
            ..Message::new(
                Role::Assistant,
                vec![Content::data(
                    json!({"call_id": id, "name": name, "arguments": args}),
                )],
            )
        };
        let output = |id: &str| Message {
            kind: MessageType::FunctionCallOutput,
            ..Message::new(
                Role::Tool,
                vec![Content::data(json!({"call_id": id, "output": "21"}))],
            )
        };
        let response = AgentResponse {
            status: RunStatus::Completed,
            output: vec![
                call("server", "get_weather", "{}"),
                output("server"),
                call("c1", "get_time", r#"{"timezone": "Europe/Paris"}"#),
                call("c2", "get_time", r#"{"tz": 1}"#),
                call("c3", "nope", "{}"),
                call("c4", "get_time", r#"{"timezone": "#),
            ],
            ..AgentResponse::default()
        };
        let pending = pending_function_calls(&response);
        let ids: Vec<&str> = pending.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c3", "c4"]);

        let checked = check_function_calls(&registry(), &response);
        assert_eq!(checked[0].arguments, json!({"timezone": "Europe/Paris"}));
        assert_eq!(checked[0].error, None);
        let messages: Vec<String> = checked[1..]
            .iter()
            .map(|c| c.error.as_ref().unwrap().message.clone())
            .collect();
        assert_eq!(
            messages,
            [
                "Validation failed for tool 'get_time': Missing required argument 'timezone'. \
                 Unknown argument 'tz'; expected one of: timezone.",
                "Unknown tool 'nope'; available tools: get_time.",
                "Validation failed for tool 'get_time': Arguments are not valid JSON: EOF while \
                 parsing a value at line 1 column 12.",
            ]
        );
        assert!(checked[1..].iter().all(|c| c.arguments.is_null()));

        let mut request: AgentRequest = RequestBuilder::new()
            .text(Role::User, "What time is it?")
            .build()
            .unwrap();
        offer_tools(&mut request, &registry());
        offer_tools(&mut request, &registry());
        let tools = request.tools.clone().unwrap();
        assert_eq!(tools.len(), 1, "offered once");
        assert_eq!(tools[0].kind, "function");
        assert_eq!(tools[0].function.name, "get_time");

        let outcomes = [
            ToolOutcome::Result {
                call_id: "c1".into(),
                tool_name: "get_time".into(),
                value: json!({"time": "14:05"}),
            },
            checked[1].failed().unwrap(),
            ToolOutcome::Result {
                call_id: "c5".into(),
                tool_name: "t".into(),
                value: json!("plain text"),
            },
        ];
        let next = continue_request(&request, &response, &outcomes);
        assert_eq!(next.tools, request.tools);
        assert_eq!(next.input.len(), 1 + 6 + 3);
        assert_eq!(&next.input[1..7], response.output.as_slice());
        let outs: Vec<Value> = next.input[7..]
            .iter()
            .map(|m| {
                assert_eq!(m.kind, MessageType::FunctionCallOutput);
                assert_eq!(m.role, Some(Role::Tool));
                m.content[0].data.clone().unwrap()
            })
            .collect();
        assert_eq!(
            outs[0],
            json!({"call_id": "c1", "name": "get_time", "output": "{\"time\":\"14:05\"}"})
        );
        let error: Value = serde_json::from_str(outs[1]["output"].as_str().unwrap()).unwrap();
        assert_eq!(
            error,
            json!({"error_type": "VALIDATION", "message": messages[0]})
        );
        assert_eq!(outs[2]["output"], "plain text");
    }

    /// An Agent API `function_call` message whose content's `data` is `data`.
    #[cfg(feature = "agent-api")]
    fn function_call(data: Value) -> crate::dialect::agent_api::Message {
        use crate::dialect::agent_api::{Content, Message, MessageType, Role};
        Message {
            kind: MessageType::FunctionCall,
            ..Message::new(Role::Assistant, vec![Content::data(data)])
        }
    }

    /// The protocol's `FunctionCall.call_id` is optional: a call without one is run and answered
    /// with `call_id: ""` (what `FunctionCallOutput`, which requires it, can carry), whether its
    /// arguments are text or not; so is one whose `call_id` is `null`, and one of another type is
    /// answered with its JSON text.
    #[cfg(feature = "agent-api")]
    #[test]
    fn agent_api_call_without_call_id() {
        use crate::dialect::agent_api::{AgentResponse, RequestBuilder, Role, RunStatus};
        let response = AgentResponse {
            status: RunStatus::Completed,
            output: vec![
                function_call(json!({"name": "get_time", "arguments": r#"{"timezone": "UTC"}"#})),
                function_call(json!({"name": "get_time", "arguments": {"timezone": "UTC"}})),
                function_call(json!({"call_id": null, "name": "get_time", "arguments": "{}"})),
                function_call(json!({"call_id": 7, "name": null, "arguments": {}})),
            ],
            ..AgentResponse::default()
        };
        // A `call_id` (or `name`) `null` is absent, one of another type its JSON text: each call
        // is answered (a call dropped here was never answered, the response read as complete).
        let checked = check_function_calls(&registry(), &response);
        assert_eq!(checked.len(), 4);
        let ids: Vec<&str> = checked.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["", "", "", "7"]);
        assert_eq!(checked[2].tool_name, "get_time");
        assert!(checked[2]
            .error
            .as_ref()
            .unwrap()
            .message
            .contains("Missing required argument 'timezone'"));
        assert_eq!(checked[3].tool_name, "");
        assert!(checked[3].error.is_some());
        let checked = &checked[..2];
        assert_eq!(checked[0].arguments, json!({"timezone": "UTC"}));
        assert_eq!(checked[0].error, None);
        let not_text = checked[1]
            .error
            .as_ref()
            .expect("object arguments are an error");
        assert!(
            not_text.message.contains("JSON text"),
            "{}",
            not_text.message
        );

        let request = RequestBuilder::new()
            .text(Role::User, "Time?")
            .build()
            .unwrap();
        let outcomes = [
            ToolOutcome::Result {
                call_id: checked[0].call_id.clone(),
                tool_name: "get_time".into(),
                value: json!("12:00"),
            },
            checked[1].failed().unwrap(),
        ];
        let next = continue_request(&request, &response, &outcomes);
        let outs: Vec<Value> = next.input[1 + response.output.len()..]
            .iter()
            .map(|m| m.content[0].data.clone().unwrap())
            .collect();
        assert_eq!(
            outs[0],
            json!({"call_id": "", "name": "get_time", "output": "12:00"})
        );
        assert_eq!(outs[1]["call_id"], "");
        assert_eq!(outs[1]["name"], "get_time");
    }

    #[cfg(feature = "agentx")]
    #[test]
    fn agentx_round() {
        use crate::dialect::agentx::{ChatRequest, Message, Part, Role, ToolErrorType as X};
        let call = |id: &str, args: Value| {
            let mut c = crate::dialect::agentx::ToolCallPart::new(
                "get_time",
                args.as_object().cloned().unwrap_or_default(),
            );
            c.tool_call_id = id.into();
            Part::ToolCall(c)
        };
        let conversation = vec![Message::user_text("What time is it?")];
        let response = vec![Message::new(
            Role::Assistant,
            vec![
                Part::text("Let me look."),
                call("tc_a", json!({"timezone": "UTC"})),
                call("tc_b", json!({})),
                call("tc_server", json!({"timezone": "UTC"})),
                Part::tool_result("tc_server", json!("12:00")),
            ],
        )];
        let checked = check_tool_calls(&registry(), &conversation, &response);
        let ids: Vec<&str> = checked.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["tc_a", "tc_b"]);
        assert_eq!(checked[0].arguments, json!({"timezone": "UTC"}));
        assert_eq!(
            checked[1].error.as_ref().unwrap().message,
            "Validation failed for tool 'get_time': Missing required argument 'timezone'."
        );
        let outcomes = [
            ToolOutcome::Result {
                call_id: "tc_a".into(),
                tool_name: "get_time".into(),
                value: json!({"time": "12:00"}),
            },
            checked[1].failed().unwrap(),
        ];
        let request = ChatRequest::new(conversation.clone());
        let next = continue_chat(&request, &response, &outcomes);
        assert_eq!(next.messages.len(), 3);
        let answer = &next.messages[2];
        assert_eq!(answer.role, Role::User);
        assert!(answer
            .id
            .as_deref()
            .is_some_and(crate::dialect::agentx::is_message_id));
        assert_eq!(
            answer.parts[0],
            Part::tool_result("tc_a", json!({"time": "12:00"}))
        );
        assert_eq!(
            answer.parts[1],
            Part::tool_error(
                "tc_b",
                X::Validation,
                "Validation failed for tool 'get_time': Missing required argument 'timezone'."
            )
        );
        // Answered now: nothing is pending in the new conversation.
        assert!(pending_tool_calls(&next.messages, &[]).is_empty());
        assert!(pending_tool_calls(&next.messages[..2], &next.messages[1..2]).len() == 2);
    }

    /// A `function_call` whose `data.arguments` is an object (or `null`) instead of JSON text:
    /// answered with a `VALIDATION` error the model can act on, not dropped.
    #[cfg(feature = "agent-api")]
    #[test]
    fn agent_api_arguments_that_are_not_text_are_answered_with_an_error() {
        use crate::dialect::agent_api::{
            AgentRequest, AgentResponse, Content, Message, MessageType, RequestBuilder, Role,
            RunStatus,
        };
        let call = function_call;
        let response = AgentResponse {
            status: RunStatus::Completed,
            output: vec![
                call(
                    json!({"call_id": "c1", "name": "get_time", "arguments": {"timezone": "UTC"}}),
                ),
                call(json!({"call_id": "c2", "name": "get_time", "arguments": null})),
                call(json!({"call_id": "c3", "name": "nope", "arguments": [1]})),
                call(json!({"call_id": "c4", "name": "get_time",
                    "arguments": r#"{"timezone": "UTC"}"#})),
                call(json!({"call_id": "c5", "name": "get_time", "arguments": {}})),
                Message {
                    kind: MessageType::FunctionCallOutput,
                    ..Message::new(
                        Role::Tool,
                        vec![Content::data(json!({"call_id": "c5", "output": "x"}))],
                    )
                },
            ],
            ..AgentResponse::default()
        };
        let ids: Vec<String> = pending_function_calls(&response)
            .into_iter()
            .map(|c| c.call_id)
            .collect();
        assert_eq!(ids, ["c4"], "a FunctionCall holds text arguments only");

        let checked = check_function_calls(&registry(), &response);
        let ids: Vec<&str> = checked.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c3", "c4"]);
        let error = |i: usize| checked[i].error.as_ref().map(|e| e.message.as_str());
        assert_eq!(
            error(0),
            Some(
                "Validation failed for tool 'get_time': Arguments must be JSON text (a string \
                 holding a JSON object), got object."
            )
        );
        assert_eq!(
            error(1),
            Some(
                "Validation failed for tool 'get_time': Arguments must be JSON text (a string \
                 holding a JSON object), got null."
            )
        );
        assert_eq!(
            error(2),
            Some("Unknown tool 'nope'; available tools: get_time.")
        );
        assert_eq!(error(3), None);
        let e = checked[0].error.as_ref().unwrap();
        assert_eq!(e.error_type, ToolErrorType::Validation);
        assert_eq!(crate::error::ErrorCode::code(e), "invalid-arguments-json");
        assert!(checked[0].arguments.is_null());

        // The error goes back as the call's output.
        let outcomes = [checked[0].failed().unwrap()];
        let request: AgentRequest = RequestBuilder::new()
            .text(Role::User, "What time is it?")
            .build()
            .unwrap();
        let next = continue_request(&request, &response, &outcomes);
        let data = next.input.last().unwrap().content[0].data.clone().unwrap();
        assert_eq!(data["call_id"], "c1");
        let output: Value = serde_json::from_str(data["output"].as_str().unwrap()).unwrap();
        assert_eq!(output["error_type"], "VALIDATION");
    }

    /// A `tool_call` part whose `args` is not an object is read as `Part::Other` (the assembler
    /// warns `invalid-part`); the tool loop answers it with a `VALIDATION` error so that the
    /// model can correct the call, instead of leaving it unanswered.
    #[cfg(feature = "agentx")]
    #[test]
    fn agentx_args_that_are_not_an_object_are_answered_with_an_error() {
        use crate::dialect::agentx::{ChatRequest, Message, Part, Role, ToolErrorType as X};
        let response: Message = serde_json::from_value(json!({
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "tool_call_id": "a", "tool_name": "get_time", "args": "UTC"},
                {"type": "tool_call", "tool_call_id": "b", "tool_name": "get_time", "args": ["UTC"]},
                {"type": "tool_call", "tool_call_id": "c", "tool_name": "get_time", "args": null},
                {"type": "tool_call", "tool_call_id": "d", "tool_name": "get_time", "args": 7},
                {"type": "tool_call", "tool_call_id": "e", "tool_name": "get_time"},
                {"type": "tool_call", "tool_call_id": "f", "tool_name": "nope", "args": "x"},
                {"type": "tool_call", "tool_call_id": "g", "tool_name": "get_time",
                 "args": {"timezone": "UTC"}},
                {"type": "tool_call", "tool_call_id": "h", "tool_name": "get_time", "args": "x"},
                {"type": "tool_error", "tool_call_id": "h", "error_type": "EXECUTION",
                 "message": "the server ran it"},
                // Without a string id it cannot be answered: left to the `invalid-part` warning.
                {"type": "tool_call", "tool_call_id": 1, "tool_name": "get_time", "args": "x"},
            ],
        }))
        .unwrap();
        assert!(matches!(response.parts[0], Part::Other(_)));
        let response = [response];
        let ids: Vec<String> = pending_tool_calls(&[], &response)
            .into_iter()
            .map(|c| c.tool_call_id)
            .collect();
        assert_eq!(ids, ["g"], "a ToolCallPart holds object args only");

        let checked = check_tool_calls(&registry(), &[], &response);
        let ids: Vec<&str> = checked.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d", "e", "f", "g"]);
        let messages: Vec<Option<&str>> = checked
            .iter()
            .map(|c| c.error.as_ref().map(|e| e.message.as_str()))
            .collect();
        let not_object = |got: &str| {
            format!("Validation failed for tool 'get_time': Arguments must be a JSON object, got {got}.")
        };
        assert_eq!(
            messages,
            [
                Some(not_object("string \"UTC\"").as_str()),
                Some(not_object("array").as_str()),
                Some(not_object("null").as_str()),
                Some(not_object("number 7").as_str()),
                Some(not_object("null").as_str()),
                Some("Unknown tool 'nope'; available tools: get_time."),
                None,
            ]
        );
        assert_eq!(checked[0].tool_name, "get_time");

        // The errors go back as `tool_error` parts, in the next request.
        let outcomes: Vec<ToolOutcome> = checked
            .iter()
            .map(|c| {
                c.failed().unwrap_or_else(|| ToolOutcome::Result {
                    call_id: c.call_id.clone(),
                    tool_name: c.tool_name.clone(),
                    value: json!("12:00"),
                })
            })
            .collect();
        let next = continue_chat(&ChatRequest::new(Vec::new()), &response, &outcomes);
        let answer = next.messages.last().unwrap();
        assert_eq!(answer.role, Role::User);
        assert_eq!(
            answer.parts[0],
            Part::tool_error("a", X::Validation, not_object("string \"UTC\""))
        );
        assert!(pending_tool_calls(&[], &next.messages).is_empty());
        assert!(check_tool_calls(&registry(), &[], &next.messages).is_empty());
    }

    /// Agents that number calls per turn send `call_0` every round: the second round's `call_0`
    /// is a new call, though the conversation holds an answer to the first round's.
    #[cfg(feature = "agentx")]
    #[test]
    fn agentx_call_ids_reused_across_rounds_are_new_calls() {
        use crate::dialect::agentx::{ChatRequest, Message, Part, Role, ToolCallPart};
        let call = |id: &str, timezone: &str| {
            let mut args = serde_json::Map::new();
            args.insert("timezone".into(), json!(timezone));
            let mut c = ToolCallPart::new("get_time", args);
            c.tool_call_id = id.into();
            Part::ToolCall(c)
        };
        let first = vec![Message::new(Role::Assistant, vec![call("call_0", "UTC")])];
        let request = ChatRequest::new(vec![Message::user_text("Time in UTC, then Paris?")]);
        let checked = check_tool_calls(&registry(), &request.messages, &first);
        assert_eq!(checked.len(), 1);
        let outcome = ToolOutcome::Result {
            call_id: "call_0".into(),
            tool_name: "get_time".into(),
            value: json!("12:00"),
        };
        let request = continue_chat(&request, &first, &[outcome]);

        let second = vec![Message::new(
            Role::Assistant,
            vec![call("call_0", "Europe/Paris")],
        )];
        let checked = check_tool_calls(&registry(), &request.messages, &second);
        assert_eq!(checked.len(), 1, "the second round's call_0 is pending");
        assert_eq!(checked[0].call_id, "call_0");
        assert_eq!(checked[0].arguments, json!({"timezone": "Europe/Paris"}));

        // An answer after the call in the same response still answers it; one before does not.
        let answered = vec![Message::new(
            Role::Assistant,
            vec![
                Part::tool_result("call_0", json!("13:00")),
                call("call_0", "Europe/Paris"),
                call("call_1", "UTC"),
                Part::tool_result("call_1", json!("12:00")),
            ],
        )];
        let pending = pending_tool_calls(&request.messages, &answered);
        let ids: Vec<&str> = pending.iter().map(|c| c.tool_call_id.as_str()).collect();
        assert_eq!(ids, ["call_0"]);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod reader_tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// `ToolOutcome` as serde derived it before it was read by hand: the reference.
    #[derive(Deserialize)]
    #[serde(
        tag = "type",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )]
    enum Derived {
        Result {
            call_id: String,
            tool_name: String,
            value: Value,
        },
        Error {
            call_id: String,
            tool_name: String,
            error: ToolError,
        },
    }

    impl From<Derived> for ToolOutcome {
        fn from(d: Derived) -> Self {
            match d {
                Derived::Result {
                    call_id,
                    tool_name,
                    value,
                } => ToolOutcome::Result {
                    call_id,
                    tool_name,
                    value,
                },
                Derived::Error {
                    call_id,
                    tool_name,
                    error,
                } => ToolOutcome::Error {
                    call_id,
                    tool_name,
                    error,
                },
            }
        }
    }

    fn field_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            3 => "[a-z]{0,3}".prop_map(Value::from),
            1 => Just(Value::Null),
            1 => (-2i64..2).prop_map(Value::from),
            1 => Just(Value::from(1.5)),
            1 => any::<bool>().prop_map(Value::from),
            1 => Just(json!(["a"])),
            1 => Just(json!({"k": 1})),
            // A `ToolError`, well formed or not.
            2 => Just(json!({"errorType": "EXECUTION", "message": "m", "problems": []})),
            1 => Just(json!({"errorType": "VALIDATION", "message": "m", "problems": [
                {"kind": "type-mismatch", "path": ["a", 0], "schemaPointer": "/type", "message": "x"}
            ]})),
            1 => Just(json!({"errorType": "OTHER", "message": "m", "problems": []})),
            1 => Just(json!({"errorType": "EXECUTION", "message": "m"})),
        ]
    }

    /// Objects with the outcome's members, each kept, dropped or replaced by a value of any kind,
    /// and maybe an unknown member; `type` one of the variants' names most of the time. (Not an
    /// integer: serde's derived reader also took a variant's index, `0` or `1`, as its name; the
    /// hand reader wants a string.)
    fn outcome_value() -> impl Strategy<Value = Value> {
        let kind = prop_oneof![
            3 => Just(json!("result")),
            3 => Just(json!("error")),
            1 => Just(json!("Result")),
            1 => Just(json!("Error")),
            1 => Just(Value::Null),
            1 => Just(json!(true)),
        ];
        // Each member: as in a valid outcome (0), absent (1) or another value (2).
        let member = || prop_oneof![4 => Just(0u8), 1 => Just(1u8), 1 => Just(2u8)];
        let members = proptest::collection::vec((member(), field_value()), 5);
        (kind, members).prop_map(|(kind, members)| {
            let valid = [
                ("type", kind),
                ("callId", json!("c")),
                ("toolName", json!("t")),
                ("value", json!({"ok": true})),
                (
                    "error",
                    json!({"errorType": "EXECUTION", "message": "m", "problems": []}),
                ),
            ];
            let mut map = serde_json::Map::new();
            for ((name, valid), (how, other)) in valid.into_iter().zip(members) {
                match how {
                    0 => map.insert(name.to_owned(), valid),
                    1 => None,
                    _ => map.insert(name.to_owned(), other),
                };
            }
            Value::Object(map)
        })
    }

    proptest! {
        #[test]
        fn tool_outcome_reads_what_the_derived_enum_read(value in outcome_value()) {
            let text = value.to_string();
            let expected = serde_json::from_str::<Derived>(&text).ok().map(ToolOutcome::from);
            prop_assert_eq!(serde_json::from_str::<ToolOutcome>(&text).ok(), expected.clone());
            prop_assert_eq!(ToolOutcome::deserialize(&value).ok(), expected.clone());
            let Value::Object(map) = value else { unreachable!() };
            prop_assert_eq!(ToolOutcome::from_map(map).ok(), expected);
        }
    }

    #[test]
    fn tool_outcome_errors_name_what_is_wrong() {
        let err = |v: Value| {
            serde_json::from_value::<ToolOutcome>(v)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err(json!({"callId": "c"})), "missing field `type`");
        assert_eq!(
            err(json!({"type": "done"})),
            "unknown variant `done`, expected `result` or `error`"
        );
        assert_eq!(
            err(json!({"type": "result", "toolName": "t", "value": 1})),
            "missing field `callId`"
        );
        assert_eq!(
            err(json!({"type": "error", "callId": 1, "toolName": "t"})),
            "invalid type: integer `1`, expected a string"
        );
        assert_eq!(
            err(json!(["result"])),
            "invalid type: sequence, expected a map"
        );
    }
}
