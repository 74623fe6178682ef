//! The AgentX dialect for JavaScript: the stream decoder and `AgentxClient`, which POSTs a
//! `ChatRequest` to `/chat` with `fetch` and reads the `text/event-stream` of message packets as it
//! arrives (one packet's JSON per SSE event, as the Rust `dialect::agentx` module documents).

use agentwire_core::json::Fields;
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortSignal, RequestCredentials};

use super::convert::{from_js, from_ts, parse_json, to_js, to_ts};
use super::error::{invalid_argument, js_error, js_error_with};
use super::http::{
    build_request, byte_chunk, cancel_quietly, copy_bytes, credentials_option, describe,
    error_body, event_stream_reader, fetch_option, is_ok, name_failure, promise, read_chunk,
    read_from, request_signal, send, status_of, within, BodyReader, Chunk, HeaderList,
    DEFAULT_STALL_TIMEOUT_MS,
};
use crate::body::Body;
use crate::dialect::agentx::{
    AgentxError, AgentxStream, AssemblerOptions, ChatRequest, StreamStatus,
};
use crate::sse::SseOptions;
use crate::transport::TransportError;

#[wasm_bindgen]
extern "C" {
    /// `(updates: AgentxStreamUpdate[]) => void`, called once per network chunk.
    #[wasm_bindgen(typescript_type = "(updates: AgentxStreamUpdate[]) => void")]
    pub type AgentxUpdateSink;

    /// Per-chat options.
    #[wasm_bindgen(
        typescript_type = "{ signal?: AbortSignal; batch?: boolean; maxEventSize?: number; stallTimeoutMs?: number }"
    )]
    pub type AgentxChatCallOptions;

    /// Client options, with an optional custom `fetch`.
    #[wasm_bindgen(
        typescript_type = "AgentxClientConfig & { fetch?: (input: Request) => Promise<Response> }"
    )]
    pub type AgentxClientOptions;
}

/// Options of an AgentX stream decoder.
#[derive(Tsify, Default, Clone, Copy)]
#[serde(rename_all = "camelCase", default)]
pub struct AgentxStreamOptions {
    /// Batched delivery: consecutive text deltas of one part within a chunk are merged into one
    /// update (default `false`: one update per packet).
    #[tsify(optional)]
    pub batch: Option<bool>,
    /// Largest SSE event (one packet) in bytes (default 16 MiB).
    #[tsify(optional)]
    pub max_event_size: Option<usize>,
    /// Strict mode: odd packets are errors instead of warnings (default `false`).
    #[tsify(optional)]
    pub strict: Option<bool>,
    /// Limits on messages, parts, JSON depth and stream bytes.
    #[tsify(optional)]
    pub limits: Option<crate::limits::Limits>,
    /// `AgentxClient` only: milliseconds without a byte, or before the answer's head, after which
    /// the chat fails with `stalled` (once the event stream has begun, `details.messages` holds
    /// what arrived). Default 90,000; 0 disables.
    #[tsify(optional)]
    pub stall_timeout_ms: Option<u32>,
}

agentwire_core::deserialize_by_fields!(AgentxStreamOptions, "struct AgentxStreamOptions");

impl AgentxStreamOptions {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            batch: f.optional("batch")?,
            max_event_size: f.optional("maxEventSize")?,
            strict: f.optional("strict")?,
            limits: f.optional("limits")?,
            stall_timeout_ms: f.optional("stallTimeoutMs")?,
        })
    }
}

impl AgentxStreamOptions {
    fn assembler(self) -> AssemblerOptions {
        let mut sse = SseOptions::default();
        if let Some(m) = self.max_event_size {
            sse.max_event_size = m;
        }
        AssemblerOptions {
            coalesce: self.batch.unwrap_or(false),
            strict: self.strict.unwrap_or(false),
            limits: self.limits.unwrap_or_default(),
            sse,
        }
    }
}

/// Decodes an AgentX `text/event-stream` (one message packet per event) and assembles the logical
/// messages: feed it the bytes as they arrive, get the updates each chunk completed. Transport
/// independent (`AgentxClient` uses it over `fetch`).
#[wasm_bindgen(js_name = AgentxStreamDecoder)]
pub struct JsAgentxStreamDecoder {
    stream: AgentxStream,
    json: String,
}

impl JsAgentxStreamDecoder {
    fn with_options(options: AgentxStreamOptions) -> Self {
        Self {
            stream: AgentxStream::new(options.assembler()),
            json: String::new(),
        }
    }

    /// The pending updates as a JS array (one `JSON.parse`).
    fn drain(&mut self) -> Result<JsValue, JsValue> {
        self.json.clear();
        self.stream
            .assembler_mut()
            .drain_updates_json(&mut self.json);
        parse_json(&self.json)
    }
}

#[wasm_bindgen(js_class = AgentxStreamDecoder)]
impl JsAgentxStreamDecoder {
    /// A decoder. `options.batch` merges text deltas per part within each chunk;
    /// `options.maxEventSize` bounds one packet, in bytes.
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<Ts<AgentxStreamOptions>>) -> Result<JsAgentxStreamDecoder, JsValue> {
        let options = match options {
            Some(o) => from_ts(&o, "options")?,
            None => AgentxStreamOptions::default(),
        };
        Ok(Self::with_options(options))
    }

    /// Decodes and applies the next chunk (a `Uint8Array`, an `ArrayBuffer` or an array of byte
    /// values); returns the updates it produced.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"bytes"`) for anything else, such as a string.
    #[wasm_bindgen(unchecked_return_type = "AgentxStreamUpdate[]")]
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer | number[]")]
        bytes: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.stream.feed(&byte_chunk(bytes, "bytes")?.to_vec());
        self.drain()
    }

    /// The connection closed: ends the stream (`complete`, or `incomplete` with an error issue if
    /// it closed inside an SSE event). Returns the last updates, ending with `done`.
    #[wasm_bindgen(unchecked_return_type = "AgentxStreamUpdate[]")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        self.stream.finish();
        self.drain()
    }

    /// The transport failed (`reason`): ends the stream `incomplete`, keeping what arrived.
    #[wasm_bindgen(js_name = finishInterrupted, unchecked_return_type = "AgentxStreamUpdate[]")]
    pub fn finish_interrupted(&mut self, reason: &str) -> Result<JsValue, JsValue> {
        self.stream.finish_interrupted(reason);
        self.drain()
    }

    /// The logical messages assembled so far, in the order their first packets arrived.
    #[wasm_bindgen(unchecked_return_type = "AgentxMessage[]")]
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        to_js(self.stream.messages())
    }

    /// Message `index` (0-based, stream order) as a body, or `undefined` (also for an index that
    /// is not an integer from 0). While the stream runs, the last part of the message the latest
    /// packet was for is `streaming`; the parts of the others are `complete`.
    pub fn body(&self, index: f64) -> Result<Option<Ts<Body>>, JsValue> {
        let Some(index) = super::convert::index_arg(index) else {
            return Ok(None);
        };
        self.stream.body(index).as_ref().map(to_ts).transpose()
    }

    /// `streaming`, `complete` or `incomplete`.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> Result<Ts<StreamStatus>, JsValue> {
        to_ts(&self.stream.status())
    }
}

/// Client configuration (the JSON part of the client options).
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AgentxClientConfig {
    /// Base URL of the agent server, e.g. `http://127.0.0.1:8787`.
    pub base_url: String,
    /// Path of the endpoint, default `/chat`.
    #[tsify(optional)]
    pub endpoint: Option<String>,
    /// Extra request headers.
    #[tsify(optional, type = "Record<string, string>")]
    pub headers: Option<HeaderList>,
    /// `fetch` credentials mode: `omit`, `same-origin` (the default) or `include`.
    #[tsify(optional, type = "\"omit\" | \"same-origin\" | \"include\"")]
    pub credentials: Option<String>,
}

agentwire_core::deserialize_by_fields!(AgentxClientConfig, "struct AgentxClientConfig");

impl AgentxClientConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            base_url: f.required("baseUrl")?,
            endpoint: f.optional("endpoint")?,
            headers: f.optional("headers")?,
            credentials: f.optional("credentials")?,
        })
    }
}

/// An AgentX client over `fetch`: `POST /chat` with the conversation, a stream of message packets
/// back.
#[wasm_bindgen(js_name = AgentxClient)]
pub struct JsAgentxClient {
    url: String,
    headers: HeaderList,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
}

#[wasm_bindgen(js_class = AgentxClient)]
impl JsAgentxClient {
    /// A client for `options.baseUrl` + `options.endpoint` (default `/chat`).
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: AgentxClientOptions) -> Result<JsAgentxClient, JsValue> {
        let options: JsValue = options.into();
        let config: AgentxClientConfig = from_js(&options, "options")?;
        let fetch = fetch_option(&options);
        let credentials = credentials_option(config.credentials.as_deref())?;
        let endpoint = config
            .endpoint
            .unwrap_or_else(|| ChatRequest::PATH.to_owned());
        Ok(Self {
            url: format!("{}{}", config.base_url.trim_end_matches('/'), endpoint),
            headers: config.headers.unwrap_or_default(),
            credentials,
            fetch,
        })
    }

    /// The URL requests go to.
    #[wasm_bindgen(getter)]
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// POSTs `request` (`{messages: [...]}`) and streams the answer: `sink` receives the updates of
    /// each network chunk (ending with `done`). The handle's `messages` resolves with the answer's
    /// logical messages when the connection closes on an event boundary.
    ///
    /// # Errors
    /// `invalid-argument` synchronously for a request of the wrong shape. `messages` rejects with a
    /// `ProtocolError`: `http-status` (with the body text), `not-event-stream`, `network-error`
    /// (the connection broke), `stream-incomplete` (it closed inside an SSE event), `aborted` (the
    /// signal fired; no callback runs after it). Except for the first two, once the event stream
    /// has begun, `details.messages` holds every message received (a failure before the answer's
    /// head has none). An exception thrown by `sink` cancels the stream and rejects with that
    /// exception.
    pub fn chat(
        &self,
        request: Ts<ChatRequest>,
        sink: AgentxUpdateSink,
        options: Option<AgentxChatCallOptions>,
    ) -> Result<JsAgentxChatHandle, JsValue> {
        let request: ChatRequest = from_ts(&request, "request")?;
        let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
        let (signal, stream_options) = if options.is_object() {
            let signal = Reflect::get(&options, &"signal".into())
                .ok()
                .and_then(|s| s.dyn_into::<AbortSignal>().ok());
            (signal, from_js(&options, "options")?)
        } else {
            (None, AgentxStreamOptions::default())
        };
        let sink: Function = JsValue::from(sink)
            .dyn_into()
            .map_err(|_| invalid_argument("sink", "it is not a function"))?;
        let stall_ms = stream_options
            .stall_timeout_ms
            .unwrap_or(DEFAULT_STALL_TIMEOUT_MS);
        let decoder = Rc::new(RefCell::new(JsAgentxStreamDecoder::with_options(
            stream_options,
        )));
        let call = Call {
            stall_ms,
            url: self.url.clone(),
            headers: self.headers.clone(),
            credentials: self.credentials,
            fetch: self.fetch.clone(),
            body: request.to_json(),
            signal,
            sink,
            decoder: Rc::clone(&decoder),
        };
        Ok(JsAgentxChatHandle {
            decoder,
            messages: promise(call.run()),
        })
    }
}

/// One `POST /chat`: its outcome, and queries on what has arrived so far.
#[wasm_bindgen(js_name = AgentxChatHandle)]
pub struct JsAgentxChatHandle {
    decoder: Rc<RefCell<JsAgentxStreamDecoder>>,
    messages: Promise,
}

#[wasm_bindgen(js_class = AgentxChatHandle)]
impl JsAgentxChatHandle {
    /// Resolves with the answer's logical messages (see `AgentxClient.chat` for how it rejects).
    #[wasm_bindgen(getter, unchecked_return_type = "Promise<AgentxMessage[]>")]
    pub fn messages(&self) -> Promise {
        self.messages.clone()
    }

    /// The messages assembled so far.
    #[wasm_bindgen(unchecked_return_type = "AgentxMessage[]")]
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        self.decoder.borrow().messages()
    }

    /// Message `index` of the answer as a body, as it is now, or `undefined` (also for an index
    /// that is not an integer from 0).
    pub fn body(&self, index: f64) -> Result<Option<Ts<Body>>, JsValue> {
        self.decoder.borrow().body(index)
    }

    /// `streaming`, `complete` or `incomplete`.
    #[wasm_bindgen(getter)]
    pub fn status(&self) -> Result<Ts<StreamStatus>, JsValue> {
        self.decoder.borrow().status()
    }
}

struct Call {
    stall_ms: u32,
    url: String,
    headers: HeaderList,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
    body: String,
    signal: Option<AbortSignal>,
    sink: Function,
    decoder: Rc<RefCell<JsAgentxStreamDecoder>>,
}

impl Call {
    fn aborted(&self) -> bool {
        self.signal.as_ref().is_some_and(AbortSignal::aborted)
    }

    async fn run(mut self) -> Result<JsValue, JsValue> {
        let reader = self.open().await?;
        let mut buf = Vec::new();
        let mut stopped = false;
        loop {
            let chunk = match within(read_from(&reader), self.stall_ms).await {
                Ok(Some(chunk)) => chunk,
                // The user's abort wins over a timer that fired in the same instant.
                _ if self.aborted() => return Err(self.abort()),
                Ok(None) => {
                    cancel_quietly(&reader);
                    let stalled = TransportError::Stalled {
                        timeout_ms: self.stall_ms,
                    };
                    return Err(self.broken(stalled));
                }
                Err(e) => {
                    let reason = describe(&e);
                    return Err(self.broken(TransportError::Network { reason }));
                }
            };
            if self.aborted() {
                return Err(self.abort());
            }
            match read_chunk(&chunk) {
                Chunk::End => break,
                Chunk::Bytes(bytes) => copy_bytes(&bytes, &mut buf),
                Chunk::NotBytes(failure) => {
                    cancel_quietly(&reader);
                    return Err(self.broken(failure));
                }
            }
            self.decoder.borrow_mut().stream.feed(&buf);
            if let Err(e) = self.deliver() {
                cancel_quietly(&reader);
                return Err(e);
            }
            if self.decoder.borrow().stream.status() != StreamStatus::Streaming {
                // Strict mode or a limit ended the stream: nothing more is read, and the
                // request is closed.
                cancel_quietly(&reader);
                stopped = true;
                break;
            }
        }
        self.decoder.borrow_mut().stream.finish();
        self.deliver()?;
        let decoder = self.decoder.borrow();
        let messages = decoder.messages()?;
        if decoder.stream.status() == StreamStatus::Complete {
            Ok(messages)
        } else {
            let reason = if stopped {
                "an error ended it (strict mode or a limit)"
            } else {
                "the stream ended inside an SSE event"
            };
            let error = AgentxError::StreamIncomplete {
                reason: reason.to_owned(),
                packets: decoder.stream.assembler().packets(),
            };
            Err(js_error_with(&error, "messages", &messages))
        }
    }

    /// Sends the request; checks the status and the content type, and gives the body's reader.
    async fn open(&self) -> Result<BodyReader, JsValue> {
        let (controller, signal) = request_signal(self.signal.as_ref())?;
        let request = build_request(
            "POST",
            &self.url,
            &[
                ("content-type", "application/json"),
                ("accept", "text/event-stream"),
            ],
            &self.headers,
            Some(&self.body),
            self.credentials,
            Some(&signal),
        )?;
        let aborted = || self.aborted();
        let timeout = Some((self.stall_ms, &controller));
        let response = send(self.fetch.as_ref(), &request, &aborted, timeout).await?;
        if !is_ok(&response) {
            return Err(js_error(&TransportError::HttpStatus {
                status: status_of(&response),
                body: error_body(&response, &aborted, Some(&signal), self.stall_ms).await?,
            }));
        }
        event_stream_reader(&response, &aborted, Some(&signal), self.stall_ms).await
    }

    /// Hands the pending updates to the sink (the decoder is not borrowed while the sink runs, so
    /// handlers may query the handle).
    fn deliver(&mut self) -> Result<(), JsValue> {
        self.deliver_failed(None)
    }

    /// [`Self::deliver`]; with `failure`, the stream's closing issue names it (see
    /// [`name_failure`]).
    fn deliver_failed(&mut self, failure: Option<&TransportError>) -> Result<(), JsValue> {
        let updates = {
            let mut decoder = self.decoder.borrow_mut();
            if !decoder.stream.assembler().has_updates() || self.aborted() {
                return Ok(());
            }
            decoder.drain()?
        };
        if let Some(failure) = failure {
            name_failure(&updates, failure);
        }
        self.sink.call1(&JsValue::NULL, &updates)?;
        Ok(())
    }

    /// The connection broke or stalled while reading: keep what arrived.
    fn broken(&mut self, failure: TransportError) -> JsValue {
        let reason = failure.to_string();
        self.decoder.borrow_mut().stream.finish_interrupted(&reason);
        if let Err(thrown) = self.deliver_failed(Some(&failure)) {
            return thrown; // a handler threw: the chat rejects with it, as it would mid-stream
        }
        let partial = self.decoder.borrow().messages().unwrap_or(JsValue::NULL);
        js_error_with(&failure, "messages", &partial)
    }

    /// The user aborted: no more callbacks; the stream ends `incomplete`.
    fn abort(&mut self) -> JsValue {
        let mut decoder = self.decoder.borrow_mut();
        decoder.stream.finish_interrupted("aborted");
        // Nothing is delivered after an abort.
        let _ = decoder.stream.drain_updates();
        let partial = decoder.messages().unwrap_or(JsValue::NULL);
        js_error_with(&TransportError::Aborted, "messages", &partial)
    }
}

/// A new AgentX user message with one text part and a new id (`msg_` and 32 random hex digits).
///
/// # Errors
/// Only if the message cannot be converted (never in practice).
#[wasm_bindgen(js_name = agentxUserText)]
pub fn agentx_user_text(text: &str) -> Result<Ts<crate::dialect::agentx::Message>, JsValue> {
    to_ts(&crate::dialect::agentx::Message::user_text(text))
}
