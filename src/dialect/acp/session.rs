//! One ACP run as a client follows it: the assembled run and its lifecycle, kept in step.
//! See [`AcpSession`].

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, OnceLock};

use serde::Serialize;

use super::assemble::{AcpOptions, Assembler, Severity, Update};
use super::event::AcpEvent;
use super::model::{AwaitRequest, Message, Run, RunCreateRequest, RunStatus};
use crate::body::Body;
use crate::error::ErrorCode;
use crate::run::{builtin, CommunicationSchema, Move, Party, RunError, Transition};
use crate::sse::{SseDecoder, SseItem};
use crate::wire::JsonMap;
use agentwire_core::json::Step;

/// How a session treats a server message its lifecycle does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Inbound {
    /// The problem becomes a warning issue and the run goes on: a message the state does not allow
    /// leaves the state where it was (and is still assembled); a message whose body breaks its
    /// transition's body schema makes the move. The default: nothing the server sends is lost.
    #[default]
    Lenient,
    /// The problem becomes an error issue and the session stops: the offending message and
    /// everything after it are ignored, and [`AcpSession::violation`] has the error.
    Strict,
}

/// Options of an [`AcpSession`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SessionOptions {
    /// Options of the assembler and the SSE decoder.
    pub acp: AcpOptions,
    /// How invalid server messages are treated (default lenient).
    pub inbound: Inbound,
}

/// A change in a session, in order: an [`Update`] of the assembled run, a change of the
/// lifecycle's state, or a lifecycle problem.
///
/// JSON: an [`Update`] as is (`{"type": "textDelta", …}`), `{"type": "state", "from", "to",
/// "move": {"party", "type", "nextState"}}`, or `{"type": "issue", "severity", "code", "message",
/// "details"}` (the shape of [`Update::Issue`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SessionUpdate {
    /// The lifecycle moved to another state (moves that stay in the state are not reported).
    State {
        /// The state before.
        from: String,
        /// The state now.
        to: String,
        /// The move that was made.
        #[serde(rename = "move")]
        via: Move,
    },
    /// A lifecycle problem: a server message the state does not allow (`move-not-allowed`), or
    /// whose body breaks its body schema (`body-mismatch`). A warning in lenient sessions, an
    /// error in strict ones.
    Issue {
        /// Warning (the run went on) or error (the session stopped).
        severity: Severity,
        /// The error's stable code.
        code: String,
        /// A readable message.
        message: String,
        /// The error's details (the state, the refused move, the moves allowed).
        details: serde_json::Value,
        /// The typed error (shared with [`AcpSession::violation`] when it stopped a strict
        /// session).
        #[serde(skip)]
        error: Arc<RunError>,
    },
    /// A change to the assembled run.
    #[serde(untagged)]
    Acp(Box<Update>),
}

/// The ACP lifecycle schema, built once.
fn acp_run_schema() -> Arc<CommunicationSchema> {
    static SCHEMA: OnceLock<Arc<CommunicationSchema>> = OnceLock::new();
    SCHEMA.get_or_init(|| Arc::new(builtin::acp_run())).clone()
}

/// One ACP run as a client follows it: the run assembled from what the server sends, and its
/// lifecycle (the [`builtin::acp_run`] communication schema) checked on every request and every
/// event.
///
/// It joins the stream [`Assembler`] and a [`Run`](crate::run::Run) of the ACP
/// lifecycle schema ([`builtin::acp_run`]): every request the client makes is an outbound move
/// (`create`, `resume`, `cancel`: refused unless the lifecycle allows it), and every event the
/// server sends is an inbound move ([`builtin::acp_event_move`]) checked before it is assembled.
/// What the server answers in `sync` mode (a [`Run`]) is followed too: the lifecycle takes the
/// server's `run.*` moves from its state to the run's status.
///
/// Feed it every answer of the run: the SSE streams of `POST /runs` and of each resume
/// ([`feed`](Self::feed), then [`finish`](Self::finish) at the end of each), the events of
/// `GET /runs/{run_id}/events` ([`push_event`](Self::push_event)), or the [`Run`] of a `sync`
/// answer or of `GET /runs/{run_id}` ([`push_run`](Self::push_run)).
///
/// ```
/// use agentwire::dialect::acp::{AcpSession, Message, RunCreateRequest, RunMode, SessionOptions};
/// use agentwire::ErrorCode;
///
/// let mut session = AcpSession::new(SessionOptions::default());
/// session.create(&RunCreateRequest::new("approval", vec![Message::user_text("do it")], RunMode::Stream))?;
/// assert_eq!(session.state(), "created");
/// // Nothing to resume yet: the run does not await anything.
/// let refused = session.resume(&Message::user_text("yes")).unwrap_err();
/// assert_eq!(refused.code(), "move-not-allowed");
/// assert_eq!(refused.details()["state"], "created");
///
/// session.feed(concat!(
///     "data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r1\",\"agent_name\":\"approval\",\"status\":\"created\"}}\n\n",
///     "data: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"r1\",\"agent_name\":\"approval\",\"status\":\"in-progress\"}}\n\n",
///     "data: {\"type\":\"run.awaiting\",\"run\":{\"run_id\":\"r1\",\"agent_name\":\"approval\",\"status\":\"awaiting\",",
///     "\"await_request\":{\"type\":\"message\",\"message\":{\"role\":\"user\",\"parts\":[{\"content\":\"Approve?\"}]}}}}\n\n",
/// ).as_bytes());
/// session.finish();
/// assert_eq!(session.state(), "awaiting");
/// assert!(session.awaiting().is_some());
/// session.resume(&Message::user_text("yes"))?;
/// assert_eq!(session.state(), "in-progress");
/// # Ok::<(), agentwire::run::RunError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AcpSession {
    options: SessionOptions,
    sse: SseDecoder,
    assembler: Assembler,
    lifecycle: crate::run::Run,
    /// Updates of the session, with the assembler's earlier updates moved in before them.
    updates: Vec<SessionUpdate>,
    /// Shared with the error's [`SessionUpdate::Issue`] (one error, not a copy).
    violation: Option<Arc<RunError>>,
    /// Bytes fed so far, every answer's (counted against [`Limits::max_stream_bytes`]).
    ///
    /// [`Limits::max_stream_bytes`]: crate::limits::Limits::max_stream_bytes
    bytes: u64,
}

impl AcpSession {
    /// A session before its run is created (lifecycle state `idle`).
    pub fn new(options: SessionOptions) -> Self {
        Self {
            options,
            sse: SseDecoder::with_options(options.acp.sse),
            assembler: Assembler::new(options.acp),
            lifecycle: crate::run::Run::new("", acp_run_schema()),
            updates: Vec::new(),
            violation: None,
            bytes: 0,
        }
    }

    /// The options.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// The run as assembled so far.
    pub fn run(&self) -> &Run {
        self.assembler.run()
    }

    /// The assembler.
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// The lifecycle: its state, the messages it accepted, the moves allowed now.
    pub fn lifecycle(&self) -> &crate::run::Run {
        &self.lifecycle
    }

    /// The lifecycle's state: `idle`, `created`, `in-progress`, `awaiting`, `cancelling`,
    /// `completed`, `failed` or `cancelled`.
    pub fn state(&self) -> &str {
        self.lifecycle.state()
    }

    /// Whether the current answer is over: the run awaits the client or reached a terminal status,
    /// or the stream ended ([`finish`](Self::finish)).
    pub fn is_done(&self) -> bool {
        self.assembler.is_done()
    }

    /// What the agent waits for, while the run is `awaiting`.
    pub fn awaiting(&self) -> Option<&AwaitRequest> {
        self.assembler.await_request()
    }

    /// In a strict session, the inbound error that stopped it.
    pub fn violation(&self) -> Option<&RunError> {
        self.violation.as_deref()
    }

    /// `create`: the client starts the run with `POST /runs` (the body is the input's parts).
    ///
    /// # Errors
    /// [`RunError::MoveNotAllowed`] unless the lifecycle is `idle` (nothing changes then).
    pub fn create(&mut self, request: &RunCreateRequest) -> Result<(), RunError> {
        let body = Body::new(request.input.iter().flat_map(|m| m.body().parts).collect());
        self.client_move("create", &body)
    }

    /// `resume`: the client answers the await request with `message` (`POST /runs/{run_id}`).
    ///
    /// # Errors
    /// [`RunError::MoveNotAllowed`] unless the run is `awaiting`, naming the state and the moves
    /// allowed there (nothing changes then).
    pub fn resume(&mut self, message: &Message) -> Result<(), RunError> {
        self.client_move("resume", &message.body())
    }

    /// `cancel`: the client asks to cancel (`POST /runs/{run_id}/cancel`); the lifecycle goes to
    /// `cancelling` until the server's `run.cancelled` (or another ending).
    ///
    /// # Errors
    /// [`RunError::MoveNotAllowed`] unless the run is `created`, `in-progress` or `awaiting`.
    pub fn cancel(&mut self) -> Result<(), RunError> {
        self.client_move("cancel", &Body::default())
    }

    /// Whether the client may send `message_type` with `body` now (without sending it).
    ///
    /// # Errors
    /// As [`crate::run::Run::check`].
    pub fn check_client(&self, message_type: &str, body: &Body) -> Result<(), RunError> {
        self.lifecycle
            .check(Party::Client, message_type, body)
            .map(|_| ())
    }

    fn client_move(&mut self, message_type: &str, body: &Body) -> Result<(), RunError> {
        let from = self.lifecycle.state().to_owned();
        self.lifecycle.apply(Party::Client, message_type, body)?;
        self.moved(from, Party::Client, message_type);
        Ok(())
    }

    /// Decodes and applies the next chunk of an SSE answer (`POST /runs` or a resume in `stream`
    /// mode). The bytes of every answer count against the options' [`Limits::max_stream_bytes`]:
    /// past it the stream ends there (`stream-too-large`, the run `incomplete`, as
    /// [`AcpStream`](super::AcpStream) ends), and later bytes are ignored.
    ///
    /// [`Limits::max_stream_bytes`]: crate::limits::Limits::max_stream_bytes
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.ended_early() {
            return;
        }
        let limit = self.assembler.options().limits.max_stream_bytes;
        let (bytes, over) = crate::limits::admit_bytes(&mut self.bytes, limit, bytes);
        let mut sse = std::mem::take(&mut self.sse);
        sse.feed_dyn(bytes, &mut |item| self.on_item(item));
        self.sse = sse;
        if let (true, Some(limit), None) = (over, limit, &self.violation) {
            self.assembler.stream_too_large(limit);
        }
    }

    /// Reports that a poll of an `async` run's `GET /runs/{run_id}/events` listed `got` events
    /// where earlier polls listed `seen` (more): an issue `event-list-shrank`
    /// ([`AcpError::EventListShrank`](super::AcpError::EventListShrank)), a warning, or in strict
    /// mode an error that ends the run (`incomplete`). A poller calls it once per shrink, and
    /// goes on applying only the events past the `seen` first (`AcpClient` does).
    pub fn event_list_shrank(&mut self, seen: usize, got: usize) {
        if self.violation.is_none() {
            self.assembler.event_list_shrank(seen, got);
        }
    }

    /// Ends the current SSE answer: a run that reached neither a terminal status nor `awaiting` is
    /// marked `incomplete` (see [`Assembler::finish`]). The decoder is reset for the next answer.
    pub fn finish(&mut self) {
        let mut sse = std::mem::take(&mut self.sse);
        sse.finish(&mut |item| self.on_item(item));
        self.sse = sse;
        self.assembler.finish();
    }

    fn on_item(&mut self, item: SseItem<'_>) {
        match item {
            SseItem::Event(e) => self.push_data(e.data),
            SseItem::Retry(_) => {}
            // Nothing is reported once the stream ended early (the event a limit cut, say).
            SseItem::Error(e) => {
                if !self.ended_early() {
                    self.assembler.push_issue(Severity::Warning, e.into());
                }
            }
        }
    }

    /// Applies one SSE `data` payload: malformed data becomes a warning issue of the assembler.
    /// Ignored once the stream ended early (an inbound violation, or the assembler's strict mode
    /// or stream limit): the lifecycle does not move after the `done` update.
    pub fn push_data(&mut self, data: &str) {
        if self.ended_early() {
            return;
        }
        match AcpEvent::parse(data) {
            Ok(event) => self.push_event_in(event, data, &[]),
            Err(e) => self.assembler.push_issue(Severity::Warning, e),
        }
    }

    /// Whether the stream ended early: an inbound violation of a strict session, or the
    /// assembler stopped (its strict mode, [`Limits::max_stream_bytes`](crate::limits::Limits)).
    fn ended_early(&self) -> bool {
        self.violation.is_some() || self.assembler.is_stopped()
    }

    /// Applies one event (from a stream, or from the list of `GET /runs/{run_id}/events`): the
    /// lifecycle's inbound check, then the assembler. Events of a type this version does not know
    /// are left to the assembler (which reports them) and not checked.
    ///
    /// A parsed event no longer tells how its strings were written, so a surrogate pair a
    /// JavaScript server cut between two `message.part` events stays two U+FFFD here;
    /// [`feed`](Self::feed) and [`push_data`](Self::push_data) join it (see
    /// [`Assembler::push_data`]).
    pub fn push_event(&mut self, event: AcpEvent) {
        self.push_event_in(event, "", &[]);
    }

    /// [`push_event`](Self::push_event) of an event read from `json`, where `path` leads to it (see
    /// [`Assembler::push_event_in`]).
    pub(crate) fn push_event_in(&mut self, event: AcpEvent, json: &str, path: &[Step<'_>]) {
        if self.ended_early() {
            return;
        }
        if !matches!(event, AcpEvent::Unknown(_)) {
            let (_, message_type, body) = builtin::acp_event_move(&event);
            if !self.server_move(&message_type, &body) {
                return;
            }
        }
        self.assembler.push_event_in(event, json, path);
    }

    /// Applies a [`Run`] the server answered with (a `sync` run or resume, `GET /runs/{run_id}`):
    /// the lifecycle takes the shortest path of server `run.*` moves from its state to the run's
    /// status (none if it is there already; an inbound problem if there is no such path), and the
    /// assembled run becomes the server's (its messages are announced again as
    /// [`Update::Message`]s).
    pub fn push_run(&mut self, run: Run) {
        if self.violation.is_some() {
            return;
        }
        let status = run.status.as_str().to_owned();
        if status != self.lifecycle.state() {
            match self.path_to(&status) {
                Some(path) => {
                    for message_type in path {
                        if !self.server_move(&message_type, &Body::default()) {
                            return;
                        }
                    }
                }
                None => {
                    let error = RunError::MoveNotAllowed {
                        state: self.lifecycle.state().to_owned(),
                        party: Party::Server,
                        message_type: format!("run.{status}"),
                        terminal: self.lifecycle.is_terminal(),
                        allowed: self
                            .lifecycle
                            .allowed_moves()
                            .iter()
                            .map(Transition::as_move)
                            .collect(),
                    };
                    if !self.refused(error) {
                        return;
                    }
                }
            }
        }
        self.flush();
        let mut fresh = Assembler::new(self.options.acp);
        fresh.push_event(snapshot_event(run));
        self.assembler = fresh;
    }

    /// The message types of the shortest path of server `run.*` moves from the lifecycle's state
    /// to `target`.
    fn path_to(&self, target: &str) -> Option<Vec<String>> {
        let schema = self.lifecycle.schema();
        let start = self.lifecycle.state();
        // Each state reached, with the index in `steps` of the move (from, message type) that
        // first reached it (`usize::MAX` for the start): one map, of a type the module compiles
        // for other maps already.
        let mut reached: BTreeMap<String, usize> = BTreeMap::new();
        reached.insert(start.to_owned(), usize::MAX);
        let mut steps: Vec<(&str, &str)> = Vec::new();
        let mut queue = VecDeque::from([start]);
        while let Some(state) = queue.pop_front() {
            if state == target {
                let mut path = Vec::new();
                let mut at = state;
                while let Some(&(from, message_type)) = reached.get(at).and_then(|&i| steps.get(i))
                {
                    path.push(message_type.to_owned());
                    at = from;
                }
                path.reverse();
                return Some(path);
            }
            for t in schema.transitions(state).unwrap_or(&[]) {
                let next = t.next_state.as_str();
                if t.party == Party::Server
                    && t.message_type.starts_with("run.")
                    && !reached.contains_key(next)
                {
                    reached.insert(next.to_owned(), steps.len());
                    steps.push((state, t.message_type.as_str()));
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// The inbound check of one server message; whether to go on with it.
    fn server_move(&mut self, message_type: &str, body: &Body) -> bool {
        let from = self.lifecycle.state().to_owned();
        let result = match self.options.inbound {
            Inbound::Strict => self
                .lifecycle
                .apply(Party::Server, message_type, body)
                .map(|_| None),
            Inbound::Lenient => self
                .lifecycle
                .apply_lenient(Party::Server, message_type, body),
        };
        match result {
            Ok(warning) => {
                if let Some(w) = warning {
                    self.issue(Severity::Warning, Arc::new(w));
                }
                self.moved(from, Party::Server, message_type);
                true
            }
            Err(e) => self.refused(e),
        }
    }

    /// A refused server move: a warning (go on) or, in a strict session, the violation (stop).
    fn refused(&mut self, error: RunError) -> bool {
        match self.options.inbound {
            Inbound::Lenient => {
                self.issue(Severity::Warning, Arc::new(error));
                true
            }
            Inbound::Strict => {
                let error = Arc::new(error);
                self.issue(Severity::Error, Arc::clone(&error));
                self.violation = Some(error);
                false
            }
        }
    }

    fn moved(&mut self, from: String, party: Party, message_type: &str) {
        let to = self.lifecycle.state();
        if from == to {
            return;
        }
        let via = Move {
            party,
            message_type: message_type.to_owned(),
            next_state: to.to_owned(),
        };
        let to = to.to_owned();
        self.push(SessionUpdate::State { from, to, via });
    }

    fn issue(&mut self, severity: Severity, error: Arc<RunError>) {
        self.push(SessionUpdate::Issue {
            severity,
            code: error.code().to_owned(),
            message: error.to_string(),
            details: error.details(),
            error,
        });
    }

    /// Records an update of the session after the assembler's pending ones.
    fn push(&mut self, update: SessionUpdate) {
        self.flush();
        self.updates.push(update);
    }

    /// Moves the assembler's pending updates into the session's list.
    fn flush(&mut self) {
        if self.assembler.has_updates() {
            let drained = self.assembler.drain_updates();
            self.updates
                .extend(drained.into_iter().map(|u| SessionUpdate::Acp(Box::new(u))));
        }
    }

    /// Whether updates are waiting to be drained.
    pub fn has_updates(&self) -> bool {
        !self.updates.is_empty() || self.assembler.has_updates()
    }

    /// Takes the updates recorded since the last drain, in order.
    pub fn drain_updates(&mut self) -> Vec<SessionUpdate> {
        self.flush();
        std::mem::take(&mut self.updates)
    }

    /// Appends the updates recorded since the last drain to `out` as a JSON array (the shape of
    /// `SessionUpdate[]`), and clears them. While the lifecycle has nothing to add this is the
    /// assembler's own [`drain_updates_json`](Assembler::drain_updates_json), which writes text
    /// deltas straight from the assembled run.
    pub fn drain_updates_json(&mut self, out: &mut String) {
        if self.updates.is_empty() {
            return self.assembler.drain_updates_json(out);
        }
        out.push('[');
        for (i, u) in self.updates.drain(..).enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(&u).unwrap_or_else(|_| "null".to_owned()));
        }
        // The assembler's `[a,b]`, appended as `,a,b`.
        let start = out.len();
        self.assembler.drain_updates_json(out);
        if out.len() <= start + 2 {
            out.truncate(start);
        } else {
            out.replace_range(start..start + 1, ",");
            out.pop();
        }
        out.push(']');
    }
}

/// The event a [`Run`] read from the server stands for, by its status.
fn snapshot_event(run: Run) -> AcpEvent {
    let extra = JsonMap::new();
    match run.status {
        RunStatus::Created => AcpEvent::RunCreated { run, extra },
        RunStatus::Awaiting => AcpEvent::RunAwaiting { run, extra },
        RunStatus::Completed => AcpEvent::RunCompleted { run, extra },
        RunStatus::Failed => AcpEvent::RunFailed { run, extra },
        RunStatus::Cancelled => AcpEvent::RunCancelled { run, extra },
        _ => AcpEvent::RunInProgress { run, extra },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_updates_splice_lifecycle_and_assembler_updates_in_order() {
        let mut s = AcpSession::new(SessionOptions::default());
        s.create(&RunCreateRequest::new(
            "a",
            vec![Message::user_text("x")],
            super::super::RunMode::Stream,
        ))
        .unwrap();
        s.feed(b"data: {\"type\":\"run.created\",\"run\":{\"run_id\":\"r\",\"status\":\"created\"}}\n\ndata: {\"type\":\"run.in-progress\",\"run\":{\"run_id\":\"r\",\"status\":\"in-progress\"}}\n\n");
        let mut json = String::new();
        s.clone().drain_updates_json(&mut json);
        let parsed: serde_json::Value = serde_json::from_str(&json).unwrap();
        let types: Vec<&str> = parsed
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["type"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["state", "run", "state", "run"]);
        let materialized = serde_json::to_value(s.drain_updates()).unwrap();
        assert_eq!(parsed, materialized);
        // Nothing pending: an empty array.
        let mut json = String::new();
        s.drain_updates_json(&mut json);
        assert_eq!(json, "[]");
    }

    #[test]
    fn a_surrogate_pair_cut_between_two_polled_message_parts_is_joined() {
        // `GET /runs/{run_id}/events` of a JavaScript server that cut a pair between two parts:
        // the halves are found in the list's text (`events`, i, `part`, `content`).
        let list = r#"{"events": [
            {"type": "run.created", "run": {"run_id": "r", "status": "created"}},
            {"type": "run.in-progress", "run": {"run_id": "r", "status": "in-progress"}},
            {"type": "message.created", "message": {"role": "agent/a", "parts": []}},
            {"type": "message.part", "part": {"content": "a\ud83d"}},
            {"type": "message.part", "part": {"content": "\ude00b"}}
        ]}"#;
        let events = super::super::decode_events(list).unwrap();
        let mut joined = AcpSession::new(SessionOptions::default());
        let mut apart = AcpSession::new(SessionOptions::default());
        for (i, e) in events.into_iter().enumerate() {
            let path = [Step::Member("events"), Step::Element(i)];
            joined.push_event_in(e.clone(), list, &path);
            apart.push_event(e);
        }
        assert_eq!(joined.run().output[0].text(), "a😀b");
        assert_eq!(apart.run().output[0].text(), "a\u{fffd}\u{fffd}b");
    }
}
