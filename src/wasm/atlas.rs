//! Atlas structured inter-agent messages for JavaScript: the `StructuredMessage` class (factories,
//! tool calls and results, exact JSON round trips, the body view) and
//! `MessageBody.fromAtlasMessage`. Converts and delegates to [`crate::dialect::atlas`].
//!
//! Every value from JavaScript is read with correctly rounded floats, and every value to
//! JavaScript goes through serde_json's shortest round-trip float text and `JSON.parse`, so a
//! timestamp survives Rust → JSON → JavaScript → JSON → Rust bit for bit.

use js_sys::{Object, Reflect};
use serde_json::Value;
use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::body::{body_arg, instance, JsMessageBody};
use super::convert::{from_js, stringify, to_js, to_ts};
use super::error::{invalid_argument, js_error};
use crate::dialect::atlas::{AtlasError, MessageType, ReadOptions, StructuredMessage, ToolStatus};
use crate::wire::JsonMap;

#[wasm_bindgen(typescript_custom_section)]
const ATLAS_TS: &str = r#"
/**
 * The optional fields of `new StructuredMessage(content, init)` (camelCase; on the wire they are
 * `task_id`, `tool_calls`, …). Missing `taskId` and `timestamp` are generated (a UUID v4, now).
 */
export interface AtlasMessageInit {
  /** Free-form metadata (`type`, `in_reply_to`, anything else). */
  metadata?: Record<string, JsonValue>;
  /** Sets `metadata.type` (written lowercase for the eight known types). */
  messageType?: AtlasMessageType;
  /** The task id (default: a new UUID v4). */
  taskId?: string;
  /** Creation time in Unix seconds with a fraction (default: now). */
  timestamp?: number;
  /** Tool calls, as on the wire. */
  toolCalls?: AtlasToolCall[];
  /** Tool results, as on the wire. */
  toolResults?: AtlasToolResult[];
  /** The sending agent. */
  sourceAgent?: string | null;
  /** The receiving agent. */
  targetAgent?: string | null;
}
"#;

/// The JavaScript names of `new StructuredMessage`'s init fields, with their wire names.
const INIT_FIELDS: [(&str, &str); 7] = [
    ("metadata", "metadata"),
    ("taskId", "task_id"),
    ("timestamp", "timestamp"),
    ("toolCalls", "tool_calls"),
    ("toolResults", "tool_results"),
    ("sourceAgent", "source_agent"),
    ("targetAgent", "target_agent"),
];

/// An Atlas error whose path starts with a wire name (`task_id`), renamed to the JavaScript name
/// the caller used (`taskId`).
fn with_js_path(mut e: AtlasError) -> AtlasError {
    let path = match &mut e {
        AtlasError::MissingField { path }
        | AtlasError::WrongType { path, .. }
        | AtlasError::UnknownMessageType { path, .. }
        | AtlasError::UnknownToolStatus { path, .. } => path,
        _ => return e,
    };
    for (js, wire) in INIT_FIELDS {
        if let Some(rest) = path.strip_prefix(wire) {
            if rest.is_empty() || rest.starts_with('.') || rest.starts_with('[') {
                *path = format!("{js}{rest}");
                break;
            }
        }
    }
    e
}

/// `invalid-argument` (`details.what` = `what`) for a timestamp that is `NaN` or an infinity,
/// which JSON cannot hold (`JSON.stringify` would make it `null`, read back as a missing one).
fn check_timestamp(timestamp: f64, what: &str) -> Result<(), JsValue> {
    if timestamp.is_finite() {
        return Ok(());
    }
    // Named, not formatted: `f64`'s `Display` would bring float formatting (4 KB).
    let value = match timestamp {
        t if t.is_nan() => "NaN",
        t if t > 0.0 => "Infinity",
        _ => "-Infinity",
    };
    let reason = [value, " is not a finite number of seconds"].concat();
    Err(invalid_argument(what, &reason))
}

/// [`check_timestamp`] for `object.timestamp`, when `object` is an object with a number there:
/// checked before the object is converted through JSON, which turns `NaN` into `null`.
fn check_timestamp_of(object: &JsValue, what: &str) -> Result<(), JsValue> {
    if !object.is_object() {
        return Ok(());
    }
    let t = Reflect::get(object, &JsValue::from_str("timestamp")).unwrap_or_default();
    t.as_f64().map_or(Ok(()), |t| check_timestamp(t, what))
}

/// A string, or `null`.
fn nullable(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, JsValue::from_str)
}

fn atlas_error(e: &AtlasError) -> JsValue {
    js_error(e)
}

/// A JSON object argument (floats exact), or `wrong-type` naming `path`.
fn object_arg(value: &JsValue, path: &str) -> Result<JsonMap, JsValue> {
    match from_js::<Value>(value, path)? {
        Value::Object(map) => Ok(map),
        other => Err(atlas_error(&AtlasError::wrong_type(path, "object", &other))),
    }
}

/// A message argument: a `StructuredMessage`, or its wire JSON (object or text), read leniently.
fn message_arg(value: &JsValue) -> Result<StructuredMessage, JsValue> {
    let expected = "a StructuredMessage or its JSON";
    if let Some(m) = instance::<JsStructuredMessage>(value, "message", expected)? {
        return Ok(m.0);
    }
    let text = match value.as_string() {
        Some(text) => text,
        None => stringify(value, "message")?,
    };
    StructuredMessage::from_json(&text).map_err(|e| atlas_error(&e))
}

/// A structured inter-agent message of the Atlas format: content, metadata (the message type in
/// `metadata.type`), a task id, a float timestamp, tool calls and results, and the agents it goes
/// between.
///
/// ```js
/// const query = new StructuredMessage("What's the weather in New York?", {
///   messageType: "query", taskId: "weather-task-123", sourceAgent: "user", targetAgent: "weather_agent",
/// });
/// const reply = StructuredMessage.createResponse("Sunny, 72°F.", query);
/// JSON.stringify(reply); // the wire JSON (toJSON)
/// ```
#[wasm_bindgen(js_name = StructuredMessage)]
pub struct JsStructuredMessage(pub(crate) StructuredMessage);

#[wasm_bindgen(js_class = StructuredMessage)]
impl JsStructuredMessage {
    /// A message with `content` and, from `init`, its other fields (camelCase; see
    /// `AtlasMessageInit`). A missing task id is a new UUID v4, a missing timestamp now.
    ///
    /// # Errors
    /// `wrong-type` naming the field (`taskId`, `toolCalls[0].arguments`, …), `missing-field` (a
    /// tool call without `name`), `invalid-argument` for a key `init` does not define.
    #[wasm_bindgen(constructor)]
    pub fn new(
        content: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "AtlasMessageInit")] init: Option<JsValue>,
    ) -> Result<JsStructuredMessage, JsValue> {
        let init = match init.filter(|i| !i.is_undefined() && !i.is_null()) {
            Some(i) => {
                check_timestamp_of(&i, "timestamp")?;
                object_arg(&i, "init")?
            }
            None => JsonMap::new(),
        };
        let mut wire = JsonMap::new();
        wire.insert("content".to_owned(), Value::String(content.to_owned()));
        let mut message_type = None;
        for (key, value) in init {
            if key == "messageType" {
                message_type = Some(value);
                continue;
            }
            match INIT_FIELDS.iter().find(|(js, _)| *js == key) {
                Some((_, wire_name)) => {
                    wire.insert((*wire_name).to_owned(), value);
                }
                None => {
                    let known: Vec<&str> = INIT_FIELDS.iter().map(|(js, _)| *js).collect();
                    return Err(invalid_argument(
                        "init",
                        &format!(
                            "unknown field `{key}` (known: {}, messageType)",
                            known.join(", ")
                        ),
                    ));
                }
            }
        }
        let mut message = StructuredMessage::from_value(&Value::Object(wire))
            .map_err(|e| atlas_error(&with_js_path(e)))?;
        match message_type {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) => message.set_message_type(MessageType::from(t.as_str())),
            Some(other) => {
                return Err(atlas_error(&AtlasError::wrong_type(
                    "messageType",
                    "string",
                    &other,
                )))
            }
        }
        Ok(Self(message))
    }

    /// A response to `original` (a `StructuredMessage` or its wire JSON): `metadata` is
    /// `{type: "response", in_reply_to: original.taskId}`, the agents are `original`'s swapped,
    /// with a new task id and the current time.
    ///
    /// # Errors
    /// As `StructuredMessage.fromJSON`, when `original` is JSON that is not a message.
    #[wasm_bindgen(js_name = createResponse)]
    pub fn create_response(
        content: &str,
        #[wasm_bindgen(unchecked_param_type = "StructuredMessage | AtlasStructuredMessage")]
        original: JsValue,
    ) -> Result<JsStructuredMessage, JsValue> {
        let original = message_arg(&original)?;
        Ok(Self(StructuredMessage::create_response(content, &original)))
    }

    /// An error message: `metadata.type` is `"error"`; with `original`, also `in_reply_to` and the
    /// agents swapped, as in `createResponse`.
    ///
    /// # Errors
    /// As `createResponse`.
    #[wasm_bindgen(js_name = createError)]
    pub fn create_error(
        #[wasm_bindgen(js_name = errorMessage)] error_message: &str,
        #[wasm_bindgen(
            unchecked_optional_param_type = "StructuredMessage | AtlasStructuredMessage"
        )]
        original: Option<JsValue>,
    ) -> Result<JsStructuredMessage, JsValue> {
        let original = match original.filter(|o| !o.is_undefined() && !o.is_null()) {
            Some(o) => Some(message_arg(&o)?),
            None => None,
        };
        Ok(Self(StructuredMessage::create_error(
            error_message,
            original.as_ref(),
        )))
    }

    /// A task assignment from `sourceAgent` to `targetAgent`: `metadata` is `taskData`'s entries
    /// with `type` `"task"` (a `type` in `taskData` is replaced).
    ///
    /// # Errors
    /// `wrong-type` (path `taskData`) when `taskData` is not an object.
    #[wasm_bindgen(js_name = createTask)]
    pub fn create_task(
        content: &str,
        #[wasm_bindgen(js_name = sourceAgent)] source_agent: &str,
        #[wasm_bindgen(js_name = targetAgent)] target_agent: &str,
        #[wasm_bindgen(
            js_name = taskData,
            unchecked_optional_param_type = "Record<string, JsonValue>"
        )]
        task_data: Option<JsValue>,
    ) -> Result<JsStructuredMessage, JsValue> {
        let task_data = match task_data.filter(|d| !d.is_undefined() && !d.is_null()) {
            Some(d) => Some(object_arg(&d, "taskData")?),
            None => None,
        };
        Ok(Self(StructuredMessage::create_task(
            content,
            source_agent,
            target_agent,
            task_data,
        )))
    }

    /// Reads a message from its wire JSON: text, or an object (stringified first). Floats are read
    /// exactly. `options.strict` rejects unknown message types and tool statuses and requires
    /// `metadata`, `task_id` and `timestamp`; lenient reading (the default) keeps unknown values and
    /// fills in the missing fields.
    ///
    /// # Errors
    /// With the field's path in `details.path`: `invalid-json` (text only; `line`, `column`, and
    /// the text given in `input`, its first 64 KiB),
    /// `missing-field`, `wrong-type`, and in strict mode `unknown-message-type`,
    /// `unknown-tool-status`.
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        #[wasm_bindgen(unchecked_param_type = "string | AtlasStructuredMessage")] input: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "AtlasReadOptions")] options: Option<
            JsValue,
        >,
    ) -> Result<JsStructuredMessage, JsValue> {
        let options: ReadOptions = match options.filter(|o| !o.is_undefined() && !o.is_null()) {
            Some(o) => from_js(&o, "options")?,
            None => ReadOptions::LENIENT,
        };
        let text = match input.as_string() {
            Some(text) => text,
            None => {
                check_timestamp_of(&input, "input.timestamp")?;
                stringify(&input, "input")?
            }
        };
        StructuredMessage::from_json_with(&text, &options)
            .map(Self)
            .map_err(|e| atlas_error(&e))
    }

    /// Reads a message from a body (a `MessageBody`, parts or `{parts}`): unnamed text parts are
    /// the content, `tool_call` parts the calls, `tool_result`/`tool_error` parts the results, the
    /// `/metadata` part the metadata and envelope. `fromBody(m.toBody())` equals `m`.
    ///
    /// # Errors
    /// With the part's path (`parts[2].metadata.toolName`): `missing-field`, `wrong-type`,
    /// `invalid-part-content`; `invalid-argument` when `body` is not a body.
    #[wasm_bindgen(js_name = fromBody)]
    pub fn from_body(
        #[wasm_bindgen(unchecked_param_type = "MessageBody | Part[] | Body")] body: JsValue,
    ) -> Result<JsStructuredMessage, JsValue> {
        let body = body_arg(&body)?;
        StructuredMessage::from_body(&body)
            .map(Self)
            .map_err(|e| atlas_error(&e))
    }

    /// The message as a body: the content as the main `text/plain` part, each tool call
    /// (`/tool_calls/<id>`) and result (`/tool_results/<call id>`) as an `application/json` part,
    /// and the metadata with the envelope as `/metadata`.
    #[wasm_bindgen(js_name = toBody)]
    pub fn to_body(&self) -> JsMessageBody {
        JsMessageBody(self.0.to_body())
    }

    /// The wire JSON (the reference's `to_dict`): `{content, metadata, task_id, timestamp,
    /// tool_calls, tool_results, source_agent, target_agent}` in this order, then unknown fields
    /// kept from reading. `JSON.stringify(message)` writes it.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<Ts<StructuredMessage>, JsValue> {
        to_ts(&self.0)
    }

    /// Adds a call of the tool `name` with `args` (a JSON object) and returns the call's new id (a
    /// UUID v4). The arguments are not checked against a tool schema.
    ///
    /// # Errors
    /// `wrong-type` (path `arguments`) when `args` is not an object.
    #[wasm_bindgen(js_name = addToolCall)]
    pub fn add_tool_call(
        &mut self,
        name: &str,
        #[wasm_bindgen(unchecked_param_type = "Record<string, JsonValue>")] args: JsValue,
    ) -> Result<String, JsValue> {
        let arguments = object_arg(&args, "arguments")?;
        Ok(self.0.add_tool_call(name, arguments))
    }

    /// Adds the result of the tool `name` for the call `callId`: `result` is what the tool
    /// returned (`null` when it failed), `status` `"success"` (the default) or `"error"`, `error`
    /// why it failed.
    ///
    /// # Errors
    /// `unknown-tool-status` (path `status`) for another status; `invalid-argument` when `result`
    /// cannot be converted to JSON.
    #[wasm_bindgen(js_name = addToolResult)]
    pub fn add_tool_result(
        &mut self,
        name: &str,
        #[wasm_bindgen(unchecked_param_type = "JsonValue")] result: JsValue,
        #[wasm_bindgen(js_name = callId)] call_id: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "AtlasToolStatus")] status: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] error: Option<String>,
    ) -> Result<(), JsValue> {
        let status = match status.as_deref() {
            None | Some("success") => ToolStatus::Success,
            Some("error") => ToolStatus::Error,
            Some(other) => {
                return Err(atlas_error(&AtlasError::UnknownToolStatus {
                    path: "status".to_owned(),
                    value: other.to_owned(),
                }))
            }
        };
        let result: Value = from_js(&result, "result")?;
        self.0.add_tool_result(name, result, call_id, status, error);
        Ok(())
    }

    /// The main text content.
    #[wasm_bindgen(getter)]
    pub fn content(&self) -> String {
        self.0.content.clone()
    }

    /// Sets the content.
    #[wasm_bindgen(setter)]
    pub fn set_content(&mut self, content: String) {
        self.0.content = content;
    }

    /// The metadata (a copy), kept as sent: `type`, `in_reply_to`, anything else.
    #[wasm_bindgen(getter, unchecked_return_type = "Record<string, JsonValue>")]
    pub fn metadata(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.metadata)
    }

    /// Replaces the metadata (a JSON object), checked as reading checks it.
    ///
    /// # Errors
    /// `wrong-type` (path `metadata`) when it is not an object, (path `metadata.type`) when its
    /// `type` is not a string or `null`; the metadata is then unchanged.
    #[wasm_bindgen(setter)]
    pub fn set_metadata(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, JsonValue>")] metadata: JsValue,
    ) -> Result<(), JsValue> {
        let metadata = object_arg(&metadata, "metadata")?;
        self.0.set_metadata(metadata).map_err(|e| js_error(&e))
    }

    /// The message type: `metadata.type` read ignoring case (`"QUERY"` is `"query"`), an unknown
    /// type as sent; `null` when absent or not a string.
    #[wasm_bindgen(getter = messageType, unchecked_return_type = "AtlasMessageType | null")]
    pub fn message_type(&self) -> JsValue {
        nullable(self.0.message_type().as_ref().map(MessageType::as_str))
    }

    /// Sets `metadata.type` (the eight known types are written lowercase); `null` removes it.
    #[wasm_bindgen(setter = messageType)]
    pub fn set_message_type(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AtlasMessageType | null")] kind: Option<String>,
    ) {
        match kind {
            Some(k) => self.0.set_message_type(MessageType::from(k.as_str())),
            None => {
                self.0.metadata.shift_remove("type");
            }
        }
    }

    /// `metadata.in_reply_to`: the task id of the message this one answers, or `null`.
    #[wasm_bindgen(getter = inReplyTo, unchecked_return_type = "string | null")]
    pub fn in_reply_to(&self) -> JsValue {
        nullable(self.0.in_reply_to())
    }

    /// The task id.
    #[wasm_bindgen(getter = taskId)]
    pub fn task_id(&self) -> String {
        self.0.task_id.clone()
    }

    /// Sets the task id.
    #[wasm_bindgen(setter = taskId)]
    pub fn set_task_id(&mut self, task_id: String) {
        self.0.task_id = task_id;
    }

    /// The creation time: Unix seconds with a fraction.
    #[wasm_bindgen(getter)]
    pub fn timestamp(&self) -> f64 {
        self.0.timestamp
    }

    /// Sets the creation time (Unix seconds).
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"timestamp"`) for `NaN` or an infinity, which JSON
    /// cannot hold (the message would be written with `"timestamp": null`, which does not read
    /// back); the timestamp is left as it was.
    #[wasm_bindgen(setter)]
    pub fn set_timestamp(&mut self, timestamp: f64) -> Result<(), JsValue> {
        check_timestamp(timestamp, "timestamp")?;
        self.0.timestamp = timestamp;
        Ok(())
    }

    /// The tool calls (a copy), as on the wire: `{id, name, arguments}`.
    #[wasm_bindgen(getter = toolCalls, unchecked_return_type = "AtlasToolCall[]")]
    pub fn tool_calls(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.tool_calls)
    }

    /// The tool results (a copy), as on the wire: `{name, result, call_id, status, error}`.
    #[wasm_bindgen(getter = toolResults, unchecked_return_type = "AtlasToolResult[]")]
    pub fn tool_results(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.tool_results)
    }

    /// Whether the message has tool calls.
    #[wasm_bindgen(getter = hasToolCalls)]
    pub fn has_tool_calls(&self) -> bool {
        self.0.has_tool_calls()
    }

    /// Whether the message has tool results.
    #[wasm_bindgen(getter = hasToolResults)]
    pub fn has_tool_results(&self) -> bool {
        self.0.has_tool_results()
    }

    /// The sending agent, or `null`.
    #[wasm_bindgen(getter = sourceAgent, unchecked_return_type = "string | null")]
    pub fn source_agent(&self) -> JsValue {
        nullable(self.0.source_agent.as_deref())
    }

    /// Sets the sending agent (`null`: none).
    #[wasm_bindgen(setter = sourceAgent)]
    pub fn set_source_agent(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null")] agent: Option<String>,
    ) {
        self.0.source_agent = agent;
    }

    /// The receiving agent, or `null`.
    #[wasm_bindgen(getter = targetAgent, unchecked_return_type = "string | null")]
    pub fn target_agent(&self) -> JsValue {
        nullable(self.0.target_agent.as_deref())
    }

    /// Sets the receiving agent (`null`: none).
    #[wasm_bindgen(setter = targetAgent)]
    pub fn set_target_agent(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null")] agent: Option<String>,
    ) {
        self.0.target_agent = agent;
    }

    /// Top-level fields the format does not define, kept from reading and written back.
    #[wasm_bindgen(getter, unchecked_return_type = "Record<string, JsonValue>")]
    pub fn extra(&self) -> Result<JsValue, JsValue> {
        if self.0.extra.is_empty() {
            return Ok(Object::new().into());
        }
        to_js(&self.0.extra)
    }

    /// A copy (internal: lets other functions take a message argument).
    #[wasm_bindgen(js_name = "__share", skip_typescript)]
    pub fn share(&self) -> JsStructuredMessage {
        JsStructuredMessage(self.0.clone())
    }
}

#[wasm_bindgen(js_class = MessageBody)]
impl JsMessageBody {
    /// The body of an Atlas message (a `StructuredMessage` or its wire JSON): the content, the tool
    /// calls and results, and `/metadata` (see `StructuredMessage.toBody`).
    ///
    /// # Errors
    /// As `StructuredMessage.fromJSON` for JSON that is not a message.
    #[wasm_bindgen(js_name = fromAtlasMessage)]
    pub fn from_atlas_message(
        #[wasm_bindgen(unchecked_param_type = "StructuredMessage | AtlasStructuredMessage")]
        message: JsValue,
    ) -> Result<JsMessageBody, JsValue> {
        Ok(JsMessageBody(message_arg(&message)?.to_body()))
    }
}
