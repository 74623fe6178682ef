//! Folding ACP events into a live run.

pub use crate::error::Severity;
use serde::Serialize;

use super::event::{AcpEvent, RawEvent, RawPart};
use super::model::{
    compress_parts, AwaitRequest, ErrorInfo, Message, MessagePart, PartMetadata, Role, Run,
    RunStatus,
};
use super::AcpError;
use crate::body::{Body, ContentEncoding, PartStatus};
use crate::error::ErrorCode;
use crate::limits::{self, LimitError, Limits, MessageRef, MessageTally};
use crate::sse::{Admission, EventCursor, SseDecoder, SseEvent, SseItem, SseOptions};
use crate::wire::{CowStr, JsonMap};
use agentwire_core::json::{self, Step};
use std::borrow::Cow;

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
    /// Limits on what the stream may make the assembler hold (see [`crate::limits`]). A part's
    /// size is its `content` and `content_url`; joined text chunks are one part.
    pub limits: Limits,
    /// Strict mode (default `false`, lenient): input the protocol does not allow is an error
    /// that ends the stream instead of a warning. See [`Assembler`] for each case.
    pub strict: bool,
}

impl Default for AcpOptions {
    fn default() -> Self {
        Self {
            join_text: true,
            coalesce: false,
            sse: SseOptions::default(),
            limits: Limits::default(),
            strict: false,
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
/// - A surrogate pair a JavaScript server cut between two joined chunks (`"I \ud83d"`, then
///   `"\ude00 you"`: `JSON.stringify` escapes each lone half) is joined again: the high half is held
///   back until the next event, and appended as U+FFFD if that does not begin with the low half
///   (or the stream ends). Events given parsed ([`push_event`](Self::push_event)) no longer tell
///   it: each half reads as U+FFFD.
/// - Malformed events and unknown event types are skipped, reported as warnings with their data,
///   and (in lenient mode) never stop the stream. At [`finish`](Self::finish), a run that reached
///   neither a terminal status nor `awaiting` is marked `incomplete`
///   ([`AcpError::StreamIncomplete`]) with everything received kept.
///
/// # Lenient and strict mode
///
/// [`AcpOptions::strict`] decides what input the protocol does not allow does. Lenient (the
/// default) keeps going and reports a `warning`; strict reports an `error` and ends the stream:
/// the offending event is refused (unless the problem shows only while applying it), the run is
/// marked `incomplete` (unless it had already ended), an [`Update::Done`] follows, and later input
/// is ignored.
///
/// | input | code | lenient | strict |
/// |---|---|---|---|
/// | data that is not JSON, or JSON of the wrong shape | `invalid-json`, `invalid-event` | skipped, warning | error, ends |
/// | an unknown event `type` | `unknown-event` | skipped (kept in the issue), warning | error, ends |
/// | a `message.part` with no message open | `part-without-message` | a message is started for it, warning | refused, error, ends |
/// | a `message.created` while a message is open | `out-of-order` (`message-created-while-open`) | applied, warning | refused, error, ends |
/// | a `message.completed` with no message open | `out-of-order` (`completed-without-message`) | applied as a new message, warning | refused, error, ends |
/// | any event after `run.completed`, `run.failed`, `run.cancelled` or `error` | `out-of-order` (`event-after-end`) | applied, warning | refused, error, ends |
/// | a message the server sent whole that differs from the stream | `message-mismatch` | the server's version taken, warning | the same, error, ends after the event |
/// | a streamed message missing from the final `output` | `message-missing-from-output` | kept, warning | kept, error, ends after the event |
/// | a `run.*` event whose `run_id` is not the stream's | `run-id-changed` | applied (the new id taken), warning | refused, error, ends |
/// | an `async` run's polled event list shorter than an earlier poll's (reported by `AcpClient`) | `event-list-shrank` | the events applied kept, warning, polling goes on | error, ends |
/// | an SSE event over the size limit, a stream ending inside an event | `event-too-large`, `incomplete-event` | warning | error, ends |
/// | event data nested deeper than [`Limits::max_depth`] | `too-deep` | skipped, warning | error, ends |
/// | after a reconnect, an already applied event again after new ones | `duplicate-event` | skipped, warning | skipped, error, ends |
///
/// Limits ([`AcpOptions::limits`]) and lost events of a resumed stream (`resume-gap`) are errors in
/// both modes and do not end the stream (except `stream-too-large`). ACP messages and parts have
/// no status field: a part or message cut at a limit is reported (`details.messageIndex`,
/// `details.partIndex`), [`is_cut`](Self::is_cut) tells it, and [`body`](Self::body) marks it
/// `incomplete`. A message the server later sends whole does not replace a message cut at a
/// limit.
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
    /// How many times the stream came to an end (see [`Assembler::ends`]).
    ends: u32,
    events: u64,
    /// The run reached a terminal status (not `awaiting`): later events are out of order.
    ended: bool,
    /// Sizes and limits hit, per message position.
    tallies: Vec<MessageTally>,
    /// Which events were applied (for resuming).
    cursor: EventCursor,
    /// Strict mode found a violation in the current event: end the stream after it.
    halting: bool,
    /// The stream was ended by strict mode or a stream limit: input is ignored.
    stopped: bool,
    /// The run's status when the stream ended before the run did (marking it `incomplete`).
    status_before_end: Option<RunStatus>,
    /// The high half of a surrogate pair a joined text chunk ended with, held back for the next
    /// chunk's low half: (message, part, code unit). See [`Assembler::release_held`].
    held: Option<(usize, usize, u16)>,
}

impl Assembler {
    /// An empty assembler.
    pub fn new(options: AcpOptions) -> Self {
        Self {
            options,
            cursor: EventCursor::new(),
            ..Self::default()
        }
    }

    /// Whether the stream was stopped early (strict mode, [`Limits::max_stream_bytes`]). Later
    /// input is ignored.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// The run's last status before the stream ended it `incomplete` ([`Assembler::finish`]
    /// before a terminal status or `awaiting`, or an early stop): what the server last said, as
    /// the [`AcpError::StreamIncomplete`] issue's `last_status` gives it. `None` while the stream
    /// goes on, and when it ended with the run.
    pub fn status_before_end(&self) -> Option<&RunStatus> {
        self.status_before_end.as_ref()
    }

    /// A new connection continues this stream (see [`EventCursor::reconnect`]): events already
    /// applied are skipped from now on.
    pub fn reconnect(&mut self) {
        self.cursor.reconnect();
    }

    /// The resume cursor (which events were applied).
    pub fn cursor(&self) -> &EventCursor {
        &self.cursor
    }

    /// Whether message `message` (0-based position in the output) or, with `part`, that part of
    /// it, was cut at a limit.
    pub fn is_cut(&self, message: usize, part: Option<usize>) -> bool {
        self.tallies.get(message).is_some_and(|t| match part {
            None => t.capped,
            Some(p) => t.capped || t.part_capped(p),
        })
    }

    /// Message `index` as a [`Body`] ([`Message::body`]), with the parts cut at a limit marked
    /// `incomplete`. `None` if there is no such message.
    pub fn body(&self, index: usize) -> Option<Body> {
        let mut body = self.run.output.get(index)?.body();
        for (p, part) in body.parts.iter_mut().enumerate() {
            if self.is_cut(index, Some(p)) {
                part.status = PartStatus::Incomplete;
            }
        }
        Some(body)
    }

    /// Applies one SSE event, skipping it if a resumed stream already applied it.
    pub fn push_sse_event(&mut self, event: &SseEvent<'_>) {
        if self.stopped {
            return;
        }
        let admission = self.cursor.admit_event(event.id, event.has_id);
        let apply = match admission {
            None | Some(Admission::Apply) => true,
            Some(Admission::ApplyAfterGap(e)) => {
                self.push_issue(Severity::Error, e.into());
                true
            }
            Some(Admission::Replayed) => false,
            Some(Admission::Duplicate(e)) => {
                self.violation(e.into());
                self.end_event();
                false
            }
        };
        if apply {
            self.push_data(event.data);
        }
    }

    /// Reports a problem of the SSE layer: a warning in lenient mode, an error that ends the
    /// stream in strict mode.
    pub fn sse_issue(&mut self, error: crate::sse::SseError) {
        if !self.stopped {
            self.violation(error.into());
            self.end_event();
        }
    }

    /// Reports input the protocol does not allow: a warning in lenient mode; in strict mode an
    /// error, and the stream ends after the current event. Says whether to refuse the input.
    fn violation(&mut self, error: AcpError) -> bool {
        if self.options.strict {
            self.push_issue(Severity::Error, error);
            self.halting = true;
            true
        } else {
            self.warn(error);
            false
        }
    }

    /// After each event: ends the stream if strict mode found a violation.
    fn end_event(&mut self) {
        if self.halting {
            self.halting = false;
            self.stop();
        }
    }

    /// Ends the stream early: the run is marked `incomplete` (unless it had ended), later input is
    /// ignored.
    fn stop(&mut self) {
        self.stopped = true;
        if !self.done {
            let last = std::mem::replace(&mut self.run.status, RunStatus::Incomplete);
            self.status_before_end = Some(last);
            self.end();
        }
    }

    /// An `async` run's polled event list shrank (see [`AcpError::EventListShrank`]): a warning,
    /// or in strict mode an error that ends the run.
    pub(crate) fn event_list_shrank(&mut self, seen: usize, got: usize) {
        if !self.stopped {
            self.violation(AcpError::EventListShrank { seen, got });
            self.end_event();
        }
    }

    /// The stream exceeded [`Limits::max_stream_bytes`]: it ends here.
    pub(crate) fn stream_too_large(&mut self, limit: u64) {
        if !self.stopped {
            self.push_issue(Severity::Error, LimitError::StreamTooLarge { limit }.into());
            self.stop();
        }
    }

    /// The tally of message `m` (created on first use).
    fn tally(&mut self, m: usize) -> &mut MessageTally {
        if self.tallies.len() <= m {
            self.tallies.resize_with(m + 1, MessageTally::default);
        }
        &mut self.tallies[m]
    }

    fn any_cut(&self, m: usize) -> bool {
        self.tallies
            .get(m)
            .is_some_and(|t| t.capped || t.parts.values().any(|p| p.capped))
    }

    /// Cuts a message about to be stored at position `m` (a new one, or one replacing what is
    /// there) to the limits, reporting each limit hit.
    fn fit_message(&mut self, m: usize, message: &mut Message) {
        let limits = self.options.limits;
        *self.tally(m) = MessageTally::default();
        let mut errors = Vec::new();
        if message.parts.len() > limits.max_parts {
            message.parts.truncate(limits.max_parts);
            self.tally(m).capped = true;
            errors.push(LimitError::TooManyParts {
                limit: limits.max_parts,
                message: MessageRef::Index(m),
            });
        }
        for (p, part) in message.parts.iter_mut().enumerate() {
            let tally = self.tally(m);
            let mut cutter = limits::Cutter::new(tally.replace_budget(&limits, p));
            cutter.opt_string(&mut part.content);
            cutter.opt_string(&mut part.content_url);
            tally.set(p, cutter.used());
            if cutter.cut {
                tally.cap_part(p);
                if cutter.message_binds() {
                    if !tally.capped {
                        tally.capped = true;
                        errors.push(LimitError::MessageTooLarge {
                            limit: limits.max_message_size,
                            message: MessageRef::Index(m),
                        });
                    }
                } else {
                    errors.push(LimitError::PartTooLarge {
                        limit: limits.max_part_size,
                        message: MessageRef::Index(m),
                        part: p,
                    });
                }
            }
        }
        for e in errors {
            self.push_issue(Severity::Error, e.into());
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
        self.release_held();
        for m in 0..self.run.output.len() {
            self.materialize(m);
        }
        self.open = false;
        self.echo.clear();
        self.tallies.clear();
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

    /// How many times this stream came to an end (a terminal status, `awaiting`, or
    /// [`finish`](Self::finish)): one more for each answer of the run that ended, and so each
    /// [`Update::Done`]. A client reading a resume's answer compares it with the count before, since
    /// [`is_done`](Self::is_done) is still `true` from the `awaiting` until the resumed run's
    /// first event.
    pub fn ends(&self) -> u32 {
        self.ends
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

    /// Applies one SSE `data` payload. Malformed data becomes an [`Update::Issue`] warning (an
    /// error in strict mode).
    pub fn push_data(&mut self, data: &str) {
        if self.stopped {
            return;
        }
        self.apply_data(data);
        self.end_event();
    }

    fn apply_data(&mut self, data: &str) {
        let max_depth = self.options.limits.max_depth;
        if let Some(offset) = limits::nesting_exceeds(data.as_bytes(), max_depth) {
            self.violation(limits::too_deep(data, max_depth, offset).into());
            return;
        }
        let mut raw = match RawEvent::parse(data) {
            Ok(raw) => raw,
            Err(e) => {
                self.violation(e);
                return;
            }
        };
        if raw.kind() == "message.part" && !self.ended {
            if let Some(mut part) = raw.part.take() {
                self.events += 1;
                // Only content with escapes is owned: the rare case of a surrogate escape at its
                // edges.
                if let Some(CowStr(Cow::Owned(text))) = &part.content {
                    part.cut_pair = self.cut_pair(text, data, &[]);
                }
                if part.cut_pair.0.is_none() {
                    self.release_held();
                }
                return self.apply_part(part);
            }
        }
        match raw.into_event() {
            Ok(event) => self.apply_event(event, (None, None)),
            Err(reason) => {
                self.violation(AcpError::InvalidEvent {
                    reason,
                    data: data.to_owned(),
                });
            }
        }
    }

    /// Applies one parsed event (e.g. from the `events` list of `GET /runs/{run_id}/events`).
    ///
    /// A parsed event no longer tells how its strings were written, so a surrogate pair a
    /// JavaScript server cut between two `message.part` events stays two U+FFFD here;
    /// [`push_data`](Self::push_data) (and [`AcpSession`](super::AcpSession)) join it.
    pub fn push_event(&mut self, event: AcpEvent) {
        if self.stopped {
            return;
        }
        self.apply_event(event, (None, None));
        self.end_event();
    }

    /// [`push_event`](Self::push_event) of an event read from `json`, where `path` leads to it
    /// (`[]` for an SSE event's data, `events`, `i` in the list of `GET /runs/{run_id}/events`):
    /// the escapes as written tell a surrogate pair cut between two `message.part` events.
    pub(crate) fn push_event_in(&mut self, event: AcpEvent, json: &str, path: &[Step<'_>]) {
        if self.stopped {
            return;
        }
        let cut = match &event {
            AcpEvent::MessagePart { part, .. } => part
                .content
                .as_deref()
                .map_or((None, None), |text| self.cut_pair(text, json, path)),
            _ => (None, None),
        };
        self.apply_event(event, cut);
        self.end_event();
    }

    /// The halves of a surrogate pair at the edges of `text`, a `message.part`'s content read from
    /// `json` where `path` leads to the event ([`json::cut_halves`]); none unless text is joined.
    fn cut_pair(&self, text: &str, json: &str, path: &[Step<'_>]) -> (Option<u16>, Option<u16>) {
        const FFFD: char = char::REPLACEMENT_CHARACTER;
        if !self.options.join_text || !(text.starts_with(FFFD) || text.ends_with(FFFD)) {
            return (None, None);
        }
        let mut full = path.to_vec();
        full.extend([Step::Member("part"), Step::Member("content")]);
        json::cut_halves(json, &full, text)
    }

    /// Applies one event; `cut` is the surrogate pair halves at the edges of a `message.part`'s
    /// content (see [`Assembler::release_held`]).
    fn apply_event(&mut self, event: AcpEvent, cut: (Option<u16>, Option<u16>)) {
        if cut.0.is_none() {
            self.release_held();
        }
        if self.ended {
            let error = AcpError::OutOfOrder {
                what: "event-after-end",
                event_type: event_type(&event),
            };
            if self.violation(error) {
                return;
            }
        }
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
            AcpEvent::MessageCreated { message, .. } => {
                if self.open {
                    let error = AcpError::OutOfOrder {
                        what: "message-created-while-open",
                        event_type: "message.created".into(),
                    };
                    if self.violation(error) {
                        return;
                    }
                }
                self.apply_message_created(message)
            }
            AcpEvent::MessagePart { part, .. } => self.apply_part(RawPart {
                cut_pair: cut,
                ..RawPart::from_part(part)
            }),
            AcpEvent::MessageCompleted { message, .. } => {
                if !self.open {
                    let error = AcpError::OutOfOrder {
                        what: "completed-without-message",
                        event_type: "message.completed".into(),
                    };
                    if self.violation(error) {
                        return;
                    }
                }
                self.apply_message_completed(message)
            }
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
                self.push_issue(
                    Severity::Error,
                    AcpError::Server {
                        error: Box::new(error),
                    },
                );
                self.ended = true;
                self.end();
            }
            AcpEvent::Unknown(event) => {
                let event_type = event
                    .get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .to_owned();
                self.violation(AcpError::UnknownEvent { event_type, event });
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
        let (id, got) = (&self.run.run_id, &incoming.run_id);
        if !id.is_empty() && !got.is_empty() && id != got {
            let error = AcpError::RunIdChanged {
                run_id: id.clone(),
                got: got.clone(),
            };
            if self.violation(error) {
                return;
            }
        }
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
            let mut theirs = self.expected(message);
            if index < self.run.output.len() && self.any_cut(index) {
                continue; // ours, cut at a limit, is kept
            }
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
                    self.fit_message(index, &mut theirs);
                    let assembled = std::mem::replace(&mut self.run.output[index], theirs);
                    self.violation(AcpError::MessageMismatch {
                        index,
                        assembled: Box::new(assembled),
                    });
                    self.push_message_update(index);
                }
                None => {
                    let at = self.run.output.len();
                    self.fit_message(at, &mut theirs);
                    self.run.output.push(theirs);
                    self.push_message_update(at);
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
                self.violation(AcpError::MessageMissingFromOutput { index });
            }
        }
        if matches!(event, RunEvent::Finished | RunEvent::Failed) {
            self.ended = true;
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
                self.push_issue(
                    Severity::Error,
                    AcpError::Server {
                        error: Box::new(error),
                    },
                );
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
        self.fit_message(self.run.output.len(), &mut message);
        self.run.output.push(message);
        self.open = true;
        self.push_message_update(self.run.output.len() - 1);
    }

    fn apply_part(&mut self, part: RawPart<'_>) {
        let cut_pair = part.cut_pair;
        let part = if let Some(expected) = self.echo.get(self.echo_pos) {
            let owned = part.into_part();
            if *expected == owned {
                self.echo_pos += 1;
                return; // a repeat of a part its message.created already carried
            }
            self.echo.clear();
            self.echo_pos = 0;
            RawPart {
                cut_pair,
                ..RawPart::from_part(owned)
            }
        } else {
            part
        };
        if !self.open || self.run.output.is_empty() {
            let owned = part.into_part();
            if self.violation(AcpError::PartWithoutMessage {
                part: Box::new(owned.clone()),
            }) {
                return;
            }
            let agent = self.run.agent_name.as_str();
            let role = Role::agent((!agent.is_empty()).then_some(agent));
            self.run.output.push(Message::new(role, Vec::new()));
            self.open = true;
            self.push_message_update(self.run.output.len() - 1);
            return self.push_part(RawPart {
                cut_pair,
                ..RawPart::from_part(owned)
            });
        }
        self.push_part(part);
    }

    /// Appends a part to the open (last) message, joining text when configured, within the
    /// limits.
    fn push_part(&mut self, mut part: RawPart<'_>) {
        let m = self.run.output.len().saturating_sub(1);
        if self.run.output.is_empty() || self.tally(m).capped {
            return; // the message hit a limit (reported once): later parts are dropped
        }
        let limits = self.options.limits;
        let cut = part.cut_pair;
        if self.options.join_text {
            if let Some(text) = part.joinable_text() {
                let p = self.run.output[m].parts.len().saturating_sub(1);
                let joins = self.run.output[m]
                    .parts
                    .get(p)
                    .is_some_and(MessagePart::is_joinable_text);
                if joins {
                    let mut text = Cow::Borrowed(text);
                    if cut != (None, None) {
                        let held = cut.0.and_then(|_| self.take_held(m, p));
                        text = json::join_halves(held, text, cut);
                    }
                    self.append_text(m, p, &text);
                    self.hold(m, p, cut.1);
                    return;
                }
                if let (Some(_), Some(content)) = (cut.1, &mut part.content) {
                    let text = std::mem::take(&mut content.0);
                    content.0 = json::join_halves(None, text, cut);
                }
            }
        }
        let p = self.run.output[m].parts.len();
        if p >= limits.max_parts {
            self.tally(m).capped = true;
            self.push_issue(
                Severity::Error,
                LimitError::TooManyParts {
                    limit: limits.max_parts,
                    message: MessageRef::Index(m),
                }
                .into(),
            );
            return;
        }
        let joinable = self.options.join_text && part.joinable_text().is_some();
        let mut part = part.into_part();
        let mut cutter = limits::Cutter::new(self.tally(m).append_budget(&limits, p));
        cutter.opt_string(&mut part.content);
        cutter.opt_string(&mut part.content_url);
        self.tally(m).grow(p, cutter.used());
        let len = part.content.as_ref().map_or(0, String::len);
        limits::push_part(&mut self.run.output[m].parts, part);
        self.pending.push(Pending::Part {
            msg: m,
            part: p,
            len,
        });
        if cutter.cut {
            self.cut_part(m, p, cutter.message_binds());
        } else if joinable {
            self.hold(m, p, cut.1);
        }
    }

    /// Appends `text` to part `p` of message `m` (joinable text), within the limits.
    fn append_text(&mut self, m: usize, p: usize, text: &str) {
        if self.tally(m).part_capped(p) {
            return; // the part hit a limit: later text for it is dropped
        }
        let limits = self.options.limits;
        let budget = self.tally(m).append_budget(&limits, p);
        let piece = limits::prefix(text, budget.left());
        let cut = piece.len() < text.len();
        self.tally(m).grow(p, piece.len());
        let part = self
            .run
            .output
            .get_mut(m)
            .and_then(|msg| msg.parts.get_mut(p));
        if let Some(last) = part {
            let buf = last.content.get_or_insert_with(String::new);
            let start = buf.len();
            buf.push_str(piece);
            let end = buf.len();
            if end > start {
                self.push_text(m, p, start, end);
            }
        }
        if cut {
            self.cut_part(m, p, budget.message < budget.part);
        }
    }

    /// Holds back `high`, the high half of a surrogate pair that part `p` of message `m` ended
    /// with (its U+FFFD was not appended), for the next chunk's low half.
    fn hold(&mut self, m: usize, p: usize, high: Option<u16>) {
        if let (Some(high), false) = (high, self.tally(m).part_capped(p)) {
            self.held = Some((m, p, high));
        }
    }

    /// The held high half if it belongs to part `p` of message `m` (the part a chunk beginning
    /// with the low half joins); a half held for another part is released.
    #[cold]
    fn take_held(&mut self, m: usize, p: usize) -> Option<u16> {
        if self.held.is_some_and(|(hm, hp, _)| (hm, hp) != (m, p)) {
            self.release_held();
        }
        self.held.take().map(|(_, _, high)| high)
    }

    /// Appends the held high half of a surrogate pair to its part as U+FFFD: the event after it
    /// was not the chunk with the low half (or the stream ended). Nothing received is dropped: a
    /// JavaScript client holds the lone surrogate, which shows as U+FFFD. A JavaScript server that
    /// cuts a string between the halves of a pair (`text.slice(0, 3)`) sends `"\ud83d"` at the end
    /// of one `message.part` and `"\ude00…"` at the start of the next: joined, the text streams as
    /// the server meant it, as acp-sdk's own `Message.compress()` would concatenate it.
    fn release_held(&mut self) {
        if let Some((m, p, _)) = self.held.take() {
            self.append_text(m, p, "\u{FFFD}");
        }
    }

    /// Part `p` of message `m` was cut at a limit: it is marked and the limit reported; with the
    /// message's limit, the whole message is capped.
    fn cut_part(&mut self, m: usize, p: usize, message_binds: bool) {
        let limits = self.options.limits;
        let tally = self.tally(m);
        tally.cap_part(p);
        let error = if message_binds {
            tally.capped = true;
            LimitError::MessageTooLarge {
                limit: limits.max_message_size,
                message: MessageRef::Index(m),
            }
        } else {
            LimitError::PartTooLarge {
                limit: limits.max_part_size,
                message: MessageRef::Index(m),
                part: p,
            }
        };
        self.push_issue(Severity::Error, error.into());
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
        let mut theirs = self.expected(message);
        let index = match self.run.output.len().checked_sub(1) {
            Some(last) if self.open => {
                if self.any_cut(last) {
                    // Ours, cut at a limit, is kept; only the envelope is taken.
                    let ours = &mut self.run.output[last];
                    ours.role = theirs.role;
                    replace_opt(&mut ours.created_at, theirs.created_at);
                    ours.completed_at = theirs.completed_at;
                    ours.extra.extend(theirs.extra);
                } else if self.run.output[last].parts != theirs.parts {
                    self.materialize(last);
                    self.fit_message(last, &mut theirs);
                    let assembled = self.run.output[last].clone();
                    self.violation(AcpError::MessageMismatch {
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
                let at = self.run.output.len();
                self.fit_message(at, &mut theirs);
                self.run.output.push(theirs);
                at
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
        self.release_held();
        self.done = true;
        self.ends = self.ends.saturating_add(1);
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
        self.status_before_end = Some(last_status.clone());
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
                            metadata: p.metadata.as_deref(),
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

/// The `type` of an event, as on the wire.
fn event_type(event: &AcpEvent) -> String {
    match event {
        AcpEvent::RunCreated { .. } => "run.created",
        AcpEvent::RunInProgress { .. } => "run.in-progress",
        AcpEvent::RunAwaiting { .. } => "run.awaiting",
        AcpEvent::RunCompleted { .. } => "run.completed",
        AcpEvent::RunFailed { .. } => "run.failed",
        AcpEvent::RunCancelled { .. } => "run.cancelled",
        AcpEvent::MessageCreated { .. } => "message.created",
        AcpEvent::MessagePart { .. } => "message.part",
        AcpEvent::MessageCompleted { .. } => "message.completed",
        AcpEvent::Generic { .. } => "generic",
        AcpEvent::Error { .. } => "error",
        AcpEvent::Unknown(v) => v.get("type").and_then(|t| t.as_str()).unwrap_or(""),
    }
    .to_owned()
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
///
/// A connection broken by the network (not a `run.awaiting`) can continue when the server gives
/// its events SSE `id`s: call [`reconnect`](Self::reconnect), send
/// [`last_event_id`](Self::last_event_id) as `Last-Event-ID`, and feed the new connection's bytes:
/// events already applied are skipped (see [`EventCursor`]).
#[derive(Debug, Clone, Default)]
pub struct AcpStream {
    sse: SseDecoder,
    assembler: Assembler,
    /// Bytes fed, all connections together.
    bytes: u64,
}

impl AcpStream {
    /// A new stream.
    pub fn new(options: AcpOptions) -> Self {
        Self {
            sse: SseDecoder::with_options(options.sse),
            assembler: Assembler::new(options),
            bytes: 0,
        }
    }

    /// Decodes and applies the next chunk of bytes. After [`Limits::max_stream_bytes`], or once
    /// strict mode stopped the stream, bytes are ignored.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.assembler.stopped {
            return;
        }
        let limit = self.assembler.options.limits.max_stream_bytes;
        let (bytes, over) = limits::admit_bytes(&mut self.bytes, limit, bytes);
        let assembler = &mut self.assembler;
        self.sse
            .feed_dyn(bytes, &mut |item| Self::on_item(assembler, item));
        if let (true, Some(limit)) = (over, limit) {
            self.assembler.stream_too_large(limit);
        }
    }

    fn on_item(assembler: &mut Assembler, item: SseItem<'_>) {
        match item {
            SseItem::Event(e) => assembler.push_sse_event(&e),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => assembler.sse_issue(e),
        }
    }

    /// The connection broke and a new one continues the same HTTP response's stream: the SSE
    /// decoder starts afresh (an event cut by the break is dropped: the server sends it again),
    /// keeping the last event id, and events already applied are skipped.
    pub fn reconnect(&mut self) {
        self.sse.reset();
        self.assembler.reconnect();
    }

    /// What to send as `Last-Event-ID` when reconnecting: the last SSE event id, `None` if the
    /// server gave none (the stream cannot be resumed without repeats).
    pub fn last_event_id(&self) -> Option<String> {
        let id = self.sse.last_event_id();
        (!id.is_empty()).then(|| id.to_owned())
    }

    /// Ends the current HTTP response's stream (see [`Assembler::finish`]). The decoder is reset,
    /// ready for the next response of the same run (a resume after `run.awaiting`, whose events
    /// are numbered afresh).
    pub fn finish(&mut self) {
        let assembler = &mut self.assembler;
        self.sse
            .finish_dyn(&mut |item| Self::on_item(assembler, item));
        self.assembler.finish();
        self.assembler.cursor = EventCursor::new();
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
