//! `AgentClient`: POSTs an Agent API request with `fetch` and reads the `text/event-stream` body as it
//! arrives (gloo-net's `EventSource` is GET-only, so this uses `fetch` and `ReadableStream`
//! directly: <https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API/Using_Fetch#processing_a_text_file_line_by_line>).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use serde::Deserialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::{
    AbortSignal, Headers, ReadableStreamDefaultReader, Request, RequestCredentials, RequestInit,
    Response,
};

use super::agent_api::{JsAgentStreamDecoder, StreamOptions};
use super::body::JsPattern;
use super::convert::to_ts;
use super::convert::{from_js, from_ts, to_js};
use super::error::{invalid_argument, js_error, js_error_with};
use crate::body::{Body, Part};
use crate::dialect::agent_api::AgentRequest;
use crate::transport::{truncate_body, TransportError};
use serde::Serialize;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(input: &Request) -> Promise;

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
#[derive(Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AgentClientConfig {
    /// Base URL of the agent server, e.g. `http://127.0.0.1:8787`.
    pub base_url: String,
    /// Path of the endpoint, default `/process`.
    #[tsify(optional)]
    pub endpoint: Option<String>,
    /// Extra request headers.
    #[tsify(optional)]
    pub headers: Option<BTreeMap<String, String>>,
    /// `fetch` credentials mode: `omit`, `same-origin` (the default) or `include`.
    #[tsify(optional, type = "\"omit\" | \"same-origin\" | \"include\"")]
    pub credentials: Option<String>,
}

/// An Agent API client over `fetch`.
#[wasm_bindgen(js_name = AgentClient)]
pub struct JsAgentClient {
    url: String,
    headers: BTreeMap<String, String>,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
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
        let fetch = Reflect::get(&options, &"fetch".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        let credentials = match config.credentials.as_deref() {
            None => None,
            Some("omit") => Some(RequestCredentials::Omit),
            Some("same-origin") => Some(RequestCredentials::SameOrigin),
            Some("include") => Some(RequestCredentials::Include),
            Some(other) => {
                return Err(invalid_argument(
                    "options.credentials",
                    &format!("`{other}` is not omit, same-origin or include"),
                ))
            }
        };
        let endpoint = config.endpoint.unwrap_or_else(|| "/process".to_owned());
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

    /// POSTs `request` and streams the response: `sink` receives the updates of each network chunk
    /// (an array of `StreamUpdate`, ending with `done`). The returned handle's `response` resolves
    /// with the assembled response when the stream ends with a terminal status (`completed`,
    /// `failed`, …); meanwhile it answers queries on what has arrived (`body`, `list`).
    ///
    /// # Errors
    /// `response` rejects with a `ProtocolError`: `http-status` (non-2xx, with the body text),
    /// `not-event-stream` (another content type), `network-error` (the connection broke),
    /// `stream-incomplete` (the server closed before a terminal status), `aborted` (the signal
    /// fired; no callback runs after it). Except for the first two, `details.response` holds
    /// everything received, marked incomplete. An exception thrown by `sink` cancels the stream and
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
        let call = Call {
            url: self.url.clone(),
            headers: self.headers.clone(),
            credentials: self.credentials,
            fetch: self.fetch.clone(),
            body,
            signal,
            sink,
            decoder: Rc::new(RefCell::new(JsAgentStreamDecoder::with_options(
                stream_options,
            ))),
        };
        let decoder = Rc::clone(&call.decoder);
        Ok(JsAgentStreamHandle {
            decoder,
            response: future_to_promise(call.run()),
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
    /// Resolves with the assembled response (see `AgentClient.stream` for how it rejects).
    #[wasm_bindgen(getter, unchecked_return_type = "Promise<AgentResponse>")]
    pub fn response(&self) -> Promise {
        self.response.clone()
    }

    /// The response as assembled so far.
    pub fn snapshot(&self) -> Result<Ts<crate::dialect::agent_api::AgentResponse>, JsValue> {
        to_ts(self.decoder.borrow().inner().response())
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

struct Call {
    url: String,
    headers: BTreeMap<String, String>,
    credentials: Option<RequestCredentials>,
    fetch: Option<Function>,
    body: String,
    signal: Option<AbortSignal>,
    sink: Function,
    decoder: Rc<RefCell<JsAgentStreamDecoder>>,
}

impl Call {
    fn aborted(&self) -> bool {
        self.signal.as_ref().is_some_and(AbortSignal::aborted)
    }

    async fn run(mut self) -> Result<JsValue, JsValue> {
        let response = self.send().await?;
        let reader: ReadableStreamDefaultReader = match response.body() {
            Some(body) => body.get_reader().unchecked_into(),
            None => {
                return Err(js_error(&TransportError::NotEventStream {
                    content_type: content_type(&response),
                    body: String::new(),
                }))
            }
        };
        let mut buf = Vec::new();
        loop {
            let chunk = match JsFuture::from(reader.read()).await {
                Ok(chunk) => chunk,
                Err(e) => return Err(self.broken(e)),
            };
            if self.aborted() {
                return Err(self.abort());
            }
            if Reflect::get(&chunk, &"done".into())
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true)
            {
                break;
            }
            let Ok(value) = Reflect::get(&chunk, &"value".into()) else {
                continue;
            };
            let Ok(bytes) = value.dyn_into::<Uint8Array>() else {
                continue;
            };
            buf.resize(bytes.length() as usize, 0);
            bytes.copy_to(&mut buf);
            self.decoder.borrow_mut().feed_bytes(&buf);
            if let Err(e) = self.deliver() {
                let _ = reader.cancel();
                return Err(e);
            }
        }
        let done_before_end = self.decoder.borrow().inner().assembler().is_done();
        self.decoder.borrow_mut().inner_mut().finish();
        self.deliver()?;
        let response = to_js(self.decoder.borrow().inner().response())?;
        if done_before_end {
            Ok(response)
        } else {
            let last_status = crate::dialect::agent_api::RunStatus::Incomplete;
            Err(js_error_with(
                &crate::dialect::agent_api::AgentApiError::StreamIncomplete { last_status },
                "response",
                &response,
            ))
        }
    }

    /// Sends the request; checks the status and the content type.
    async fn send(&self) -> Result<Response, JsValue> {
        let headers = Headers::new()?;
        headers.set("content-type", "application/json")?;
        headers.set("accept", "text/event-stream")?;
        for (k, v) in &self.headers {
            headers.set(k, v)?;
        }
        let init = RequestInit::new();
        init.set_method("POST");
        init.set_headers(&headers);
        init.set_body(&JsValue::from_str(&self.body));
        if let Some(c) = self.credentials {
            init.set_credentials(c);
        }
        if let Some(s) = &self.signal {
            init.set_signal(Some(s));
        }
        let request = Request::new_with_str_and_init(&self.url, &init)?;
        let promise: Promise = match &self.fetch {
            Some(f) => f.call1(&JsValue::NULL, &request)?.unchecked_into(),
            None => global_fetch(&request),
        };
        let response: Response = match JsFuture::from(promise).await {
            Ok(r) => r.unchecked_into(),
            Err(e) if self.aborted() => {
                drop(e);
                return Err(js_error(&TransportError::Aborted));
            }
            Err(e) => {
                return Err(js_error(&TransportError::Network {
                    reason: describe(&e),
                }))
            }
        };
        let ct = content_type(&response);
        if !response.ok() {
            return Err(js_error(&TransportError::HttpStatus {
                status: response.status(),
                body: text_of(&response).await,
            }));
        }
        let media = ct.split(';').next().unwrap_or("").trim();
        if !media.eq_ignore_ascii_case("text/event-stream") {
            return Err(js_error(&TransportError::NotEventStream {
                content_type: ct,
                body: text_of(&response).await,
            }));
        }
        Ok(response)
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
        self.sink.call1(&JsValue::NULL, &updates)?;
        Ok(())
    }

    /// The connection broke (or was aborted) while reading: keep what arrived.
    fn broken(&mut self, e: JsValue) -> JsValue {
        if self.aborted() {
            return self.abort();
        }
        self.decoder.borrow_mut().inner_mut().finish();
        let _ = self.deliver();
        let partial = to_js(self.decoder.borrow().inner().response()).unwrap_or(JsValue::NULL);
        js_error_with(
            &TransportError::Network {
                reason: describe(&e),
            },
            "response",
            &partial,
        )
    }

    /// The user aborted: no more callbacks; the partial response is marked `canceled`.
    fn abort(&mut self) -> JsValue {
        self.decoder.borrow_mut().inner_mut().abort();
        let partial = to_js(self.decoder.borrow().inner().response()).unwrap_or(JsValue::NULL);
        js_error_with(&TransportError::Aborted, "response", &partial)
    }
}

pub(crate) fn content_type(r: &Response) -> String {
    r.headers()
        .get("content-type")
        .ok()
        .flatten()
        .unwrap_or_default()
}

pub(crate) async fn text_of(r: &Response) -> String {
    let Ok(p) = r.text() else {
        return String::new();
    };
    match JsFuture::from(p).await {
        Ok(t) => truncate_body(t.as_string().unwrap_or_default()),
        Err(_) => String::new(),
    }
}

pub(crate) fn describe(e: &JsValue) -> String {
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        let mut s = String::from(err.message());
        if let Ok(cause) = Reflect::get(err, &"cause".into()) {
            if let Some(c) = cause.dyn_ref::<js_sys::Error>() {
                s.push_str(": ");
                s.push_str(&String::from(c.message()));
            }
        }
        return s;
    }
    e.as_string().unwrap_or_else(|| "unknown error".to_owned())
}
