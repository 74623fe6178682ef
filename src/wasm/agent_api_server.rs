//! The Agent API's server side for JavaScript: the response builders (`ResponseBuilder`,
//! `MessageBuilder`, `ContentBuilder`) and `encodeAgentEvent`, which write the events of a
//! response stream (the Agent API's "Response Builder" and its SSE encoding).
//!
//! Built with the `agent-api-server` feature (in the default build; not in the Agent API's entry
//! point `agentwire/agent-api`, a client's build, which is about 8 KB gzipped smaller without it:
//! the README's "Feature builds"). The Rust builders themselves
//! (`agentwire::dialect::agent_api::ResponseBuilder`) come with `agent-api`.

use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use super::agent_api::role_arg;
use super::convert::{from_ts, object_from_js, to_ts};
use super::error::{invalid_argument, js_error};
use crate::dialect::agent_api::{
    self as a, AgentEvent, AgentResponse, Content, ContentKind, ErrorInfo, MessageType, Role,
};

/// Encodes an Agent API event as one SSE event (`data: <json>` and a blank line).
///
/// # Errors
/// `invalid-argument` if `event` cannot be converted to JSON (a function, a `BigInt`, a cycle);
/// `invalid-event` (with `details.data`) if it is not a JSON object (`null`, a string) or if a
/// member has the wrong type for its event (a content's `index` that is not a number; an `error`
/// of another shape than `ErrorInfo` is kept as a client keeps it, `{code: "error", message: <its
/// JSON text>}`). The object is read as a client reads an event and written from what was read: a
/// `response` or `message` gets the members it lacks (`output: []`, `content: []`), the known
/// members come in the model's order, unknown ones after them, as they were.
#[wasm_bindgen(js_name = encodeAgentEvent)]
pub fn encode_agent_event(event: Ts<AgentEventJs>) -> Result<String, JsValue> {
    let data = super::convert::stringify(&event.js_value(), "event")?;
    let event = AgentEvent::parse(&data).map_err(|e| js_error(&e))?;
    Ok(event.to_sse())
}

/// Any Agent API event object (`AgentResponse`, `Message`, `Content`, or an error event).
#[derive(Serialize, Tsify)]
#[tsify(type = "AgentResponse | Message | Content | { error: JsonValue }")]
pub struct AgentEventJs(serde_json::Value);

fn event_ts(e: AgentEvent) -> Result<Ts<AgentEventJs>, JsValue> {
    Ok(Ts::new_unchecked(super::convert::to_js(&e)?))
}

/// The protocol's response builder: emits the events of a response (with `sequence_number`s).
#[wasm_bindgen(js_name = ResponseBuilder)]
pub struct JsResponseBuilder(a::ResponseBuilder);

#[wasm_bindgen(js_class = ResponseBuilder)]
impl JsResponseBuilder {
    /// A builder for a new response in session `sessionId`, whose id is `responseId` (absent: a
    /// new `response_<uuid>`; a server passes the request's `id`, as agentscope-runtime's runner
    /// does).
    #[wasm_bindgen(constructor)]
    pub fn new(session_id: Option<String>, response_id: Option<String>) -> JsResponseBuilder {
        Self(a::ResponseBuilder::with_id(session_id, response_id))
    }

    /// The response as built so far.
    pub fn response(&self) -> Result<Ts<AgentResponse>, JsValue> {
        to_ts(&self.0.response())
    }

    /// Status `created`.
    pub fn created(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.created())
    }

    /// Status `in_progress`.
    #[wasm_bindgen(js_name = inProgress)]
    pub fn in_progress(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.in_progress())
    }

    /// Status `completed` with the whole output.
    pub fn completed(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.completed())
    }

    /// Status `canceled` with the output so far.
    pub fn canceled(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.canceled())
    }

    /// Status `failed` with an error.
    pub fn failed(&mut self, code: &str, message: &str) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.failed(ErrorInfo {
            code: code.into(),
            message: message.into(),
            extra: Default::default(),
        }))
    }

    /// Sets the response's `usage` (a JSON object of token counts, e.g. `{ input_tokens: 12,
    /// output_tokens: 30 }`), carried by the response events after it (`completed`'s).
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"usage"`) unless a JSON object.
    #[wasm_bindgen(js_name = setUsage)]
    pub fn set_usage(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ [key: string]: JsonValue }")] usage: JsValue,
    ) -> Result<(), JsValue> {
        self.0.set_usage(usage_from_js(&usage)?);
        Ok(())
    }

    /// Starts a message of `role` and `messageType` (default `message`).
    ///
    /// # Errors
    /// `invalid-argument` for a role that is not the protocol's (`assistant`, `user`, `system`,
    /// `tool`).
    #[wasm_bindgen(js_name = createMessageBuilder)]
    pub fn create_message_builder(
        &mut self,
        role: &str,
        message_type: Option<String>,
    ) -> Result<JsMessageBuilder, JsValue> {
        let role = role_arg(role)?;
        let kind = message_type.map_or(MessageType::Message, |t| MessageType::from(t.as_str()));
        Ok(JsMessageBuilder(self.0.create_message_builder(role, kind)))
    }

    /// The protocol's `generate_streaming_response`: the events of a whole response streaming
    /// `textTokens` (an array of strings) as one message.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"textTokens"`) if `textTokens` is not an array of
    /// strings, or for a role that is not the protocol's.
    #[wasm_bindgen(js_name = generateStreamingResponse)]
    pub fn generate_streaming_response(
        &mut self,
        #[wasm_bindgen(js_name = textTokens, unchecked_param_type = "string[]")]
        text_tokens: JsValue,
        role: Option<String>,
    ) -> Result<Vec<Ts<AgentEventJs>>, JsValue> {
        let text_tokens: Vec<String> = super::convert::from_js(&text_tokens, "textTokens")?;
        let tokens: Vec<&str> = text_tokens.iter().map(String::as_str).collect();
        let role = role.map_or(Ok(Role::Assistant), |r| role_arg(&r))?;
        self.0
            .generate_streaming_response(&tokens, role)
            .into_iter()
            .map(event_ts)
            .collect()
    }
}

/// Builds one message of a response.
#[wasm_bindgen(js_name = MessageBuilder)]
pub struct JsMessageBuilder(a::MessageBuilder);

#[wasm_bindgen(js_class = MessageBuilder)]
impl JsMessageBuilder {
    /// The message id (`msg_…`).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.0.id().to_owned()
    }

    /// The message event as it is now.
    pub fn message(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.message())
    }

    /// Status `in_progress`.
    #[wasm_bindgen(js_name = inProgress)]
    pub fn in_progress(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.in_progress())
    }

    /// Starts a content of `contentType` (`text`, `image`, `data`, `audio`, `file`, `refusal`,
    /// `video`) at the next index.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"contentType"`) for any other type.
    #[wasm_bindgen(js_name = createContentBuilder)]
    pub fn create_content_builder(
        &mut self,
        content_type: &str,
    ) -> Result<JsContentBuilder, JsValue> {
        match ContentKind::from(content_type) {
            ContentKind::Other(_) => Err(invalid_argument(
                "contentType",
                &format!(
                    "`{content_type}` is not an Agent API content type: text, image, data, audio, \
                     file, refusal or video"
                ),
            )),
            kind => Ok(JsContentBuilder(self.0.create_content_builder(kind))),
        }
    }

    /// Puts a content into the message (replacing the one with the same index).
    ///
    /// # Errors
    /// `invalid-argument` if `content` has the wrong shape.
    #[wasm_bindgen(js_name = addContent)]
    pub fn add_content(&mut self, content: Ts<Content>) -> Result<(), JsValue> {
        self.0.add_content(from_ts(&content, "content")?);
        Ok(())
    }

    /// Status `completed`, with all contents.
    pub fn complete(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.complete())
    }

    /// Sets the message's `usage` (a JSON object of token counts), carried by its events after
    /// it and by the response's `output`.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"usage"`) unless a JSON object.
    #[wasm_bindgen(js_name = setUsage)]
    pub fn set_usage(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ [key: string]: JsonValue }")] usage: JsValue,
    ) -> Result<(), JsValue> {
        self.0.set_usage(usage_from_js(&usage)?);
        Ok(())
    }
}

/// A `usage` argument: a JSON object.
fn usage_from_js(usage: &JsValue) -> Result<crate::wire::JsonMap, JsValue> {
    match object_from_js(usage, "usage")? {
        serde_json::Value::Object(map) => Ok(map),
        _ => Err(invalid_argument("usage", "it is not a JSON object")),
    }
}

/// Builds one content of a message.
#[wasm_bindgen(js_name = ContentBuilder)]
pub struct JsContentBuilder(a::ContentBuilder);

#[wasm_bindgen(js_class = ContentBuilder)]
impl JsContentBuilder {
    /// A text delta.
    ///
    /// # Errors
    /// `wrong-content-kind` unless text.
    #[wasm_bindgen(js_name = addTextDelta)]
    pub fn add_text_delta(&mut self, text: &str) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.add_text_delta(text).map_err(|e| js_error(&e))?)
    }

    /// Sets the whole text.
    ///
    /// # Errors
    /// `wrong-content-kind` unless text.
    #[wasm_bindgen(js_name = setText)]
    pub fn set_text(&mut self, text: &str) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.set_text(text).map_err(|e| js_error(&e))?)
    }

    /// Sets the refusal text (the protocol's `ContentBuilder.set_refusal`).
    ///
    /// # Errors
    /// `wrong-content-kind` unless refusal.
    #[wasm_bindgen(js_name = setRefusal)]
    pub fn set_refusal(&mut self, refusal: &str) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.set_refusal(refusal).map_err(|e| js_error(&e))?)
    }

    /// Sets the image URL.
    ///
    /// # Errors
    /// `wrong-content-kind` unless image.
    #[wasm_bindgen(js_name = setImageUrl)]
    pub fn set_image_url(&mut self, url: &str) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.set_image_url(url).map_err(|e| js_error(&e))?)
    }

    /// Sets the whole data object.
    ///
    /// # Errors
    /// `wrong-content-kind` unless data; `invalid-argument` unless a JSON object (the protocol's
    /// `DataContent.data` is one).
    #[wasm_bindgen(js_name = setData)]
    pub fn set_data(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ [key: string]: JsonValue }")] data: JsValue,
    ) -> Result<Ts<AgentEventJs>, JsValue> {
        let v = object_from_js(&data, "data")?;
        event_ts(self.0.set_data(v).map_err(|e| js_error(&e))?)
    }

    /// A data delta (a JSON object), merged on completion.
    ///
    /// # Errors
    /// `wrong-content-kind` unless data; `invalid-argument` unless a JSON object.
    #[wasm_bindgen(js_name = addDataDelta)]
    pub fn add_data_delta(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "{ [key: string]: JsonValue }")] delta: JsValue,
    ) -> Result<Ts<AgentEventJs>, JsValue> {
        let v = object_from_js(&delta, "delta")?;
        event_ts(self.0.add_data_delta(v).map_err(|e| js_error(&e))?)
    }

    /// Completes the content (deltas joined or merged, status `completed`).
    pub fn complete(&mut self) -> Result<Ts<AgentEventJs>, JsValue> {
        event_ts(self.0.complete())
    }
}
