//! Folding ACP events into a live run.

pub use crate::error::Severity;
use serde::Serialize;

use super::event::{AcpEvent, RawEvent, RawPart};
use super::model::{
    compress_parts, AwaitRequest, ErrorInfo, Message, MessagePart, PartMetadata, Role, Run,
    RunStatus,
};
use super::AcpError;
use crate::body::ContentEncoding;
use crate::error::ErrorCode;
use crate::sse::{SseDecoder, SseItem, SseOptions};
use crate::wire::JsonMap;

/// Options of [`Assembler`] and [`AcpStream`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpOptions {
    /// Join adjacent joinable text parts (unnamed `text/plain`, plain inline content, no metadata;
    /// see [`MessagePart::is_joinable_text`]) into one part, as ACP clients show a streamed
    /// message. This is acp-sdk's `Message.compress()` (`acp_sdk/models/models.py`), applied as the
    /// parts arrive: an agent that yields `"Echo: "`, `"hello"`, `" world"` produces one part
    /// `"Echo: hello world"`. Default `true`. With `false`, the output keeps the server's part
    /// boundaries and equals its final `run.output` exactly.
    pub join_text: bool,
    /// Batched delivery: within one [`AcpStream::feed`] (one network chunk), consecutive text
    /// appended to the same part is merged into one [`Update::TextDelta`]. Default `false`.
    pub coalesce: bool,
    /// Options of the SSE decoder ([`AcpStream`] only).
    pub sse: SseOptions,
}

impl Default for AcpOptions {
    fn default() -> Self {
        Self {
            join_text: true,
            coalesce: false,
            sse: SseOptions::default(),
        }
    }
}

/// A change to the assembled run, in stream order (JSON: `{"type": "textDelta", …}`, camelCase).
///
/// Updates never repeat accumulated text: a text delta carries only the new text, a new part is
/// sent once (as it was when it arrived), and a whole message is sent only when its own event
/// arrives (created, completed, replaced), so delivering a stream is linear in its size. Indices
/// are 0-based positions in the run's `output` and in a message's `parts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Acp")
)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Update {
    /// The run changed (a `run.*` event: id, status, await request, error, timestamps). Its
    /// `output` is empty here: messages arrive as their own updates, and [`Update::Done`] has
    /// the whole run.
    Run {
        /// The run without its output.
        run: Run,
    },
    /// A message appeared (`message.created`, or a message first seen in a run's `output`), or was
    /// replaced by the server's version: the whole message.
    Message {
        /// Its position in the run's `output`.
        index: usize,
        /// The message.
        message: Message,
    },
    /// A part was appended to a message.
    Part {
        /// The message's position in the run's `output`.
        message_index: usize,
        /// The part's position in the message's `parts`.
        part_index: usize,
        /// The part as it arrived.
        part: MessagePart,
    },
    /// Text appended to a text part (a streamed chunk joined to the previous one).
    TextDelta {
        /// The message's position in the run's `output`.
        message_index: usize,
        /// The part's position in the message's `parts`.
        part_index: usize,
        /// The appended text.
        delta: String,
    },
    /// A message completed (`message.completed`): the whole message, as assembled.
    MessageCompleted {
        /// Its position in the run's `output`.
        index: usize,
        /// The message.
        message: Message,
    },
    /// The run waits for the client (`run.awaiting`): answer with a
    /// [`RunResumeRequest`](super::RunResumeRequest) to `POST /runs/{run_id}`, and feed the new
    /// stream to the same [`AcpStream`].
    Awaiting {
        /// What the agent asks for.
        await_request: AwaitRequest,
    },
    /// A `generic` event's payload (also kept: [`Assembler::generic_events`]).
    Generic {
        /// The payload as sent.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        generic: serde_json::Value,
    },
    /// A problem: malformed input (skipped and kept here), an unknown event, an agent error, a
    /// stream that broke.
    Issue {
        /// Warning (tolerated) or error.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Severity"))]
        severity: Severity,
        /// The error's stable code (see [`AcpError`]).
        code: String,
        /// A readable message.
        message: String,
        /// Structured details, including the offending input.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        details: serde_json::Value,
        /// The typed error (Rust only).
        #[serde(skip)]
        #[cfg_attr(target_arch = "wasm32", tsify(skip))]
        error: Box<AcpError>,
    },
    /// This stream is over: the run reached a terminal status or `awaiting`, or the stream ended
    /// (then the run is `incomplete`). The whole run.
    Done {
        /// The assembled run.
        run: Run,
    },
}

impl Update {
    fn issue(severity: Severity, error: AcpError) -> Self {
        Update::Issue {
            severity,
            code: error.code().to_owned(),
            message: error.to_string(),
            details: error.details(),
            error: Box::new(error),
        }
    }
}

/// A pending update: owned, or a reference into the assembled run (so a chunk's text is neither
/// copied nor allocated until it is delivered).
#[derive(Debug, Clone)]
enum Pending {
    Owned(Box<Update>),
    /// `content[start..end]` of part `part` of message `msg`.
    Text {
        msg: usize,
        part: usize,
        start: usize,
        end: usize,
    },
    /// Part `part` of message `msg`, with its content as it was (`len` bytes) when it arrived.
    Part {
        msg: usize,
        part: usize,
        len: usize,
    },
}

impl Pending {
    fn owned(update: Update) -> Self {
        Pending::Owned(Box::new(update))
    }
}

/// Folds ACP events into a [`Run`], and records an [`Update`] for each change.
///
/// Rules (acp-sdk 1.0.3's server, `acp_sdk/server/executor.py`, and what its streams show; see
/// `shared/fixtures/acp-sdk`):
/// - `run.*` events set the run's fields. Their `output` is the server's snapshot: a message not
///   yet seen is adopted, one that differs from what the stream assembled is replaced (warning
///   [`AcpError::MessageMismatch`]), and a streamed message missing from a final `output` is kept
///   (warning [`AcpError::MessageMissingFromOutput`]).
/// - `message.created` opens a message; `message.part` appends to the open message (joining text
///   chunks, see [`AcpOptions::join_text`]); `message.completed` completes it, reconciled with the
///   server's parts. A message the agent yields whole arrives as `message.created` *with* its parts,
///   then one `message.part` per part repeating them: those repeats are recognized and not added
///   twice.
/// - `run.awaiting` records [`Update::Awaiting`] and ends the stream (the server closes it); a
///   later `run.in-progress` (the resumed stream) continues the same run and the same open message.
/// - `run.failed` keeps the partial output and the error (an [`AcpError::Server`] issue); an
///   `error` event fails the run the same way.
/// - `generic` events are kept in order ([`generic_events`](Self::generic_events)).
/// - Malformed events and unknown event types are skipped, reported as warnings with their data,
///   and never stop the stream. At [`finish`](Self::finish), a run that reached neither a terminal
///   status nor `awaiting` is marked `incomplete` ([`AcpError::StreamIncomplete`]) with everything
///   received kept.
#[derive(Debug, Clone, Default)]
pub struct Assembler {
    options: AcpOptions,
    run: Run,
    /// The last message of the output is open: parts go to it.
    open: bool,
    /// Parts of the open message's `message.created` that `message.part` events will repeat.
    echo: Vec<MessagePart>,
    echo_pos: usize,
    generic: Vec<serde_json::Value>,
    pending: Vec<Pending>,
    done: bool,
    events: u64,
}

impl Assembler {
    /// An empty assembler.
    pub fn new(options: AcpOptions) -> Self {
        Self {
            options,
            ..Self::default()
        }
    }

    /// The options.
    pub fn options(&self) -> &AcpOptions {
        &self.options
    }

    /// The run as assembled so far.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// Takes the assembled run, leaving an empty one. Pending updates that refer to it are
    /// materialized first.
    pub fn take_run(&mut self) -> Run {
        for m in 0..self.run.output.len() {
            self.materialize(m);
        }
        self.open = false;
        self.echo.clear();
        std::mem::take(&mut self.run)
    }

    /// The payloads of the `generic` events received, in order.
    pub fn generic_events(&self) -> &[serde_json::Value] {
        &self.generic
    }

    /// Whether this stream is over: a terminal status, `awaiting`, or [`finish`](Self::finish).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// What the agent waits for, while the run is `awaiting`.
    pub fn await_request(&self) -> Option<&AwaitRequest> {
        self.run.awaiting()
    }

    /// Whether a message is open (its parts still streaming).
    pub fn has_open_message(&self) -> bool {
        self.open
    }

    /// Events applied so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Whether updates are waiting to be drained.
    pub fn has_updates(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Applies one SSE `data` payload. Malformed data becomes an [`Update::Issue`] warning.
    pub fn push_data(&mut self, data: &str) {
        let mut raw = match RawEvent::parse(data) {
            Ok(raw) => raw,
            Err(e) => return self.warn(e),
        };
        if raw.kind() == "message.part" {
            if let Some(part) = raw.part.take() {
                self.events += 1;
                return self.apply_part(part);
            }
        }
        match raw.into_event() {
            Ok(event) => self.push_event(event),
            Err(reason) => self.warn(AcpError::InvalidEvent {
                reason,
                data: data.to_owned(),
            }),
        }
    }

    /// Applies one parsed event (e.g. from the `events` list of `GET /runs/{run_id}/events`).
    pub fn push_event(&mut self, event: AcpEvent) {
        self.events += 1;
        match event {
            AcpEvent::RunCreated { run, .. } | AcpEvent::RunInProgress { run, .. } => {
                self.apply_run(run, RunEvent::Progress)
            }
            AcpEvent::RunAwaiting { run, .. } => self.apply_run(run, RunEvent::Awaiting),
            AcpEvent::RunCompleted { run, .. } | AcpEvent::RunCancelled { run, .. } => {
                self.apply_run(run, RunEvent::Finished)
            }
            AcpEvent::RunFailed { run, .. } => self.apply_run(run, RunEvent::Failed),
            AcpEvent::MessageCreated { message, .. } => self.apply_message_created(message),
            AcpEvent::MessagePart { part, .. } => self.apply_part(RawPart::from_part(part)),
            AcpEvent::MessageCompleted { message, .. } => self.apply_message_completed(message),
            AcpEvent::Generic { generic, .. } => {
                self.generic.push(generic.clone());
                self.pending
                    .push(Pending::owned(Update::Generic { generic }));
            }
            AcpEvent::Error { error, .. } => {
                self.run.error = Some(error.clone());
                if !self.run.status.is_terminal() {
                    self.run.status = RunStatus::Failed;
                }
                self.push_issue(Severity::Error, AcpError::Server { error });
                self.end();
            }
            AcpEvent::Unknown(event) => {
                let event_type = event
                    .get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .to_owned();
                self.warn(AcpError::UnknownEvent { event_type, event });
            }
        }
    }

    /// Reports an error of the transport or SSE layer as an issue of this stream.
    pub fn push_issue(&mut self, severity: Severity, error: AcpError) {
        self.pending
            .push(Pending::owned(Update::issue(severity, error)));
    }

    fn warn(&mut self, error: AcpError) {
        self.push_issue(Severity::Warning, error);
    }

    fn apply_run(&mut self, incoming: Run, event: RunEvent) {
        let Run {
            run_id,
            agent_name,
            session_id,
            status,
            await_request,
            output,
            error,
            created_at,
            finished_at,
            extra,
        } = incoming;
        let r = &mut self.run;
        if !run_id.is_empty() {
            r.run_id = run_id;
        }
        if !agent_name.is_empty() {
            r.agent_name = agent_name;
        }
        replace_opt(&mut r.session_id, session_id);
        r.status = status;
        replace_opt(&mut r.await_request, await_request);
        replace_opt(&mut r.error, error);
        replace_opt(&mut r.created_at, created_at);
        replace_opt(&mut r.finished_at, finished_at);
        r.extra.extend(extra);
        let listed = output.len();
        let known = self.run.output.len();
        for (index, message) in output.into_iter().enumerate() {
            let theirs = self.expected(message);
            match self.run.output.get(index) {
                Some(ours) if *ours == theirs => {}
                Some(ours) if ours.parts == theirs.parts => {
                    // Same parts, other fields differ: acp-sdk's server emits a message the agent
                    // yields whole with the agent's role (`user` by default) but records it in the
                    // run's output as `agent/<name>`. The server's version is taken, silently.
                    self.run.output[index] = theirs;
                    self.push_message_update(index);
                }
                Some(_) => {
                    self.materialize(index);
                    let assembled = std::mem::replace(&mut self.run.output[index], theirs);
                    self.warn(AcpError::MessageMismatch {
                        index,
                        assembled: Box::new(assembled),
                    });
                    self.push_message_update(index);
                }
                None => {
                    self.run.output.push(theirs);
                    self.push_message_update(index);
                }
            }
        }
        if listed > known {
            // Adopted messages: the last one is open if the server has not completed it.
            self.open = self
                .run
                .output
                .last()
                .is_some_and(|m| m.completed_at.is_none());
            self.echo.clear();
        }
        if event != RunEvent::Progress {
            for index in listed..self.run.output.len() {
                self.warn(AcpError::MessageMissingFromOutput { index });
            }
        }
        self.pending.push(Pending::owned(Update::Run {
            run: self.run.envelope(),
        }));
        match event {
            RunEvent::Progress => self.done = false,
            RunEvent::Awaiting => {
                if let Some(await_request) = self.run.await_request.clone() {
                    self.pending
                        .push(Pending::owned(Update::Awaiting { await_request }));
                }
                self.end();
            }
            RunEvent::Finished => self.end(),
            RunEvent::Failed => {
                let error = self.run.error.clone().unwrap_or_else(|| ErrorInfo {
                    message: "the run failed".to_owned(),
                    ..ErrorInfo::default()
                });
                self.push_issue(Severity::Error, AcpError::Server { error });
                self.end();
            }
        }
    }

    /// A message as the assembler would have built it (text chunks joined, if so configured).
    fn expected(&self, message: Message) -> Message {
        if self.options.join_text {
            message.compressed()
        } else {
            message
        }
    }

    fn apply_message_created(&mut self, mut message: Message) {
        self.echo = message.parts.clone();
        self.echo_pos = 0;
        if self.options.join_text {
            message.parts = compress_parts(std::mem::take(&mut message.parts));
        }
        self.run.output.push(message);
        self.open = true;
        self.push_message_update(self.run.output.len() - 1);
    }

    fn apply_part(&mut self, part: RawPart<'_>) {
        let part = if let Some(expected) = self.echo.get(self.echo_pos) {
            let owned = part.into_part();
            if *expected == owned {
                self.echo_pos += 1;
                return; // a repeat of a part its message.created already carried
            }
            self.echo.clear();
            self.echo_pos = 0;
            RawPart::from_part(owned)
        } else {
            part
        };
        if !self.open || self.run.output.is_empty() {
            let owned = part.into_part();
            self.warn(AcpError::PartWithoutMessage {
                part: Box::new(owned.clone()),
            });
            let agent = self.run.agent_name.as_str();
            let role = Role::agent((!agent.is_empty()).then_some(agent));
            self.run.output.push(Message::new(role, Vec::new()));
            self.open = true;
            self.push_message_update(self.run.output.len() - 1);
            return self.push_part(RawPart::from_part(owned));
        }
        self.push_part(part);
    }

    /// Appends a part to the open (last) message, joining text when configured.
    fn push_part(&mut self, part: RawPart<'_>) {
        let m = self.run.output.len().saturating_sub(1);
        let join = self.options.join_text;
        let Some(message) = self.run.output.get_mut(m) else {
            return;
        };
        if join {
            if let Some(text) = part.joinable_text() {
                let p = message.parts.len().saturating_sub(1);
                if let Some(last) = message.parts.get_mut(p) {
                    if last.is_joinable_text() {
                        let buf = last.content.get_or_insert_with(String::new);
                        let start = buf.len();
                        buf.push_str(text);
                        let end = buf.len();
                        if end > start {
                            self.push_text(m, p, start, end);
                        }
                        return;
                    }
                }
            }
        }
        let part = part.into_part();
        let len = part.content.as_ref().map_or(0, String::len);
        message.parts.push(part);
        let p = message.parts.len() - 1;
        self.pending.push(Pending::Part {
            msg: m,
            part: p,
            len,
        });
    }

    fn push_text(&mut self, msg: usize, part: usize, start: usize, end: usize) {
        if self.options.coalesce {
            if let Some(Pending::Text {
                msg: pm,
                part: pp,
                end: e,
                ..
            }) = self.pending.last_mut()
            {
                if *pm == msg && *pp == part && *e == start {
                    *e = end;
                    return;
                }
            }
        }
        self.pending.push(Pending::Text {
            msg,
            part,
            start,
            end,
        });
    }

    fn apply_message_completed(&mut self, message: Message) {
        self.echo.clear();
        self.echo_pos = 0;
        let theirs = self.expected(message);
        let index = match self.run.output.len().checked_sub(1) {
            Some(last) if self.open => {
                if self.run.output[last].parts != theirs.parts {
                    self.materialize(last);
                    let assembled = self.run.output[last].clone();
                    self.warn(AcpError::MessageMismatch {
                        index: last,
                        assembled: Box::new(assembled),
                    });
                    self.run.output[last] = theirs;
                } else {
                    let Message {
                        role,
                        created_at,
                        completed_at,
                        extra,
                        parts: _,
                    } = theirs;
                    let ours = &mut self.run.output[last];
                    ours.role = role;
                    replace_opt(&mut ours.created_at, created_at);
                    ours.completed_at = completed_at;
                    ours.extra.extend(extra);
                }
                last
            }
            _ => {
                self.run.output.push(theirs);
                self.run.output.len() - 1
            }
        };
        self.open = false;
        self.pending.push(Pending::owned(Update::MessageCompleted {
            index,
            message: self.run.output[index].clone(),
        }));
    }

    fn push_message_update(&mut self, index: usize) {
        if let Some(message) = self.run.output.get(index) {
            self.pending.push(Pending::owned(Update::Message {
                index,
                message: message.clone(),
            }));
        }
    }

    /// Copies out pending references into message `msg`, which is about to be replaced.
    fn materialize(&mut self, msg: usize) {
        for i in 0..self.pending.len() {
            let refers = match self.pending[i] {
                Pending::Text { msg: m, .. } | Pending::Part { msg: m, .. } => m == msg,
                Pending::Owned(_) => false,
            };
            if refers {
                let update = self.materialized(&self.pending[i]);
                self.pending[i] = Pending::Owned(Box::new(update));
            }
        }
    }

    fn materialized(&self, p: &Pending) -> Update {
        match p {
            Pending::Owned(u) => (**u).clone(),
            Pending::Text {
                msg,
                part,
                start,
                end,
            } => Update::TextDelta {
                message_index: *msg,
                part_index: *part,
                delta: self
                    .part_at(*msg, *part)
                    .and_then(|p| p.content.as_deref())
                    .and_then(|c| c.get(*start..*end))
                    .unwrap_or("")
                    .to_owned(),
            },
            Pending::Part { msg, part, len } => {
                let mut owned = self.part_at(*msg, *part).cloned().unwrap_or_default();
                if let Some(c) = &mut owned.content {
                    if *len < c.len() && c.is_char_boundary(*len) {
                        c.truncate(*len);
                    }
                }
                Update::Part {
                    message_index: *msg,
                    part_index: *part,
                    part: owned,
                }
            }
        }
    }

    fn part_at(&self, msg: usize, part: usize) -> Option<&MessagePart> {
        self.run.output.get(msg)?.parts.get(part)
    }

    /// Records [`Update::Done`] (once per stream).
    fn end(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        self.echo.clear();
        self.pending.push(Pending::owned(Update::Done {
            run: self.run.clone(),
        }));
    }

    /// Ends the stream: a run that reached neither a terminal status nor `awaiting` is marked
    /// `incomplete` (with an [`AcpError::StreamIncomplete`] error) and everything received is kept.
    /// After `awaiting`, nothing happens: the resumed stream continues the run.
    pub fn finish(&mut self) {
        if self.done {
            return;
        }
        let last_status = std::mem::replace(&mut self.run.status, RunStatus::Incomplete);
        self.push_issue(Severity::Error, AcpError::StreamIncomplete { last_status });
        self.end();
    }

    /// Takes the updates recorded since the last drain, in order.
    pub fn drain_updates(&mut self) -> Vec<Update> {
        let pending = std::mem::take(&mut self.pending);
        pending
            .into_iter()
            .map(|p| match p {
                Pending::Owned(u) => *u,
                other => self.materialized(&other),
            })
            .collect()
    }

    /// Appends the updates recorded since the last drain to `out` as a JSON array (the shape of
    /// `Update[]`), without materializing them, and clears them.
    pub fn drain_updates_json(&mut self, out: &mut String) {
        out.push('[');
        for (i, p) in self.pending.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let written = match p {
                Pending::Owned(u) => serde_json::to_string(u),
                Pending::Text {
                    msg,
                    part,
                    start,
                    end,
                } => serde_json::to_string(&TextDeltaRef {
                    kind: "textDelta",
                    message_index: *msg,
                    part_index: *part,
                    delta: self
                        .part_at(*msg, *part)
                        .and_then(|p| p.content.as_deref())
                        .and_then(|c| c.get(*start..*end))
                        .unwrap_or(""),
                }),
                Pending::Part { msg, part, len } => {
                    let fallback = MessagePart::default();
                    let p = self.part_at(*msg, *part).unwrap_or(&fallback);
                    serde_json::to_string(&PartUpdateRef {
                        kind: "part",
                        message_index: *msg,
                        part_index: *part,
                        part: PartRef {
                            name: p.name.as_deref(),
                            content_type: p.content_type.as_deref(),
                            content: p.content.as_deref().map(|c| c.get(..*len).unwrap_or(c)),
                            content_encoding: p.content_encoding.as_ref(),
                            content_url: p.content_url.as_deref(),
                            metadata: p.metadata.as_ref(),
                            extra: &p.extra,
                        },
                    })
                }
            };
            out.push_str(&written.unwrap_or_else(|_| "null".to_owned()));
        }
        out.push(']');
        self.pending.clear();
    }
}

/// What a `run.*` event means for the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunEvent {
    /// `run.created`, `run.in-progress`.
    Progress,
    /// `run.awaiting`.
    Awaiting,
    /// `run.completed`, `run.cancelled`.
    Finished,
    /// `run.failed`.
    Failed,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextDeltaRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_index: usize,
    part_index: usize,
    delta: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartUpdateRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_index: usize,
    part_index: usize,
    part: PartRef<'a>,
}

/// A [`MessagePart`] serialized from borrowed fields (same field names and order).
#[derive(Serialize)]
struct PartRef<'a> {
    name: Option<&'a str>,
    content_type: Option<&'a str>,
    content: Option<&'a str>,
    content_encoding: Option<&'a ContentEncoding>,
    content_url: Option<&'a str>,
    metadata: Option<&'a PartMetadata>,
    #[serde(flatten)]
    extra: &'a JsonMap,
}

fn replace_opt<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

/// SSE decoding and assembly in one: bytes of an ACP `text/event-stream` in, updates and the
/// assembled run out. This is what the JavaScript client runs on every network chunk.
///
/// Feed every HTTP response of one run to the same `AcpStream`, calling
/// [`finish`](Self::finish) at the end of each: after `run.awaiting`, the stream of
/// `POST /runs/{run_id}` (the resume) continues the same run.
#[derive(Debug, Clone, Default)]
pub struct AcpStream {
    sse: SseDecoder,
    assembler: Assembler,
}

impl AcpStream {
    /// A new stream.
    pub fn new(options: AcpOptions) -> Self {
        Self {
            sse: SseDecoder::with_options(options.sse),
            assembler: Assembler::new(options),
        }
    }

    /// Decodes and applies the next chunk of bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        let assembler = &mut self.assembler;
        self.sse
            .feed(bytes, &mut |item| Self::on_item(assembler, item));
    }

    fn on_item(assembler: &mut Assembler, item: SseItem<'_>) {
        match item {
            SseItem::Event(e) => assembler.push_data(e.data),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => assembler.push_issue(Severity::Warning, e.into()),
        }
    }

    /// Ends the current HTTP response's stream (see [`Assembler::finish`]). The decoder is reset,
    /// ready for the next response of the same run (a resume).
    pub fn finish(&mut self) {
        let assembler = &mut self.assembler;
        self.sse.finish(&mut |item| Self::on_item(assembler, item));
        self.assembler.finish();
    }

    /// The SSE decoder (last event id, retry).
    pub fn sse(&self) -> &SseDecoder {
        &self.sse
    }

    /// The assembler.
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// The assembler, mutably (to drain updates as JSON).
    pub fn assembler_mut(&mut self) -> &mut Assembler {
        &mut self.assembler
    }

    /// The run as assembled so far.
    pub fn run(&self) -> &Run {
        self.assembler.run()
    }

    /// What the agent waits for, while the run is `awaiting`.
    pub fn await_request(&self) -> Option<&AwaitRequest> {
        self.assembler.await_request()
    }

    /// Takes the updates recorded since the last drain.
    pub fn drain_updates(&mut self) -> Vec<Update> {
        self.assembler.drain_updates()
    }
}
