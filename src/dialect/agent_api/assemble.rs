//! Folding Agent API events into a live response.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::limits::{self, LimitError, Limits, MessageRef, MessageTally};

use serde::Serialize;

use super::event::{error_info, RawEvent};
use super::model::{
    AgentResponse, Content, ContentKind, ErrorInfo, Message, MessageType, RunStatus,
};
use super::shape::DeltaShape;
use super::split::{self, SplitUpdates};
use super::AgentApiError;
use crate::error::ErrorCode;
pub use crate::error::Severity;
use crate::json::scan::eq_words;
use crate::json::write::{write_large_value, write_value};
use crate::sse::{
    Admission, EventCursor, ResumeError, SseDecoder, SseEvent, SseEventBytes, SseItem,
    SseItemBytes, SseOptions,
};
use crate::wire::{CowStr, JsonMap};

/// Options of [`Assembler`] and [`AgentStream`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssemblerOptions {
    /// Record [`StreamUpdate`]s (default `true`). With `false` the assembler only builds the
    /// response (for callers that want the final result, not live updates).
    pub updates: bool,
    /// Batched delivery: within one [`AgentStream::feed`] (one network chunk), consecutive text deltas
    /// of the same content are merged into one [`StreamUpdate::TextDelta`]. Default `false` (one
    /// update per event).
    pub coalesce: bool,
    /// Options of the SSE decoder ([`AgentStream`] only).
    pub sse: SseOptions,
    /// Limits on what the stream may make the assembler hold (see [`crate::limits`]).
    pub limits: Limits,
    /// Strict mode (default `false`, lenient): input the protocol does not allow is an error
    /// that ends the stream instead of a warning. See [`Assembler`] for each case.
    pub strict: bool,
    /// Keep finished messages in the response (default `true`). With `false`, a message is
    /// released as soon as its own `message` event gives it a terminal status: its updates are
    /// delivered as usual (the completing [`StreamUpdate::Message`] and the contents the event
    /// brought), then it leaves `response.output`, so the assembler holds only the messages still
    /// under way and memory stays near the size of the largest message however many a stream
    /// has (a set of the released ids remains, a few dozen bytes per message). Later events for a
    /// released message are skipped (`out-of-order`, `message-released`), and a final `output`
    /// repeating it is not reconciled. For callers that keep what they need from the updates.
    pub retain_messages: bool,
}

impl Default for AssemblerOptions {
    fn default() -> Self {
        Self {
            updates: true,
            coalesce: false,
            sse: SseOptions::default(),
            limits: Limits::default(),
            strict: false,
            retain_messages: true,
        }
    }
}

/// A change to the assembled response, in stream order.
///
/// Updates never repeat accumulated text: a text delta carries only the new text, and a whole
/// message or content is sent only when its own event arrives (start, replacement, completion), so
/// the work of delivering a stream is linear in its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
// A `Content` (about 500 bytes natively, 288 in wasm32) is the largest variant since stop 48
// boxed the models' rarely set fields, which shrank `Message`. Updates are short-lived (drained
// after each chunk; the streaming path delivers split updates instead), so they stay unboxed.
#[allow(clippy::large_enum_variant)]
pub enum StreamUpdate {
    /// The response envelope changed (id, status, usage, error…). Its `output` is empty here:
    /// messages arrive as their own updates, and [`StreamUpdate::Done`] has the whole response.
    Response {
        /// The envelope.
        response: AgentResponse,
    },
    /// A message appeared or changed (status, role, metadata). Its `content` is empty here:
    /// contents arrive as [`StreamUpdate::Content`] and deltas (also the contents a message event
    /// itself adds or changes), and [`StreamUpdate::Done`] has the whole response.
    Message {
        /// The message's envelope.
        message: Message,
    },
    /// A content item appeared, was replaced, or completed.
    Content {
        /// The message it belongs to.
        msg_id: String,
        /// Its `index`.
        index: u32,
        /// The whole content item as assembled so far.
        content: Content,
    },
    /// Text appended to a `text` content.
    TextDelta {
        /// The message.
        msg_id: String,
        /// The content's `index`.
        index: u32,
        /// The appended text.
        delta: String,
    },
    /// A `data` delta merged into a `data` content (the protocol's merge: strings and lists
    /// concatenate, numbers add, objects merge recursively).
    DataDelta {
        /// The message.
        msg_id: String,
        /// The content's `index`.
        index: u32,
        /// The delta as sent.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        delta: serde_json::Value,
    },
    /// A problem: malformed input (skipped and kept here), an agent error, a stream that broke.
    Issue {
        /// Warning (tolerated) or error.
        severity: Severity,
        /// The error's stable code (see [`AgentApiError`]).
        code: String,
        /// A readable message.
        message: String,
        /// Structured details, including the offending input.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        details: serde_json::Value,
        /// The typed error (Rust only).
        #[serde(skip)]
        #[cfg_attr(target_arch = "wasm32", tsify(skip))]
        error: Box<AgentApiError>,
    },
    /// The response reached a terminal status, or the stream ended: the whole response.
    Done {
        /// The assembled response.
        response: AgentResponse,
    },
}

impl StreamUpdate {
    fn issue(severity: Severity, error: AgentApiError) -> Self {
        StreamUpdate::Issue {
            severity,
            code: error.code().to_owned(),
            message: error.to_string(),
            details: error.details(),
            error: Box::new(error),
        }
    }
}

/// The most bytes [`Assembler`]'s buffer of copied-out deltas keeps allocated between drains (the
/// deltas of a 64 KiB slice fit; a larger batch's copy is freed after its drain).
const KEPT_CAPACITY: usize = 64 * 1024;

/// A pending update: owned, or a range of a text content's accumulated text (so a delta's text is
/// neither copied nor allocated until it is delivered).
#[derive(Debug, Clone)]
enum Pending {
    Owned(Box<StreamUpdate>),
    /// `done`, with the whole response as it is when the updates are drained (never cloned here:
    /// with updates off, or when the caller reads the response directly, it costs nothing).
    Done,
    Text {
        msg: usize,
        pos: usize,
        start: usize,
        end: usize,
    },
    /// A text delta whose content was about to be replaced or moved before the drain, its text
    /// copied out: its message id is `Assembler::kept[id..id_end]` and its text
    /// `Assembler::kept[start..end]` (see `Assembler::materialize_runs`).
    Kept {
        id: usize,
        id_end: usize,
        index: u32,
        start: usize,
        end: usize,
    },
}

impl Pending {
    /// The range of its text this pending delta is (of its content's text or of the copied-out
    /// deltas' buffer), if it is one.
    fn span(&self) -> Option<(usize, usize)> {
        match *self {
            Pending::Text { start, end, .. } | Pending::Kept { start, end, .. } => {
                Some((start, end))
            }
            _ => None,
        }
    }

    /// The range of the text of content `pos` of message `msg` this pending delta is, if it is
    /// one.
    fn range_of(&self, msg: usize, pos: usize) -> Option<(usize, usize)> {
        match *self {
            Pending::Text {
                msg: m,
                pos: p,
                start,
                end,
            } if m == msg && p == pos => Some((start, end)),
            _ => None,
        }
    }
}

/// Folds Agent API events into an [`AgentResponse`], and records a [`StreamUpdate`] for each change.
///
/// Rules (the protocol's, plus what real servers need; see `shared/fixtures/agentscope-runtime`):
/// - `object: "content"` with `delta: true` appends to `content[index]` of message `msg_id` (text and
///   `image_url` concatenate; `data` merges as the protocol's builder does); otherwise it replaces it.
///   A missing `index` means the last content for a delta, a new one otherwise.
/// - Contents may arrive before any `message` event for their `msg_id`: the message is created
///   (type `message`, status `in_progress`) and filled in when its event comes.
/// - `object: "message"` and `object: "response"` set their fields; a message's or response's
///   contents/`output`, when sent, are reconciled with what the deltas built (the server's version
///   wins; a difference is a [`AgentApiError::ContentMismatch`] warning; a streamed message missing
///   from the final `output` is kept and reported).
/// - `{"error": …}` without `object` fails the response. A terminal response status ends it; at
///   [`finish`](Assembler::finish) a response that never reached one is marked `incomplete`.
/// - Malformed events are skipped, reported as warnings with their data, and (in lenient mode)
///   never stop the stream.
///
/// Messages and contents left unfinished by a terminal response are marked `incomplete`.
///
/// # Lenient and strict mode
///
/// [`AssemblerOptions::strict`] decides what input the protocol does not allow does. Lenient (the
/// default) keeps going and reports a `warning`; strict reports an `error` and ends the stream:
/// the offending event is refused (unless the problem shows only while applying it, as noted), the
/// response is marked `incomplete` (unless it had already ended), unfinished messages and contents
/// `incomplete`, a [`StreamUpdate::Done`] follows, and later input is ignored.
///
/// | input | code | lenient | strict |
/// |---|---|---|---|
/// | data that is not JSON, or JSON of the wrong shape | `invalid-json`, `invalid-event` | skipped, warning | error, ends |
/// | an unknown `object` | `unknown-event` | skipped (kept in the issue), warning | error, ends |
/// | a content without `msg_id` | `content-without-message` | skipped, warning | error, ends |
/// | any event after the response reached a terminal status | `out-of-order` (`event-after-end`) | applied, warning | refused, error, ends |
/// | a content for a message whose status is terminal | `out-of-order` (`content-after-message-end`) | applied, warning | refused, error, ends |
/// | a content `index` beyond the message's next free index | `index-gap` | applied, warning | refused, error, ends |
/// | a `response` event whose `id` is not the stream's | `response-id-changed` | applied (the new id taken), warning | refused, error, ends |
/// | a delta of another kind than its content | `delta-kind-mismatch` | applied as a replacement, warning | refused, error, ends |
/// | final contents that differ from what the deltas built | `content-mismatch` | the server's version taken, warning | the same, error, ends after the event |
/// | a streamed message missing from the final `output` | `message-missing-from-output` | kept, warning | kept, error, ends after the event |
/// | an SSE event over the size limit, a stream ending inside an event | `event-too-large`, `incomplete-event` | warning | error, ends |
/// | event data nested deeper than [`Limits::max_depth`] | `too-deep` | skipped, warning | error, ends |
/// | after a reconnect, an already applied event again after new ones | `duplicate-event` | skipped, warning | skipped, error, ends |
/// | after a reconnect, an event numbered as one already applied that names another response (its `id`) or a message the stream never had: the new connection serves another stream | `resume-mismatch` | warning; the resume cursor restarts, so the event and the connection's next ones are applied | refused, error, ends |
/// | a content or message event for a message already released ([`AssemblerOptions::retain_messages`] `false`) | `out-of-order` (`message-released`) | skipped, warning | skipped, error, ends |
///
/// Limits ([`AssemblerOptions::limits`], see [`crate::limits`]) and lost events of a resumed
/// stream (`resume-gap`) are errors in both modes and do not end the stream (except
/// `stream-too-large`). An agent's own failure (`server-error`) is the same in both modes.
///
/// # Resuming
///
/// When the server numbers its events (SSE `id`s, or the Agent API's `sequence_number`), a stream
/// broken by the network continues on a new connection: [`AgentStream::reconnect`], then feed the
/// new connection's bytes. Events already applied are skipped, so nothing is duplicated; see
/// [`EventCursor`] for the rules, and [`AgentStream::last_event_id`] for the `Last-Event-ID`
/// header.
#[derive(Debug, Clone)]
pub struct Assembler {
    options: AssemblerOptions,
    /// Reused buffer for serializing updates.
    scratch: Vec<u8>,
    response: AgentResponse,
    /// Position of each message with an id. A hash map, where the crate's other maps of ids are
    /// `BTreeMap`s (smaller in the wasm module): this one and `released` as a `BTreeMap` and a
    /// `BTreeSet` made the module 1.6 KB larger (`remove` compiles the tree's rebalancing), and
    /// the per-event benchmark ran 0.5% more instructions (a response of 1,000 messages, each
    /// looked up for its message events and the final `output`; docs/performance-log.md, stop 31).
    ids: HashMap<String, usize>,
    /// Position of the message the last event touched (most deltas go to the same one).
    last_msg: Option<usize>,
    pending: Vec<Pending>,
    /// Open text runs of this batch: (message, content position, index in `pending`).
    runs: Vec<(usize, usize, usize)>,
    /// The message ids and texts of this batch's [`Pending::Kept`] deltas, one after another
    /// (cleared with `pending`; its capacity is kept).
    kept: String,
    done: bool,
    events: u64,
    /// Sizes and limits hit, per message position.
    tallies: Vec<MessageTally>,
    /// Which events were applied (for resuming).
    cursor: EventCursor,
    /// Strict mode found a violation in the current event: end the stream after it.
    halting: bool,
    /// The stream was ended by strict mode, a stream limit or an abort: input is ignored.
    stopped: bool,
    /// The layout of this stream's text deltas, which reads most events without the scan of
    /// their members (see `shape`).
    shape: DeltaShape,
    /// Ids of the messages released ([`AssemblerOptions::retain_messages`] `false`), as keys (the
    /// values are unused): a map of the type of `ids`, where a `HashSet<String>` compiled the hash
    /// table's code once more for its own entry type.
    released: HashMap<String, usize>,
    /// [`RawEvent::parse`], for the events the event scanner declines (see `Assembler::new`).
    full_parser: FullParser,
    /// [`Assembler::push_other`], for the events other than content events (see `Assembler::new`).
    other_events: for<'a> fn(&mut Assembler, &mut RawEvent<'a>),
    /// The high half of a surrogate pair a text delta ended with, held back for the next event's
    /// low half (see [`Assembler::join_halves`]).
    held: Option<HeldHalf>,
}

/// A high surrogate held back at the end of a text delta: the content (message id and index) and
/// the code unit.
#[derive(Debug, Clone)]
struct HeldHalf {
    msg_id: String,
    index: u32,
    high: u16,
}

/// The full reader of an event's data: [`RawEvent::parse`].
type FullParser = for<'a> fn(&'a str) -> Result<RawEvent<'a>, AgentApiError>;

/// [`RawEvent::parse`] as a [`FullParser`].
#[inline]
fn parse_event(data: &str) -> Result<RawEvent<'_>, AgentApiError> {
    RawEvent::parse(data)
}

impl Default for Assembler {
    #[inline]
    fn default() -> Self {
        Self::new(AssemblerOptions::default())
    }
}

impl Assembler {
    /// An empty assembler.
    // Inline, and the full parser held as a function pointer: so the parser (serde's reader of
    // the event's 30 fields and serde_json's number reading) is compiled where the assembler is
    // made, in agentwire at opt-level "z", not in this crate at 3. It reads only the events the
    // event scanner declines (invalid or unusual JSON).
    #[inline]
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            options,
            scratch: Vec::new(),
            response: AgentResponse::default(),
            ids: HashMap::new(),
            last_msg: None,
            pending: Vec::new(),
            runs: Vec::new(),
            kept: String::new(),
            done: false,
            events: 0,
            tallies: Vec::new(),
            cursor: EventCursor::new(),
            halting: false,
            stopped: false,
            shape: DeltaShape::default(),
            released: HashMap::new(),
            full_parser: parse_event,
            other_events: Assembler::push_other,
            held: None,
        }
    }

    /// The options.
    pub fn options(&self) -> &AssemblerOptions {
        &self.options
    }

    /// Whether the stream was stopped early: by strict mode, by
    /// [`Limits::max_stream_bytes`], or by [`abort`](Self::abort). Later input is ignored.
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// A new connection continues this stream (see [`EventCursor::reconnect`]): events already
    /// applied are skipped from now on.
    pub fn reconnect(&mut self) {
        self.cursor.reconnect();
    }

    /// Reports a problem of the SSE layer: a warning in lenient mode, an error that ends the
    /// stream in strict mode.
    pub fn sse_issue(&mut self, error: crate::sse::SseError) {
        if !self.stopped {
            self.violation(error.into());
            self.end_event();
        }
    }

    /// The resume cursor (which events were applied).
    pub fn cursor(&self) -> &EventCursor {
        &self.cursor
    }

    /// The response as assembled so far.
    pub fn response(&self) -> &AgentResponse {
        &self.response
    }

    /// The message with id `id`, as assembled so far.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.ids.get(id).and_then(|&p| self.response.output.get(p))
    }

    /// Takes the assembled response, leaving an empty one.
    pub fn take_response(&mut self) -> AgentResponse {
        // A held half of a surrogate pair belongs to the response: appended as U+FFFD first.
        self.release_held();
        // Pending text deltas and `done` refer to the response: copy them out first.
        for m in 0..self.response.output.len() {
            self.materialize_message(m);
        }
        self.materialize_done();
        self.tallies.clear();
        self.ids.clear();
        self.last_msg = None;
        std::mem::take(&mut self.response)
    }

    /// Whether a terminal status (or [`finish`](Self::finish)) ended the response.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Events applied so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Records an update, unless updates are off.
    fn record(&mut self, update: Pending) {
        if self.options.updates {
            self.pending.push(update);
        }
    }

    /// Whether updates are waiting to be drained.
    pub fn has_updates(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Applies one SSE `data` payload. Malformed data becomes an [`StreamUpdate::Issue`]. After a
    /// [`reconnect`](Self::reconnect), an event whose `sequence_number` was already applied is
    /// skipped.
    pub fn push_data(&mut self, data: &str) {
        self.push_admitted(data.as_bytes(), true);
    }

    /// Applies one SSE event, skipping it if a resumed stream already applied it.
    pub fn push_sse_event(&mut self, event: &SseEvent<'_>) {
        self.push_sse_bytes(&SseEventBytes {
            event: event.event,
            data: event.data.as_bytes(),
            id: event.id,
            has_id: event.has_id,
        });
    }

    /// [`push_sse_event`](Self::push_sse_event) with the event's data undecoded, as
    /// [`SseDecoder::feed_bytes`] hands it on: the event reader checks its UTF-8 as it reads it
    /// (data that is not UTF-8 is read with replacement characters, as `push_sse_event` of the
    /// decoded event would).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub fn push_sse_bytes(&mut self, event: &SseEventBytes<'_>) {
        if self.stopped {
            return;
        }
        match self.cursor.admit_event(event.id, event.has_id) {
            None => self.push_admitted(event.data, true),
            Some(admission) => {
                if self.admit(admission) {
                    self.push_admitted(event.data, false);
                } else if self.cursor.is_replaying() {
                    // Skipped as a replay (the cursor is still before the first new event).
                    self.push_replayed(event);
                }
            }
        }
    }

    /// An event whose SSE id the cursor took for the replay of one already applied: skipped,
    /// unless it names what this stream never had (see [`Assembler::replay_mismatch`]). Reading it
    /// costs only while a resumed connection replays its overlap.
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn push_replayed(&mut self, event: &SseEventBytes<'_>) {
        // The full parser (not the fast paths, which would be compiled again here): a replay is
        // a few events per resume.
        let text = crate::sse::utf8_decode(event.data);
        let Ok(raw) = (self.full_parser)(&text) else {
            // Unreadable: skipped, as a replay (its first reading was reported).
            return;
        };
        let mismatch = self.replay_mismatch(&raw, event.id.to_owned());
        // Lenient mode: the cursor forgot the replay, and the event is the first new one.
        if self.replay_applies(mismatch)
            && self.cursor.admit_event(event.id, event.has_id).is_some()
        {
            self.push_admitted(event.data, false);
        }
    }

    /// Reports a replay's mismatch, if any. Says whether the event is to be applied after all
    /// (lenient mode: the cursor restarted); `false` to skip it (a true replay, or strict mode,
    /// which then ends the stream).
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn replay_applies(&mut self, mismatch: Option<ResumeError>) -> bool {
        let Some(error) = mismatch else {
            return false;
        };
        if self.violation(error.into()) {
            self.end_event();
            return false;
        }
        self.cursor.restart();
        true
    }

    /// What a replayed event names that this stream does not have: a `response` event of
    /// another response id, or a message or content event of a message never seen (nor
    /// released). A true replay names only what was applied.
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn replay_mismatch(&self, raw: &RawEvent<'_>, event_id: String) -> Option<ResumeError> {
        let known = |id: &str| self.ids.contains_key(id) || self.released.contains_key(id);
        let (what, id) = match raw.object() {
            "response" => {
                let got = raw.rest.as_ref()?.id.as_deref()?;
                let ours = self.response.id.as_deref()?;
                (ours != got).then_some(("response", got))?
            }
            "message" => {
                let got = raw.rest.as_ref()?.id.as_deref()?;
                (!known(got)).then_some(("message", got))?
            }
            "content" => {
                let got: &str = &raw.msg_id.as_ref()?.0;
                (!known(got)).then_some(("message", got))?
            }
            _ => return None,
        };
        Some(ResumeError::Mismatch {
            event_id,
            what,
            id: id.to_owned(),
        })
    }

    /// An event whose `sequence_number` the cursor took for the replay of one already applied:
    /// says whether to apply it after all (see [`Assembler::push_replayed`]).
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn sequence_replayed(&mut self, raw: &RawEvent<'_>, seq: u64) -> bool {
        let mismatch = self.replay_mismatch(raw, seq.to_string());
        // The cursor forgot the replay: the event is the first new one.
        self.replay_applies(mismatch) && matches!(self.cursor.admit_sequence(seq), Admission::Apply)
    }

    /// Acts on an admission; says whether to apply the event.
    fn admit(&mut self, admission: Admission) -> bool {
        match admission {
            Admission::Apply => true,
            Admission::ApplyAfterGap(e) => {
                self.push_issue(Severity::Error, e.into());
                true
            }
            Admission::Replayed => false,
            Admission::Duplicate(e) => {
                self.violation(e.into());
                self.end_event();
                false
            }
        }
    }

    /// Applies one event's data, as it came (UTF-8 is checked by the reader, or by the decoding
    /// with replacement characters that precedes the full parser).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn push_admitted(&mut self, data: &[u8], by_sequence: bool) {
        if self.stopped || data == b"[DONE]" {
            return; // `[DONE]`: an end-of-stream sentinel some servers add; not an event
        }
        let max_depth = self.options.limits.max_depth;
        // The fast path answers for plain events; anything else gets the depth check and the full
        // parser, which report exactly what is wrong. (The event is filled in place: it is large,
        // and moving it cost more than reading a small event.)
        // A text delta of the layout learned (see `shape`) is read as `scan_into` reads it;
        // another event is scanned (and may teach the layout).
        let text;
        let mut raw = RawEvent::default();
        if !self.shape.read(data, &mut raw) && !self.shape.scan(data, &mut raw, max_depth) {
            // WHATWG HTML §9.2.6: the stream is decoded with "UTF-8 decode" (invalid sequences
            // replaced), which the fast path leaves to here.
            text = crate::sse::utf8_decode(data);
            if let Some(offset) = limits::nesting_exceeds(text.as_bytes(), max_depth) {
                self.violation(limits::too_deep(&text, max_depth, offset).into());
                return self.end_event();
            }
            match (self.full_parser)(&text) {
                Ok(parsed) => raw = parsed,
                Err(e) => {
                    self.violation(e);
                    return self.end_event();
                }
            }
        }
        if let (true, Some(seq)) = (by_sequence, raw.sequence_number) {
            let admission = self.cursor.admit_sequence(seq);
            // Skipped as a replay when the cursor is still before the first new event.
            let apply = self.admit(admission)
                || (self.cursor.is_replaying() && self.sequence_replayed(&raw, seq));
            if !apply {
                return;
            }
        }
        // Only a string with escapes is owned: the rare case of a surrogate escape at its edges.
        if let Some(CowStr(Cow::Owned(text))) = &raw.text {
            raw.cut_pair = cut_pair(data, text);
        }
        if self.held.is_some() && !self.joins_held(&raw) {
            self.release_held();
        }
        self.push_raw(&mut raw);
        self.end_event();
    }

    /// Whether `raw` is a text delta of the content whose high surrogate is held, beginning with a
    /// low one: the next half of the pair.
    fn joins_held(&self, raw: &RawEvent<'_>) -> bool {
        let Some(held) = &self.held else {
            return false;
        };
        raw.cut_pair.0.is_some()
            && raw.delta == Some(true)
            && raw.object() == "content"
            && raw.kind.as_ref().is_none_or(|k| k.0 == "text")
            && raw.index == Some(held.index)
            && raw.msg_id.as_ref().is_some_and(|m| m.0 == held.msg_id)
    }

    /// Appends the held high surrogate to its content as U+FFFD: the event after it was not the
    /// low half (or the stream ended). Nothing received is dropped: a JavaScript client would hold
    /// the lone surrogate, which shows as U+FFFD.
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn release_held(&mut self) {
        let Some(held) = self.held.take() else {
            return;
        };
        let Some(&m) = self.ids.get(&held.msg_id) else {
            return;
        };
        let Ok(pos) = find_content(&self.response.output[m].content, held.index) else {
            return;
        };
        if self.tally(m).part_capped(held.index as usize) {
            return;
        }
        let mut raw = RawEvent {
            text: Some(CowStr(Cow::Borrowed("\u{FFFD}"))),
            ..RawEvent::default()
        };
        self.append_delta(m, pos, held.index, &mut raw);
    }

    /// The text of a delta whose edges are halves of a surrogate pair (`raw.cut_pair`): a low half
    /// at its start completes the high half held from the content's previous delta (its U+FFFD
    /// becomes the pair's character); a high half at its end is held back (its U+FFFD removed)
    /// until the next event. So a JavaScript server that cuts a string between the halves of a
    /// pair (`text.slice(0, 3)`) streams the same text as it would whole, as its JavaScript
    /// clients see it. Only for the next event: any other event first releases the held half as
    /// U+FFFD ([`Assembler::release_held`]).
    #[cold]
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    fn join_halves<'a>(
        &mut self,
        m: usize,
        index: u32,
        text: CowStr<'a>,
        cut: (Option<u16>, Option<u16>),
    ) -> CowStr<'a> {
        let held = cut.0.and(self.held.take()).map(|h| h.high);
        let text = CowStr(crate::json::join_halves(held, text.0, cut));
        if let Some(high) = cut.1 {
            let msg_id = self.response.output[m].id.clone().unwrap_or_default();
            self.held = Some(HeldHalf {
                msg_id,
                index,
                high,
            });
        }
        text
    }

    /// Reports input the protocol does not allow: a warning in lenient mode; in strict mode an
    /// error, and the stream ends after the current event. Says whether to refuse the input.
    fn violation(&mut self, error: AgentApiError) -> bool {
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

    /// Ends the stream early: what is unfinished is marked `incomplete`, later input is ignored.
    fn stop(&mut self) {
        self.stopped = true;
        if !self.done {
            self.response.status = RunStatus::Incomplete;
            self.end();
        }
    }

    /// The stream exceeded [`Limits::max_stream_bytes`]: it ends here.
    pub(crate) fn stream_too_large(&mut self, limit: u64) {
        if !self.stopped {
            self.push_issue(Severity::Error, LimitError::StreamTooLarge { limit }.into());
            self.stop();
        }
    }

    /// Applies one parsed event.
    pub fn push_event(&mut self, event: super::AgentEvent) {
        let data = serde_json::to_string(&event).unwrap_or_default();
        self.push_data(&data);
    }

    /// Reports an error of the transport or SSE layer as an issue of this stream.
    #[cfg_attr(agentwire_size, optimize(size))]
    pub fn push_issue(&mut self, severity: Severity, error: AgentApiError) {
        self.pending
            .push(owned(StreamUpdate::issue(severity, error)));
    }

    fn warn(&mut self, error: AgentApiError) {
        self.push_issue(Severity::Warning, error);
    }

    fn push_raw(&mut self, raw: &mut RawEvent<'_>) {
        if self.done {
            let error = AgentApiError::OutOfOrder {
                what: "event-after-end",
                msg_id: raw.msg_id.as_ref().map(|m| m.0.clone().into_owned()),
                index: raw.index,
            };
            if self.violation(error) {
                return;
            }
            // Lenient: the event is applied, but a pending `done` must keep the response as it was
            // when the stream ended (found by fuzzing: otherwise it depended on the chunk split).
            self.materialize_done();
        }
        self.events += 1;
        match raw.object() {
            "content" => self.apply_content(raw),
            _ => (self.other_events)(self, raw),
        }
    }

    /// The events other than content events (a few per message, where content events come per
    /// token): compiled in agentwire at opt-level "z" (see `Assembler::new`).
    #[inline]
    fn push_other(&mut self, raw: &mut RawEvent<'_>) {
        match raw.object() {
            "message" => {
                let message = std::mem::take(raw).into_message();
                self.apply_message(message, false);
            }
            "response" => self.apply_response(std::mem::take(raw).into_response()),
            "" if raw.error().is_some() => {
                let info = raw.error().map(error_info).unwrap_or_default();
                self.response.status = RunStatus::Failed;
                self.response.error = Some(Box::new(info.clone()));
                self.push_issue(Severity::Error, AgentApiError::Server { error: info });
                self.end();
            }
            object => {
                let object = object.to_owned();
                if let super::AgentEvent::Unknown(event) = std::mem::take(raw).into_event() {
                    self.violation(AgentApiError::UnknownEvent { object, event });
                }
            }
        }
    }

    /// Position of message `id`, creating it (type `message`, status `in_progress`) if unknown; a
    /// message created for a content event (`announce`) gets its own update. `None` for a message
    /// already released (see [`AssemblerOptions::retain_messages`]).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn message_pos(&mut self, id: &str, announce: bool) -> Option<usize> {
        if let Some(p) = self.last_msg {
            let last = self.response.output.get(p).and_then(|m| m.id.as_deref());
            if last.is_some_and(|last| eq_words(last.as_bytes(), id.as_bytes())) {
                return Some(p);
            }
        }
        let p = match self.ids.get(id) {
            Some(&p) => p,
            None if self.released.contains_key(id) => return None,
            None => {
                let p = self.response.output.len();
                self.response.output.push(Message {
                    id: Some(id.to_owned()),
                    status: Some(RunStatus::InProgress),
                    ..Message::default()
                });
                self.ids.insert(id.to_owned(), p);
                if announce {
                    let message = self.envelope_of(p);
                    self.record(owned(StreamUpdate::Message { message }));
                }
                p
            }
        };
        self.last_msg = Some(p);
        Some(p)
    }

    /// An event for a released message: skipped, and reported.
    fn released_event(&mut self, msg_id: &str, index: Option<u32>) {
        self.violation(AgentApiError::OutOfOrder {
            what: "message-released",
            msg_id: Some(msg_id.to_owned()),
            index,
        });
    }

    /// Releases message `m` (finished, its updates recorded): it leaves the response, and the
    /// positions after it move down by one.
    fn release(&mut self, m: usize) {
        if m >= self.response.output.len() {
            return;
        }
        self.materialize_message(m); // pending text deltas of `m` are copied out
        self.materialize_done();
        let message = self.response.output.remove(m);
        if m < self.tallies.len() {
            self.tallies.remove(m);
        }
        if let Some(id) = message.id {
            self.ids.remove(&id);
            self.released.insert(id, 0);
        }
        self.last_msg = None;
        if m == self.response.output.len() {
            return; // it was the last message (the usual case): no position moves
        }
        for p in self.ids.values_mut() {
            if *p > m {
                *p -= 1;
            }
        }
        for p in &mut self.pending {
            if let Pending::Text { msg, .. } = p {
                if *msg > m {
                    *msg -= 1;
                }
            }
        }
        for r in &mut self.runs {
            if r.0 > m {
                r.0 -= 1;
            }
        }
    }

    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn apply_content(&mut self, raw: &mut RawEvent<'_>) {
        let Some(msg_id) = raw.msg_id.take() else {
            let content = std::mem::take(raw).into_content();
            self.violation(AgentApiError::ContentWithoutMessage {
                content: Box::new(content),
            });
            return;
        };
        let Some(m) = self.message_pos(&msg_id.0, true) else {
            return self.released_event(&msg_id.0, raw.index);
        };
        if self.tally(m).capped {
            return; // the message hit a limit (reported once): later content is dropped
        }
        let message_ended = self.response.output[m]
            .status
            .as_ref()
            .is_some_and(RunStatus::is_terminal);
        if message_ended {
            let error = AgentApiError::OutOfOrder {
                what: "content-after-message-end",
                msg_id: Some(msg_id.0.clone().into_owned()),
                index: raw.index,
            };
            if self.violation(error) {
                return;
            }
        }
        let is_delta = raw.delta == Some(true);
        let kind: ContentKind = raw
            .kind
            .as_ref()
            .map_or(ContentKind::Text, |k| (&*k.0).into());
        let contents = &self.response.output[m].content;
        let index = match raw.index {
            Some(i) => i,
            None if is_delta && !contents.is_empty() => {
                contents.last().and_then(|c| c.index).unwrap_or(0)
            }
            None => next_index(contents),
        };
        let found = find_content(&self.response.output[m].content, index);
        if self.tally(m).part_capped(index as usize) {
            return; // the content hit a limit (reported once): later content is dropped
        }
        if found.is_err() {
            let expected = next_index(&self.response.output[m].content);
            if index > expected {
                let error = AgentApiError::IndexGap {
                    msg_id: msg_id.0.clone().into_owned(),
                    index,
                    expected,
                };
                if self.violation(error) {
                    return;
                }
            }
            if !self.admit_part(m) {
                return;
            }
        }
        match found {
            Ok(pos) if is_delta => {
                let existing = &self.response.output[m].content[pos];
                if existing.kind != kind {
                    let error = AgentApiError::DeltaKindMismatch {
                        msg_id: msg_id.0.clone().into_owned(),
                        index,
                        kind: existing.kind.clone(),
                        got: kind,
                    };
                    if self.violation(error) {
                        return;
                    }
                    self.replace_content(m, pos, index, raw);
                } else {
                    self.append_delta(m, pos, index, raw);
                }
            }
            Ok(pos) => self.replace_content(m, pos, index, raw),
            Err(pos) if is_delta && matches!(kind, ContentKind::Text | ContentKind::Data) => {
                // A content started by its first delta: announce it empty, then apply the delta
                // as a delta, so that a UI appending deltas sees every piece exactly once. The
                // fields the model does not know (a part's `name`, `content_type`) come with it.
                let extra = raw
                    .rest
                    .as_mut()
                    .map(|r| std::mem::take(&mut r.extra))
                    .unwrap_or_default();
                let empty = Content {
                    kind,
                    index: Some(index),
                    msg_id: Some(msg_id.0.clone().into_owned()),
                    status: Some(RunStatus::InProgress),
                    extra,
                    ..Content::default()
                };
                self.insert_content(m, pos, empty);
                self.push_content_update(m, pos);
                self.append_delta(m, pos, index, raw);
            }
            Err(pos) => {
                raw.msg_id = Some(msg_id);
                let mut content = std::mem::take(raw).into_content();
                content.index = Some(index);
                if content.status.is_none() {
                    content.status = Some(RunStatus::InProgress);
                }
                let cut = self.fit_content(m, index, &mut content);
                self.insert_content(m, pos, content);
                if let Some(cut) = cut {
                    self.cap_part(m, pos, index, cut);
                }
                self.push_content_update(m, pos);
            }
        }
    }

    /// Inserts a content at position `pos` of message `m`. Contents after it move, so pending
    /// updates that refer to them by position are copied out first.
    fn insert_content(&mut self, m: usize, pos: usize, content: Content) {
        if pos < self.response.output[m].content.len() {
            self.materialize_message(m);
        }
        limits::insert_part(&mut self.response.output[m].content, pos, content);
    }

    /// The tally of message `m` (created on first use).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn tally(&mut self, m: usize) -> &mut MessageTally {
        if self.tallies.len() <= m {
            self.tallies.resize_with(m + 1, MessageTally::default);
        }
        &mut self.tallies[m]
    }

    /// Whether message `m` may take one more content; if not, the message is capped and the
    /// limit reported.
    fn admit_part(&mut self, m: usize) -> bool {
        let limit = self.options.limits.max_parts;
        if self.response.output[m].content.len() < limit {
            return true;
        }
        self.cap_message(
            m,
            LimitError::TooManyParts {
                limit,
                message: self.message_ref(m),
            },
        );
        false
    }

    fn message_ref(&self, m: usize) -> MessageRef {
        MessageRef::Id(
            self.response.output[m]
                .id
                .clone()
                .unwrap_or_else(|| m.to_string()),
        )
    }

    /// Marks message `m` capped and `incomplete`, reporting `error` (once: later content for the
    /// message is dropped before any limit is checked again).
    #[cfg_attr(agentwire_size, optimize(size))]
    fn cap_message(&mut self, m: usize, error: LimitError) {
        self.tally(m).capped = true;
        self.response.output[m].status = Some(RunStatus::Incomplete);
        self.push_issue(Severity::Error, error.into());
        self.close_runs_of_message(m);
        let message = self.envelope_of(m);
        self.record(owned(StreamUpdate::Message { message }));
    }

    /// Message `m` without its contents (they travel as their own updates).
    fn envelope_of(&self, m: usize) -> Message {
        let Some(full) = self.response.output.get(m) else {
            return Message::default();
        };
        Message {
            object: full.object.clone(),
            id: full.id.clone(),
            kind: full.kind.clone(),
            status: full.status.clone(),
            role: full.role.clone(),
            content: Vec::new(),
            code: full.code.clone(),
            message: full.message.clone(),
            usage: full.usage.clone(),
            metadata: full.metadata.clone(),
            sequence_number: full.sequence_number,
            error: full.error.clone(),
            extra: full.extra.clone(),
        }
    }

    /// Cuts a whole content (new, or replacing content `index`) to what message `m` and the part
    /// may still take; says which limit bound if anything was cut (`true`: the message's).
    fn fit_content(&mut self, m: usize, index: u32, content: &mut Content) -> Option<bool> {
        let limits = self.options.limits;
        let key = index as usize;
        let mut cutter = limits::Cutter::new(self.tally(m).replace_budget(&limits, key));
        cutter.opt_string(&mut content.text);
        cutter.opt_string(&mut content.image_url);
        cutter.opt_string(&mut content.file_url);
        cutter.opt_string(&mut content.file_data);
        cutter.opt_string(&mut content.refusal);
        cutter.opt_string(&mut content.video_url);
        cutter.opt_string(&mut content.format);
        cutter.opt_string(&mut content.file_id);
        cutter.opt_string(&mut content.filename);
        cutter.json(&mut content.data);
        self.tally(m).set(key, cutter.used());
        if cutter.cut {
            content.status = Some(RunStatus::Incomplete);
        }
        cutter.cut.then(|| cutter.message_binds())
    }

    /// Content `index` (at `pos`) of message `m` hit a limit: it is marked `incomplete`, the limit
    /// reported, and later content for it (or, for the message's limit, the message) dropped.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn cap_part(&mut self, m: usize, pos: usize, index: u32, message_binds: bool) {
        self.tally(m).cap_part(index as usize);
        if let Some(c) = self.response.output[m].content.get_mut(pos) {
            c.status = Some(RunStatus::Incomplete);
        }
        let limits = self.options.limits;
        let message = self.message_ref(m);
        if message_binds {
            self.cap_message(
                m,
                LimitError::MessageTooLarge {
                    limit: limits.max_message_size,
                    message,
                },
            );
        } else {
            self.push_issue(
                Severity::Error,
                LimitError::PartTooLarge {
                    limit: limits.max_part_size,
                    message,
                    part: index as usize,
                }
                .into(),
            );
        }
    }

    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn append_delta(&mut self, m: usize, pos: usize, index: u32, raw: &mut RawEvent<'_>) {
        if let Some(status) = raw.status.take() {
            let content = &mut self.response.output[m].content[pos];
            if content.status.as_ref() != Some(&status) {
                content.status = Some(status);
            }
        }
        let limits = self.options.limits;
        let key = index as usize;
        let mut cutter = limits::Cutter::new(self.tally(m).append_budget(&limits, key));
        let kind = self.response.output[m].content[pos].kind.clone();
        match kind {
            ContentKind::Text => {
                // Appended from the event's data (borrowed: no copy of the delta).
                let Some(mut text) = raw.text.take() else {
                    return;
                };
                if raw.cut_pair != (None, None) {
                    text = self.join_halves(m, index, text, raw.cut_pair);
                }
                if text.0.is_empty() {
                    return;
                }
                let text = cutter.str(&text.0);
                self.tally(m).grow(key, cutter.used());
                let content = &mut self.response.output[m].content[pos];
                let buf = content.text.get_or_insert_with(String::new);
                let start = buf.len();
                buf.push_str(text);
                let end = buf.len();
                if end > start {
                    self.push_text(m, pos, start, end);
                }
            }
            ContentKind::Data => {
                let Some(delta) = raw.rest.as_mut().and_then(|r| r.data.take()) else {
                    return;
                };
                if cutter.fits(limits::json_size(&delta)) {
                    self.tally(m).grow(key, cutter.used());
                    let content = &mut self.response.output[m].content[pos];
                    match &mut content.data {
                        Some(existing) => merge_data(existing, &delta),
                        None => content.data = Some(delta.clone()),
                    }
                    let msg_id = content.msg_id.clone().unwrap_or_default();
                    self.close_run(m, pos);
                    self.record(owned(StreamUpdate::DataDelta {
                        msg_id,
                        index,
                        delta,
                    }));
                }
            }
            _ => {
                // Other kinds: string payload fields concatenate, others replace.
                let raw = raw.rest();
                let mut pieces = [
                    raw.image_url.take(),
                    raw.file_data.take(),
                    raw.refusal.take(),
                    raw.video_url.take(),
                    raw.file_url.take(),
                    match raw.data.take() {
                        Some(serde_json::Value::String(more)) => Some(more),
                        _ => None,
                    },
                ];
                for piece in &mut pieces {
                    cutter.opt_string(piece);
                }
                self.tally(m).grow(key, cutter.used());
                let [image_url, file_data, refusal, video_url, file_url, data] = pieces;
                let content = &mut self.response.output[m].content[pos];
                append_opt(&mut content.image_url, image_url);
                append_opt(&mut content.file_data, file_data);
                append_opt(&mut content.refusal, refusal);
                append_opt(&mut content.video_url, video_url);
                append_opt(&mut content.file_url, file_url);
                if let Some(more) = data {
                    match &mut content.data {
                        Some(serde_json::Value::String(s)) => s.push_str(&more),
                        other => *other = Some(serde_json::Value::String(more)),
                    }
                }
                replace_opt(&mut content.format, raw.format.take());
                replace_opt(&mut content.file_id, raw.file_id.take());
                replace_opt(&mut content.filename, raw.filename.take());
                if !cutter.cut {
                    self.push_content_update(m, pos);
                }
            }
        }
        if cutter.cut {
            self.cap_part(m, pos, index, cutter.message_binds());
            self.push_content_update(m, pos);
        }
    }

    fn replace_content(&mut self, m: usize, pos: usize, index: u32, raw: &mut RawEvent<'_>) {
        self.materialize_runs(m, pos);
        let msg_id = self.response.output[m].id.clone();
        raw.msg_id = None;
        let mut content = std::mem::take(raw).into_content();
        content.index = Some(index);
        content.msg_id = msg_id;
        let cut = self.fit_content(m, index, &mut content);
        let old = &mut self.response.output[m].content[pos];
        if content.status.is_none() {
            content.status = old.status.take();
        }
        *old = content;
        if let Some(cut) = cut {
            self.cap_part(m, pos, index, cut);
        }
        self.push_content_update(m, pos);
    }

    fn push_content_update(&mut self, m: usize, pos: usize) {
        self.close_run(m, pos);
        let message = &self.response.output[m];
        let content = &message.content[pos];
        self.record(owned(StreamUpdate::Content {
            msg_id: message.id.clone().unwrap_or_default(),
            index: content.index.unwrap_or(pos as u32),
            content: content.clone(),
        }));
    }

    fn push_text(&mut self, msg: usize, pos: usize, start: usize, end: usize) {
        if self.options.coalesce {
            if let Some(&(_, _, at)) = self.runs.iter().find(|r| r.0 == msg && r.1 == pos) {
                if let Some(Pending::Text { end: e, .. }) = self.pending.get_mut(at) {
                    if *e == start {
                        *e = end;
                        return;
                    }
                }
            }
            self.close_run(msg, pos);
            self.runs.push((msg, pos, self.pending.len()));
        }
        self.record(Pending::Text {
            msg,
            pos,
            start,
            end,
        });
    }

    /// Ends the open text run of a content: later deltas start a new update after whatever update
    /// is pushed now.
    fn close_run(&mut self, msg: usize, pos: usize) {
        self.runs.retain(|r| !(r.0 == msg && r.1 == pos));
    }

    fn close_runs_of_message(&mut self, msg: usize) {
        self.runs.retain(|r| r.0 != msg);
    }

    /// Copies out pending text ranges of a content that is about to be replaced: the text from
    /// the first range's start to the last one's end, and the message id, once, to `kept`, the
    /// ranges becoming [`Pending::Kept`]. (Per event, a content's deltas of one network chunk are
    /// often still pending when the event that completes it comes: copying each delta into an
    /// owned update took three allocations per delta.)
    fn materialize_runs(&mut self, msg: usize, pos: usize) {
        self.close_run(msg, pos);
        let mut from = usize::MAX;
        let mut to = 0;
        for (start, end) in self.pending.iter().filter_map(|p| p.range_of(msg, pos)) {
            from = from.min(start);
            to = to.max(end);
        }
        if from > to {
            return; // no pending range of this content
        }
        let message = self.response.output.get(msg);
        let content = message.and_then(|m| m.content.get(pos));
        let text = content.and_then(|c| c.text.as_deref()).unwrap_or("");
        let index = content.and_then(|c| c.index).unwrap_or(pos as u32);
        let id = self.kept.len();
        self.kept
            .push_str(message.and_then(|m| m.id.as_deref()).unwrap_or(""));
        let id_end = self.kept.len();
        // The ranges are deltas appended whole, on character boundaries, so the span is one
        // slice; if a limit cut the text inside it, each range is copied on its own (as "" where
        // it no longer is text, as the delivered update read before).
        let span = text.get(from..to);
        self.kept.push_str(span.unwrap_or(""));
        for p in &mut self.pending {
            let Some((start, end)) = p.range_of(msg, pos) else {
                continue;
            };
            let (start, end) = if span.is_some() {
                (id_end + (start - from), id_end + (end - from))
            } else {
                let at = self.kept.len();
                self.kept.push_str(text.get(start..end).unwrap_or(""));
                (at, self.kept.len())
            };
            *p = Pending::Kept {
                id,
                id_end,
                index,
                start,
                end,
            };
        }
    }

    /// Copies out every pending text range of a message whose contents are about to be reordered.
    fn materialize_message(&mut self, msg: usize) {
        let n = self.response.output.get(msg).map_or(0, |m| m.content.len());
        for pos in 0..n {
            self.materialize_runs(msg, pos);
        }
        self.close_runs_of_message(msg);
    }

    /// Copies the response into a pending [`StreamUpdate::Done`] (before the response changes).
    #[cfg_attr(agentwire_size, optimize(size))]
    fn materialize_done(&mut self) {
        for p in &mut self.pending {
            if matches!(p, Pending::Done) {
                *p = owned(StreamUpdate::Done {
                    response: self.response.clone(),
                });
            }
        }
    }

    /// Applies a message event (or a message of a final `output`, `from_output`).
    #[inline] // See `Assembler::push_other`.
    fn apply_message(&mut self, incoming: Message, from_output: bool) {
        let m = match incoming.id.as_deref() {
            Some(id) => match self.message_pos(id, false) {
                Some(m) => m,
                // Released: a final `output` repeating it is not reconciled.
                None if from_output => return,
                None => return self.released_event(id, None),
            },
            None => {
                self.response.output.push(Message::default());
                self.response.output.len() - 1
            }
        };
        self.materialize_message(m);
        let Message {
            id,
            kind,
            status,
            role,
            content,
            code,
            message,
            usage,
            metadata,
            sequence_number,
            error,
            extra,
            object: _,
        } = incoming;
        let capped = self.tally(m).capped;
        let target = &mut self.response.output[m];
        if target.id.is_none() {
            target.id = id;
        }
        if kind != MessageType::Message || target.kind == MessageType::Message {
            target.kind = kind;
        }
        if !capped {
            // A message that hit a limit stays `incomplete`.
            replace_opt(&mut target.status, status);
        }
        replace_opt(&mut target.role, role);
        replace_opt(&mut target.code, code);
        replace_opt(&mut target.message, message);
        replace_opt(&mut target.usage, usage);
        replace_opt(&mut target.metadata, metadata);
        if !from_output {
            replace_opt(&mut target.sequence_number, sequence_number);
        }
        replace_opt(&mut target.error, error);
        target.extra.extend(extra);
        let failed =
            (target.status == Some(RunStatus::Failed)).then(|| target.error.as_deref().cloned());
        if !content.is_empty() && !capped {
            self.reconcile_contents(m, content);
        }
        if let Some(error) = failed {
            let error = error.unwrap_or_else(|| ErrorInfo {
                code: "failed".into(),
                message: "the message failed".into(),
                extra: JsonMap::new(),
            });
            self.warn(AgentApiError::Server { error });
        }
        if !from_output {
            self.close_runs_of_message(m);
            let message = self.envelope_of(m);
            let finished = message.status.as_ref().is_some_and(RunStatus::is_terminal);
            self.record(owned(StreamUpdate::Message { message }));
            if finished && !self.options.retain_messages {
                self.release(m);
            }
        }
    }

    /// Takes the server's version of a message's contents, warning where it differs from the deltas.
    fn reconcile_contents(&mut self, m: usize, theirs: Vec<Content>) {
        let msg_id = self.response.output[m].id.clone();
        let message_status = self.response.output[m].status.clone();
        for (i, mut c) in theirs.into_iter().enumerate() {
            let index = c.index.unwrap_or(i as u32);
            c.index = Some(index);
            if c.msg_id.is_none() {
                c.msg_id.clone_from(&msg_id);
            }
            if self.tally(m).capped {
                return; // the message hit a limit: the rest of the server's version is dropped
            }
            if self.tally(m).part_capped(index as usize) {
                continue; // our version, cut at a limit, is kept
            }
            let found = find_content(&self.response.output[m].content, index);
            if found.is_err() && !self.admit_part(m) {
                return;
            }
            let cut = self.fit_content(m, index, &mut c);
            let contents = &mut self.response.output[m].content;
            let mut changed = true;
            let pos = match found {
                Ok(pos) => {
                    let ours = &mut contents[pos];
                    if c.status.is_none() {
                        c.status = ours.status.clone().or_else(|| message_status.clone());
                    }
                    if !same_payload(ours, &c) {
                        let assembled = Box::new(std::mem::replace(ours, c));
                        self.violation(AgentApiError::ContentMismatch {
                            msg_id: msg_id.clone().unwrap_or_default(),
                            index,
                            assembled,
                        });
                    } else {
                        changed = ours.status != c.status;
                        ours.status = c.status;
                    }
                    pos
                }
                Err(pos) => {
                    if c.status.is_none() {
                        c.status.clone_from(&message_status);
                    }
                    limits::insert_part(contents, pos, c);
                    pos
                }
            };
            if let Some(cut) = cut {
                self.cap_part(m, pos, index, cut);
            }
            if changed {
                // The client sees contents only through content updates (message updates are
                // envelopes): announce what the message event added or changed.
                self.push_content_update(m, pos);
            }
        }
    }

    #[inline] // See `Assembler::push_other`.
    fn apply_response(&mut self, incoming: AgentResponse) {
        if let (Some(id), Some(got)) = (&self.response.id, &incoming.id) {
            if id != got {
                let error = AgentApiError::ResponseIdChanged {
                    id: id.clone(),
                    got: got.clone(),
                };
                if self.violation(error) {
                    return;
                }
            }
        }
        let AgentResponse {
            id,
            status,
            created_at,
            completed_at,
            error,
            output,
            usage,
            session_id,
            sequence_number,
            extra,
            object: _,
        } = incoming;
        let r = &mut self.response;
        replace_opt(&mut r.id, id);
        r.status = status;
        replace_opt(&mut r.created_at, created_at);
        replace_opt(&mut r.completed_at, completed_at);
        replace_opt(&mut r.error, error);
        replace_opt(&mut r.usage, usage);
        replace_opt(&mut r.session_id, session_id);
        replace_opt(&mut r.sequence_number, sequence_number);
        r.extra.extend(extra);
        if !output.is_empty() {
            // The ids `output` lists, as keys (as `released`).
            let mut listed: HashMap<String, usize> = HashMap::new();
            for id in output.iter().filter_map(|m| m.id.clone()) {
                listed.insert(id, 0);
            }
            for message in output {
                self.apply_message(message, true);
            }
            let missing: Vec<String> = self
                .response
                .output
                .iter()
                .filter_map(|m| m.id.clone())
                .filter(|id| !listed.contains_key(id))
                .collect();
            for msg_id in missing {
                self.violation(AgentApiError::MessageMissingFromOutput { msg_id });
            }
        }
        self.record(owned(StreamUpdate::Response {
            response: self.envelope(),
        }));
        let status = self.response.status.clone();
        if status.is_terminal() {
            if status == RunStatus::Failed {
                let error = self
                    .response
                    .error
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| ErrorInfo {
                        code: "failed".into(),
                        message: "the response failed".into(),
                        extra: JsonMap::new(),
                    });
                self.push_issue(Severity::Error, AgentApiError::Server { error });
            }
            self.end();
        }
    }

    /// The response without its output.
    fn envelope(&self) -> AgentResponse {
        let r = &self.response;
        AgentResponse {
            object: r.object.clone(),
            id: r.id.clone(),
            status: r.status.clone(),
            created_at: r.created_at,
            completed_at: r.completed_at,
            error: r.error.clone(),
            output: Vec::new(),
            usage: r.usage.clone(),
            session_id: r.session_id.clone(),
            sequence_number: r.sequence_number,
            extra: r.extra.clone(),
        }
    }

    /// Marks what is unfinished `incomplete` and records [`StreamUpdate::Done`] (once).
    fn end(&mut self) {
        if self.done {
            return;
        }
        self.release_held();
        self.done = true;
        for message in &mut self.response.output {
            let finished = message.status.as_ref().is_some_and(RunStatus::is_terminal);
            if !finished {
                message.status = Some(RunStatus::Incomplete);
            }
            for content in &mut message.content {
                let finished = content.status.as_ref().is_some_and(RunStatus::is_terminal);
                if !finished {
                    content.status = Some(RunStatus::Incomplete);
                }
            }
        }
        self.runs.clear();
        self.record(Pending::Done);
    }

    /// Ends the stream: a response that never reached a terminal status is marked `incomplete` (with
    /// a [`AgentApiError::StreamIncomplete`] error) and everything received is kept.
    pub fn finish(&mut self) {
        if self.done {
            return;
        }
        let last_status = std::mem::replace(&mut self.response.status, RunStatus::Incomplete);
        self.push_issue(
            Severity::Error,
            AgentApiError::StreamIncomplete { last_status },
        );
        self.end();
    }

    /// The user stopped the stream: the response is marked `canceled` (unless it had already ended)
    /// and unfinished parts `incomplete`; the pending updates are dropped (no callback should run
    /// after an abort), everything received stays in the response.
    pub fn abort(&mut self) {
        self.stopped = true;
        if !self.done {
            self.response.status = RunStatus::Canceled;
            self.end();
        }
        self.clear_pending();
    }

    /// Drops the recorded updates (and what they refer to), keeping the buffers; `kept` only
    /// up to [`KEPT_CAPACITY`], so that one large batch does not leave its copy allocated.
    fn clear_pending(&mut self) {
        self.pending.clear();
        self.runs.clear();
        if self.kept.capacity() > KEPT_CAPACITY {
            self.kept = String::new();
        } else {
            self.kept.clear();
        }
    }

    /// Takes the updates recorded since the last drain, in order.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        let pending = std::mem::take(&mut self.pending);
        let updates = pending
            .into_iter()
            .map(|p| match p {
                Pending::Owned(u) => *u,
                Pending::Done => StreamUpdate::Done {
                    response: self.response.clone(),
                },
                text => {
                    let (msg_id, index, delta) =
                        text_delta_of(&self.response, &self.kept, &text).unwrap_or_default();
                    StreamUpdate::TextDelta {
                        msg_id: msg_id.to_owned(),
                        index,
                        delta: delta.to_owned(),
                    }
                }
            })
            .collect();
        self.clear_pending();
        updates
    }

    /// Appends the updates recorded since the last drain to `out` as a JSON array (the shape of
    /// `StreamUpdate[]`), without materializing them, and clears them.
    pub fn drain_updates_json(&mut self, out: &mut String) {
        out.push('[');
        for (i, p) in self.pending.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match text_delta_of(&self.response, &self.kept, p) {
                Some((msg_id, index, delta)) => write_text_delta(out, msg_id, index, delta),
                None => write_pending(out, &mut self.scratch, &self.response, p),
            }
        }
        out.push(']');
        self.clear_pending();
    }

    /// Takes the updates recorded since the last drain into `out` (cleared first) in split form:
    /// text deltas and plain message and content updates as numbers, the JSON of the other
    /// updates, and the streamed text beside them (the deltas, the texts of `content` and `done`
    /// updates, the strings of the plain updates), the form a JavaScript caller builds the update
    /// objects from without the text being escaped and parsed (see [`SplitUpdates`]).
    /// The same updates as [`drain_updates_json`](Self::drain_updates_json), in the same order.
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub fn drain_updates_split(&mut self, out: &mut SplitUpdates) {
        out.clear();
        out.json.push('[');
        let mut first = true;
        let scratch = &mut self.scratch;
        let mut i = 0;
        while i < self.pending.len() {
            // Deltas that continue one another's text (per event: a content's deltas of one
            // network chunk) cross as one text.
            let run = run_end(&self.pending, i);
            if run > i + 1 {
                let deltas = &self.pending[i..run];
                if let Some((msg_id, index, text)) = run_text(&self.response, &self.kept, deltas) {
                    let ranges = deltas.iter().map(|p| p.span().unwrap_or_default());
                    out.push_text_run(msg_id, index, text, ranges);
                    i = run;
                    continue;
                }
            }
            let p = &mut self.pending[i];
            i += 1;
            if let Some((msg_id, index, delta)) = text_delta_of(&self.response, &self.kept, p) {
                out.push_text_delta(msg_id, index, delta);
                continue;
            }
            if let Pending::Owned(u) = p {
                if out.push_plain(u) {
                    continue;
                }
            }
            if !first {
                out.json.push(',');
            }
            first = false;
            match p {
                Pending::Done => out.push_done(&mut self.response, write_done),
                Pending::Owned(u) => match &mut **u {
                    StreamUpdate::Done { response } => out.push_done(response, write_done),
                    // The pending update is dropped below: its text is taken, not copied.
                    StreamUpdate::Content { content, .. } if split::text_is_last(content) => {
                        let text = content.text.take().unwrap_or_default();
                        write_value(&mut out.json, scratch, &**u);
                        out.push_content_text(&text);
                    }
                    u => {
                        write_value(&mut out.json, scratch, &*u);
                        out.table.push(SplitUpdates::JSON);
                    }
                },
                Pending::Text { .. } | Pending::Kept { .. } => {}
            }
        }
        out.json.push(']');
        self.clear_pending();
    }

    /// The response as assembled so far in split form, written to `out` (cleared first): its JSON
    /// with the text of its text contents beside it (see [`SplitUpdates`]), for a JavaScript
    /// caller that builds the object without parsing the text. `&mut` because the texts are taken
    /// out of the response while its JSON is written; they are put back, and the response is
    /// unchanged afterwards.
    pub fn response_split(&mut self, out: &mut SplitUpdates) {
        split::write_response(out, &mut self.response);
    }
}

/// The end of the run of pending deltas that starts at `i`: the deltas after it of the same
/// content (a [`Pending::Text`] of the same message and content, or a [`Pending::Kept`] of the same
/// message id and index), each range starting where the one before it ended. `i + 1` when there
/// are none (or `pending[i]` is not such a delta).
fn run_end(pending: &[Pending], i: usize) -> usize {
    let mut j = i + 1;
    match pending.get(i) {
        Some(&Pending::Text {
            msg, pos, mut end, ..
        }) => {
            while let Some(&Pending::Text {
                msg: m,
                pos: p,
                start,
                end: e,
            }) = pending.get(j)
            {
                if (m, p, start) != (msg, pos, end) {
                    break;
                }
                end = e;
                j += 1;
            }
        }
        Some(&Pending::Kept {
            id,
            id_end,
            index,
            mut end,
            ..
        }) => {
            while let Some(&Pending::Kept {
                id: d,
                id_end: de,
                index: x,
                start,
                end: e,
            }) = pending.get(j)
            {
                if (d, de, x, start) != (id, id_end, index, end) {
                    break;
                }
                end = e;
                j += 1;
            }
        }
        _ => {}
    }
    j
}

/// A run of pending deltas (see [`run_end`]): their message id, content index and joined text.
/// `None` if that text is not where they say (the caller then takes them one by one).
fn run_text<'a>(
    response: &'a AgentResponse,
    kept: &'a str,
    run: &[Pending],
) -> Option<(&'a str, u32, &'a str)> {
    let (first, last) = (run.first()?, run.last()?);
    let end = last.span()?.1;
    match *first {
        Pending::Text {
            msg, pos, start, ..
        } => {
            let message = response.output.get(msg)?;
            let content = message.content.get(pos)?;
            Some((
                message.id.as_deref().unwrap_or(""),
                content.index.unwrap_or(pos as u32),
                content.text.as_deref()?.get(start..end)?,
            ))
        }
        Pending::Kept {
            id,
            id_end,
            index,
            start,
            ..
        } => Some((kept.get(id..id_end)?, index, kept.get(start..end)?)),
        _ => None,
    }
}

/// The text delta a pending update is, if it is one: its message id, content index and text.
fn text_delta_of<'a>(
    response: &'a AgentResponse,
    kept: &'a str,
    p: &'a Pending,
) -> Option<(&'a str, u32, &'a str)> {
    match p {
        Pending::Owned(u) => match &**u {
            StreamUpdate::TextDelta {
                msg_id,
                index,
                delta,
            } => Some((msg_id, *index, delta)),
            _ => None,
        },
        Pending::Done => None,
        // A range of the content's accumulated text.
        Pending::Text {
            msg,
            pos,
            start,
            end,
        } => {
            let message = response.output.get(*msg);
            let content = message.and_then(|m| m.content.get(*pos));
            let text = content.and_then(|c| c.text.as_deref()).unwrap_or("");
            Some((
                message.and_then(|m| m.id.as_deref()).unwrap_or(""),
                content.and_then(|c| c.index).unwrap_or(*pos as u32),
                text.get(*start..*end).unwrap_or(""),
            ))
        }
        // A range copied out of its content (which was replaced or moved).
        Pending::Kept {
            id,
            id_end,
            index,
            start,
            end,
        } => Some((
            kept.get(*id..*id_end).unwrap_or(""),
            *index,
            kept.get(*start..*end).unwrap_or(""),
        )),
    }
}

/// Writes a [`StreamUpdate::Done`] with `response` as serde would (straight into `out`: the
/// response is the largest value a stream writes).
fn write_done(out: &mut String, response: &AgentResponse) {
    out.push_str("{\"type\":\"done\",\"response\":");
    write_large_value(out, response);
    out.push('}');
}

/// Writes a pending update that is not a text delta as JSON (through serde).
fn write_pending(out: &mut String, scratch: &mut Vec<u8>, response: &AgentResponse, p: &Pending) {
    match p {
        Pending::Done => write_done(out, response),
        Pending::Owned(u) => write_value(out, scratch, &**u),
        Pending::Text { .. } | Pending::Kept { .. } => {}
    }
}

/// Writes a [`StreamUpdate::TextDelta`] as serde would:
/// `{"type":"textDelta","msgId":…,"index":…,"delta":…}`.
fn write_text_delta(out: &mut String, msg_id: &str, index: u32, delta: &str) {
    use crate::json::write::{write_str, write_u32};
    out.push_str("{\"type\":\"textDelta\",\"msgId\":");
    write_str(out, msg_id);
    out.push_str(",\"index\":");
    write_u32(out, index);
    out.push_str(",\"delta\":");
    write_str(out, delta);
    out.push('}');
}

fn owned(update: StreamUpdate) -> Pending {
    Pending::Owned(Box::new(update))
}

/// The halves of a surrogate pair at the edges of a text delta (see [`RawEvent::cut_pair`]):
/// `text` is the `text` member as read and `data` the event's JSON ([`json::cut_halves`]).
#[cold]
#[inline(never)]
#[cfg_attr(agentwire_size, optimize(size))]
fn cut_pair(data: &[u8], text: &str) -> (Option<u16>, Option<u16>) {
    const FFFD: char = char::REPLACEMENT_CHARACTER;
    if !text.starts_with(FFFD) && !text.ends_with(FFFD) {
        return (None, None); // most owned texts: escapes of other characters (`\n`, `\"`)
    }
    let data = crate::sse::utf8_decode(data);
    crate::json::cut_halves(&data, &[crate::json::Step::Member("text")], text)
}

/// Position of the content with `index` (contents are kept sorted by index), or where to insert it.
fn find_content(contents: &[Content], index: u32) -> Result<usize, usize> {
    if let Some(c) = contents.get(index as usize) {
        if c.index == Some(index) {
            return Ok(index as usize);
        }
    }
    contents.binary_search_by_key(&index, |c| c.index.unwrap_or(0))
}

fn next_index(contents: &[Content]) -> u32 {
    contents
        .iter()
        .filter_map(|c| c.index)
        .max()
        .map_or(0, |i| i.saturating_add(1))
}

fn replace_opt<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

fn append_opt(slot: &mut Option<String>, v: Option<String>) {
    if let Some(v) = v {
        match slot {
            Some(s) => s.push_str(&v),
            None => *slot = Some(v),
        }
    }
}

fn same_payload(a: &Content, b: &Content) -> bool {
    // The text, the long field, a word at a time (a message's final version repeats every text
    // streamed; `==` on wasm32 compares it byte by byte in `memcmp`).
    let same_text = match (&a.text, &b.text) {
        (Some(x), Some(y)) => eq_words(x.as_bytes(), y.as_bytes()),
        (x, y) => x.is_none() && y.is_none(),
    };
    a.kind == b.kind
        && same_text
        && a.image_url == b.image_url
        && a.data == b.data
        && a.format == b.format
        && a.file_url == b.file_url
        && a.file_id == b.file_id
        && a.filename == b.filename
        && a.file_data == b.file_data
        && a.refusal == b.refusal
        && a.video_url == b.video_url
}

/// The protocol's data delta merge (agentscope-runtime `ContentBuilder._merge_data_incrementally`):
/// for each key of the delta, a missing key is added; strings, lists concatenate; numbers (not
/// booleans) add; objects merge recursively; anything else is replaced. A non-object delta or base is
/// replaced whole.
pub(crate) fn merge_data(base: &mut serde_json::Value, delta: &serde_json::Value) {
    use serde_json::Value;
    let (Value::Object(base_map), Value::Object(delta_map)) = (&mut *base, delta) else {
        *base = delta.clone();
        return;
    };
    for (key, d) in delta_map {
        match (base_map.get_mut(key), d) {
            (None, d) => {
                base_map.insert(key.clone(), d.clone());
            }
            (Some(Value::String(b)), Value::String(d)) => b.push_str(d),
            (Some(Value::Array(b)), Value::Array(d)) => b.extend(d.iter().cloned()),
            (Some(b @ Value::Object(_)), d @ Value::Object(_)) => merge_data(b, d),
            (Some(Value::Number(b)), Value::Number(d)) => {
                let sum = match (b.as_i64(), d.as_i64()) {
                    (Some(x), Some(y)) => x.checked_add(y).map(serde_json::Number::from),
                    _ => None,
                }
                .or_else(|| {
                    serde_json::Number::from_f64(
                        b.as_f64().unwrap_or(0.0) + d.as_f64().unwrap_or(0.0),
                    )
                });
                if let Some(sum) = sum {
                    *b = sum;
                }
            }
            (Some(b), d) => *b = d.clone(),
        }
    }
}

/// SSE decoding and assembly in one: bytes of an Agent API `text/event-stream` in, updates and the
/// assembled response out. This is what the JavaScript client runs on every network chunk.
///
/// A stream broken by the network can continue on a new connection when the server numbers its
/// events: call [`reconnect`](Self::reconnect), send [`last_event_id`](Self::last_event_id) as
/// the `Last-Event-ID` header, and feed the new connection's bytes to the same `AgentStream`.
///
/// ```
/// use agentwire::dialect::agent_api::{AgentStream, ResponseBuilder, Role};
///
/// let mut builder = ResponseBuilder::new(None);
/// let sse = builder.streaming_sse(&["Hel", "lo"], Role::Assistant);
/// let events: Vec<&str> = sse.split_inclusive("\n\n").collect();
///
/// let mut stream = AgentStream::new(Default::default());
/// for e in &events[..4] {
///     stream.feed(e.as_bytes());
/// }
/// stream.feed(&events[4].as_bytes()[..10]); // the connection breaks inside an event
/// let last = stream.last_event_id(); // the last `sequence_number` applied: "3"
/// assert_eq!(last.as_deref(), Some("3"));
///
/// stream.reconnect();
/// for e in &events[2..] {
///     stream.feed(e.as_bytes()); // the server resumes from an earlier event: repeats are skipped
/// }
/// stream.finish();
/// assert_eq!(stream.response().output[0].text(), "Hello");
/// ```
#[derive(Debug, Clone, Default)]
pub struct AgentStream {
    sse: SseDecoder,
    assembler: Assembler,
    /// Bytes fed, all connections together.
    bytes: u64,
    /// [`finish`](Self::finish) was called: later bytes are ignored.
    finished: bool,
}

impl AgentStream {
    /// A new stream.
    #[inline] // See `Assembler::new`.
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            sse: SseDecoder::with_options(options.sse),
            assembler: Assembler::new(options),
            bytes: 0,
            finished: false,
        }
    }

    /// Decodes and applies the next chunk of bytes. After [`Limits::max_stream_bytes`], once
    /// the stream was stopped (strict mode, abort), or once it was [`finish`](Self::finish)ed,
    /// bytes are ignored.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.assembler.stopped || self.finished {
            return;
        }
        let limit = self.assembler.options.limits.max_stream_bytes;
        let (bytes, over) = limits::admit_bytes(&mut self.bytes, limit, bytes);
        let assembler = &mut self.assembler;
        self.sse
            .feed_bytes(bytes, &mut |item| Self::on_item(assembler, item));
        if let (true, Some(limit)) = (over, limit) {
            self.assembler.stream_too_large(limit);
        }
    }

    fn on_item(assembler: &mut Assembler, item: SseItemBytes<'_>) {
        match item {
            SseItemBytes::Event(e) => assembler.push_sse_bytes(&e),
            SseItemBytes::Retry(_) => {}
            SseItemBytes::Error(e) => assembler.sse_issue(e),
        }
    }

    /// The connection broke and a new one continues the stream: the SSE decoder starts afresh
    /// (an event cut by the break is dropped: the server sends it again), keeping the last event
    /// id, and the assembler goes on, skipping the events it already applied (see
    /// [`EventCursor`]). Feed the new connection's bytes next.
    pub fn reconnect(&mut self) {
        self.sse.reset();
        self.assembler.reconnect();
    }

    /// What to send as `Last-Event-ID` when reconnecting: the SSE decoder's last event id, or,
    /// when the server gives no SSE ids, the `sequence_number` of the last event applied (in
    /// decimal). `None` when the stream has neither: it cannot be resumed without repeats.
    pub fn last_event_id(&self) -> Option<String> {
        let id = self.sse.last_event_id();
        if !id.is_empty() {
            return Some(id.to_owned());
        }
        self.assembler.cursor.last_sequence().map(|s| s.to_string())
    }

    /// Ends the stream (see [`Assembler::finish`]); bytes fed after it are ignored.
    pub fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        let assembler = &mut self.assembler;
        // (The decoder shared with the other dialects: what `finish` may still dispatch is at most
        // the few bytes held while looking for a byte order mark.)
        self.sse.finish_dyn(&mut |item| match item {
            SseItem::Event(e) => assembler.push_sse_event(&e),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => assembler.sse_issue(e),
        });
        self.assembler.finish();
    }

    /// The user stopped the stream (see [`Assembler::abort`]).
    pub fn abort(&mut self) {
        self.sse.reset();
        self.assembler.abort();
    }

    /// The SSE decoder (last event id, retry).
    pub fn sse(&self) -> &SseDecoder {
        &self.sse
    }

    /// The assembler.
    pub fn assembler(&self) -> &Assembler {
        &self.assembler
    }

    /// The assembler, mutably (to drain updates).
    pub fn assembler_mut(&mut self) -> &mut Assembler {
        &mut self.assembler
    }

    /// The response as assembled so far.
    pub fn response(&self) -> &AgentResponse {
        self.assembler.response()
    }

    /// Takes the updates recorded since the last drain.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        self.assembler.drain_updates()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taking_the_response_keeps_pending_text_deltas_deliverable() {
        // Pending text deltas are ranges into the response; taking it used to leave them pointing
        // at nothing (an index panic when drained).
        let mut a = Assembler::new(AssemblerOptions::default());
        a.push_data(
            r#"{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"Hi"}"#,
        );
        let taken = a.take_response();
        assert_eq!(taken.output[0].text(), "Hi");
        let deltas: Vec<String> = a
            .drain_updates()
            .into_iter()
            .filter_map(|u| match u {
                StreamUpdate::TextDelta { delta, .. } => Some(delta),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, ["Hi"]);
        let mut json = String::new();
        a.drain_updates_json(&mut json);
        assert_eq!(json, "[]");
    }

    #[test]
    fn a_content_started_by_a_delta_keeps_its_unknown_fields() {
        // A named part (agentwire's `name` and `content_type` ride in unknown fields) whose
        // first event is a delta.
        let mut a = Assembler::new(AssemblerOptions::default());
        for text in ["Hel", "lo"] {
            a.push_data(&format!(
                r#"{{"object":"content","msg_id":"m1","index":0,"delta":true,"type":"text","text":"{text}","name":"/notes/a","content_type":"text/markdown"}}"#
            ));
        }
        let content = &a.response().output[0].content[0];
        assert_eq!(content.text.as_deref(), Some("Hello"));
        assert_eq!(
            content.extra.get("name"),
            Some(&serde_json::json!("/notes/a"))
        );
        assert_eq!(
            content.extra.get("content_type"),
            Some(&serde_json::json!("text/markdown"))
        );
        let body = a.response().output[0].body();
        let part = body.get("/notes/a").expect("the part is named");
        assert_eq!(part.content_type, "text/markdown");
        // The first update announces the content with them.
        let first = a.drain_updates().into_iter().find_map(|u| match u {
            StreamUpdate::Content { content, .. } => Some(content),
            _ => None,
        });
        assert_eq!(
            first.and_then(|c| c.extra.get("name").cloned()),
            Some(serde_json::json!("/notes/a"))
        );
    }
}

#[cfg(test)]
mod fuzz_regressions {
    use super::*;

    /// The updates of `events` (each one event's data) drained once at the end, or after every
    /// event (as if each arrived in its own chunk); and the assembler.
    fn updates_of(events: &[&str], drain_between: bool) -> (Vec<StreamUpdate>, Assembler) {
        let mut a = Assembler::new(AssemblerOptions::default());
        let mut updates = Vec::new();
        for e in events {
            a.push_data(e);
            if drain_between {
                updates.extend(a.drain_updates());
            }
        }
        updates.extend(a.drain_updates());
        (updates, a)
    }

    /// Deltas still pending when their content is replaced (the completed content of a message,
    /// in the same network chunk) keep the text they streamed, in every drain form: their text is
    /// copied out once per content (`Pending::Kept`), then the content changes.
    #[test]
    fn deltas_pending_when_their_content_is_replaced_keep_their_text() {
        let events = [
            r#"{"object":"content","index":0,"delta":true,"msg_id":"m1","type":"text","text":"Hé"}"#,
            r#"{"object":"content","index":1,"delta":true,"msg_id":"m1","type":"text","text":"x"}"#,
            r#"{"object":"content","index":0,"delta":true,"msg_id":"m1","type":"text","text":"llo"}"#,
            r#"{"object":"content","index":0,"delta":false,"msg_id":"m1","type":"text","text":"Other"}"#,
            r#"{"object":"content","index":0,"delta":true,"msg_id":"m1","type":"text","text":"!"}"#,
            r#"{"object":"message","id":"m1","type":"message","status":"completed"}"#,
        ];
        let (together, a) = updates_of(&events, false);
        assert_eq!(together, updates_of(&events, true).0);
        let deltas: Vec<(&str, u32, &str)> = together
            .iter()
            .filter_map(|u| match u {
                StreamUpdate::TextDelta {
                    msg_id,
                    index,
                    delta,
                } => Some((msg_id.as_str(), *index, delta.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            deltas,
            [
                ("m1", 0, "Hé"),
                ("m1", 1, "x"),
                ("m1", 0, "llo"),
                ("m1", 0, "!")
            ]
        );
        assert_eq!(
            a.response().output[0].content[0].text.as_deref(),
            Some("Other!")
        );

        // The JSON and split drains say the same.
        let expected: Vec<serde_json::Value> = together
            .iter()
            .map(|u| serde_json::to_value(u).unwrap())
            .collect();
        let mut a = Assembler::new(AssemblerOptions::default());
        let mut b = Assembler::new(AssemblerOptions::default());
        for e in events {
            a.push_data(e);
            b.push_data(e);
        }
        let mut json = String::new();
        a.drain_updates_json(&mut json);
        assert_eq!(
            serde_json::from_str::<Vec<serde_json::Value>>(&json).unwrap(),
            expected
        );
        let mut split = SplitUpdates::default();
        b.drain_updates_split(&mut split);
        assert_eq!(split.updates_json().unwrap(), expected);
        // What was copied out is released with the drain.
        assert!(a.kept.is_empty() && b.kept.is_empty());
    }

    /// Found by the `agent_api` fuzz target: a content inserted before another (index 0 after
    /// index 2) moved it, and a pending text delta of the moved content, still referring to its old
    /// position, was delivered as the new content's (empty) text, so the updates depended on where
    /// the stream was split into chunks.
    #[test]
    fn a_content_inserted_before_another_keeps_the_others_pending_delta() {
        let events = [
            r#"{"object":"content","index":2,"delta":true,"msg_id":"m1","text":"E"}"#,
            r#"{"object":"content","index":0,"msg_id":"m1"}"#,
        ];
        let (together, _) = updates_of(&events, false);
        assert_eq!(together, updates_of(&events, true).0);
        assert!(together.iter().any(|u| matches!(
            u,
            StreamUpdate::TextDelta { index: 2, delta, .. } if delta == "E"
        )));
    }

    /// Found by fuzzing (the `agent_api` target): in lenient mode an event after the end is
    /// applied, and the pending `done` update, which read the response when drained, showed the
    /// response as that later event left it, so the updates depended on the chunk split.
    #[test]
    fn done_keeps_the_response_as_it_ended_when_an_event_follows() {
        let events = [
            r#"{"error":"boom"}"#,
            r#"{"object":"response","status":"in_progress"}"#,
        ];
        let (together, a) = updates_of(&events, false);
        assert_eq!(together, updates_of(&events, true).0);
        assert_eq!(a.response().status, RunStatus::InProgress);
        let done = together.iter().find_map(|u| match u {
            StreamUpdate::Done { response } => Some(response),
            _ => None,
        });
        assert_eq!(done.map(|r| &r.status), Some(&RunStatus::Failed));
        let mut json = String::new();
        let mut a = Assembler::new(AssemblerOptions::default());
        for e in events {
            a.push_data(e);
        }
        a.drain_updates_json(&mut json);
        assert!(
            json.contains(r#"{"type":"done","response":{"object":"response","status":"failed""#),
            "{json}"
        );
    }
}
