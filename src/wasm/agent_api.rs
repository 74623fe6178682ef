//! The Agent API dialect for JavaScript: the stream decoder, the request builder and
//! `validateAgentRequest` (the response builders, the server side, are in `agent_api_server`).

use std::cell::RefCell;
use std::rc::Rc;

use agentwire_core::json::Fields;
use js_sys::Uint8Array;
use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use super::convert::{from_js, from_ts, to_ts};
use super::error::{invalid_argument, js_error};
use super::http::{byte_chunk, copy_bytes};
use crate::dialect::agent_api::{
    self as a, AgentRequest, AgentResponse, AgentStream, AssemblerOptions, Content,
    FunctionCallOutput, Message, MessageType, Role, SplitUpdates, Stop, StreamUpdate, Tool,
};
use crate::sse::SseOptions;

/// A list of stream updates, in order.
#[derive(Serialize, Tsify)]
pub struct StreamUpdates(pub Vec<StreamUpdate>);

/// Options of an Agent API stream decoder.
#[derive(Tsify, Default, Clone, Copy)]
#[serde(rename_all = "camelCase", default)]
pub struct StreamOptions {
    /// Batched delivery: consecutive text deltas of one content within a chunk are merged into one
    /// update (default `false`).
    #[tsify(optional)]
    pub batch: Option<bool>,
    /// Largest SSE event in bytes (default 16 MiB).
    #[tsify(optional)]
    pub max_event_size: Option<usize>,
    /// Produce updates (default `true`); `false` only assembles the response (`feed` and
    /// `finish` return only `issue` updates, usually none; read the result with `response()`).
    #[tsify(optional)]
    pub updates: Option<bool>,
    /// Strict mode: unknown events, events out of order, index gaps… are errors (issue severity
    /// `error`) instead of warnings (default `false`; see the README's "Reliability" table).
    #[tsify(optional)]
    pub strict: Option<bool>,
    /// Limits on messages, parts, JSON depth and stream bytes (each field optional; defaults in
    /// the README's "Reliability" section).
    #[tsify(optional)]
    pub limits: Option<crate::limits::Limits>,
    /// `AgentClient` only: milliseconds without a byte after which the stream counts as broken
    /// (`stalled`; resumed if resuming is on). Default 90,000; 0 disables.
    #[tsify(optional)]
    pub stall_timeout_ms: Option<u32>,
    /// Keep finished messages in the response (default `true`). `false` releases each message
    /// once its own `message` event finishes it (after its updates are delivered): the response
    /// (`response()`, `done`, `body()`/`list()`) then holds only the messages still under way,
    /// and wasm memory stays near the largest message over a stream of any length. Later events
    /// for a released message are skipped with an `out-of-order` issue (`what:
    /// "message-released"`). For UIs that keep what they show from the updates.
    #[tsify(optional)]
    pub retain_messages: Option<bool>,
}

agentwire_core::deserialize_by_fields!(StreamOptions, "struct StreamOptions");

impl StreamOptions {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            batch: f.optional("batch")?,
            max_event_size: f.optional("maxEventSize")?,
            updates: f.optional("updates")?,
            strict: f.optional("strict")?,
            limits: f.optional("limits")?,
            stall_timeout_ms: f.optional("stallTimeoutMs")?,
            retain_messages: f.optional("retainMessages")?,
        })
    }
}

impl StreamOptions {
    pub(crate) fn assembler(self) -> AssemblerOptions {
        let mut sse = SseOptions::default();
        if let Some(m) = self.max_event_size {
            sse.max_event_size = m;
        }
        AssemblerOptions {
            updates: self.updates.unwrap_or(true),
            coalesce: self.batch.unwrap_or(false),
            strict: self.strict.unwrap_or(false),
            limits: self.limits.unwrap_or_default(),
            retain_messages: self.retain_messages.unwrap_or(true),
            sse,
        }
    }
}

/// The largest slice of a chunk copied into wasm memory and decoded at a time (64 KiB); per event,
/// its updates are built before the next slice: see `JsAgentStreamDecoder::feed_and_drain`.
pub(crate) const FEED_SLICE: usize = 64 * 1024;

/// A role to write a message with: one of the protocol's (`AgentRole`: `assistant`, `user`,
/// `system`, `tool`). What is read stays open (`Role::Other`); what is written is checked, as a
/// server refuses any other (agentscope-runtime answers with a validation error).
///
/// # Errors
/// `invalid-argument` (`details.what` = `"role"`) for any other role.
pub(crate) fn role_arg(role: &str) -> Result<Role, JsValue> {
    match Role::from(role) {
        Role::Other(_) => Err(invalid_argument(
            "role",
            &format!("`{role}` is not an Agent API role: assistant, user, system or tool"),
        )),
        known => Ok(known),
    }
}

/// Decodes an Agent API `text/event-stream` and assembles the response: feed it the bytes as they
/// arrive, get the updates each chunk completed. Transport-independent (`AgentClient` uses it over
/// `fetch`).
#[wasm_bindgen(js_name = AgentStreamDecoder)]
pub struct JsAgentStreamDecoder {
    stream: AgentStream,
    /// The buffers of the last drain (kept for the next).
    split: SplitUpdates,
}

#[wasm_bindgen(module = "/src/wasm/updates.js")]
extern "C" {
    /// Builds the `StreamUpdate[]` of one drain from its split form, appended to `into` (an
    /// array) or to a new array (`undefined`); returns that array. `text` crosses as a
    /// `Uint16Array` view into wasm memory (UTF-16 code units). `None` stands for an empty `[]`
    /// JSON or text (not decoded out of wasm memory, as a string argument always is).
    #[wasm_bindgen(js_name = buildStreamUpdates, catch)]
    fn build_stream_updates(
        json: Option<&str>,
        text: Option<&[u16]>,
        table: &[u32],
        into: &JsValue,
    ) -> Result<JsValue, JsValue>;
    /// Builds the `AgentResponse` from its split form.
    #[wasm_bindgen(js_name = buildResponse, catch)]
    fn build_response(json: &str, text: &[u16], table: &[u32]) -> Result<JsValue, JsValue>;
}

impl JsAgentStreamDecoder {
    pub(crate) fn with_options(options: StreamOptions) -> Self {
        Self {
            stream: AgentStream::new(options.assembler()),
            split: SplitUpdates::default(),
        }
    }

    /// The pending updates as a JS array: one `JSON.parse` for the updates that are not text
    /// deltas, a `substring` of one string per text delta (`src/wasm/updates.js`).
    pub(crate) fn drain(&mut self) -> Result<JsValue, JsValue> {
        self.drain_into(&JsValue::UNDEFINED)
    }

    /// The pending updates appended to the JS array `into` (`undefined`: a new array); returns
    /// the array.
    fn drain_into(&mut self, into: &JsValue) -> Result<JsValue, JsValue> {
        let split = &mut self.split;
        self.stream.assembler_mut().drain_updates_split(split);
        if split.table.is_empty() {
            // No update (every update has a table entry): nothing to cross. Each chunk of a
            // stream read with `updates: false` ends here.
            return Ok(if into.is_undefined() {
                js_sys::Array::new().into()
            } else {
                into.clone()
            });
        }
        let json = (split.json != "[]").then_some(split.json.as_str());
        let text = (!split.text.is_empty()).then_some(split.text.as_slice());
        build_stream_updates(json, text, &split.table, into)
    }

    /// Feeds a network chunk and returns its updates as one JS array. The chunk is copied into
    /// wasm memory [`FEED_SLICE`] bytes at a time (a browser's `fetch` may hand over megabytes at
    /// once), and per event (not batched) each slice's updates are built before the next slice is
    /// decoded, appended to that one array: the wasm memory a chunk takes is bounded by the slice.
    /// The updates are the same, as per-event updates do not depend on how the bytes are split.
    /// Batched updates merge across the whole chunk, so a batched chunk is drained once, at its
    /// end.
    pub(crate) fn feed_and_drain(&mut self, bytes: &Uint8Array) -> Result<JsValue, JsValue> {
        // Freed at the end of the call, as wasm-bindgen frees what it copies in: a decoder left
        // unfreed does not keep a chunk's worth of memory.
        let mut input = Vec::new();
        let len = bytes.length() as usize;
        if len <= FEED_SLICE {
            copy_bytes(bytes, &mut input);
            self.stream.feed(&input);
            return self.drain();
        }
        let per_event = !self.stream.assembler().options().coalesce;
        let updates = JsValue::from(js_sys::Array::new());
        let mut start = 0;
        while start < len {
            let end = len.min(start + FEED_SLICE);
            copy_bytes(&bytes.subarray(start as u32, end as u32), &mut input);
            self.stream.feed(&input);
            if per_event {
                self.drain_into(&updates)?;
            }
            start = end;
        }
        if !per_event {
            self.drain_into(&updates)?;
        }
        Ok(updates)
    }

    /// The response as assembled so far, as a JS object (its JSON parsed, the texts of its text
    /// contents set from one string: `src/wasm/updates.js`).
    pub(crate) fn response_js(&mut self) -> Result<JsValue, JsValue> {
        let split = &mut self.split;
        self.stream.assembler_mut().response_split(split);
        let response = build_response(&split.json, &split.text, &split.table);
        self.release_buffers();
        response
    }

    /// Frees the drain buffers, which a response's texts and JSON have made as large as the
    /// response: after the stream's end and after `response()`, so that a decoder kept (or not
    /// yet collected) holds only what it assembled. A later drain allocates them again.
    pub(crate) fn release_buffers(&mut self) {
        self.split = SplitUpdates::default();
    }

    pub(crate) fn inner(&self) -> &AgentStream {
        &self.stream
    }

    pub(crate) fn inner_mut(&mut self) -> &mut AgentStream {
        &mut self.stream
    }
}

#[wasm_bindgen(js_class = AgentStreamDecoder)]
impl JsAgentStreamDecoder {
    /// A decoder. `options.batch` merges text deltas per content within each chunk;
    /// `options.maxEventSize` bounds one SSE event, in bytes.
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<Ts<StreamOptions>>) -> Result<JsAgentStreamDecoder, JsValue> {
        let options = match options {
            Some(o) => from_ts(&o, "options")?,
            None => StreamOptions::default(),
        };
        Ok(Self::with_options(options))
    }

    /// Decodes and applies the next chunk (a `Uint8Array`, an `ArrayBuffer` or an array of byte
    /// values); returns the updates it produced. A chunk over 64 KiB is copied into wasm memory
    /// and decoded 64 KiB at a time, per event each slice's updates built before the next is
    /// decoded (the same updates, in wasm memory bounded by the slice rather than the chunk).
    /// After `finish()` (and after a strict-mode stop or `maxStreamBytes`) bytes are ignored:
    /// `[]`.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"bytes"`) for anything else, such as a string.
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer | number[]")]
        bytes: JsValue,
    ) -> Result<Ts<StreamUpdates>, JsValue> {
        let bytes = byte_chunk(bytes, "bytes")?;
        Ok(Ts::new_unchecked(self.feed_and_drain(&bytes)?))
    }

    /// Ends the stream: a response that never finished is marked `incomplete`, with an issue.
    /// Returns the last updates: ending with `done` unless `feed` already gave it (a response that
    /// reached its terminal status); `[]` when called again.
    pub fn finish(&mut self) -> Result<Ts<StreamUpdates>, JsValue> {
        self.stream.finish();
        let updates = self.drain()?;
        self.release_buffers();
        Ok(Ts::new_unchecked(updates))
    }

    /// The response as assembled so far.
    pub fn response(&mut self) -> Result<Ts<AgentResponse>, JsValue> {
        Ok(Ts::new_unchecked(self.response_js()?))
    }

    /// The last SSE event id seen (`""` if none).
    #[wasm_bindgen(getter, js_name = lastEventId)]
    pub fn last_event_id(&self) -> String {
        self.stream.sse().last_event_id().to_owned()
    }
}

/// Builds an `AgentRequest`. Each method changes the builder and returns it for chaining: the
/// returned object is another handle to the same builder, so `b.text(…); b.build()` and
/// `new RequestBuilder().text(…).build()` both work. A method that throws (a parameter out of
/// range, a value that is not JSON) leaves the builder as it was, and `build()` can be called again
/// after more changes.
#[wasm_bindgen(js_name = RequestBuilder)]
pub struct JsRequestBuilder(Rc<RefCell<a::RequestBuilder>>);

impl JsRequestBuilder {
    /// Applies `f` to the builder (the Rust builder's methods take it by value) and returns another
    /// handle to it.
    fn update(&self, f: impl FnOnce(a::RequestBuilder) -> a::RequestBuilder) -> JsRequestBuilder {
        let mut b = self.0.borrow_mut();
        *b = f(std::mem::take(&mut *b));
        Self(Rc::clone(&self.0))
    }

    /// [`Self::update`] for the range-checked setters. Their only error is the argument's range,
    /// which does not depend on the builder, so `f` is tried on an empty builder first: an
    /// argument out of range throws and leaves the builder as it was.
    fn try_update(
        &self,
        f: impl Fn(a::RequestBuilder) -> Result<a::RequestBuilder, a::AgentApiError>,
    ) -> Result<JsRequestBuilder, JsValue> {
        f(a::RequestBuilder::new()).map_err(|e| js_error(&e))?;
        let mut b = self.0.borrow_mut();
        *b = f(std::mem::take(&mut *b)).map_err(|e| js_error(&e))?;
        Ok(Self(Rc::clone(&self.0)))
    }
}

/// `value` if it is an integer within `within` (a JavaScript number is a double: the glue does not
/// truncate it), else the `parameter-out-of-range` error of `name` with `value` as given and the
/// range's text `range`. The builder's own range check follows (`max_tokens` at least 1, `n` 1 to 5).
fn integer(
    name: &'static str,
    value: f64,
    within: std::ops::RangeInclusive<f64>,
    range: &'static str,
) -> Result<f64, JsValue> {
    if value.fract() == 0.0 && within.contains(&value) {
        Ok(value)
    } else {
        Err(js_error(&a::AgentApiError::ParameterOutOfRange {
            name,
            value,
            range,
        }))
    }
}

#[wasm_bindgen(js_class = RequestBuilder)]
impl JsRequestBuilder {
    /// An empty request (`stream: true`).
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsRequestBuilder {
        Self(Rc::default())
    }

    /// Adds a `text` content from `role` (joins the last message if it has the same role).
    ///
    /// # Errors
    /// `invalid-argument` for a role that is not the protocol's (`assistant`, `user`, `system`,
    /// `tool`).
    pub fn text(&self, role: &str, text: &str) -> Result<JsRequestBuilder, JsValue> {
        let role = role_arg(role)?;
        Ok(self.update(|b| b.text(role, text)))
    }

    /// Adds an `image` content (a URL or `data:` URL).
    ///
    /// # Errors
    /// `invalid-argument` for a role that is not the protocol's (`assistant`, `user`, `system`,
    /// `tool`).
    pub fn image(&self, role: &str, image_url: &str) -> Result<JsRequestBuilder, JsValue> {
        let role = role_arg(role)?;
        Ok(self.update(|b| b.image(role, image_url)))
    }

    /// Adds a `data` content (a JSON object).
    ///
    /// # Errors
    /// `invalid-argument` unless `data` is a JSON object (the protocol's `DataContent.data` is
    /// one: a server refuses an array or a number), or for a role that is not the protocol's.
    pub fn data(
        &self,
        role: &str,
        #[wasm_bindgen(unchecked_param_type = "{ [key: string]: JsonValue }")] data: JsValue,
    ) -> Result<JsRequestBuilder, JsValue> {
        let value = super::convert::object_from_js(&data, "data")?;
        let role = role_arg(role)?;
        Ok(self.update(|b| b.data(role, value)))
    }

    /// Adds a `file` content referring to a URL.
    ///
    /// # Errors
    /// `invalid-argument` for a role that is not the protocol's (`assistant`, `user`, `system`,
    /// `tool`).
    pub fn file(
        &self,
        role: &str,
        file_url: &str,
        filename: Option<String>,
    ) -> Result<JsRequestBuilder, JsValue> {
        let role = role_arg(role)?;
        Ok(self.update(|b| b.file(role, file_url, filename.as_deref())))
    }

    /// Adds a whole message.
    ///
    /// # Errors
    /// `invalid-argument` if `message` has the wrong shape.
    pub fn message(&self, message: Ts<Message>) -> Result<JsRequestBuilder, JsValue> {
        let message = from_ts(&message, "message")?;
        Ok(self.update(|b| b.message(message)))
    }

    /// Adds a `function_call_output` message answering a call.
    ///
    /// # Errors
    /// `invalid-argument` if `output` has the wrong shape.
    #[wasm_bindgen(js_name = functionCallOutput)]
    pub fn function_call_output(
        &self,
        output: Ts<FunctionCallOutput>,
    ) -> Result<JsRequestBuilder, JsValue> {
        let output = from_ts(&output, "output")?;
        Ok(self.update(|b| b.function_call_output(output)))
    }

    /// Offers a tool (`{type: "function", function: {name, description, parameters}}`).
    ///
    /// # Errors
    /// `invalid-argument` if `tool` has the wrong shape.
    pub fn tool(&self, tool: Ts<Tool>) -> Result<JsRequestBuilder, JsValue> {
        let tool = from_ts(&tool, "tool")?;
        Ok(self.update(|b| b.tool(tool)))
    }

    /// Model id.
    pub fn model(&self, model: &str) -> JsRequestBuilder {
        self.update(|b| b.model(model))
    }

    /// Sampling temperature, 0 to 2.
    ///
    /// # Errors
    /// `parameter-out-of-range` (the builder is left as it was).
    pub fn temperature(&self, t: f64) -> Result<JsRequestBuilder, JsValue> {
        self.try_update(|b| b.temperature(t))
    }

    /// Nucleus sampling mass, 0 to 1.
    ///
    /// # Errors
    /// `parameter-out-of-range` (the builder is left as it was).
    #[wasm_bindgen(js_name = topP)]
    pub fn top_p(&self, p: f64) -> Result<JsRequestBuilder, JsValue> {
        self.try_update(|b| b.top_p(p))
    }

    /// Frequency penalty, -2 to 2.
    ///
    /// # Errors
    /// `parameter-out-of-range` (the builder is left as it was).
    #[wasm_bindgen(js_name = frequencyPenalty)]
    pub fn frequency_penalty(&self, p: f64) -> Result<JsRequestBuilder, JsValue> {
        self.try_update(|b| b.frequency_penalty(p))
    }

    /// Presence penalty, -2 to 2.
    ///
    /// # Errors
    /// `parameter-out-of-range` (the builder is left as it was).
    #[wasm_bindgen(js_name = presencePenalty)]
    pub fn presence_penalty(&self, p: f64) -> Result<JsRequestBuilder, JsValue> {
        self.try_update(|b| b.presence_penalty(p))
    }

    /// Maximum tokens to generate, an integer, at least 1.
    ///
    /// # Errors
    /// `parameter-out-of-range` (`details.value` as given, `null` for `NaN` and the infinities,
    /// which JSON cannot hold: the message names them; the builder is left as it was).
    #[wasm_bindgen(js_name = maxTokens)]
    pub fn max_tokens(&self, m: f64) -> Result<JsRequestBuilder, JsValue> {
        let m = integer(
            "max_tokens",
            m,
            0.0..=f64::from(u32::MAX),
            "an integer, 1 or more",
        )?;
        self.try_update(|b| b.max_tokens(m as u32))
    }

    /// Number of choices, an integer, 1 to 5.
    ///
    /// # Errors
    /// `parameter-out-of-range` (`details.value` as given, `null` for `NaN` and the infinities,
    /// which JSON cannot hold: the message names them; the builder is left as it was).
    pub fn n(&self, n: f64) -> Result<JsRequestBuilder, JsValue> {
        let n = integer("n", n, 0.0..=5.0, "an integer, 1 to 5")?;
        self.try_update(|b| b.n(n as u32))
    }

    /// Sampling seed, an integer from -2^63 to below 2^63 (64 bits, signed).
    ///
    /// # Errors
    /// `parameter-out-of-range` (`details.value` as given, `null` for `NaN` and the infinities,
    /// which JSON cannot hold: the message names them) for a fraction, `NaN`, an infinity or a
    /// value outside that range, which is not truncated; the builder is left as it was.
    pub fn seed(&self, seed: f64) -> Result<JsRequestBuilder, JsValue> {
        // i64's range in doubles: from -2^63 to the largest double below 2^63 (exact: 2^63 - 1024).
        let i64_range = (i64::MIN as f64)..=(((1u64 << 63) - 1024) as f64);
        let seed = integer("seed", seed, i64_range, "an integer")?;
        Ok(self.update(|b| b.seed(seed as i64)))
    }

    /// Stop sequence(s).
    ///
    /// # Errors
    /// `invalid-argument` unless a string or a list of strings.
    pub fn stop(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | string[]")] stop: JsValue,
    ) -> Result<JsRequestBuilder, JsValue> {
        let stop: Stop = from_js(&stop, "stop")?;
        Ok(self.update(|b| b.stop(stop)))
    }

    /// Session to continue.
    #[wasm_bindgen(js_name = sessionId)]
    pub fn session_id(&self, id: &str) -> JsRequestBuilder {
        self.update(|b| b.session_id(id))
    }

    /// The id the response should have: sets the request's `id` (the protocol's "request unique
    /// id"), which agentscope-runtime's runner gives its response.
    #[wasm_bindgen(js_name = responseId)]
    pub fn response_id(&self, id: &str) -> JsRequestBuilder {
        self.update(|b| b.response_id(id))
    }

    /// The user the conversation is for (`user_id`).
    #[wasm_bindgen(js_name = userId)]
    pub fn user_id(&self, id: &str) -> JsRequestBuilder {
        self.update(|b| b.user_id(id))
    }

    /// Ask for a stream (`true`, the default) or a single JSON answer.
    ///
    /// # Errors
    /// `invalid-argument` for anything but a boolean (`"false"` would read as `true`, and
    /// wasm-bindgen's conversion read `"true"` as `false`).
    pub fn stream(
        &self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] stream: JsValue,
    ) -> Result<JsRequestBuilder, JsValue> {
        match stream.as_bool() {
            Some(stream) => Ok(self.update(|b| b.stream(stream))),
            None => Err(invalid_argument("stream", "expected a boolean")),
        }
    }

    /// Sets a field the protocol does not define.
    ///
    /// # Errors
    /// `invalid-argument` if `value` cannot be converted to JSON.
    pub fn extra(
        &self,
        key: &str,
        #[wasm_bindgen(unchecked_param_type = "JsonValue")] value: JsValue,
    ) -> Result<JsRequestBuilder, JsValue> {
        let value: serde_json::Value = from_js(&value, key)?;
        Ok(self.update(|b| b.extra(key, value)))
    }

    /// The request as built so far. The builder stays usable: more changes and another `build()`
    /// give another request.
    ///
    /// # Errors
    /// `parameter-out-of-range`.
    pub fn build(&self) -> Result<Ts<AgentRequest>, JsValue> {
        let b = self.0.borrow();
        b.request().validate().map_err(|e| js_error(&e))?;
        to_ts(b.request())
    }
}

impl Default for JsRequestBuilder {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks an `AgentRequest`'s parameter ranges (n 1–5, temperature 0–2, top_p 0–1, penalties −2–2,
/// max_tokens ≥ 1) and returns it normalized.
///
/// Each of `tools` must have its `function` with a `parameters` object (`{type: "function",
/// function: {name, description, parameters}}`). The runtime's `FunctionTool` requires
/// `parameters` too; its `Tool` model lets `function` be absent, which agentwire does not, since a
/// tool without one offers nothing to call.
///
/// # Errors
/// `invalid-argument` if it has the wrong shape (a tool without `function`, or whose
/// `parameters` is missing or not an object, included), `parameter-out-of-range` otherwise.
#[wasm_bindgen(js_name = validateAgentRequest)]
pub fn validate_agent_request(request: Ts<AgentRequest>) -> Result<Ts<AgentRequest>, JsValue> {
    let r: AgentRequest = from_ts(&request, "request")?;
    r.validate().map_err(|e| js_error(&e))?;
    to_ts(&r)
}

/// The body view of one Agent API content (as a message's `body()` maps it), for a content of a message
/// of `messageType` whose status is `messageStatus`.
///
/// # Errors
/// `invalid-argument` if `content` is not an Agent API content.
#[wasm_bindgen(js_name = agentContentToPart)]
pub fn agent_content_to_part(
    content: Ts<Content>,
    message_type: &str,
    message_status: Option<String>,
) -> Result<Ts<crate::body::Part>, JsValue> {
    let content: Content = from_ts(&content, "content")?;
    let status = message_status.map(|s| crate::dialect::agent_api::RunStatus::from(s.as_str()));
    to_ts(&content.to_part(&MessageType::from(message_type), status.as_ref()))
}
