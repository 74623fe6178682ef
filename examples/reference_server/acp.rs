//! The reference server's ACP agent (no LLM): `approval`, an agent that asks for confirmation.
//! It speaks the Agent Communication Protocol under `/acp` as acp-sdk 1.0.3's server does, with
//! every value built from agentwire's own ACP model:
//!
//! | route | what |
//! |---|---|
//! | `GET /acp/agents`, `GET /acp/agents/{name}` | the manifest (`input_content_types: ["text/plain"]`) |
//! | `POST /acp/runs` | start a run: `mode` `stream` (SSE), `sync` (the run once it stops) or `async` (202, the run just created); `?pace_ms=` overrides the token pace |
//! | `POST /acp/runs/{run_id}` | resume an `awaiting` run (403 otherwise), same modes |
//! | `POST /acp/runs/{run_id}/cancel` | cancel (202, status `cancelling`; 403 once the run ended) |
//! | `GET /acp/runs/{run_id}`, `GET /acp/runs/{run_id}/events` | the run, its events so far |
//!
//! The agent streams a plan (`message.part` text chunks), then asks `Approve the deployment?
//! (yes/no)` with `run.awaiting`, which ends the stream. On a resume it streams the outcome in
//! the same message (approved when the answer starts with `yes` or `approve`, else rejected),
//! completes the message and the run. A cancel ends the run `cancelled`: at once while it awaits,
//! at the next token while it streams. Errors have ACP's `Error` body; a `mode` other than
//! `stream`, `sync` or `async` is `422` (the SDK's server refuses it so). Past 1,000 runs
//! (`--max-acp-runs` sets the number), those that ended are forgotten, and if that is not enough,
//! the oldest of those left awaiting an answer are cancelled and forgotten too (memory stays
//! bounded).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use agentwire::dialect::acp::{
    AcpEvent, AgentManifest, AwaitRequest, AwaitType, ErrorInfo, Message, MessagePart, Role, Run,
    RunCreateRequest, RunMode, RunResumeRequest, RunStatus, ServerErrorCode,
};
use agentwire::wire::JsonMap;
use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_stream::wrappers::ReceiverStream;

use super::agent::tokens;

/// The agent's name.
pub const AGENT: &str = "approval";

/// The plan the agent streams before it asks.
const PLAN: &str =
    "I will deploy version 2.4.1 to production: 3 services, about 2 minutes of rolling restarts. ";

/// What the agent asks.
const QUESTION: &str = "Approve the deployment? (yes/no)";

/// The router of the ACP routes (mount it under `/acp`), with its own state.
/// `max_runs`: how many runs to keep (see [`MAX_KEPT_RUNS`]).
pub fn router<S: Clone + Send + Sync + 'static>(pace: Duration, max_runs: usize) -> Router<S> {
    Router::new()
        .route("/agents", get(list_agents))
        .route("/agents/{name}", get(read_agent))
        .route("/runs", post(create_run))
        .route("/runs/{run_id}", get(read_run).post(resume_run))
        .route("/runs/{run_id}/cancel", post(cancel_run))
        .route("/runs/{run_id}/events", get(run_events))
        .with_state(Acp {
            pace,
            max_runs,
            runs: Arc::default(),
        })
}

/// How many runs the server keeps (`--max-acp-runs`, default 1,000) before it forgets those that
/// ended (a run that ended is then `404` to read, resume or cancel), then the oldest of those left
/// awaiting an answer (cancelled first). Runs in progress end by themselves and are never dropped.
pub const MAX_KEPT_RUNS: usize = 1_000;

#[derive(Clone)]
struct Acp {
    pace: Duration,
    max_runs: usize,
    runs: Arc<Mutex<HashMap<String, Arc<RunData>>>>,
}

/// One run: its state (behind a lock) and a version number that changes with every event.
struct RunData {
    inner: Mutex<RunInner>,
    version: watch::Sender<u64>,
    /// When the run was created (the oldest awaiting runs go first when too many are kept).
    created: Instant,
}

struct RunInner {
    run: Run,
    events: Vec<AcpEvent>,
    /// The agent's wait for the client's answer (`Some` while awaiting).
    resume: Option<oneshot::Sender<Message>>,
    cancel_requested: bool,
    /// Wakes the agent on a cancel.
    cancel: Option<oneshot::Sender<()>>,
}

impl RunData {
    fn lock(&self) -> std::sync::MutexGuard<'_, RunInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records an event of the run (a `run.*` event carries the run as it is now).
    fn emit(&self, make: impl FnOnce(&Run) -> AcpEvent) {
        let mut inner = self.lock();
        let event = make(&inner.run);
        inner.events.push(event);
        drop(inner);
        self.version.send_modify(|v| *v += 1);
    }

    fn set_status(&self, status: RunStatus) {
        let mut inner = self.lock();
        inner.run.status = status.clone();
        if status.is_terminal() {
            inner.run.finished_at = Some(now());
        }
    }

    /// Asks the run to end `cancelled`: at once while it awaits (the agent is woken), at the next
    /// token while it streams. The caller has checked that the run has not ended.
    fn request_cancel(inner: &mut RunInner) {
        inner.cancel_requested = true;
        inner.run.status = RunStatus::Cancelling;
        inner.resume = None;
        if let Some(wake) = inner.cancel.take() {
            let _ = wake.send(());
        }
    }

    fn snapshot(&self) -> Run {
        self.lock().run.clone()
    }

    /// Whether the run has stopped (awaiting or ended) and every event up to `seen` was sent.
    fn stopped_at(&self, seen: usize) -> (Vec<AcpEvent>, bool) {
        let inner = self.lock();
        let new = inner.events.get(seen..).unwrap_or_default().to_vec();
        let status = &inner.run.status;
        (new, *status == RunStatus::Awaiting || status.is_terminal())
    }
}

fn run_event(kind: &str, run: &Run) -> AcpEvent {
    let run = run.clone();
    let extra = JsonMap::new();
    match kind {
        "run.created" => AcpEvent::RunCreated { run, extra },
        "run.in-progress" => AcpEvent::RunInProgress { run, extra },
        "run.awaiting" => AcpEvent::RunAwaiting { run, extra },
        "run.completed" => AcpEvent::RunCompleted { run, extra },
        "run.cancelled" => AcpEvent::RunCancelled { run, extra },
        _ => AcpEvent::RunFailed { run, extra },
    }
}

/// Now, as ISO 8601 UTC with microseconds (`2026-11-21T04:34:04.396147Z`), as the SDK writes it.
fn now() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}

fn manifest() -> AgentManifest {
    let mut m = AgentManifest::new(AGENT);
    m.description = Some("Plans a deployment and asks for approval before it acts".to_owned());
    m.input_content_types = vec!["text/plain".to_owned()];
    m.output_content_types = vec!["text/plain".to_owned()];
    m
}

/// An ACP `Error` response: the status and the body's code and message.
struct ApiError {
    status: StatusCode,
    code: ServerErrorCode,
    message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorInfo {
            code: self.code,
            message: self.message,
            data: None,
            extra: JsonMap::new(),
        };
        (self.status, Json(body)).into_response()
    }
}

fn error(status: StatusCode, code: ServerErrorCode, message: String) -> ApiError {
    ApiError {
        status,
        code,
        message,
    }
}

fn not_found(what: &str) -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        ServerErrorCode::NotFound,
        format!("{what} not found"),
    )
}

/// `GET /agents`'s body (`AgentsListResponse`).
#[derive(Serialize)]
struct AgentsList {
    agents: Vec<AgentManifest>,
}

/// `GET /runs/{run_id}/events`'s body (`RunEventsListResponse`).
#[derive(Serialize)]
struct EventsList {
    events: Vec<AcpEvent>,
}

async fn list_agents() -> Json<AgentsList> {
    Json(AgentsList {
        agents: vec![manifest()],
    })
}

async fn read_agent(Path(name): Path<String>) -> Result<Json<AgentManifest>, ApiError> {
    if name == AGENT {
        Ok(Json(manifest()))
    } else {
        Err(not_found(&format!("Agent {name}")))
    }
}

#[derive(Deserialize, Default)]
struct PaceQuery {
    /// Overrides the token pace for this run, in milliseconds.
    pace_ms: Option<u64>,
}

fn parse<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        error(
            StatusCode::UNPROCESSABLE_ENTITY,
            ServerErrorCode::InvalidInput,
            e.to_string(),
        )
    })
}

async fn create_run(
    State(s): State<Acp>,
    Query(q): Query<PaceQuery>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: RunCreateRequest = parse(&body)?;
    known_mode(&request.mode)?;
    if request.agent_name != AGENT {
        return Err(not_found(&format!("Agent {}", request.agent_name)));
    }
    let run = Run {
        // A random UUID (version 4), as the SDK's ids are.
        run_id: agentwire::platform::uuid_v4(),
        agent_name: AGENT.to_owned(),
        session_id: Some(
            request
                .session_id
                .clone()
                .unwrap_or_else(agentwire::platform::uuid_v4),
        ),
        created_at: Some(now()),
        ..Run::default()
    };
    let id = run.run_id.clone();
    let (version, _) = watch::channel(0);
    let data = Arc::new(RunData {
        inner: Mutex::new(RunInner {
            run,
            events: Vec::new(),
            resume: None,
            cancel_requested: false,
            cancel: None,
        }),
        version,
        created: Instant::now(),
    });
    {
        let mut runs = s.runs.lock().unwrap_or_else(|e| e.into_inner());
        make_room(&mut runs, s.max_runs);
        runs.insert(id.clone(), Arc::clone(&data));
    }
    data.emit(|r| run_event("run.created", r));
    let pace = q.pace_ms.map_or(s.pace, super::pace_ms);
    tokio::spawn(agent(Arc::clone(&data), pace));
    Ok(answer(&data, request.mode, 0, Some(&id)).await)
}

/// Below `max_runs` kept runs ([`MAX_KEPT_RUNS`] unless the command line says otherwise), so that
/// memory stays bounded however many runs clients start: the runs that ended go, then (if that was
/// not enough) the oldest awaiting ones, which would otherwise wait for ever, cancelled first (a
/// stream or `sync` wait still watching one ends with it).
fn make_room(runs: &mut HashMap<String, Arc<RunData>>, max_runs: usize) {
    if runs.len() < max_runs {
        return;
    }
    runs.retain(|_, run| !run.lock().run.status.is_terminal());
    let excess = (runs.len() + 1).saturating_sub(max_runs);
    if excess == 0 {
        return;
    }
    let mut awaiting: Vec<(Instant, String)> = runs
        .iter()
        .filter(|(_, run)| run.lock().run.status == RunStatus::Awaiting)
        .map(|(id, run)| (run.created, id.clone()))
        .collect();
    awaiting.sort_unstable();
    for (_, id) in awaiting.into_iter().take(excess) {
        if let Some(run) = runs.remove(&id) {
            RunData::request_cancel(&mut run.lock());
        }
    }
}

/// `422` for a `mode` the protocol does not have (the SDK's server refuses it in validation;
/// agentwire's model keeps an unknown value as sent).
fn known_mode(mode: &RunMode) -> Result<(), ApiError> {
    match mode {
        RunMode::Other(other) => Err(error(
            StatusCode::UNPROCESSABLE_ENTITY,
            ServerErrorCode::InvalidInput,
            format!("mode: Input should be 'sync', 'async' or 'stream', not '{other}'"),
        )),
        _ => Ok(()),
    }
}

/// The answer to a create or a resume, by mode; `seen` events were already streamed.
async fn answer(data: &Arc<RunData>, mode: RunMode, seen: usize, run_id: Option<&str>) -> Response {
    let mut response = match mode {
        RunMode::Stream => stream(Arc::clone(data), seen),
        RunMode::Async => (StatusCode::ACCEPTED, Json(data.snapshot())).into_response(),
        _ => {
            let mut rx = data.version.subscribe();
            loop {
                let stopped = {
                    let status = data.lock().run.status.clone();
                    status == RunStatus::Awaiting || status.is_terminal()
                };
                if stopped || rx.changed().await.is_err() {
                    break;
                }
            }
            Json(data.snapshot()).into_response()
        }
    };
    if let Some(id) = run_id {
        if let Ok(v) = id.parse() {
            response.headers_mut().insert("run-id", v);
        }
    }
    response
}

/// Streams the run's events from `seen` until it awaits or ends.
fn stream(data: Arc<RunData>, mut seen: usize) -> Response {
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(64);
    tokio::spawn(async move {
        let mut version = data.version.subscribe();
        loop {
            version.borrow_and_update();
            let (events, stopped) = data.stopped_at(seen);
            seen += events.len();
            for e in &events {
                let json = serde_json::to_string(e).unwrap_or_else(|_| "null".to_owned());
                if tx
                    .send(Ok(Bytes::from(format!("data: {json}\n\n"))))
                    .await
                    .is_err()
                {
                    return; // the client left
                }
            }
            if stopped || version.changed().await.is_err() {
                return;
            }
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(ReceiverStream::new(rx)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Whether a cancel was asked for; if so, ends the run `cancelled`.
fn cancelled(data: &RunData) -> bool {
    if !data.lock().cancel_requested {
        return false;
    }
    data.set_status(RunStatus::Cancelled);
    data.emit(|r| run_event("run.cancelled", r));
    true
}

/// Streams `text` token by token into the open message (the last of the output).
async fn say(data: &RunData, text: &str, pace: Duration) -> bool {
    for token in tokens(text) {
        tokio::time::sleep(pace).await;
        if cancelled(data) {
            return false;
        }
        let part = MessagePart::text(token);
        {
            let mut inner = data.lock();
            if let Some(m) = inner.run.output.last_mut() {
                m.parts.push(part.clone());
            }
        }
        data.emit(|_| AcpEvent::MessagePart {
            part,
            extra: JsonMap::new(),
        });
    }
    true
}

/// The agent: plan, ask, then act on the answer.
async fn agent(data: Arc<RunData>, pace: Duration) {
    data.set_status(RunStatus::InProgress);
    data.emit(|r| run_event("run.in-progress", r));
    if cancelled(&data) {
        return;
    }
    let message = Message {
        created_at: Some(now()),
        ..Message::new(Role::agent(Some(AGENT)), Vec::new())
    };
    data.lock().run.output.push(message.clone());
    data.emit(|_| AcpEvent::MessageCreated {
        message,
        extra: JsonMap::new(),
    });
    if !say(&data, PLAN, pace).await {
        return;
    }
    let (resume_tx, resume_rx) = oneshot::channel();
    let (cancel_tx, cancel_rx) = oneshot::channel();
    {
        let mut inner = data.lock();
        if inner.cancel_requested {
            drop(inner);
            cancelled(&data);
            return;
        }
        inner.run.await_request = Some(AwaitRequest {
            kind: AwaitType::Message,
            message: Some(Message {
                created_at: Some(now()),
                completed_at: Some(now()),
                ..Message::new(Role::agent(Some(AGENT)), vec![MessagePart::text(QUESTION)])
            }),
            extra: JsonMap::new(),
        });
        inner.run.status = RunStatus::Awaiting;
        inner.resume = Some(resume_tx);
        inner.cancel = Some(cancel_tx);
    }
    data.emit(|r| run_event("run.awaiting", r));
    let answer = tokio::select! {
        answer = resume_rx => answer.ok(),
        Ok(()) = cancel_rx => None,
    };
    let Some(answer) = answer else {
        cancelled(&data);
        return;
    };
    data.emit(|r| run_event("run.in-progress", r));
    let text = answer.text();
    let reply = text.trim().to_ascii_lowercase();
    let outcome = if reply.starts_with("yes") || reply.starts_with("approve") {
        format!(
            "Approved (\u{201c}{}\u{201d}): deploying version 2.4.1 now. Done.",
            text.trim()
        )
    } else {
        format!(
            "Rejected (\u{201c}{}\u{201d}): nothing was deployed.",
            text.trim()
        )
    };
    if !say(&data, &outcome, pace).await {
        return;
    }
    let message = {
        let mut inner = data.lock();
        let Some(m) = inner.run.output.last_mut() else {
            return;
        };
        m.completed_at = Some(now());
        m.clone()
    };
    data.emit(|_| AcpEvent::MessageCompleted {
        message,
        extra: JsonMap::new(),
    });
    data.set_status(RunStatus::Completed);
    data.emit(|r| run_event("run.completed", r));
}

fn find(s: &Acp, run_id: &str) -> Result<Arc<RunData>, ApiError> {
    s.runs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(run_id)
        .cloned()
        .ok_or_else(|| not_found(&format!("Run {run_id}")))
}

async fn read_run(State(s): State<Acp>, Path(run_id): Path<String>) -> Result<Json<Run>, ApiError> {
    Ok(Json(find(&s, &run_id)?.snapshot()))
}

async fn run_events(
    State(s): State<Acp>,
    Path(run_id): Path<String>,
) -> Result<Json<EventsList>, ApiError> {
    let events = find(&s, &run_id)?.lock().events.clone();
    Ok(Json(EventsList { events }))
}

async fn resume_run(
    State(s): State<Acp>,
    Path(run_id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let data = find(&s, &run_id)?;
    let request: RunResumeRequest = parse(&body)?;
    known_mode(&request.mode)?;
    let seen = {
        let mut inner = data.lock();
        let Some(resume) = inner.resume.take() else {
            return Err(error(
                StatusCode::FORBIDDEN,
                ServerErrorCode::InvalidInput,
                format!("Run {run_id} has no await request"),
            ));
        };
        let answer = request.await_resume.message.unwrap_or_default();
        inner.run.status = RunStatus::InProgress;
        let _ = resume.send(answer);
        inner.events.len()
    };
    Ok(answer(&data, request.mode, seen, None).await)
}

async fn cancel_run(
    State(s): State<Acp>,
    Path(run_id): Path<String>,
) -> Result<Response, ApiError> {
    let data = find(&s, &run_id)?;
    let mut inner = data.lock();
    if inner.run.status.is_terminal() {
        let status = inner.run.status.clone();
        return Err(error(
            StatusCode::FORBIDDEN,
            ServerErrorCode::InvalidInput,
            format!("Run in terminal status {status} can't be cancelled"),
        ));
    }
    RunData::request_cancel(&mut inner);
    Ok((StatusCode::ACCEPTED, Json(inner.run.clone())).into_response())
}
