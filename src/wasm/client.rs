//! `AgentClient`: POSTs an Agent API request with `fetch` and reads the `text/event-stream` body as it
//! arrives (gloo-net's `EventSource` is GET-only, so this uses `fetch` and `ReadableStream`
//! directly: <https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API/Using_Fetch#processing_a_text_file_line_by_line>).

use agentwire_core::json::Fields;
use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{AbortController, AbortSignal, RequestCredentials};

use super::agent_api::{JsAgentStreamDecoder, StreamOptions};
use super::convert::to_ts;
use super::convert::{from_js, from_ts, to_js};
use super::error::{invalid_argument, js_error, js_error_with};
use super::http::{
    build_request, cancel_quietly, credentials_option, describe, error_body, event_stream_reader,
    fetch_option, is_ok, name_failure, promise, read_chunk, read_from, request_signal, send, sleep,
    status_of, within, BodyReader, Chunk, HeaderList,
};
use super::pattern::JsPattern;
use crate::body::{Body, Part};
use crate::dialect::agent_api::AgentRequest;
use crate::transport::{reconnect_wait_ms, TransportError};
use serde::Serialize;

#[wasm_bindgen]
extern "C" {

    /// `(updates: StreamUpdate[]) => void`, called once per network chunk.
    #[wasm_bindgen(typescript_type = "(updates: StreamUpdate[]) => void")]
    pub type UpdateSink;

    /// Per-stream options.
    #[wasm_bindgen(
        typescript_type = "{ signal?: AbortSignal; batch?: boolean; maxEventSize?: number }"
    )]
    pub type StreamCallOptions;

    /// Client options, with an optional custom `fetch`.
    #[wasm_bindgen(
        typescript_type = "AgentClientConfig & { fetch?: (input: Request) => Promise<Response> }"
    )]
    pub type AgentClientOptions;
}

/// Client configuration (the JSON part of the client options).
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AgentClientConfig {
    /// Base URL of the agent server, e.g. `http://127.0.0.1:8787`.
    pub base_url: String,
    /// Path of the endpoint, default `/process`.
    #[tsify(optional)]
    pub endpoint: Option<String>,
    /// Extra request headers.
    #[tsify(optional, type = "Record<string, string>")]
    pub headers: Option<HeaderList>,
    /// `fetch` credentials mode: `omit`, `same-origin` (the default) or `include`.
    #[tsify(optional, type = "\"omit\" | \"same-origin\" | \"include\"")]
    pub credentials: Option<String>,
    /// Resume a broken stream automatically: when the connection breaks (or the server closes
    /// before the response ended) and the server gave SSE `id`s, reconnect with `GET` to
    /// `resume.path` (default `/process/resume/{responseId}`) sending `Last-Event-ID`, waiting the
    /// server's `retry` time (or `initialDelayMs`, default 500 ms), doubled at each attempt up to
    /// 30 s (a server's longer `retry` is kept), at
    /// most `maxAttempts` (default 3) times. The request is never re-POSTed. Off when absent.
    #[tsify(optional)]
    pub resume: Option<ResumeConfig>,
}

agentwire_core::deserialize_by_fields!(AgentClientConfig, "struct AgentClientConfig");

impl AgentClientConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            base_url: f.required("baseUrl")?,
            endpoint: f.optional("endpoint")?,
            headers: f.optional("headers")?,
            credentials: f.optional("credentials")?,
            resume: f.optional("resume")?,
        })
    }
}

/// How to resume a broken stream (see `AgentClientConfig.resume`).
#[derive(Tsify, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ResumeConfig {
    /// Path of the resume endpoint; `{responseId}` is replaced by the response's id.
    #[tsify(optional)]
    pub path: Option<String>,
    /// Attempts per stream (default 3).
    #[tsify(optional)]
    pub max_attempts: Option<u32>,
    /// First wait in milliseconds when the server sent no `retry` (default 500).
    #[tsify(optional)]
    pub initial_delay_ms: Option<u32>,
}

agentwire_core::deserialize_by_fields!(ResumeConfig, "struct ResumeConfig");

impl ResumeConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            path: f.optional("path")?,
            max_attempts: f.optional("maxAttempts")?,
            initial_delay_ms: f.optional("initialDelayMs")?,
        })
    }
}

/// An Agent API client over `fetch`.
#[wasm_bindgen(js_name = AgentClient)]
pub struct JsAgentClient {
    base_url: String,
    url: String,
    headers: HeaderList,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
    resume: Option<ResumeConfig>,
}

#[wasm_bindgen(js_class = AgentClient)]
impl JsAgentClient {
    /// A client for `options.baseUrl` + `options.endpoint` (default `/process`).
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: AgentClientOptions) -> Result<JsAgentClient, JsValue> {
        let options: JsValue = options.into();
        let config: AgentClientConfig = from_js(&options, "options")?;
        let fetch = fetch_option(&options);
        let credentials = credentials_option(config.credentials.as_deref())?;
        let endpoint = config.endpoint.unwrap_or_else(|| "/process".to_owned());
        let base_url = config.base_url.trim_end_matches('/').to_owned();
        Ok(Self {
            url: format!("{base_url}{endpoint}"),
            base_url,
            headers: config.headers.unwrap_or_default(),
            credentials,
            fetch,
            resume: config.resume,
        })
    }

    /// The URL requests go to.
    #[wasm_bindgen(getter)]
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// POSTs `request` and streams the response: `sink` receives the updates of each network chunk
    /// (an array of `StreamUpdate`, ending with `done`). The returned handle's `response` resolves
    /// with the assembled response when the stream ends with a terminal status (`completed`,
    /// `failed`, …); meanwhile it answers queries on what has arrived (`body`, `list`).
    ///
    /// # Errors
    /// `response` rejects with a `ProtocolError`: `http-status` (non-2xx, with the body text),
    /// `not-event-stream` (another content type), `network-error` (the request failed or the
    /// connection broke), `stream-incomplete` (the server closed before a terminal status),
    /// `stalled` (no byte for `stallTimeoutMs`), `aborted` (the signal fired; no callback runs
    /// after it). Once the event stream has begun, `details.response` holds everything received,
    /// marked `incomplete` (`canceled` for `aborted`). An exception thrown by `sink` cancels the stream and
    /// rejects with that exception.
    pub fn stream(
        &self,
        request: Ts<AgentRequest>,
        sink: UpdateSink,
        options: Option<StreamCallOptions>,
    ) -> Result<JsAgentStreamHandle, JsValue> {
        let request: AgentRequest = from_ts(&request, "request")?;
        request.validate().map_err(|e| js_error(&e))?;
        let body = serde_json::to_string(&request)
            .map_err(|e| invalid_argument("request", &e.to_string()))?;
        let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
        let signal = if options.is_object() {
            Reflect::get(&options, &"signal".into())
                .ok()
                .and_then(|s| s.dyn_into::<AbortSignal>().ok())
        } else {
            None
        };
        let stream_options: StreamOptions = if options.is_object() {
            from_js(&options, "options")?
        } else {
            StreamOptions::default()
        };
        let sink: Function = JsValue::from(sink)
            .dyn_into()
            .map_err(|_| invalid_argument("sink", "it is not a function"))?;
        let stall_ms = stream_options
            .stall_timeout_ms
            .unwrap_or(DEFAULT_STALL_TIMEOUT_MS);
        let call = Call {
            base_url: self.base_url.clone(),
            url: self.url.clone(),
            headers: self.headers.clone(),
            credentials: self.credentials,
            fetch: self.fetch.clone(),
            resume: self.resume.clone(),
            stall_ms,
            body,
            signal,
            sink,
            decoder: Rc::new(RefCell::new(JsAgentStreamDecoder::with_options(
                stream_options,
            ))),
            done: None,
        };
        let decoder = Rc::clone(&call.decoder);
        Ok(JsAgentStreamHandle {
            decoder,
            response: promise(call.run()),
        })
    }
}

/// A named part of a streaming response, with the message it belongs to.
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct NamedPart {
    /// The message's id.
    pub msg_id: String,
    /// The part (see the body mapping of the Agent API dialect).
    pub part: Part,
}

/// A list of named parts.
#[derive(Serialize, Tsify)]
pub struct NamedParts(pub Vec<NamedPart>);

/// One streaming response: its outcome, and queries on what has arrived so far.
#[wasm_bindgen(js_name = AgentStreamHandle)]
pub struct JsAgentStreamHandle {
    decoder: Rc<RefCell<JsAgentStreamDecoder>>,
    response: Promise,
}

#[wasm_bindgen(js_class = AgentStreamHandle)]
impl JsAgentStreamHandle {
    /// Resolves with the assembled response: the object the `done` update carried, unless
    /// updates followed it (see `AgentClient.stream` for how it rejects).
    #[wasm_bindgen(getter, unchecked_return_type = "Promise<AgentResponse>")]
    pub fn response(&self) -> Promise {
        self.response.clone()
    }

    /// The response as assembled so far.
    pub fn snapshot(&self) -> Result<Ts<crate::dialect::agent_api::AgentResponse>, JsValue> {
        Ok(Ts::new_unchecked(self.decoder.borrow_mut().response_js()?))
    }

    /// The body of message `msgId` as it is now (parts grow while they stream), or `null`.
    pub fn body(&self, msg_id: &str) -> Result<Option<Ts<Body>>, JsValue> {
        let decoder = self.decoder.borrow();
        match decoder.inner().assembler().message(msg_id) {
            Some(m) => Ok(Some(to_ts(&m.body())?)),
            None => Ok(None),
        }
    }

    /// Every named part whose name matches `pattern`, across the response's messages, in order:
    /// `list(new Pattern("/sources/*"))` while the response is still streaming.
    pub fn list(&self, pattern: &JsPattern) -> Result<Ts<NamedParts>, JsValue> {
        let decoder = self.decoder.borrow();
        let mut out = Vec::new();
        for m in &decoder.inner().response().output {
            let id = m.id.clone().unwrap_or_default();
            for part in m.body().parts {
                if part.name.as_deref().is_some_and(|n| pattern.0.is_match(n)) {
                    out.push(NamedPart {
                        msg_id: id.clone(),
                        part,
                    });
                }
            }
        }
        to_ts(&NamedParts(out))
    }
}

/// Default of `stallTimeoutMs`: 90 s without a byte ends (or resumes) the stream.
pub use super::http::DEFAULT_STALL_TIMEOUT_MS;

struct Call {
    base_url: String,
    url: String,
    headers: HeaderList,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
    resume: Option<ResumeConfig>,
    stall_ms: u32,
    body: String,
    signal: Option<AbortSignal>,
    sink: Function,
    decoder: Rc<RefCell<JsAgentStreamDecoder>>,
    /// The response the `done` update carried (the object the handlers got), while no update
    /// has followed it: what `response` resolves with, instead of a second copy.
    done: Option<JsValue>,
}

impl Call {
    fn aborted(&self) -> bool {
        self.signal.as_ref().is_some_and(AbortSignal::aborted)
    }

    async fn run(mut self) -> Result<JsValue, JsValue> {
        let mut connection = self.connect(None).await?;
        let mut attempts = 0u32;
        let mut delay_ms = None;
        'read: loop {
            let broke = match self.read(&connection).await {
                Read::Aborted => return Err(self.abort()),
                Read::SinkFailed(e) => return Err(e),
                Read::Ended if self.decoder.borrow().inner().assembler().is_done() => break,
                Read::Ended => Break::EndedEarly,
                Read::Broken(e) => Break::Transport(e),
                Read::Failed(e) => {
                    connection.controller.abort();
                    return Err(self.broken(Break::Transport(e)));
                }
            };
            connection.controller.abort();
            // Resume when configured, possible (the server gave ids) and attempts remain; an
            // attempt that fails to connect is reported and the next one waits longer.
            let last_event_id = self
                .decoder
                .borrow()
                .inner()
                .sse()
                .last_event_id()
                .to_owned();
            let response_id = self.decoder.borrow().inner().response().id.clone();
            let (Some(r), Some(id)) = (self.resume.clone(), response_id) else {
                return Err(self.broken(broke));
            };
            let max = r.max_attempts.unwrap_or(3);
            while attempts < max && !last_event_id.is_empty() {
                attempts += 1;
                let server_retry = self.decoder.borrow().inner().sse().retry();
                let initial = r.initial_delay_ms.unwrap_or(500);
                let wait = reconnect_wait_ms(delay_ms, server_retry, initial);
                delay_ms = Some(wait);
                sleep(wait, self.signal.as_ref()).await;
                if self.aborted() {
                    return Err(self.abort());
                }
                let path = r.path.as_deref().unwrap_or("/process/resume/{responseId}");
                let url = format!("{}{}", self.base_url, path.replace("{responseId}", &id));
                let details = crate::error::Details::new()
                    .field("attempt", &attempts)
                    .field("lastEventId", &last_event_id)
                    .field("reason", &broke.to_string());
                match self.connect(Some((url, last_event_id.clone()))).await {
                    Ok(c) => {
                        connection = c;
                        self.decoder.borrow_mut().inner_mut().reconnect();
                        let message = format!("the connection broke ({broke}); resumed after event {last_event_id} (attempt {attempts})");
                        if let Err(thrown) = self.notice("resumed", message, details) {
                            connection.controller.abort();
                            return Err(thrown);
                        }
                        continue 'read;
                    }
                    Err(e) if self.aborted() => {
                        drop(e);
                        return Err(self.abort());
                    }
                    Err(e) => {
                        let failure = describe(&e);
                        let code = Reflect::get(&e, &"code".into())
                            .ok()
                            .and_then(|c| c.as_string())
                            .unwrap_or_default();
                        let message = format!("the connection broke ({broke}); resuming after event {last_event_id} failed (attempt {attempts}): {failure}");
                        let details = details.field("code", &code).field("error", &failure);
                        self.notice("resume-failed", message, details)?;
                    }
                }
            }
            return Err(self.broken(broke));
        }
        self.decoder.borrow_mut().inner_mut().finish();
        self.deliver()?;
        self.decoder.borrow_mut().release_buffers();
        match self.done.take() {
            Some(response) => Ok(response),
            None => self.decoder.borrow_mut().response_js(),
        }
    }

    /// Opens a connection: the POST of the request, or (`resume`) a GET of the resume URL with
    /// `Last-Event-ID`. Checks the status and the content type.
    async fn connect(&self, resume: Option<(String, String)>) -> Result<Connection, JsValue> {
        let (controller, signal) = request_signal(self.signal.as_ref())?;
        let accept = ("accept", "text/event-stream");
        let request = match &resume {
            None => build_request(
                "POST",
                &self.url,
                &[accept, ("content-type", "application/json")],
                &self.headers,
                Some(&self.body),
                self.credentials,
                Some(&signal),
            ),
            Some((url, last_event_id)) => build_request(
                "GET",
                url,
                &[accept, ("last-event-id", last_event_id)],
                &self.headers,
                None,
                self.credentials,
                Some(&signal),
            ),
        }?;
        // The stall timeout covers the wait for the answer's head too.
        let timeout = Some((self.stall_ms, &controller));
        let aborted = || self.aborted();
        let response = send(self.fetch.as_ref(), &request, &aborted, timeout).await?;
        if !is_ok(&response) {
            return Err(js_error(&TransportError::HttpStatus {
                status: status_of(&response),
                body: error_body(&response, &aborted, Some(&signal), self.stall_ms).await?,
            }));
        }
        Ok(Connection {
            reader: event_stream_reader(&response, &aborted, Some(&signal), self.stall_ms).await?,
            controller,
        })
    }

    /// Reads one connection to its end, feeding the decoder and delivering updates.
    async fn read(&mut self, connection: &Connection) -> Read {
        loop {
            let chunk = match within(read_from(&connection.reader), self.stall_ms).await {
                Ok(Some(chunk)) => chunk,
                // The user's abort wins over a timer that fired in the same instant.
                _ if self.aborted() => return Read::Aborted,
                Ok(None) => {
                    cancel_quietly(&connection.reader);
                    return Read::Broken(TransportError::Stalled {
                        timeout_ms: self.stall_ms,
                    });
                }
                Err(e) => {
                    return Read::Broken(TransportError::Network {
                        reason: describe(&e),
                    })
                }
            };
            if self.aborted() {
                return Read::Aborted;
            }
            let bytes = match read_chunk(&chunk) {
                Chunk::End => return Read::Ended,
                Chunk::Bytes(bytes) => bytes,
                // The body (a custom `fetch`'s) gives what is not bytes: another connection
                // would too, so the stream is not resumed.
                Chunk::NotBytes(failure) => {
                    cancel_quietly(&connection.reader);
                    return Read::Failed(failure);
                }
            };
            if let Err(e) = self.deliver_chunk(&bytes) {
                cancel_quietly(&connection.reader);
                return Read::SinkFailed(e);
            }
            if self.aborted() {
                // A handler aborted (or freed) the stream: the response is not delivered, even
                // when this chunk completed it. (The signal's abort closes the request: a cancel
                // now would reject, unhandled, with the abort.)
                return Read::Aborted;
            }
            let (stopped, done) = {
                let decoder = self.decoder.borrow();
                let assembler = decoder.inner().assembler();
                (assembler.is_stopped(), assembler.is_done())
            };
            if stopped || done {
                // Nothing more is read: the response reached a terminal status (`response`
                // resolves with it, whether or not the server closes), or strict mode or a limit
                // ended the stream (the response is `incomplete`). Cancelling the body closes the
                // connection (a `fetch` that tees the body keeps its other branch); a stopped
                // stream's request is aborted too, as the strict mode's error ends it.
                cancel_quietly(&connection.reader);
                if stopped {
                    connection.controller.abort();
                }
                return Read::Ended;
            }
        }
    }

    /// Delivers one warning of the client's own (not the assembler's), in its own sink call: an
    /// `issue` update with `code`, `message` and `details`.
    fn notice(
        &self,
        code: &str,
        message: String,
        details: crate::error::Details,
    ) -> Result<(), JsValue> {
        if self.aborted() {
            return Ok(());
        }
        // Inserted one by one: `json!` compiles serde_json's `Value` serializer for its values,
        // which nothing else needs.
        let mut issue = serde_json::Map::new();
        issue.insert("type".into(), "issue".into());
        issue.insert("severity".into(), "warning".into());
        issue.insert("code".into(), code.into());
        issue.insert("message".into(), message.into());
        issue.insert("details".into(), details.into());
        let list = to_js(&[serde_json::Value::Object(issue)])?;
        self.sink.call1(&JsValue::NULL, &list)?;
        Ok(())
    }

    /// Feeds a network chunk and hands its updates to the sink in one call (built a slice at a
    /// time per event: `JsAgentStreamDecoder::feed_and_drain`).
    fn deliver_chunk(&mut self, bytes: &Uint8Array) -> Result<(), JsValue> {
        let updates = self.decoder.borrow_mut().feed_and_drain(bytes)?;
        if updates.unchecked_ref::<js_sys::Array>().length() == 0 || self.aborted() {
            return Ok(());
        }
        self.hand_over(updates)
    }

    /// Hands the pending updates to the sink (the decoder is not borrowed while the sink runs, so
    /// handlers may query the stream's handle).
    fn deliver(&mut self) -> Result<(), JsValue> {
        let updates = {
            let mut decoder = self.decoder.borrow_mut();
            if !decoder.inner().assembler().has_updates() || self.aborted() {
                return Ok(());
            }
            decoder.drain()?
        };
        self.hand_over(updates)
    }

    /// Calls the sink with `updates` (a non-empty array).
    fn hand_over(&mut self, updates: JsValue) -> Result<(), JsValue> {
        // Keep the response of a `done` that ends these updates; any later update (lenient mode
        // applies events after the end) means the response moved on from it.
        let last = updates.unchecked_ref::<js_sys::Array>().at(-1);
        self.done = Reflect::get(&last, &"type".into())
            .ok()
            .filter(|t| t.as_string().as_deref() == Some("done"))
            .and_then(|_| Reflect::get(&last, &"response".into()).ok());
        self.sink.call1(&JsValue::NULL, &updates)?;
        Ok(())
    }

    /// The connection broke for good: keep what arrived, marked incomplete. A server that closed
    /// before the response ended gives `stream-incomplete` (as the stream's own issue says); a
    /// transport failure gives its own code (`network-error`, `stalled`). A handler that throws
    /// while the last updates are delivered (`onError` with that issue) gives what it threw, as
    /// it does while the stream goes on.
    fn broken(&mut self, broke: Break) -> JsValue {
        // The status the server last sent, before `finish` marks the response `incomplete`.
        let last_status = self.decoder.borrow().inner().response().status.clone();
        self.decoder.borrow_mut().inner_mut().finish();
        if let Break::Transport(e) = &broke {
            // The stream's closing issue names the transport failure, not just "incomplete".
            let updates = self.decoder.borrow_mut().drain();
            if let Ok(updates) = updates {
                name_failure(&updates, e);
                if !self.aborted() {
                    if let Err(thrown) = self.sink.call1(&JsValue::NULL, &updates) {
                        return thrown;
                    }
                }
            }
        }
        if let Err(thrown) = self.deliver() {
            return thrown;
        }
        let partial = to_js(self.decoder.borrow().inner().response()).unwrap_or(JsValue::NULL);
        match broke {
            Break::Transport(e) => js_error_with(&e, "response", &partial),
            Break::EndedEarly => js_error_with(
                &crate::dialect::agent_api::AgentApiError::StreamIncomplete { last_status },
                "response",
                &partial,
            ),
        }
    }

    /// The user aborted: no more callbacks; the partial response is marked `canceled`.
    fn abort(&mut self) -> JsValue {
        self.decoder.borrow_mut().inner_mut().abort();
        let partial = to_js(self.decoder.borrow().inner().response()).unwrap_or(JsValue::NULL);
        js_error_with(&TransportError::Aborted, "response", &partial)
    }
}

/// An open connection: its body reader, and the controller that aborts it.
struct Connection {
    reader: BodyReader,
    controller: AbortController,
}

/// Why a connection stopped before the response ended.
enum Break {
    /// The server closed the stream cleanly, early.
    EndedEarly,
    /// The transport failed (network, stall).
    Transport(TransportError),
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Break::EndedEarly => {
                f.write_str("the server closed the stream before the response ended")
            }
            Break::Transport(e) => write!(f, "{e}"),
        }
    }
}

/// How reading a connection ended.
enum Read {
    /// The body ended.
    Ended,
    /// The user's signal fired.
    Aborted,
    /// A handler threw.
    SinkFailed(JsValue),
    /// The connection broke or stalled (a resume may follow).
    Broken(TransportError),
    /// The body gave a chunk that is not bytes (no resume: the next connection's body would be
    /// read the same way).
    Failed(TransportError),
}
