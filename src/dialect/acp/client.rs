//! What an ACP client sends and how it reads the answers, without I/O: requests to hand to any HTTP
//! client (`fetch` in the browser), and decoders of the response bodies.

use serde::{Deserialize, Serialize};

use super::event::{AcpEvent, RunEventsList};
use super::model::{
    AgentManifest, ErrorInfo, Run, RunCreateRequest, RunMode, RunResumeRequest, ServerErrorCode,
};
use super::AcpError;

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub enum Method {
    /// `GET`
    #[serde(rename = "GET")]
    Get,
    /// `POST`
    #[serde(rename = "POST")]
    Post,
}

impl Method {
    /// `"GET"` or `"POST"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// A request for an HTTP client to send as is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL (the client's base URL and the route; path segments percent-encoded, a
    /// segment `.` or `..` as `%252E` per dot, so that it keeps its route).
    pub url: String,
    /// Headers to set, as `(name, value)` pairs: `Content-Type: application/json` with a body,
    /// `Accept: text/event-stream` for a streamed run, `Accept: application/json` otherwise.
    pub headers: Vec<(String, String)>,
    /// The JSON body, if any.
    pub body: Option<String>,
}

/// Builds the requests of an ACP client for one server.
///
/// Source: acp-sdk 1.0.3 `acp_sdk/client/client.py` (the SDK's own client) and
/// `acp_sdk/server/app.py` (the routes):
///
/// | route | what | request body | response body |
/// |---|---|---|---|
/// | `GET /agents` | list agents | — | `{"agents": [AgentManifest…]}` |
/// | `GET /agents/{name}` | one agent | — | `AgentManifest` |
/// | `POST /runs` | start a run | [`RunCreateRequest`] | `stream`: SSE of events; `sync`: the [`Run`] once it stops (terminal or `awaiting`); `async`: the [`Run`] just created (202) |
/// | `POST /runs/{run_id}` | resume an `awaiting` run | [`RunResumeRequest`] | as for `POST /runs` |
/// | `POST /runs/{run_id}/cancel` | ask to cancel | — | the [`Run`], status `cancelling` (202) |
/// | `GET /runs/{run_id}` | read a run | — | the [`Run`] |
/// | `GET /runs/{run_id}/events` | a run's events so far | — | `{"events": [AcpEvent…]}` |
///
/// Every error response (404 unknown agent or run, 422 invalid request, 403 resume of a run that is
/// not awaiting or cancel of a finished one, 500) has an ACP `Error` body: [`decode_error`].
///
/// ```
/// use agentwire::dialect::acp::{AcpClient, Message, Method, RunCreateRequest, RunMode};
/// let client = AcpClient::new("http://127.0.0.1:8000/acp/");
/// let request = client.create_run(&RunCreateRequest::new(
///     "echo",
///     vec![Message::user_text("hello world")],
///     RunMode::Stream,
/// ))?;
/// assert_eq!(request.method, Method::Post);
/// assert_eq!(request.url, "http://127.0.0.1:8000/acp/runs");
/// assert!(request.body.unwrap().starts_with("{\"agent_name\":\"echo\""));
/// assert_eq!(client.cancel_run("b911259a").url, "http://127.0.0.1:8000/acp/runs/b911259a/cancel");
/// # Ok::<(), agentwire::dialect::acp::AcpError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpClient {
    base_url: String,
}

impl AcpClient {
    /// A client of the server at `base_url` (`http://host:port`, optionally with a path prefix;
    /// routes are appended to it as the SDK's client does: `{base_url}/runs`, whether or not the
    /// base ends with `/`).
    pub fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
        }
    }

    /// The base URL, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn url(&self, segments: &[&str]) -> String {
        let mut url = self.base_url.clone();
        for s in segments {
            url.push('/');
            push_segment(&mut url, s);
        }
        url
    }

    fn get(&self, segments: &[&str]) -> HttpRequest {
        HttpRequest {
            method: Method::Get,
            url: self.url(segments),
            headers: vec![accept("application/json")],
            body: None,
        }
    }

    fn post<T: Serialize>(
        &self,
        segments: &[&str],
        body: Option<&T>,
        mode: RunMode,
    ) -> Result<HttpRequest, AcpError> {
        let mut headers = Vec::with_capacity(2);
        let body = match body {
            Some(b) => {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
                Some(
                    serde_json::to_string(b).map_err(|e| AcpError::Unserializable {
                        reason: e.to_string(),
                    })?,
                )
            }
            None => None,
        };
        headers.push(accept(if mode == RunMode::Stream {
            "text/event-stream"
        } else {
            "application/json"
        }));
        Ok(HttpRequest {
            method: Method::Post,
            url: self.url(segments),
            headers,
            body,
        })
    }

    /// `GET /agents`: the agents (decode with [`decode_agents`]).
    pub fn list_agents(&self) -> HttpRequest {
        self.get(&["agents"])
    }

    /// `GET /agents/{name}`: one agent's manifest (decode with `serde_json` as an
    /// [`AgentManifest`]).
    pub fn read_agent(&self, name: &str) -> HttpRequest {
        self.get(&["agents", name])
    }

    /// `POST /runs`: start a run. The response is an SSE stream for `mode: "stream"` (feed it to
    /// an [`AcpStream`](super::AcpStream)), else a [`Run`] ([`decode_run`]).
    ///
    /// # Errors
    /// [`AcpError::Unserializable`] if the request cannot be written as JSON.
    pub fn create_run(&self, request: &RunCreateRequest) -> Result<HttpRequest, AcpError> {
        self.post(&["runs"], Some(request), request.mode.clone())
    }

    /// `POST /runs/{run_id}`: resume an `awaiting` run with the client's answer; the response is as
    /// for [`create_run`](Self::create_run). A streamed resume continues the same run: feed it to
    /// the same [`AcpStream`](super::AcpStream).
    ///
    /// # Errors
    /// [`AcpError::Unserializable`] if the request cannot be written as JSON.
    pub fn resume_run(
        &self,
        run_id: &str,
        request: &RunResumeRequest,
    ) -> Result<HttpRequest, AcpError> {
        self.post(&["runs", run_id], Some(request), request.mode.clone())
    }

    /// `POST /runs/{run_id}/cancel`: ask the server to cancel a run (answer: the [`Run`], status
    /// `cancelling`; a streamed run then ends with `run.cancelled`).
    pub fn cancel_run(&self, run_id: &str) -> HttpRequest {
        let mut r = self.get(&["runs", run_id, "cancel"]);
        r.method = Method::Post;
        r
    }

    /// `GET /runs/{run_id}`: read a run (decode with [`decode_run`]).
    pub fn read_run(&self, run_id: &str) -> HttpRequest {
        self.get(&["runs", run_id])
    }

    /// `GET /runs/{run_id}/events`: the run's events so far (decode with [`decode_events`]).
    pub fn run_events(&self, run_id: &str) -> HttpRequest {
        self.get(&["runs", run_id, "events"])
    }
}

fn accept(value: &str) -> (String, String) {
    ("Accept".to_owned(), value.to_owned())
}

/// Appends `segment` percent-encoded (RFC 3986 §2.1): every byte except the unreserved characters
/// `A-Z a-z 0-9 - . _ ~` becomes `%XX`.
///
/// A segment `.` or `..` would be a dot segment, which URL resolution removes (RFC 3986 §5.2.4;
/// the WHATWG URL parser `fetch` uses reads `%2e` as a dot too), sending the request to another
/// route: `runs/../cancel` is `cancel`. Its dots are written `%252E` instead, so that the request
/// keeps its route and the server finds no such name (no ACP agent name or run id is one: names
/// are RFC 1123 labels, run ids UUIDs).
fn push_segment(url: &mut String, segment: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    if segment == "." || segment == ".." {
        for _ in 0..segment.len() {
            url.push_str("%252E");
        }
        return;
    }
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            url.push(char::from(b));
        } else {
            url.push('%');
            url.push(char::from(HEX[usize::from(b >> 4)]));
            url.push(char::from(HEX[usize::from(b & 0xF)]));
        }
    }
}

/// Reads a body whose events the stream's event reader reads (`json::from_text`, the reader
/// compiled for ACP's events already).
fn decode<'a, T: Deserialize<'a>>(json: &'a str) -> Result<T, AcpError> {
    agentwire_core::json::from_text(json).map_err(|e| AcpError::from_json(e, json))
}

/// `decode` through a [`serde_json::Value`] (`agentwire_core::json::from_json_text`): for the
/// types also read from trees (a run, a manifest, an error), whose readers of text would be
/// compiled only for these bodies. A wrong shape has no line and column.
fn from_tree<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, AcpError> {
    agentwire_core::json::from_json_text(json).map_err(|e| AcpError::from_json(e, json))
}

/// Decodes a [`Run`]: the body of a `sync` or `async` `POST /runs`, of a resume, of
/// `GET /runs/{run_id}` and of a cancel.
///
/// # Errors
/// [`AcpError::InvalidJson`] or [`AcpError::InvalidEvent`] (wrong shape), keeping the body. A
/// body without a `run_id` is one of the wrong shape: every other field of a run has a default,
/// so `{}`, or a gateway's `{"accepted": true}`, would read as a run of no id (acp-sdk's runs
/// always have one).
pub fn decode_run(json: &str) -> Result<Run, AcpError> {
    let run: Run = from_tree(json)?;
    if run.run_id.is_empty() {
        return Err(AcpError::InvalidEvent {
            reason: "the answer is not a run: it has no `run_id`".to_owned(),
            data: json.to_owned(),
        });
    }
    Ok(run)
}

/// Decodes the body of `GET /runs/{run_id}/events` (`{"events": […]}`). Replay the events through
/// an [`Assembler`](super::Assembler) with [`push_event`](super::Assembler::push_event) to rebuild
/// the run as a stream would have.
///
/// # Errors
/// [`AcpError::InvalidJson`] or [`AcpError::InvalidEvent`] (wrong shape, or an event of a known
/// `type` without its payload), keeping the body.
pub fn decode_events(json: &str) -> Result<Vec<AcpEvent>, AcpError> {
    decode::<RunEventsList>(json).map(|l| l.events)
}

/// Decodes the body of `GET /agents` (`{"agents": […]}`).
///
/// # Errors
/// [`AcpError::InvalidJson`] or [`AcpError::InvalidEvent`] (wrong shape), keeping the body.
pub fn decode_agents(json: &str) -> Result<Vec<AgentManifest>, AcpError> {
    // Other members are ignored (not kept: the list is all a caller gets).
    #[derive(Deserialize)]
    struct List {
        agents: Vec<AgentManifest>,
    }
    from_tree::<List>(json).map(|l| l.agents)
}

/// The error an HTTP error response stands for: [`AcpError::Http`] with the status and the body's
/// ACP `Error` (`{"code": "not_found", "message": "Run … not found", "data": null}`; one with an
/// empty `message` too, if its `code` is not `server_error`). A body that is not an `Error` (a
/// framework's `{"detail": "Not Found"}`, say) becomes the message, with code `server_error`.
pub fn decode_error(status: u16, body: &str) -> AcpError {
    let error = agentwire_core::json::from_json_text::<ErrorInfo>(body)
        .ok()
        // Every field of `ErrorInfo` has a default, so any object reads as one: an `Error` says
        // something in its message or its code.
        .filter(|e| !e.message.is_empty() || e.code != ServerErrorCode::ServerError)
        .unwrap_or_else(|| ErrorInfo {
            message: body.to_owned(),
            ..ErrorInfo::default()
        });
    AcpError::Http {
        status,
        error: Box::new(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_percent_encoded() {
        let mut s = String::new();
        push_segment(&mut s, "AZaz09-._~ /?#%é\u{0}");
        assert_eq!(s, "AZaz09-._~%20%2F%3F%23%25%C3%A9%00");
        // Dot segments keep the route (they were `.` and `..`, which URL resolution removes).
        let client = AcpClient::new("http://h/acp");
        assert_eq!(
            client.cancel_run("..").url,
            "http://h/acp/runs/%252E%252E/cancel"
        );
        assert_eq!(client.read_agent(".").url, "http://h/acp/agents/%252E");
        assert_eq!(client.read_agent("...").url, "http://h/acp/agents/...");
    }

    #[test]
    fn the_base_url_loses_its_trailing_slashes() {
        assert_eq!(
            AcpClient::new("http://h//").list_agents().url,
            "http://h/agents"
        );
        assert_eq!(AcpClient::new("").list_agents().url, "/agents");
    }
}
