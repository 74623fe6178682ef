//! agentwire's reference agent server: a scripted agent (no LLM) behind the Agent API protocol,
//! streamed over SSE with realistic token pacing, plus the live demo page.
//!
//! ```text
//! cargo run --example reference_server -- [--port 8787] [--pace-ms 40] [--pkg pkg] [--demo examples/demo]
//! ```
//!
//! - `POST /process`: an Agent API request in, a `text/event-stream` of Agent API events out (each
//!   event's `sequence_number` is also its SSE `id`).
//! - `POST /process?agent=tools`: the Agent API agent that calls the client-side tool `get_time`
//!   (`tool_agent.rs`).
//! - `POST /chat`: AgentX, the `write_file` self-correction flow (`agentx.rs`).
//! - `GET /health`: `ok`. `GET /stats`: counters tests read (streams started, finished, and closed
//!   by the client before the end).
//! - `GET /`: the demo page; `GET /pkg/…`: the built npm package (`pkg/`).
//!
//! Binds 127.0.0.1 only and answers CORS preflights from any origin (it is a local test server).

#[cfg(not(target_arch = "wasm32"))]
mod agent;
#[cfg(not(target_arch = "wasm32"))]
mod agentx;
#[cfg(not(target_arch = "wasm32"))]
mod tool_agent;

#[cfg(target_arch = "wasm32")]
fn main() {}

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

    /// Counters the tests read through `GET /stats`.
    #[derive(Default)]
    pub struct Stats {
        started: AtomicU64,
        finished: AtomicU64,
        closed_by_client: AtomicU64,
    }

    #[derive(Clone)]
    struct AppState {
        pace: Pace,
        stats: Arc<Stats>,
    }

    struct Options {
        port: u16,
        pace_ms: u64,
        pkg: PathBuf,
        demo: PathBuf,
    }

    fn options() -> Options {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mut o = Options {
            port: 8787,
            pace_ms: 40,
            pkg: root.join("pkg"),
            demo: root.join("examples/demo"),
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut i = 0;
        while i < args.len() {
            let value = args.get(i + 1).cloned().unwrap_or_default();
            match args[i].as_str() {
                "--port" => o.port = value.parse().expect("--port takes a number"),
                "--pace-ms" => o.pace_ms = value.parse().expect("--pace-ms takes a number"),
                "--pkg" => o.pkg = PathBuf::from(value),
                "--demo" => o.demo = PathBuf::from(value),
                other => panic!("unknown argument {other}; see the module docs"),
            }
            i += 2;
        }
        o
    }

    pub async fn main() {
        let o = options();
        let state = AppState {
            pace: Pace {
                token: Duration::from_millis(o.pace_ms),
            },
            stats: Arc::default(),
        };
        let cors = CorsLayer::new()
            .allow_origin(Any)
            .allow_methods(Any)
            .allow_headers(Any)
            .expose_headers(Any);
        let app = Router::new()
            .route("/process", post(process))
            .route("/chat", post(chat))
            .route("/health", get(|| async { "ok" }))
            .route("/stats", get(stats))
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
        }))
    }

    #[derive(Deserialize, Default)]
    struct ProcessQuery {
        /// Overrides the token pace for this request, in milliseconds.
        pace_ms: Option<u64>,
        /// Which scripted agent answers: `tools` for the client-side tool agent.
        agent: Option<String>,
    }

    struct ChannelSink(mpsc::Sender<Result<Bytes, Infallible>>);

    impl Sink for ChannelSink {
        async fn send(&mut self, sse: String) -> bool {
            self.0.send(Ok(Bytes::from(sse))).await.is_ok()
        }
    }

    fn sse_response(rx: mpsc::Receiver<Result<Bytes, Infallible>>) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
            .header(header::CACHE_CONTROL, "no-cache")
            .header("x-accel-buffering", "no")
            .body(Body::from_stream(ReceiverStream::new(rx)))
            .expect("static headers")
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
        let pace = match q.pace_ms {
            Some(ms) => Pace {
                token: Duration::from_millis(ms),
            },
            None => s.pace,
        };
        let (tx, rx) = mpsc::channel(64);
        s.stats.started.fetch_add(1, Ordering::SeqCst);
        let stats = s.stats.clone();
        tokio::spawn(async move {
            let mut sink = ChannelSink(tx);
            let finished = match q.agent.as_deref() {
                Some("tools") => super::tool_agent::run(&request, &mut sink, pace).await,
                _ => agent::run(&request, &mut sink, pace).await,
            };
            if finished {
                stats.finished.fetch_add(1, Ordering::SeqCst);
            } else {
                stats.closed_by_client.fetch_add(1, Ordering::SeqCst);
            }
        });
        sse_response(rx)
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
            token: Duration::from_millis(ms),
        });
        let (tx, rx) = mpsc::channel(64);
        s.stats.started.fetch_add(1, Ordering::SeqCst);
        let stats = s.stats.clone();
        tokio::spawn(async move {
            let mut sink = ChannelSink(tx);
            if super::agentx::run(&request, &mut sink, pace).await {
                stats.finished.fetch_add(1, Ordering::SeqCst);
            } else {
                stats.closed_by_client.fetch_add(1, Ordering::SeqCst);
            }
        });
        sse_response(rx)
    }
}
