//! agentwire's reference agent server: a scripted agent (no LLM) behind the Agent API protocol,
//! streamed over SSE with realistic token pacing, plus the live demo page.
//!
//! ```text
//! cargo run --example reference_server -- [--port 8787] [--pace-ms 40] [--pkg pkg] [--demo examples/demo]
//!     [--max-acp-runs 1000]
//! ```
//!
//! - `POST /process`: an Agent API request in, a `text/event-stream` of Agent API events out (each
//!   event's `sequence_number` is also its SSE `id`; the stream starts with `retry: 250`). Query:
//!   `pace_ms` (token pacing, at most 10,000: more is read as that), `retry` (the `retry` field's milliseconds instead of 250),
//!   `hostile=1` (`javascript:` URLs where a UI might render them),
//!   `fault=…` (see `fault.rs`: `close-after:N`, `close-mid-event:N`, `stall:N:MS`, `garbage:N`,
//!   `invalid-utf8:N`, `huge-event:N`, `never-terminated:N`).
//! - `GET /process/resume/{response_id}` with `Last-Event-ID`: the events after that id, then the
//!   rest as they are generated (generation does not depend on any connection; events are kept two
//!   minutes after the response ends).
//! - `GET /health`: `ok`. `GET /stats`: counters tests read (responses started and finished,
//!   connections closed by the client before the end, resumed connections).
//! - `POST /process?agent=tools`: the Agent API agent that calls the client-side tool `get_time`
//!   (`tool_agent.rs`). Any other `agent` is `404`.
//! - A response's id is its request's `id` when it has one (as agentscope-runtime's runner gives
//!   it), else a new UUID. A second request with the same `id` gets a log of its own: resuming that
//!   id then reads the newer response's events (the first connection keeps streaming its own).
//! - `POST /chat`: AgentX, the `write_file` self-correction flow (`agentx.rs`).
//! - `GET /`: the demo page; `GET /pkg/…`: the built npm package (`pkg/`).
//! - `/acp/…`: an ACP agent that asks for confirmation (`approval`; see `acp.rs`), for the demo's
//!   approval page (`/approval.html`).
//!
//! Binds 127.0.0.1 only and answers CORS preflights from any origin (it is a local test server).

#[cfg(not(target_arch = "wasm32"))]
mod acp;
#[cfg(not(target_arch = "wasm32"))]
mod agent;
#[cfg(not(target_arch = "wasm32"))]
mod agentx;
#[cfg(not(target_arch = "wasm32"))]
mod fault;
#[cfg(not(target_arch = "wasm32"))]
mod log;
#[cfg(not(target_arch = "wasm32"))]
mod tool_agent;

#[cfg(target_arch = "wasm32")]
fn main() {}

/// The longest token pace a request may ask for (`pace_ms`), in milliseconds: a larger value is
/// read as this one, so that no request keeps its generation (and its log) running for ever.
#[cfg(not(target_arch = "wasm32"))]
const MAX_PACE_MS: u64 = 10_000;

/// A request's `pace_ms` as a pace, at most [`MAX_PACE_MS`].
#[cfg(not(target_arch = "wasm32"))]
fn pace_ms(ms: u64) -> std::time::Duration {
    std::time::Duration::from_millis(ms.min(MAX_PACE_MS))
}

#[cfg(not(target_arch = "wasm32"))]
#[tokio::main]
async fn main() {
    server::main().await;
}

#[cfg(not(target_arch = "wasm32"))]
mod server {
    use std::convert::Infallible;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use agentwire::dialect::agent_api::AgentRequest;
    use axum::body::{Body, Bytes};
    use axum::extract::{Query, State};
    use axum::http::{header, HeaderMap, StatusCode};
    use axum::response::{IntoResponse, Response};
    use axum::routing::{get, post};
    use axum::{Json, Router};
    use serde::Deserialize;
    use tokio::sync::mpsc;
    use tokio_stream::wrappers::ReceiverStream;
    use tower_http::cors::{Any, CorsLayer};
    use tower_http::services::ServeDir;

    use super::agent::{self, Pace, Sink};
    use super::fault::Fault;
    use super::log::{Log, Logs};

    /// Counters the tests read through `GET /stats`.
    #[derive(Default)]
    pub struct Stats {
        started: AtomicU64,
        finished: AtomicU64,
        closed_by_client: AtomicU64,
        resumed: AtomicU64,
    }

    #[derive(Clone)]
    struct AppState {
        pace: Pace,
        stats: Arc<Stats>,
        logs: Arc<Logs>,
    }

    struct Options {
        port: u16,
        pace_ms: u64,
        pkg: PathBuf,
        demo: PathBuf,
        max_acp_runs: usize,
    }

    fn options() -> Options {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut o = Options {
            port: 8787,
            pace_ms: 40,
            pkg: root.join("pkg"),
            demo: root.join("examples/demo"),
            max_acp_runs: super::acp::MAX_KEPT_RUNS,
        };
        let mut args = std::env::args().skip(1);
        while let Some(flag) = args.next() {
            if flag == "--help" || flag == "-h" {
                println!("{USAGE}");
                std::process::exit(0);
            }
            let Some(value) = args.next() else {
                usage_error(&format!("{flag} needs a value"));
            };
            match flag.as_str() {
                "--port" => o.port = number(&flag, &value),
                "--pace-ms" => o.pace_ms = number(&flag, &value),
                "--pkg" => o.pkg = PathBuf::from(value),
                "--demo" => o.demo = PathBuf::from(value),
                "--max-acp-runs" => o.max_acp_runs = number(&flag, &value),
                other => usage_error(&format!("unknown argument {other}")),
            }
        }
        o
    }

    const USAGE: &str = "usage: reference_server [--port 8787] [--pace-ms 40] [--pkg pkg] \
                         [--demo examples/demo] [--max-acp-runs 1000]";

    /// Prints what is wrong with the command line and the usage, and exits with status 2.
    fn usage_error(problem: &str) -> ! {
        eprintln!("reference_server: {problem}\n{USAGE}");
        std::process::exit(2)
    }

    fn number<T: std::str::FromStr>(flag: &str, value: &str) -> T {
        value
            .parse()
            .unwrap_or_else(|_| usage_error(&format!("{flag} takes a number, not '{value}'")))
    }

    pub async fn main() {
        let o = options();
        let state = AppState {
            pace: Pace {
                token: Duration::from_millis(o.pace_ms),
                hostile: false,
            },
            stats: Arc::default(),
            logs: Arc::default(),
        };
        let cors = CorsLayer::new()
            .allow_origin(Any)
            .allow_methods(Any)
            .allow_headers(Any)
            .expose_headers(Any);
        let app = Router::new()
            .route("/process", post(process))
            .route("/process/resume/{response_id}", get(resume))
            .route("/chat", post(chat))
            .route("/health", get(|| async { "ok" }))
            .route("/stats", get(stats))
            .nest(
                "/acp",
                super::acp::router(Duration::from_millis(o.pace_ms), o.max_acp_runs),
            )
            .nest_service("/pkg", ServeDir::new(&o.pkg))
            .fallback_service(ServeDir::new(&o.demo))
            .layer(cors)
            .with_state(state);
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", o.port))
            .await
            .unwrap_or_else(|e| panic!("cannot bind 127.0.0.1:{}: {e}", o.port));
        let addr = listener.local_addr().expect("bound address");
        println!("agentwire reference server on http://{addr}/  (demo page at /, Agent API at POST /process)");
        axum::serve(listener, app).await.expect("server");
    }

    async fn stats(State(s): State<AppState>) -> Json<serde_json::Value> {
        Json(serde_json::json!({
            "started": s.stats.started.load(Ordering::SeqCst),
            "finished": s.stats.finished.load(Ordering::SeqCst),
            "closedByClient": s.stats.closed_by_client.load(Ordering::SeqCst),
            "resumed": s.stats.resumed.load(Ordering::SeqCst),
        }))
    }

    #[derive(Deserialize, Default)]
    struct ProcessQuery {
        /// Overrides the token pace for this request, in milliseconds.
        pace_ms: Option<u64>,
        /// `1`: hostile URLs in the answer.
        hostile: Option<u8>,
        /// A transport fault to inject (see `fault.rs`).
        fault: Option<String>,
        /// Which scripted agent answers: `tools` for the client-side tool agent.
        agent: Option<String>,
        /// The reconnection time the stream's `retry` field sets, in milliseconds (default 250).
        retry: Option<u64>,
    }

    /// Sends an agent's events straight to one connection (AgentX: no resuming).
    struct ChannelSink(mpsc::Sender<Result<Bytes, Infallible>>);

    impl Sink for ChannelSink {
        async fn send(&mut self, _seq: u64, sse: String) -> bool {
            self.0.send(Ok(Bytes::from(sse))).await.is_ok()
        }
    }

    /// Writes the agent's events into the response's log.
    struct LogSink(Arc<Log>);

    impl Sink for LogSink {
        async fn send(&mut self, seq: u64, sse: String) -> bool {
            self.0.push(seq, sse);
            true
        }
    }

    /// An event stream's body: counts in `closed_by_client` a body dropped before its end, which
    /// the server does when the client has closed the connection, whether or not an event was
    /// being sent then (a sender finds out only at its next send, which may never come).
    struct CountedBody {
        events: ReceiverStream<Result<Bytes, Infallible>>,
        ended: bool,
        stats: Arc<Stats>,
    }

    impl tokio_stream::Stream for CountedBody {
        type Item = Result<Bytes, Infallible>;

        fn poll_next(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Self::Item>> {
            let next = std::pin::Pin::new(&mut self.events).poll_next(cx);
            if let std::task::Poll::Ready(None) = next {
                self.ended = true;
            }
            next
        }
    }

    impl Drop for CountedBody {
        fn drop(&mut self) {
            if !self.ended {
                self.stats.closed_by_client.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    /// The answer of an event stream whose events `rx` gives.
    fn sse_response(rx: mpsc::Receiver<Result<Bytes, Infallible>>, stats: Arc<Stats>) -> Response {
        let body = CountedBody {
            events: ReceiverStream::new(rx),
            ended: false,
            stats,
        };
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("x-accel-buffering", "no")
            .body(Body::from_stream(body))
            .expect("static headers")
    }

    /// Streams `log` from position `from` to a new connection, injecting `fault` (the body counts
    /// a connection the client closed before the end).
    fn forward(
        log: Arc<Log>,
        from: usize,
        fault: Option<Fault>,
        retry_ms: u64,
        stats: Arc<Stats>,
    ) -> Response {
        let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(64);
        tokio::spawn(async move {
            let send = |bytes: Vec<u8>| {
                let tx = tx.clone();
                async move { tx.send(Ok(Bytes::from(bytes))).await.is_ok() }
            };
            if !send(format!("retry: {retry_ms}\n\n").into_bytes()).await {
                return;
            }
            let mut pos = from;
            let mut sent = 0usize;
            loop {
                let (events, done) = log.read_from(pos).await;
                pos += events.len();
                for (_, sse) in events {
                    let outcome = match &fault {
                        Some(f) => f.apply(sent, sse.into_bytes(), &send).await,
                        None => {
                            if send(sse.into_bytes()).await {
                                super::fault::Outcome::Continue
                            } else {
                                super::fault::Outcome::ClientGone
                            }
                        }
                    };
                    sent += 1;
                    match outcome {
                        super::fault::Outcome::Continue => {}
                        super::fault::Outcome::Close | super::fault::Outcome::ClientGone => return,
                    }
                }
                if done {
                    return;
                }
            }
        });
        sse_response(rx, stats)
    }

    async fn process(
        State(s): State<AppState>,
        Query(q): Query<ProcessQuery>,
        _headers: HeaderMap,
        body: Bytes,
    ) -> Response {
        let request: AgentRequest = match serde_json::from_slice(&body) {
            Ok(r) => r,
            Err(e) => {
                return (
                    StatusCode::BAD_REQUEST,
                    format!("invalid AgentRequest: {e}"),
                )
                    .into_response()
            }
        };
        if let Err(e) = request.validate() {
            return (StatusCode::UNPROCESSABLE_ENTITY, e.to_string()).into_response();
        }
        let tools = match q.agent.as_deref() {
            None => false,
            Some("tools") => true,
            Some(other) => {
                return (
                    StatusCode::NOT_FOUND,
                    format!(
                        "no agent `{other}`: `?agent=tools`, or no `agent` for the default one"
                    ),
                )
                    .into_response()
            }
        };
        let fault = match q.fault.as_deref().map(Fault::parse).transpose() {
            Ok(f) => f,
            Err(e) => return (StatusCode::BAD_REQUEST, e).into_response(),
        };
        let pace = Pace {
            token: q.pace_ms.map_or(s.pace.token, super::pace_ms),
            hostile: q.hostile == Some(1),
        };
        // The response gets the request's `id` when it has one, as agentscope-runtime's runner
        // gives it.
        let mut rb = agentwire::dialect::agent_api::ResponseBuilder::with_id(
            request.session_id.clone(),
            request.id.clone(),
        );
        let response_id = rb.response().id.unwrap_or_default();
        let log = s.logs.create(&response_id);
        s.stats.started.fetch_add(1, Ordering::SeqCst);
        let stats = s.stats.clone();
        let writer = Arc::clone(&log);
        tokio::spawn(async move {
            let mut sink = LogSink(Arc::clone(&writer));
            if tools {
                super::tool_agent::run(&request, &mut rb, &mut sink, pace).await;
            } else {
                agent::run(&request, &mut rb, &mut sink, pace).await;
            }
            writer.finish();
            stats.finished.fetch_add(1, Ordering::SeqCst);
        });
        forward(log, 0, fault, q.retry.unwrap_or(250), s.stats.clone())
    }

    /// `GET /process/resume/{response_id}` with `Last-Event-ID` (or `?last_event_id=`).
    async fn resume(
        State(s): State<AppState>,
        axum::extract::Path(response_id): axum::extract::Path<String>,
        Query(q): Query<std::collections::HashMap<String, String>>,
        headers: HeaderMap,
    ) -> Response {
        let Some(log) = s.logs.get(&response_id) else {
            return (
                StatusCode::NOT_FOUND,
                format!("no response {response_id} to resume"),
            )
                .into_response();
        };
        let last = headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .or_else(|| q.get("last_event_id").cloned());
        let from = match last.as_deref().map(str::parse::<u64>) {
            Some(Ok(seq)) => log.position_after(seq),
            Some(Err(_)) => {
                return (
                    StatusCode::BAD_REQUEST,
                    "Last-Event-ID is not a sequence number",
                )
                    .into_response()
            }
            None => 0,
        };
        s.stats.resumed.fetch_add(1, Ordering::SeqCst);
        forward(log, from, None, 250, s.stats.clone())
    }

    /// `POST /chat`: the AgentX agent.
    async fn chat(
        State(s): State<AppState>,
        Query(q): Query<ProcessQuery>,
        body: Bytes,
    ) -> Response {
        let request = match super::agentx::parse(&body) {
            Ok(r) => r,
            Err(e) => return (StatusCode::BAD_REQUEST, e).into_response(),
        };
        let pace = q.pace_ms.map_or(s.pace, |ms| Pace {
            token: super::pace_ms(ms),
            hostile: false,
        });
        let (tx, rx) = mpsc::channel(64);
        s.stats.started.fetch_add(1, Ordering::SeqCst);
        let stats = s.stats.clone();
        tokio::spawn(async move {
            let mut sink = ChannelSink(tx);
            // A client that closed is counted by the body.
            if super::agentx::run(&request, &mut sink, pace).await {
                stats.finished.fetch_add(1, Ordering::SeqCst);
            }
        });
        sse_response(rx, s.stats.clone())
    }
}
