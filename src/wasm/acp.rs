//! `AcpClient`: the Agent Communication Protocol over `fetch`. A run is followed by an
//! [`AcpSession`] (the assembled run and its lifecycle, checked on every request and event):
//! streamed runs read the `text/event-stream` body as it arrives (`fetch` and `ReadableStream`),
//! `sync` runs take the server's run, `async` runs poll `GET /runs/{run_id}/events`. Resumes and
//! the polling that follows a cancel continue the same run, one answer after another.

use agentwire_core::json::{Fields, Step};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, RequestCredentials, Response};

use super::convert::{from_js, from_ts, parse_json, to_js, to_ts};
use super::error::{internal, invalid_argument, js_error, js_error_with};
use super::http::{
    body_text, build_request, cancel_quietly, copy_bytes, credentials_option, describe, error_body,
    event_stream_reader, fetch_option, header_of, is_ok, name_failure, promise, read_chunk,
    read_from, request_signal, send, sleep, status_of, within, Chunk, HeaderList,
    DEFAULT_STALL_TIMEOUT_MS,
};
use super::pattern::JsPattern;
use super::run::{allowed, party_of, Moves, RunMessages};
use crate::body::{Body, Part};
use crate::dialect::acp::{
    decode_agents, decode_error, decode_events, decode_run, AcpClient, AcpError, AcpOptions,
    AcpSession, AgentManifest, AwaitRequest, HttpRequest, Inbound, InputError, Message, Run,
    RunCreateRequest, RunMode, RunResumeRequest, RunStatus, SessionOptions,
};
use crate::run::Party;
use crate::sse::SseOptions;
use crate::transport::TransportError;

#[wasm_bindgen(typescript_custom_section)]
const ACP_TS: &str = r#"
/**
 * One change of an ACP run, in order: an `AcpUpdate` of the assembled run (`run`, `message`,
 * `part`, `textDelta`, `messageCompleted`, `awaiting`, `generic`, `issue` — lifecycle problems are
 * `issue`s too — and `done`), or a change of the run's lifecycle state.
 */
export type AcpRunUpdate = AcpUpdate | { type: "state"; from: string; to: string; move: Move };
/** An ACP event as sent (`GET /runs/{run_id}/events`; events of unknown types are kept as sent). */
export type AcpEvent =
  | { type: "run.created" | "run.in-progress" | "run.awaiting" | "run.completed" | "run.failed" | "run.cancelled"; run: AcpRun }
  | { type: "message.created" | "message.completed"; message: AcpMessage }
  | { type: "message.part"; part: AcpMessagePart }
  | { type: "generic"; generic: JsonValue }
  | { type: "error"; error: AcpErrorInfo };
"#;

#[wasm_bindgen]
extern "C" {
    /// `(updates: AcpRunUpdate[]) => void`, called once per network chunk or client move.
    #[wasm_bindgen(typescript_type = "(updates: AcpRunUpdate[]) => void")]
    pub type AcpUpdateSink;

    /// Client options, with an optional custom `fetch`.
    #[wasm_bindgen(
        typescript_type = "AcpClientConfig & { fetch?: (input: Request) => Promise<Response> }"
    )]
    pub type AcpClientOptions;

    /// Options of one run, with an optional `AbortSignal`.
    #[wasm_bindgen(typescript_type = "AcpRunConfig & { signal?: AbortSignal }")]
    pub type AcpRunCallOptions;
}

/// Configuration of an ACP client (the JSON part of its options).
#[derive(Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AcpClientConfig {
    /// Base URL of the ACP server, with its path prefix if any: `http://127.0.0.1:8000`,
    /// `https://host/acp`. Routes (`/agents`, `/runs`…) are appended to it.
    pub base_url: String,
    /// Extra request headers (e.g. `authorization`).
    #[tsify(optional, type = "Record<string, string>")]
    pub headers: Option<HeaderList>,
    /// `fetch` credentials mode: `omit`, `same-origin` (the default) or `include`.
    #[tsify(optional, type = "\"omit\" | \"same-origin\" | \"include\"")]
    pub credentials: Option<String>,
}

agentwire_core::deserialize_by_fields!(AcpClientConfig, "struct AcpClientConfig");

impl AcpClientConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            base_url: f.required("baseUrl")?,
            headers: f.optional("headers")?,
            credentials: f.optional("credentials")?,
        })
    }
}

/// Options of one run.
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AcpRunConfig {
    /// `stream` (the default: server-sent events as the agent works), `sync` (one answer when
    /// the run stops; an answer whose run has not stopped is followed with `GET /runs/{run_id}`
    /// until it does) or `async` (the run is polled, see `pollInterval`). Resumes use the same
    /// mode.
    #[tsify(optional, type = "\"stream\" | \"sync\" | \"async\"")]
    pub mode: Option<String>,
    /// A session to continue (its history is given to the agent): a UUID, as the protocol's
    /// `SessionId` is (checked with the input, see `checkInput`).
    #[tsify(optional)]
    pub session_id: Option<String>,
    /// Milliseconds between two polls of `GET /runs/{run_id}/events` (`async` runs) or of
    /// `GET /runs/{run_id}` (to follow a cancel when no stream is open). Default 500.
    #[tsify(optional)]
    pub poll_interval: Option<u32>,
    /// Inbound check of the lifecycle: `true` fails the run at the first server event its state
    /// does not allow (code `move-not-allowed`); `false` (the default) reports it as a warning
    /// and goes on.
    #[tsify(optional)]
    pub strict: Option<bool>,
    /// Join adjacent unnamed `text/plain` chunks into one part, as ACP clients show a streamed
    /// message (default `true`); `false` keeps the server's part boundaries.
    #[tsify(optional)]
    pub join_text: Option<bool>,
    /// Batched delivery: within one network chunk, consecutive text appended to one part is one
    /// `textDelta` (default `false`).
    #[tsify(optional)]
    pub batch: Option<bool>,
    /// Largest SSE event, in bytes (default 16 MiB); a larger one is skipped with a warning.
    #[tsify(optional)]
    pub max_event_size: Option<usize>,
    /// Limits on messages, parts, JSON depth and stream bytes (in `sync` and `async` runs,
    /// `maxStreamBytes` bounds each JSON answer: a larger one fails the run with
    /// `stream-too-large`, `details.limit`).
    #[tsify(optional)]
    pub limits: Option<crate::limits::Limits>,
    /// Check the input before sending (default `true`): each message's role against the
    /// protocol's pattern (`user`, `agent` or `agent/<name>`), `sessionId` is a UUID, and the
    /// parts' content types against the agent's manifest, when the client has read it
    /// (`agents()`, `agent(name)`). acp-sdk's server refuses the first two with HTTP 422.
    #[tsify(optional)]
    pub check_input: Option<bool>,
    /// Milliseconds a request of the run may wait for its answer's head, and a stream for its next
    /// byte, before the run fails with `stalled` (`details.timeoutMs`). Default 90,000; 0
    /// disables. A `sync` run's `POST` is answered when the run stops, so its wait for the answer's
    /// head is not limited; each read of a JSON answer's body is, in every mode.
    #[tsify(optional)]
    pub stall_timeout_ms: Option<u32>,
}

agentwire_core::deserialize_by_fields!(AcpRunConfig, "struct AcpRunConfig");

impl AcpRunConfig {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            mode: f.optional("mode")?,
            session_id: f.optional("sessionId")?,
            poll_interval: f.optional("pollInterval")?,
            strict: f.optional("strict")?,
            join_text: f.optional("joinText")?,
            batch: f.optional("batch")?,
            max_event_size: f.optional("maxEventSize")?,
            limits: f.optional("limits")?,
            check_input: f.optional("checkInput")?,
            stall_timeout_ms: f.optional("stallTimeoutMs")?,
        })
    }
}

/// A named part of an ACP run's output, with the message it belongs to.
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AcpNamedPart {
    /// The message's position in the run's `output` (0-based).
    pub message_index: usize,
    /// The part, as a body part (see the ACP body mapping).
    pub part: Part,
}

/// A list of named parts.
#[derive(Serialize, Tsify)]
pub struct AcpNamedParts(pub Vec<AcpNamedPart>);

/// Sends requests: one server, its headers, credentials and `fetch`.
struct Transport {
    client: AcpClient,
    headers: HeaderList,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
}

fn is_aborted(signal: Option<&AbortSignal>) -> bool {
    signal.is_some_and(AbortSignal::aborted)
}

impl Transport {
    /// Sends `req`, waiting at most `head_ms` for the answer's head (0: no limit); a non-2xx
    /// answer is an `http-error` with the body's ACP error (the body read for at most `body_ms`
    /// without a byte, see [`error_body`]).
    async fn send(
        &self,
        req: &HttpRequest,
        signal: Option<&AbortSignal>,
        head_ms: u32,
        body_ms: u32,
    ) -> Result<Response, JsValue> {
        let (controller, linked) = request_signal(signal)?;
        let own: Vec<(&str, &str)> = req
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let request = build_request(
            req.method.as_str(),
            &req.url,
            &own,
            &self.headers,
            req.body.as_deref(),
            self.credentials,
            Some(&linked),
        )?;
        let aborted = || is_aborted(signal);
        let timeout = Some((head_ms, &controller));
        let response = send(self.fetch.as_ref(), &request, &aborted, timeout).await?;
        if !is_ok(&response) {
            let body = error_body(&response, &aborted, Some(&linked), body_ms).await?;
            return Err(js_error(&decode_error(status_of(&response), &body)));
        }
        Ok(response)
    }

    /// The whole body of `response` as text, each read waiting at most `stall_ms` for more bytes,
    /// at most `limit` bytes (see [`body_text`]).
    async fn text(
        &self,
        response: &Response,
        signal: Option<&AbortSignal>,
        stall_ms: u32,
        limit: Option<u64>,
    ) -> Result<String, JsValue> {
        body_text(response, &|| is_aborted(signal), signal, stall_ms, limit).await
    }

    /// Sends `req` and reads the answer's body (its head, and each read of its body, awaited at
    /// most `stall_ms`; at most `limit` bytes).
    async fn body(
        &self,
        req: &HttpRequest,
        signal: Option<&AbortSignal>,
        stall_ms: u32,
        limit: Option<u64>,
    ) -> Result<String, JsValue> {
        let response = self.send(req, signal, stall_ms, stall_ms).await?;
        self.text(&response, signal, stall_ms, limit).await
    }
}

/// Whether a run with `status` has stopped: it ended, or it awaits the client.
fn stopped(status: &RunStatus) -> bool {
    status.is_terminal() || *status == RunStatus::Awaiting
}

fn acp_err(e: &AcpError) -> JsValue {
    js_error(e)
}

/// An ACP client over `fetch`: lists agents, starts runs and follows them.
#[wasm_bindgen(js_name = AcpClient)]
pub struct JsAcpClient {
    transport: Rc<Transport>,
    manifests: Rc<RefCell<Manifests>>,
}

/// The manifests an ACP client has read, by agent name: the last one read of each.
///
/// A list and an index of names into it rather than a `BTreeMap<String, AgentManifest>`: the
/// index's map type is compiled for other maps already, where the manifest map's node code was
/// compiled for this one (about 3 KB of the wasm module).
#[derive(Default)]
struct Manifests {
    index: BTreeMap<String, usize>,
    list: Vec<AgentManifest>,
}

impl Manifests {
    /// Keeps `manifest`, replacing the one of the same name.
    fn insert(&mut self, manifest: AgentManifest) {
        match self.index.get(&manifest.name) {
            Some(&i) => {
                if let Some(slot) = self.list.get_mut(i) {
                    *slot = manifest;
                }
            }
            None => {
                self.index.insert(manifest.name.clone(), self.list.len());
                self.list.push(manifest);
            }
        }
    }

    fn get(&self, name: &str) -> Option<&AgentManifest> {
        self.index.get(name).and_then(|&i| self.list.get(i))
    }
}

#[wasm_bindgen(js_class = AcpClient)]
impl JsAcpClient {
    /// A client of the ACP server at `options.baseUrl`.
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: AcpClientOptions) -> Result<JsAcpClient, JsValue> {
        let options: JsValue = options.into();
        let config: AcpClientConfig = from_js(&options, "options")?;
        let fetch = fetch_option(&options);
        let credentials = credentials_option(config.credentials.as_deref())?;
        Ok(Self {
            transport: Rc::new(Transport {
                client: AcpClient::new(&config.base_url),
                headers: config.headers.unwrap_or_default(),
                credentials,
                fetch,
            }),
            manifests: Rc::default(),
        })
    }

    /// The base URL, without a trailing `/`.
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.transport.client.base_url().to_owned()
    }

    /// `GET /agents`: the agents' manifests. The client keeps them, and checks the input of later
    /// runs against them.
    ///
    /// # Errors
    /// The promise rejects with `http-error` (`details.status`, `details.error`), `network-error`,
    /// `stalled` (no answer, or no byte of its body, for 90 s), `invalid-json` or `invalid-event`
    /// (a body of the wrong shape).
    #[wasm_bindgen(unchecked_return_type = "Promise<AcpAgentManifest[]>")]
    pub fn agents(&self) -> Promise {
        let transport = Rc::clone(&self.transport);
        let manifests = Rc::clone(&self.manifests);
        promise(async move {
            let text = transport
                .body(
                    &transport.client.list_agents(),
                    None,
                    DEFAULT_STALL_TIMEOUT_MS,
                    None,
                )
                .await?;
            let agents = decode_agents(&text).map_err(|e| acp_err(&e))?;
            let mut known = manifests.borrow_mut();
            for a in &agents {
                known.insert(a.clone());
            }
            to_js(&agents)
        })
    }

    /// `GET /agents/{name}`: one agent's manifest (kept, as by `agents()`).
    ///
    /// # Errors
    /// As `agents()` (`http-error` with status 404 for an unknown agent).
    #[wasm_bindgen(unchecked_return_type = "Promise<AcpAgentManifest>")]
    pub fn agent(&self, name: &str) -> Promise {
        let transport = Rc::clone(&self.transport);
        let manifests = Rc::clone(&self.manifests);
        let request = transport.client.read_agent(name);
        promise(async move {
            let text = transport
                .body(&request, None, DEFAULT_STALL_TIMEOUT_MS, None)
                .await?;
            let agent: AgentManifest = agentwire_core::json::from_json_text(&text)
                .map_err(|e| acp_err(&AcpError::from_json(e, &text)))?;
            manifests.borrow_mut().insert(agent.clone());
            to_js(&agent)
        })
    }

    /// The manifest of `name` read so far, or `null`.
    pub fn manifest(&self, name: &str) -> Result<Option<Ts<AgentManifest>>, JsValue> {
        match self.manifests.borrow().get(name) {
            Some(m) => Ok(Some(to_ts(m)?)),
            None => Ok(None),
        }
    }

    /// `GET /runs/{run_id}`: a run as the server has it now.
    ///
    /// # Errors
    /// As `agents()` (`http-error` with status 404 for an unknown run).
    #[wasm_bindgen(js_name = readRun, unchecked_return_type = "Promise<AcpRun>")]
    pub fn read_run(&self, run_id: &str) -> Promise {
        let transport = Rc::clone(&self.transport);
        let request = transport.client.read_run(run_id);
        promise(async move {
            let text = transport
                .body(&request, None, DEFAULT_STALL_TIMEOUT_MS, None)
                .await?;
            to_js(&decode_run(&text).map_err(|e| acp_err(&e))?)
        })
    }

    /// `GET /runs/{run_id}/events`: the run's events so far, in order.
    ///
    /// # Errors
    /// As `readRun`.
    #[wasm_bindgen(js_name = runEvents, unchecked_return_type = "Promise<AcpEvent[]>")]
    pub fn run_events(&self, run_id: &str) -> Promise {
        let transport = Rc::clone(&self.transport);
        let request = transport.client.run_events(run_id);
        promise(async move {
            let text = transport
                .body(&request, None, DEFAULT_STALL_TIMEOUT_MS, None)
                .await?;
            to_js(&decode_events(&text).map_err(|e| acp_err(&e))?)
        })
    }

    /// Starts a run of `agentName` on `input` (`POST /runs`) and follows it: `sink` receives the
    /// updates (`AcpRunUpdate[]`) of each network chunk, poll or client move, in order. The
    /// returned call's `run` resolves with the assembled run once it reaches a terminal status
    /// (`completed`, `failed`, `cancelled`); while it awaits the client, `resume` continues it.
    ///
    /// # Errors
    /// Throws `invalid-argument` (options or input of the wrong shape, an unknown mode) and
    /// `content-type-not-accepted` (a part the agent's manifest, when read, does not accept).
    /// `run` rejects with a `ProtocolError` whose `details.run` is everything received, once the
    /// server has given the run (its id; before that there is no `details.run`):
    /// `http-error` (non-2xx; `details.status`, `details.error`), `not-event-stream`,
    /// `network-error`, `stream-incomplete` (the stream ended before the run stopped),
    /// `aborted` (the signal fired; no callback runs after it), `move-not-allowed` (strict runs:
    /// a server event the lifecycle does not allow), `invalid-json` (a `sync` or `async` answer
    /// that is not a run). An exception thrown by `sink` stops the run and rejects with it.
    pub fn run(
        &self,
        agent_name: &str,
        #[wasm_bindgen(unchecked_param_type = "AcpMessage[]")] input: JsValue,
        options: Option<AcpRunCallOptions>,
        sink: AcpUpdateSink,
    ) -> Result<JsAcpRunCall, JsValue> {
        let input: Vec<Message> = from_js(&input, "input")?;
        let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
        let (config, signal) = if options.is_object() {
            let signal = Reflect::get(&options, &"signal".into())
                .ok()
                .and_then(|s| s.dyn_into::<AbortSignal>().ok());
            (from_js::<AcpRunConfig>(&options, "options")?, signal)
        } else {
            (AcpRunConfig::default(), None)
        };
        let mode = match config.mode.as_deref() {
            None | Some("stream") => RunMode::Stream,
            Some("sync") => RunMode::Sync,
            Some("async") => RunMode::Async,
            Some(other) => {
                return Err(invalid_argument(
                    "options.mode",
                    &format!("`{other}` is not stream, sync or async"),
                ))
            }
        };
        let sink: Function = JsValue::from(sink)
            .dyn_into()
            .map_err(|_| invalid_argument("sink", "it is not a function"))?;
        let mut request = RunCreateRequest::new(agent_name, input, mode.clone());
        request.session_id = config.session_id.clone();
        if config.check_input.unwrap_or(true) {
            request.check_input().map_err(|e| input_error(&e))?;
            if let Some(manifest) = self.manifests.borrow().get(agent_name) {
                for message in &request.input {
                    manifest.check_input(message).map_err(|e| acp_err(&e))?;
                }
            }
        }
        let http = self
            .transport
            .client
            .create_run(&request)
            .map_err(|e| acp_err(&e))?;
        let mut sse = SseOptions::default();
        if let Some(m) = config.max_event_size {
            sse.max_event_size = m;
        }
        let mut session = AcpSession::new(SessionOptions {
            acp: AcpOptions {
                join_text: config.join_text.unwrap_or(true),
                coalesce: config.batch.unwrap_or(false),
                strict: config.strict.unwrap_or(false),
                limits: config.limits.unwrap_or_default(),
                sse,
            },
            inbound: if config.strict.unwrap_or(false) {
                Inbound::Strict
            } else {
                Inbound::Lenient
            },
        });
        session.create(&request).map_err(|e| js_error(&e))?;
        let (run_promise, resolve, reject) = deferred()?;
        let shared = Rc::new(Shared {
            transport: Rc::clone(&self.transport),
            mode,
            poll_ms: config.poll_interval.unwrap_or(500),
            stall_ms: config.stall_timeout_ms.unwrap_or(DEFAULT_STALL_TIMEOUT_MS),
            signal,
            sink,
            session: RefCell::new(session),
            json: RefCell::default(),
            run_id: RefCell::default(),
            events_seen: Cell::new(0),
            shrunk: Cell::new(false),
            announced: RefCell::new(None),
            run_promise,
            settle: RefCell::new(Some((resolve, reject))),
            failure: RefCell::default(),
            exchanges: Cell::new(0),
            tail: RefCell::default(),
            idle_waiters: RefCell::default(),
            id_waiters: RefCell::default(),
            delivering: Cell::new(false),
        });
        let s = Rc::clone(&shared);
        shared.schedule(async move { s.post(http).await }, None);
        Ok(JsAcpRunCall { shared })
    }
}

/// `invalid-argument` for what [`RunCreateRequest::check_input`] refuses, named as JavaScript
/// gives it: `what` `input[<i>].role` or `options.sessionId`, `reason` the core's message.
fn input_error(e: &InputError) -> JsValue {
    let what = match e {
        InputError::Role { index, .. } => format!("input[{index}].role"),
        _ => "options.sessionId".to_owned(),
    };
    invalid_argument(&what, &e.to_string())
}

/// Throws `content-type-not-accepted` if a part of `message` has a content type `manifest` does
/// not accept (patterns such as `image/*` in `input_content_types`).
///
/// # Errors
/// `content-type-not-accepted` (`details`: `agent`, `partIndex`, `contentType`, `accepted`),
/// `invalid-content-type-pattern`, `invalid-argument`.
#[wasm_bindgen(js_name = acpCheckInput)]
pub fn acp_check_input(manifest: Ts<AgentManifest>, message: Ts<Message>) -> Result<(), JsValue> {
    let manifest: AgentManifest = from_ts(&manifest, "manifest")?;
    let message: Message = from_ts(&message, "message")?;
    manifest.check_input(&message).map_err(|e| acp_err(&e))
}

/// `(promise, resolve, reject)`.
fn deferred() -> Result<(Promise, Function, Function), JsValue> {
    let mut slot = None;
    let promise = Promise::new(&mut |resolve, reject| slot = Some((resolve, reject)));
    let Some((resolve, reject)) = slot else {
        return Err(internal("the Promise executor did not run"));
    };
    Ok((promise, resolve, reject))
}

/// The state of one run, shared by its call object and the futures that follow it.
struct Shared {
    transport: Rc<Transport>,
    mode: RunMode,
    poll_ms: u32,
    /// `stallTimeoutMs`: the longest wait for an answer's head or a stream's next byte.
    stall_ms: u32,
    signal: Option<AbortSignal>,
    sink: Function,
    session: RefCell<AcpSession>,
    json: RefCell<String>,
    run_id: RefCell<Option<String>>,
    /// How many events of `GET /runs/{run_id}/events` were applied.
    events_seen: Cell<usize>,
    /// The last poll listed fewer than `events_seen` (reported once).
    shrunk: Cell<bool>,
    /// An `async` run's 202 answer: the run before a poll gave its events (for `details.run`).
    announced: RefCell<Option<Run>>,
    run_promise: Promise,
    /// The run promise's resolve and reject, until it settles.
    settle: RefCell<Option<(Function, Function)>>,
    /// The error the run failed with.
    failure: RefCell<Option<JsValue>>,
    /// Answers scheduled and not yet over (they run one after another).
    exchanges: Cell<u32>,
    /// The promise of the last scheduled answer.
    tail: RefCell<Option<Promise>>,
    /// Resolved with the run when no answer is under way.
    idle_waiters: RefCell<Vec<Function>>,
    /// Resolved with the run id once known (`null` if the run failed first).
    id_waiters: RefCell<Vec<Function>>,
    /// The sink is being called (updates recorded meanwhile are delivered right after).
    delivering: Cell<bool>,
}

impl Shared {
    fn signal(&self) -> Option<&AbortSignal> {
        self.signal.as_ref()
    }

    /// The most bytes of one JSON answer of the run (`sync`, `async` and the polls): the limits'
    /// `maxStreamBytes`, if set.
    fn json_limit(&self) -> Option<u64> {
        self.session
            .borrow()
            .assembler()
            .options()
            .limits
            .max_stream_bytes
    }

    fn aborted(&self) -> bool {
        is_aborted(self.signal())
    }

    fn snapshot(&self) -> JsValue {
        to_js(self.session.borrow().run()).unwrap_or(JsValue::NULL)
    }

    /// The run so far for an error's `details.run`, once the server has given it (its id): before
    /// that nothing was received, and an error has no `run` (as the other clients' errors have no
    /// `response` or `messages` then).
    fn received_run(&self) -> Option<JsValue> {
        let received = !self.session.borrow().run().run_id.is_empty();
        if received {
            return Some(self.snapshot());
        }
        // An `async` run's 202 answer, before a poll gave its events.
        let announced = self.announced.borrow();
        announced.as_ref().and_then(|run| to_js(run).ok())
    }

    /// Runs `work` after the answers scheduled before it, then settles `reply` (if any) with the
    /// run as it is when `work` is over, or with its error. The internal promise never rejects.
    fn schedule<F: Future<Output = Result<(), JsValue>> + 'static>(
        self: &Rc<Self>,
        work: F,
        reply: Option<(Function, Function)>,
    ) {
        self.exchanges.set(self.exchanges.get() + 1);
        let previous = self.tail.borrow_mut().take();
        let me = Rc::clone(self);
        let promise = promise(async move {
            if let Some(p) = previous {
                let _ = JsFuture::from(p).await;
            }
            let result = work.await;
            let outcome = me.after(result);
            if let Some((resolve, reject)) = reply {
                let _ = match outcome {
                    Ok(run) => resolve.call1(&JsValue::NULL, &run),
                    Err(e) => reject.call1(&JsValue::NULL, &e),
                };
            }
            Ok(JsValue::UNDEFINED)
        });
        *self.tail.borrow_mut() = Some(promise);
    }

    /// An answer is over: settle the run if it is, wake the waiters.
    fn after(self: &Rc<Self>, result: Result<(), JsValue>) -> Result<JsValue, JsValue> {
        self.exchanges.set(self.exchanges.get().saturating_sub(1));
        let outcome = match result {
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
            Ok(()) => {
                let status = self.session.borrow().run().status.clone();
                match status {
                    RunStatus::Incomplete => {
                        // The status the server last sent (the run is now `incomplete`).
                        let last_status = self
                            .session
                            .borrow()
                            .assembler()
                            .status_before_end()
                            .cloned()
                            .unwrap_or(RunStatus::Incomplete);
                        let e = js_error(&AcpError::StreamIncomplete { last_status });
                        self.fail(&e);
                        Err(e)
                    }
                    s if s.is_terminal() => {
                        let run = self.snapshot();
                        if let Some((resolve, _)) = self.settle.borrow_mut().take() {
                            let _ = resolve.call1(&JsValue::NULL, &run);
                        }
                        Ok(run)
                    }
                    _ => Ok(self.snapshot()),
                }
            }
        };
        self.follow_cancel();
        if self.exchanges.get() == 0 {
            let run = self.snapshot();
            for w in self.idle_waiters.take() {
                let _ = w.call1(&JsValue::NULL, &run);
            }
            if self.run_id.borrow().is_none() {
                for w in self.id_waiters.take() {
                    let _ = w.call1(&JsValue::NULL, &JsValue::NULL);
                }
            }
        }
        outcome
    }

    /// The run failed with `e`: reject the run promise (once), with `details.run`.
    fn fail(&self, e: &JsValue) {
        if let Ok(details) = Reflect::get(e, &"details".into()) {
            if details.is_object() && !Reflect::has(&details, &"run".into()).unwrap_or(true) {
                if let Some(run) = self.received_run() {
                    let _ = Reflect::set(&details, &"run".into(), &run);
                }
            }
        }
        if self.failure.borrow().is_none() {
            *self.failure.borrow_mut() = Some(e.clone());
        }
        if let Some((_, reject)) = self.settle.borrow_mut().take() {
            let _ = reject.call1(&JsValue::NULL, e);
        }
    }

    /// A cancel with no answer under way that will end the run (it awaits, or it was a `sync`
    /// answer): follow the run until the server ends it.
    fn follow_cancel(self: &Rc<Self>) {
        let cancelling = {
            let session = self.session.borrow();
            session.state() == "cancelling" && session.is_done()
        };
        if cancelling && self.exchanges.get() == 0 && self.failure.borrow().is_none() {
            let me = Rc::clone(self);
            self.schedule(
                async move {
                    match me.mode {
                        RunMode::Async => me.poll_events().await,
                        _ => me.poll_run().await,
                    }
                },
                None,
            );
        }
    }

    /// Hands the pending updates to the sink (no borrow is held while it runs, so handlers may
    /// use the call; updates their moves record are delivered right after).
    fn deliver(&self) -> Result<(), JsValue> {
        self.deliver_failed(None)
    }

    /// [`Self::deliver`]; with `failure`, the stream's closing issue names it (see
    /// [`name_failure`]).
    fn deliver_failed(&self, failure: Option<&TransportError>) -> Result<(), JsValue> {
        if self.delivering.get() {
            return Ok(());
        }
        self.delivering.set(true);
        let result = self.deliver_all(failure);
        self.delivering.set(false);
        result
    }

    fn deliver_all(&self, failure: Option<&TransportError>) -> Result<(), JsValue> {
        loop {
            if self.aborted() {
                return Ok(());
            }
            let updates = {
                let mut session = self.session.borrow_mut();
                if !session.has_updates() {
                    return Ok(());
                }
                let mut json = self.json.borrow_mut();
                json.clear();
                session.drain_updates_json(&mut json);
                parse_json(&json)?
            };
            if let Some(failure) = failure {
                name_failure(&updates, failure);
            }
            let id = self.session.borrow().run().run_id.clone();
            self.note_run_id(&id);
            self.sink.call1(&JsValue::NULL, &updates)?;
        }
    }

    fn note_run_id(&self, id: &str) {
        if id.is_empty() || self.run_id.borrow().is_some() {
            return;
        }
        *self.run_id.borrow_mut() = Some(id.to_owned());
        let value = JsValue::from_str(id);
        for w in self.id_waiters.take() {
            let _ = w.call1(&JsValue::NULL, &value);
        }
    }

    /// The run id, once the server has said it.
    async fn run_id(&self) -> Result<String, JsValue> {
        if let Some(id) = self.run_id.borrow().clone() {
            return Ok(id);
        }
        let failed = || {
            self.failure
                .borrow()
                .clone()
                .unwrap_or_else(|| internal("the run has no id"))
        };
        if self.exchanges.get() == 0 {
            return Err(failed());
        }
        let promise = Promise::new(&mut |resolve, _| self.id_waiters.borrow_mut().push(resolve));
        let id = JsFuture::from(promise).await?;
        id.as_string().ok_or_else(failed)
    }

    fn check_violation(&self) -> Result<(), JsValue> {
        match self.session.borrow().violation() {
            Some(v) => Err(js_error(v)),
            None => Ok(()),
        }
    }

    fn abort_error(&self) -> JsValue {
        match self.received_run() {
            Some(run) => js_error_with(&TransportError::Aborted, "run", &run),
            None => js_error(&TransportError::Aborted),
        }
    }

    /// POSTs a run or a resume and reads the answer as the mode says.
    async fn post(self: Rc<Self>, request: HttpRequest) -> Result<(), JsValue> {
        self.deliver()?;
        // A `sync` run's answer comes when the run stops: the wait for its head is not a stall.
        let head_ms = match self.mode {
            RunMode::Sync => 0,
            _ => self.stall_ms,
        };
        let response = self
            .transport
            .send(&request, self.signal(), head_ms, self.stall_ms)
            .await?;
        if let Some(id) = header_of(&response, "run-id") {
            self.note_run_id(&id);
        }
        match self.mode {
            RunMode::Stream => self.read_stream(response).await,
            RunMode::Sync => {
                let text = self
                    .transport
                    .text(&response, self.signal(), self.stall_ms, self.json_limit())
                    .await?;
                let run = decode_run(&text).map_err(|e| acp_err(&e))?;
                self.note_run_id(&run.run_id);
                let stopped = stopped(&run.status);
                self.session.borrow_mut().push_run(run);
                self.deliver()?;
                self.check_violation()?;
                if stopped {
                    return Ok(());
                }
                // A `sync` answer should come when the run stops; one that did not (a proxy's
                // timeout, a server's early answer) is followed until it does.
                self.poll_run().await
            }
            _ => {
                let text = self
                    .transport
                    .text(&response, self.signal(), self.stall_ms, self.json_limit())
                    .await?;
                let run = decode_run(&text).map_err(|e| acp_err(&e))?;
                self.note_run_id(&run.run_id);
                *self.announced.borrow_mut() = Some(run);
                self.poll_events().await
            }
        }
    }

    /// Reads a `text/event-stream` answer until the run awaits the client or reaches a terminal
    /// status (the request is then closed, whether or not the server closes it), or to its end.
    async fn read_stream(&self, response: Response) -> Result<(), JsValue> {
        let aborted = || self.aborted();
        let reader = event_stream_reader(&response, &aborted, self.signal(), self.stall_ms).await?;
        let ends = self.session.borrow().assembler().ends();
        let mut buf = Vec::new();
        loop {
            let failure = match within(read_from(&reader), self.stall_ms).await {
                Ok(Some(_)) if self.aborted() => {
                    cancel_quietly(&reader);
                    return Err(self.abort_error());
                }
                Ok(Some(chunk)) => match read_chunk(&chunk) {
                    Chunk::End => break,
                    Chunk::Bytes(bytes) => {
                        copy_bytes(&bytes, &mut buf);
                        None
                    }
                    Chunk::NotBytes(failure) => {
                        cancel_quietly(&reader);
                        Some(failure)
                    }
                },
                // The user's abort wins over a timer that fired in the same instant.
                _ if self.aborted() => return Err(self.abort_error()),
                Ok(None) => {
                    cancel_quietly(&reader);
                    Some(TransportError::Stalled {
                        timeout_ms: self.stall_ms,
                    })
                }
                Err(e) => Some(TransportError::Network {
                    reason: describe(&e),
                }),
            };
            if let Some(failure) = failure {
                self.session.borrow_mut().finish();
                // A handler that throws gives what it threw, as it would mid-stream.
                self.deliver_failed(Some(&failure))?;
                return Err(js_error(&failure));
            }
            self.session.borrow_mut().feed(&buf);
            if let Err(e) = self.deliver().and_then(|()| self.check_violation()) {
                cancel_quietly(&reader);
                return Err(e);
            }
            let (stopped, ended) = {
                let session = self.session.borrow();
                let assembler = session.assembler();
                (assembler.is_stopped(), assembler.ends() > ends)
            };
            if stopped || ended {
                // Nothing more is read, and the request is closed: the run awaits the client or
                // reached a terminal status (`run` settles with it, as the Agent API's `response`
                // does, whether or not the server closes; acp-sdk does), or strict mode or a limit
                // ended the stream (the run is `incomplete`).
                cancel_quietly(&reader);
                break;
            }
        }
        self.session.borrow_mut().finish();
        self.deliver()?;
        self.check_violation()
    }

    /// Whether a polled run has stopped: a terminal status, or awaiting with no client move since
    /// the server said so, or with an answer the client gave meanwhile (a handler's `resume`),
    /// whose request waits for this poll to end: polling on would wait for an answer not sent.
    fn settled(&self) -> bool {
        let session = self.session.borrow();
        let status = &session.run().status;
        let last_from_server = session
            .lifecycle()
            .messages()
            .last()
            .is_none_or(|m| m.party == Party::Server);
        let answer_queued = self.exchanges.get() > 1;
        status.is_terminal()
            || (*status == RunStatus::Awaiting && (last_from_server || answer_queued))
    }

    /// Polls `GET /runs/{run_id}/events` and applies the new events, until the run stops.
    async fn poll_events(&self) -> Result<(), JsValue> {
        let id = self.run_id().await?;
        let request = self.transport.client.run_events(&id);
        loop {
            let text = self
                .transport
                .body(&request, self.signal(), self.stall_ms, self.json_limit())
                .await?;
            let events = decode_events(&text).map_err(|e| acp_err(&e))?;
            let seen = self.events_seen.get();
            let got = events.len();
            // A list shorter than one polled before (a restarted server) is reported once, until
            // it grows back.
            if got < seen && !self.shrunk.replace(true) {
                self.session.borrow_mut().event_list_shrank(seen, got);
            } else if got >= seen {
                self.shrunk.set(false);
            }
            self.events_seen.set(seen.max(got));
            {
                let mut session = self.session.borrow_mut();
                for (i, e) in events.into_iter().enumerate().skip(seen) {
                    let path = [Step::Member("events"), Step::Element(i)];
                    session.push_event_in(e, &text, &path);
                }
            }
            self.deliver()?;
            self.check_violation()?;
            if self.settled() {
                return Ok(());
            }
            sleep(self.poll_ms, self.signal()).await;
            if self.aborted() {
                return Err(self.abort_error());
            }
        }
    }

    /// Polls `GET /runs/{run_id}` until the run stops (a terminal status, or awaiting the client),
    /// and takes that run.
    async fn poll_run(&self) -> Result<(), JsValue> {
        let id = self.run_id().await?;
        let request = self.transport.client.read_run(&id);
        loop {
            let text = self
                .transport
                .body(&request, self.signal(), self.stall_ms, self.json_limit())
                .await?;
            let run = decode_run(&text).map_err(|e| acp_err(&e))?;
            if stopped(&run.status) {
                self.session.borrow_mut().push_run(run);
                self.deliver()?;
                return self.check_violation();
            }
            sleep(self.poll_ms, self.signal()).await;
            if self.aborted() {
                return Err(self.abort_error());
            }
        }
    }
}

/// One ACP run: its outcome, its lifecycle, and queries on what has arrived so far.
#[wasm_bindgen(js_name = AcpRunCall)]
pub struct JsAcpRunCall {
    shared: Rc<Shared>,
}

#[wasm_bindgen(js_class = AcpRunCall)]
impl JsAcpRunCall {
    /// Resolves with the assembled run once it reaches a terminal status (`completed`, `failed`
    /// with its `error`, `cancelled`); see `AcpClient.run` for how it rejects.
    #[wasm_bindgen(getter, unchecked_return_type = "Promise<AcpRun>")]
    pub fn run(&self) -> Promise {
        self.shared.run_promise.clone()
    }

    /// Resolves (never rejects) with the run as it is once no answer is under way: it awaits the
    /// client, it is over, or it failed.
    #[wasm_bindgen(unchecked_return_type = "Promise<AcpRun>")]
    pub fn stopped(&self) -> Promise {
        if self.shared.exchanges.get() == 0 {
            return Promise::resolve(&self.shared.snapshot());
        }
        Promise::new(&mut |resolve, _| self.shared.idle_waiters.borrow_mut().push(resolve))
    }

    /// The run as assembled so far.
    pub fn snapshot(&self) -> Result<Ts<Run>, JsValue> {
        to_ts(self.shared.session.borrow().run())
    }

    /// The run's id, once the server has said it (`null` before).
    #[wasm_bindgen(getter, js_name = runId)]
    pub fn run_id(&self) -> Option<String> {
        self.shared.run_id.borrow().clone()
    }

    /// What the agent waits for, while the run is `awaiting` (`null` otherwise).
    #[wasm_bindgen(getter)]
    pub fn awaiting(&self) -> Result<Option<Ts<AwaitRequest>>, JsValue> {
        match self.shared.session.borrow().awaiting() {
            Some(a) => Ok(Some(to_ts(a)?)),
            None => Ok(None),
        }
    }

    /// The lifecycle's state: `idle`, `created`, `in-progress`, `awaiting`, `cancelling`,
    /// `completed`, `failed` or `cancelled`.
    #[wasm_bindgen(getter)]
    pub fn state(&self) -> String {
        self.shared.session.borrow().state().to_owned()
    }

    /// Whether the lifecycle is in a terminal state.
    #[wasm_bindgen(getter, js_name = isTerminal)]
    pub fn is_terminal(&self) -> bool {
        self.shared.session.borrow().lifecycle().is_terminal()
    }

    /// The moves the lifecycle allows now (of `party` only, when given): `client resume` and
    /// `client cancel` while the run awaits.
    ///
    /// # Errors
    /// `invalid-argument` for a party other than `client` or `server`.
    #[wasm_bindgen(js_name = allowedMoves)]
    pub fn allowed_moves(&self, party: Option<String>) -> Result<Ts<Moves>, JsValue> {
        let party = party_of(party.as_deref())?;
        to_ts(&Moves(allowed(
            self.shared.session.borrow().lifecycle(),
            party,
        )))
    }

    /// The messages of the lifecycle so far: the client's requests and the server's events, each
    /// with the states before and after it.
    #[wasm_bindgen(getter)]
    pub fn messages(&self) -> Result<Ts<RunMessages>, JsValue> {
        to_ts(&RunMessages(
            self.shared.session.borrow().lifecycle().messages().to_vec(),
        ))
    }

    /// The body of output message `index` (0-based) as it is now, or `null` (also for an index
    /// that is not an integer from 0): its parts are `streaming` while the message streams,
    /// `complete` once completed, `incomplete` if the run ended before.
    pub fn body(&self, index: f64) -> Result<Option<Ts<Body>>, JsValue> {
        let Some(index) = super::convert::index_arg(index) else {
            return Ok(None);
        };
        let session = self.shared.session.borrow();
        match session.run().bodies().get(index) {
            Some(b) => Ok(Some(to_ts(b)?)),
            None => Ok(None),
        }
    }

    /// Every named part whose name matches `pattern`, across the output, in order (`/sources/*`
    /// while the run still streams).
    pub fn list(&self, pattern: &JsPattern) -> Result<Ts<AcpNamedParts>, JsValue> {
        let session = self.shared.session.borrow();
        let mut out = Vec::new();
        for (message_index, body) in session.run().bodies().into_iter().enumerate() {
            for part in body.parts {
                if part.name.as_deref().is_some_and(|n| pattern.0.is_match(n)) {
                    out.push(AcpNamedPart {
                        message_index,
                        part,
                    });
                }
            }
        }
        to_ts(&AcpNamedParts(out))
    }

    /// Answers the await request with `message` (`POST /runs/{run_id}` in the run's mode): the
    /// same run goes on, and its updates keep coming to the same sink. Returns a promise of the
    /// run as it is when that answer is over (awaiting again, or over).
    ///
    /// # Errors
    /// Throws `move-not-allowed` unless the run is `awaiting` (`details.state`,
    /// `details.allowed`), `invalid-argument` for a message of the wrong shape. The promise
    /// rejects as `AcpClient.run`'s `run` does.
    #[wasm_bindgen(unchecked_return_type = "Promise<AcpRun>")]
    pub fn resume(&self, message: Ts<Message>) -> Result<Promise, JsValue> {
        let message: Message = from_ts(&message, "message")?;
        self.shared
            .session
            .borrow_mut()
            .resume(&message)
            .map_err(|e| js_error(&e))?;
        self.shared.deliver()?;
        let resume = RunResumeRequest::message(message, self.shared.mode.clone());
        let s = Rc::clone(&self.shared);
        let (promise, resolve, reject) = deferred()?;
        self.shared.schedule(
            async move {
                let id = s.run_id().await?;
                let request = s
                    .transport
                    .client
                    .resume_run(&id, &resume)
                    .map_err(|e| acp_err(&e))?;
                Rc::clone(&s).post(request).await
            },
            Some((resolve, reject)),
        );
        Ok(promise)
    }

    /// Asks the server to cancel the run (`POST /runs/{run_id}/cancel`); the lifecycle is
    /// `cancelling` at once. A streamed run then ends `cancelled` with its stream; a run that
    /// awaits (or a `sync` one) is followed with polls until the server ends it. Returns a
    /// promise of the server's answer (the run, status `cancelling`).
    ///
    /// # Errors
    /// Throws `move-not-allowed` unless the run is `created`, `in-progress` or `awaiting`. The
    /// promise rejects with `http-error` (403: the run already ended), `network-error`.
    #[wasm_bindgen(unchecked_return_type = "Promise<AcpRun>")]
    pub fn cancel(&self) -> Result<Promise, JsValue> {
        self.shared
            .session
            .borrow_mut()
            .cancel()
            .map_err(|e| js_error(&e))?;
        self.shared.deliver()?;
        self.shared.follow_cancel();
        let s = Rc::clone(&self.shared);
        Ok(promise(async move {
            let id = s.run_id().await?;
            let request = s.transport.client.cancel_run(&id);
            let text = s.transport.body(&request, None, s.stall_ms, None).await?;
            to_js(&decode_run(&text).map_err(|e| acp_err(&e))?)
        }))
    }
}
