//! Folding AgentX packets into logical messages, with live updates.

pub use crate::error::Severity;
use std::collections::BTreeMap;

use serde::Serialize;

use super::body::body_with_status;
use super::model::{is_message_id, is_tool_call_id, Message, Part, Role};
use super::packet::{RawPacket, RawPart};
use super::AgentxError;
use crate::body::{Body, PartStatus};
use crate::error::ErrorCode;
use crate::limits::{self, LimitError, Limits, MessageRef, MessageTally};
use crate::sse::{Admission, EventCursor, SseDecoder, SseError, SseEvent, SseItem, SseOptions};
use crate::wire::JsonMap;
use agentwire_core::json::{self, Step};
use std::borrow::Cow;

/// Options of [`Assembler`] and [`AgentxStream`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AssemblerOptions {
    /// Batched delivery: between two drains (with [`AgentxStream`], within one network chunk when
    /// the caller drains after every [`feed`](AgentxStream::feed)), consecutive text deltas of the
    /// same part are merged into one [`StreamUpdate::TextDelta`]. Default `false` (one update per
    /// packet).
    pub coalesce: bool,
    /// Options of the SSE decoder ([`AgentxStream`] only).
    pub sse: SseOptions,
    /// Limits on what the stream may make the assembler hold (see [`crate::limits`]). A text
    /// part's size is its text; another part's, the length of its JSON.
    pub limits: Limits,
    /// Strict mode (default `false`, lenient): input the document does not allow is an error that
    /// ends the stream instead of a warning. See [`Assembler`] for each case.
    pub strict: bool,
}

/// Where a stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
#[serde(rename_all = "lowercase")]
pub enum StreamStatus {
    /// Packets may still come.
    #[default]
    Streaming,
    /// The stream ended (the connection closed on an event boundary).
    Complete,
    /// The stream broke; what arrived is kept.
    Incomplete,
}

/// A change to the assembled messages, in stream order. JSON: `{"type": "message" | "part" |
/// "textDelta" | "issue" | "done", …}` with camelCase fields; indexes are 0-based.
///
/// Updates never repeat accumulated text: a text packet that continues a text part is a
/// [`TextDelta`](Self::TextDelta) carrying only the new text, and a part is sent whole only when it
/// appears, so the work of delivering a stream is linear in its size.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    target_arch = "wasm32",
    derive(tsify::Tsify),
    tsify(type_prefix = "Agentx")
)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum StreamUpdate {
    /// A logical message began (its first packet arrived), or a packet changed its unknown fields.
    /// `message` is its envelope: id, role and unknown fields, with `parts` empty (parts arrive as
    /// their own updates; [`Done`](Self::Done) has everything).
    Message {
        /// Position of the message in the stream.
        message_index: u32,
        /// The envelope.
        message: Message,
    },
    /// A part was appended to a message.
    Part {
        /// Position of the message in the stream.
        message_index: u32,
        /// Position of the part in its message.
        part_index: u32,
        /// The part as it arrived.
        part: Part,
    },
    /// Text appended to a text part (a text packet continuing it).
    TextDelta {
        /// Position of the message in the stream.
        message_index: u32,
        /// Position of the text part in its message.
        part_index: u32,
        /// The appended text.
        delta: String,
    },
    /// A problem: malformed input (skipped, or kept as [`Part::Other`]), an odd id, a broken stream.
    Issue {
        /// Warning (tolerated) or error (the stream broke).
        #[cfg_attr(target_arch = "wasm32", tsify(type = "Severity"))]
        severity: Severity,
        /// The error's stable code (see [`AgentxError`]).
        code: String,
        /// A readable message.
        message: String,
        /// Structured details, including the offending input.
        #[cfg_attr(target_arch = "wasm32", tsify(type = "JsonValue"))]
        details: serde_json::Value,
        /// The typed error (Rust only).
        #[serde(skip)]
        #[cfg_attr(target_arch = "wasm32", tsify(skip))]
        error: Box<AgentxError>,
    },
    /// The stream ended: its status and every message.
    Done {
        /// `complete` or `incomplete`.
        status: StreamStatus,
        /// The assembled messages, in stream order.
        messages: Vec<Message>,
    },
}

impl StreamUpdate {
    fn issue(severity: Severity, error: AgentxError) -> Self {
        StreamUpdate::Issue {
            severity,
            code: error.code().to_owned(),
            message: error.to_string(),
            details: error.details(),
            error: Box::new(error),
        }
    }
}

/// An update waiting to be drained: owned, or a reference into the assembled messages (so text and
/// parts are neither copied nor allocated until delivered).
#[derive(Debug, Clone)]
enum Pending {
    Owned(StreamUpdate),
    /// Part `pos` of message `msg`; a text part as it was when `text_len` bytes long.
    Part {
        msg: usize,
        pos: usize,
        text_len: usize,
    },
    /// Bytes `start..end` of text part `pos` of message `msg`.
    Text {
        msg: usize,
        pos: usize,
        start: usize,
        end: usize,
    },
    Done,
}

fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// Folds AgentX packets (SSE `data` payloads) into logical messages, and records a
/// [`StreamUpdate`] for each change.
///
/// Rules (the document's §4, and agentwire's choices, see the [module docs](super#streaming)):
/// - A packet with an `id` goes to the message with that id, which its first packet creates. A
///   packet without `id` continues the message the previous packet went to if the roles are the
///   same, else starts a new message without id.
/// - The packet's parts are appended in order; a text part first in the packet concatenates onto
///   the message's last part when that is text (its unknown fields are merged in, without an update
///   of their own). The packet's unknown message fields are merged into the message.
/// - A surrogate pair a JavaScript server cut between two packets (`"I \ud83d"`, then
///   `"\ude00 you"`: `JSON.stringify` escapes each lone half) is joined again: the high half ending
///   a packet's last text part is held back until the next packet, and appended as U+FFFD if that
///   does not begin with the low half (or the stream ends).
/// - Nothing is rejected: malformed packets are skipped and reported with their data; parts of a
///   known type with the wrong shape are kept as [`Part::Other`] and reported; odd ids and a changed
///   role are reported, as warnings (in lenient mode; a resume's gap and the limits' cuts are
///   errors, see below).
/// - [`finish`](Self::finish) ends the stream `complete`; [`finish_interrupted`](Self::finish_interrupted)
///   ends it `incomplete` with a [`AgentxError::StreamIncomplete`] error, keeping everything.
///   Input after the end is ignored.
///
/// # Lenient and strict mode
///
/// [`AssemblerOptions::strict`] decides what input the document does not allow does. Lenient
/// (the default) keeps going and reports a `warning`; strict reports an `error` and ends the
/// stream: the status becomes `incomplete`, a [`StreamUpdate::Done`] follows, later input is
/// ignored. A packet found wrong before it is applied is refused; one found wrong while its parts
/// are appended is applied, and the stream ends after it.
///
/// | input | code | lenient | strict |
/// |---|---|---|---|
/// | data that is not JSON, or not a packet | `invalid-json`, `invalid-packet` | skipped, warning | error, ends |
/// | a message `id` not `msg_` + 32 lowercase hex | `invalid-id` | used as it is, warning | packet refused, error, ends |
/// | a packet whose role differs from its message's | `role-mismatch` | parts appended, warning | packet refused, error, ends |
/// | a `tool_call_id` not `tc_` + 32 lowercase hex | `invalid-id` | used as it is, warning | kept, error, ends after the packet |
/// | a part of a known type with the wrong shape | `invalid-part` | kept as [`Part::Other`], warning | kept, error, ends after the packet |
/// | a part of an unknown type | `unknown-part-type` | kept, no issue | kept, error, ends after the packet |
/// | an SSE event over the size limit | `event-too-large` | warning | error, ends |
/// | event data nested deeper than [`Limits::max_depth`] | `too-deep` | skipped, warning | error, ends |
/// | after a reconnect, an already applied event again after new ones | `duplicate-event` | skipped, warning | skipped, error, ends |
///
/// Limits ([`AssemblerOptions::limits`]): a text part is cut at the limit and kept; another part
/// that does not fit is dropped (JSON cannot be cut); a message over `max_parts` drops its later
/// parts. Each is an `error` issue (`details.messageIndex`; `part-too-large` also
/// `details.partIndex`), the stream goes
/// on, [`is_cut`](Self::is_cut) tells it and [`body`](Self::body) marks the part `incomplete`.
/// `stream-too-large` ends the stream `incomplete`.
#[derive(Debug, Clone, Default)]
pub struct Assembler {
    options: AssemblerOptions,
    messages: Vec<Message>,
    ids: BTreeMap<String, usize>,
    /// The message the last packet went to.
    last: Option<usize>,
    pending: Vec<Pending>,
    /// Open text runs of this batch (coalescing): (message, part, index in `pending`).
    runs: Vec<(usize, usize, usize)>,
    status: StreamStatus,
    packets: u64,
    /// Reused buffer of [`drain_updates_json`](Self::drain_updates_json).
    scratch: Vec<u8>,
    /// Sizes and limits hit, per message position.
    tallies: Vec<MessageTally>,
    /// Which events were applied (for resuming).
    cursor: EventCursor,
    /// Strict mode found a violation in the current packet: end the stream after it.
    halting: bool,
    /// The high half of a surrogate pair the last text part of a packet ended with, held back for
    /// the next packet's low half: (message, part, code unit). See [`Assembler::release_held`].
    held: Option<(usize, usize, u16)>,
}

impl Assembler {
    /// An empty assembler.
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            options,
            cursor: EventCursor::new(),
            ..Self::default()
        }
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

    /// Whether message `message` (0-based, stream order) or, with `part`, that part of it, was
    /// cut at a limit.
    pub fn is_cut(&self, message: usize, part: Option<usize>) -> bool {
        self.tallies.get(message).is_some_and(|t| match part {
            None => t.capped,
            Some(p) => t.part_capped(p),
        })
    }

    /// Applies one SSE event, skipping it if a resumed stream already applied it.
    pub fn push_sse_event(&mut self, event: &SseEvent<'_>) {
        if self.status != StreamStatus::Streaming {
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
                self.end_packet();
                false
            }
        };
        if apply {
            self.push_data(event.data);
        }
    }

    /// Reports a problem of the SSE layer: a warning in lenient mode, an error that ends the
    /// stream in strict mode. Ignored once the stream ended.
    pub fn sse_issue(&mut self, error: SseError) {
        if self.status == StreamStatus::Streaming {
            self.violation(error.into());
            self.end_packet();
        }
    }

    /// Reports input the document does not allow: a warning in lenient mode; in strict mode an
    /// error, and the stream ends after the current packet. Says whether to refuse the input.
    fn violation(&mut self, error: AgentxError) -> bool {
        if self.options.strict {
            self.push_issue(Severity::Error, error);
            self.halting = true;
            true
        } else {
            self.warn(error);
            false
        }
    }

    /// After each packet: ends the stream if strict mode found a violation.
    fn end_packet(&mut self) {
        if self.halting {
            self.halting = false;
            self.stop();
        }
    }

    /// Ends the stream early, `incomplete`, keeping everything.
    fn stop(&mut self) {
        if self.status == StreamStatus::Streaming {
            self.release_held();
            self.status = StreamStatus::Incomplete;
            self.pending.push(Pending::Done);
        }
    }

    /// The stream exceeded [`Limits::max_stream_bytes`]: it ends here, `incomplete`.
    pub(crate) fn stream_too_large(&mut self, limit: u64) {
        if self.status == StreamStatus::Streaming {
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

    /// The logical messages assembled so far, in the order their first packets arrived.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The messages, taking them out of the assembler (a held half of a surrogate pair appended
    /// as U+FFFD first: see [`Assembler`]).
    pub fn into_messages(mut self) -> Vec<Message> {
        self.release_held();
        self.messages
    }

    /// Message `index` (0-based, stream order) as a [`Body`] (see [`Message::body`]); while the
    /// stream runs, the last part of the message the last packet went to is `streaming`, and it is
    /// `incomplete` if the stream broke. `None` if there is no such message.
    pub fn body(&self, index: usize) -> Option<Body> {
        let message = self.messages.get(index)?;
        let last = match self.status {
            _ if self.last != Some(index) => None,
            StreamStatus::Streaming => Some(PartStatus::Streaming),
            StreamStatus::Incomplete => Some(PartStatus::Incomplete),
            StreamStatus::Complete => None,
        };
        let mut body = body_with_status(message, last);
        for (p, part) in body.parts.iter_mut().enumerate() {
            if self.is_cut(index, Some(p)) {
                part.status = PartStatus::Incomplete;
            }
        }
        Some(body)
    }

    /// Where the stream is.
    pub fn status(&self) -> StreamStatus {
        self.status
    }

    /// Packets applied so far (malformed ones, and those strict mode refused, not counted).
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Whether updates are waiting to be drained.
    pub fn has_updates(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Applies one packet: an SSE event's `data`, the JSON of one [`Message`]. `[DONE]` is ignored.
    ///
    /// # Errors
    /// Malformed data becomes a [`StreamUpdate::Issue`] ([`AgentxError::InvalidJson`],
    /// [`AgentxError::InvalidPacket`]) and is skipped; nothing is returned.
    pub fn push_data(&mut self, data: &str) {
        if self.status != StreamStatus::Streaming || data == "[DONE]" {
            return;
        }
        let max_depth = self.options.limits.max_depth;
        if let Some(offset) = limits::nesting_exceeds(data.as_bytes(), max_depth) {
            self.violation(limits::too_deep(data, max_depth, offset).into());
        } else {
            match RawPacket::parse(data) {
                Ok(raw) => self.apply(raw, data),
                Err(e) => {
                    self.violation(e);
                }
            }
        }
        self.end_packet();
    }

    /// Applies `data` if it is a well-formed packet; says whether it was.
    fn push_if_valid(&mut self, data: &str) -> bool {
        if self.status != StreamStatus::Streaming {
            return false;
        }
        if limits::nesting_exceeds(data.as_bytes(), self.options.limits.max_depth).is_some() {
            return false;
        }
        match RawPacket::parse(data) {
            Ok(raw) => {
                self.apply(raw, data);
                self.end_packet();
                true
            }
            Err(_) => false,
        }
    }

    /// Applies one parsed packet.
    pub fn push_message(&mut self, packet: &Message) {
        let data = serde_json::to_string(packet).unwrap_or_default();
        self.push_data(&data);
    }

    /// Reports an error of the transport or SSE layer as an issue of this stream.
    pub fn push_issue(&mut self, severity: Severity, error: AgentxError) {
        self.pending
            .push(Pending::Owned(StreamUpdate::issue(severity, error)));
    }

    fn warn(&mut self, error: AgentxError) {
        self.push_issue(Severity::Warning, error);
    }

    fn apply(&mut self, raw: RawPacket<'_>, data: &str) {
        let RawPacket {
            id,
            role,
            parts,
            extra,
        } = raw;
        // The halves of a surrogate pair cut at the edges of the packet's text: a low half can
        // only begin the first part (which joins the message's last part), a high half only end
        // the last. Only text with escapes is owned: the rare case.
        let count = parts.len();
        let cut_of = |i: usize, part: &RawPart<'_>| {
            let Some(text) = part.owned_text() else {
                return (None, None);
            };
            let path = [
                Step::Member("parts"),
                Step::Element(i),
                Step::Member("text"),
            ];
            let (low, high) = json::cut_halves(data, &path, text);
            (low.filter(|_| i == 0), high.filter(|_| i + 1 == count))
        };
        let first_cut = parts.first.as_ref().map_or((None, None), |p| cut_of(0, p));
        if first_cut.0.is_none() {
            self.release_held();
        }
        let Some(m) = self.message_for(id.as_ref().map(|i| &*i.0), &role.0, extra) else {
            return; // refused in strict mode
        };
        self.packets = self.packets.saturating_add(1);
        for (i, mut part) in parts.into_iter().enumerate() {
            let cut = if i == 0 { first_cut } else { cut_of(i, &part) };
            if i == 0 {
                if let Some(text) = part.as_text() {
                    let mut text = Cow::Borrowed(text);
                    if cut != (None, None) {
                        let held = cut.0.and_then(|_| self.take_held(m));
                        text = json::join_halves(held, text, cut);
                    }
                    if self.try_append_text(m, &text) {
                        self.hold(m, cut.1);
                        if part.has_other_fields() {
                            self.merge_text_extra(m, part.into_text_extra());
                        }
                        continue;
                    }
                }
            }
            let before = self.messages.get(m).map_or(0, |msg| msg.parts.len());
            if let (Some(_), Some(text)) = (cut.1, part.text_mut()) {
                *text = json::join_halves(None, std::mem::take(text), cut);
            }
            self.push_part(m, part);
            if self
                .messages
                .get(m)
                .is_some_and(|msg| msg.parts.len() > before)
            {
                self.hold(m, cut.1);
            }
        }
    }

    /// Holds back `high`, the high half of a surrogate pair that the last part of message `m` (a
    /// text part) ended with (its U+FFFD was not appended), for the next packet's low half.
    fn hold(&mut self, m: usize, high: Option<u16>) {
        let Some(high) = high else {
            return;
        };
        let pos = self
            .messages
            .get(m)
            .map_or(0, |msg| msg.parts.len().saturating_sub(1));
        if !self.tally(m).capped && !self.tally(m).part_capped(pos) {
            self.held = Some((m, pos, high));
        }
    }

    /// The held high half if it belongs to the last part of message `m` (the part a packet that
    /// begins with the low half joins); a half held for another message is released.
    #[cold]
    fn take_held(&mut self, m: usize) -> Option<u16> {
        let last = self
            .messages
            .get(m)
            .and_then(|msg| msg.parts.len().checked_sub(1));
        if self
            .held
            .is_some_and(|(hm, hp, _)| (hm, Some(hp)) != (m, last))
        {
            self.release_held();
        }
        self.held.take().map(|(_, _, high)| high)
    }

    /// Appends the held high half of a surrogate pair to its part as U+FFFD: the packet after it
    /// did not begin with the low half (or the stream ended). Nothing received is dropped: a
    /// JavaScript client holds the lone surrogate, which shows as U+FFFD. A JavaScript server that
    /// cuts a string between the halves of a pair (`text.slice(0, 3)`) sends `"\ud83d"` at the end
    /// of one packet and `"\ude00…"` at the start of the next: joined, the text streams as the
    /// server meant it, as a JavaScript client's concatenation (§3.1) would read it.
    fn release_held(&mut self) {
        if let Some((m, pos, _)) = self.held.take() {
            self.append_text(m, pos, "\u{FFFD}");
        }
    }

    /// The message a packet goes to, creating it if needed; the packet's unknown fields are merged
    /// into it. A new message, or new fields, get a [`StreamUpdate::Message`].
    fn message_for(&mut self, id: Option<&str>, role: &str, extra: JsonMap) -> Option<usize> {
        let found = match id {
            Some(id) => match self.last {
                Some(l) if self.messages.get(l).and_then(|m| m.id.as_deref()) == Some(id) => {
                    Some(l)
                }
                _ => self.ids.get(id).copied(),
            },
            None => self.last.filter(|&l| {
                self.messages
                    .get(l)
                    .is_some_and(|m| m.role.as_str() == role)
            }),
        };
        let m = match found {
            Some(m) => {
                if let Some(message) = self.messages.get(m) {
                    if message.role.as_str() != role {
                        let error = AgentxError::RoleMismatch {
                            id: message.id.clone().unwrap_or_default(),
                            role: message.role.clone(),
                            got: Role::from(role),
                        };
                        if self.violation(error) {
                            return None;
                        }
                    }
                }
                if !extra.is_empty() {
                    self.close_runs_of_message(m);
                    if let Some(message) = self.messages.get_mut(m) {
                        message.extra.extend(extra);
                    }
                    self.push_envelope(m);
                }
                m
            }
            None => {
                if let Some(id) = id.filter(|id| !is_message_id(id)) {
                    let error = AgentxError::InvalidId {
                        field: "id",
                        value: id.to_owned(),
                        expected: "msg_ + 32 lowercase hex",
                    };
                    if self.options.strict {
                        self.violation(error);
                        return None;
                    }
                    let m = self.messages.len();
                    self.new_message(m, Some(id), role, extra);
                    self.warn(error);
                    m
                } else {
                    let m = self.messages.len();
                    self.new_message(m, id, role, extra);
                    m
                }
            }
        };
        self.last = Some(m);
        Some(m)
    }

    fn new_message(&mut self, m: usize, id: Option<&str>, role: &str, extra: JsonMap) {
        self.messages.push(Message {
            id: id.map(str::to_owned),
            role: Role::from(role),
            parts: Vec::new(),
            extra,
        });
        self.push_envelope(m);
        if let Some(id) = id {
            self.ids.insert(id.to_owned(), m);
        }
    }

    fn push_envelope(&mut self, m: usize) {
        if let Some(message) = self.messages.get(m) {
            let envelope = Message {
                id: message.id.clone(),
                role: message.role.clone(),
                parts: Vec::new(),
                extra: message.extra.clone(),
            };
            self.pending.push(Pending::Owned(StreamUpdate::Message {
                message_index: index(m),
                message: envelope,
            }));
        }
    }

    /// Appends `text`, the text part that comes first in its packet, to the message's last part,
    /// when that is text. Says whether it did.
    fn try_append_text(&mut self, m: usize, text: &str) -> bool {
        let Some(message) = self.messages.get(m) else {
            return false;
        };
        if !matches!(message.parts.last(), Some(Part::Text(_))) {
            return false;
        }
        self.append_text(m, message.parts.len() - 1, text);
        true
    }

    /// Appends `text` to part `pos` of message `m`, a text part, within the limits.
    fn append_text(&mut self, m: usize, pos: usize, text: &str) {
        if self.tally(m).capped || self.tally(m).part_capped(pos) {
            return; // the part or message hit a limit: later text for it is dropped
        }
        let limits = self.options.limits;
        let budget = self.tally(m).append_budget(&limits, pos);
        let piece = limits::prefix(text, budget.left());
        let cut = piece.len() < text.len();
        self.tally(m).grow(pos, piece.len());
        let part = self.messages.get_mut(m).and_then(|m| m.parts.get_mut(pos));
        if let Some(Part::Text(last)) = part {
            if !piece.is_empty() {
                let start = last.text.len();
                last.text.push_str(piece);
                let end = last.text.len();
                self.push_text(m, pos, start, end);
            }
        }
        if cut {
            self.cut_part(m, pos, budget.message < budget.part);
        }
    }

    /// Merges a continuation packet's unknown text-part fields into the message's last part.
    fn merge_text_extra(&mut self, m: usize, extra: JsonMap) {
        let Some(pos) = self
            .messages
            .get(m)
            .map(|msg| msg.parts.len().saturating_sub(1))
        else {
            return;
        };
        // Earlier updates of this part show it as it was.
        self.materialize_part(m, pos);
        if let Some(Part::Text(t)) = self
            .messages
            .get_mut(m)
            .and_then(|msg| msg.parts.last_mut())
        {
            t.extra.extend(extra);
        }
    }

    fn push_part(&mut self, m: usize, raw: RawPart<'_>) {
        let (mut part, reason) = raw.into_part();
        let Some(message) = self.messages.get(m) else {
            return;
        };
        let pos = message.parts.len();
        let limits = self.options.limits;
        if self.tally(m).capped {
            return; // the message hit a limit (reported once): later parts are dropped
        }
        if pos >= limits.max_parts {
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
        let mut cutter = limits::Cutter::new(self.tally(m).append_budget(&limits, pos));
        let fits = match &mut part {
            Part::Text(t) => {
                cutter.string(&mut t.text);
                true
            }
            // The length of its JSON text, as `json_size` of its value would count it.
            other => cutter.fits(serde_json::to_string(&*other).map_or(usize::MAX, |t| t.len())),
        };
        if !fits {
            // JSON cannot be cut: the part is dropped.
            self.cut_part(m, pos, cutter.message_binds());
            return;
        }
        self.tally(m).grow(pos, cutter.used());
        let unknown = match &part {
            Part::Other(map) if reason.is_none() => Some(
                map.get("type")
                    .and_then(|t| t.as_str())
                    .unwrap_or("")
                    .to_owned(),
            ),
            _ => None,
        };
        let Some(message) = self.messages.get_mut(m) else {
            return;
        };
        let text_len = match &part {
            Part::Text(t) => t.text.len(),
            _ => 0,
        };
        let invalid = reason.map(|reason| AgentxError::InvalidPart {
            message_index: index(m),
            part_index: index(pos),
            kind: part.type_name().to_owned(),
            reason,
            part: match &part {
                Part::Other(map) => serde_json::Value::Object(map.clone()),
                other => agentwire_core::json::to_tree(other).unwrap_or_default(),
            },
        });
        let odd_call_id = match &part {
            Part::ToolCall(c) if !is_tool_call_id(&c.tool_call_id) => {
                Some(AgentxError::InvalidId {
                    field: "tool_call_id",
                    value: c.tool_call_id.clone(),
                    expected: "tc_ + 32 lowercase hex",
                })
            }
            _ => None,
        };
        limits::push_part(&mut message.parts, part);
        self.pending.push(Pending::Part {
            msg: m,
            pos,
            text_len,
        });
        if let Some(e) = invalid {
            self.violation(e);
        }
        if let Some(e) = odd_call_id {
            self.violation(e);
        }
        if let (true, Some(kind)) = (self.options.strict, unknown) {
            self.violation(AgentxError::UnknownPartType {
                message_index: index(m),
                part_index: index(pos),
                kind,
            });
        }
        if cutter.cut {
            self.cut_part(m, pos, cutter.message_binds());
        }
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
        self.pending.push(Pending::Text {
            msg,
            pos,
            start,
            end,
        });
    }

    fn close_run(&mut self, msg: usize, pos: usize) {
        self.runs.retain(|r| !(r.0 == msg && r.1 == pos));
    }

    fn close_runs_of_message(&mut self, msg: usize) {
        self.runs.retain(|r| r.0 != msg);
    }

    /// Copies out the pending updates of a part about to change in a way ranges cannot express.
    fn materialize_part(&mut self, msg: usize, pos: usize) {
        for i in 0..self.pending.len() {
            let hit = match self.pending.get(i) {
                Some(
                    Pending::Part { msg: m, pos: p, .. } | Pending::Text { msg: m, pos: p, .. },
                ) => *m == msg && *p == pos,
                _ => false,
            };
            if hit {
                if let Some(update) = self.pending.get(i).and_then(|p| self.materialize(p)) {
                    if let Some(slot) = self.pending.get_mut(i) {
                        *slot = Pending::Owned(update);
                    }
                }
            }
        }
        self.close_run(msg, pos);
    }

    /// Ends the stream normally: status `complete`, and a [`StreamUpdate::Done`] with every message.
    /// Does nothing if the stream already ended.
    pub fn finish(&mut self) {
        if self.status == StreamStatus::Streaming {
            self.release_held();
            self.status = StreamStatus::Complete;
            self.pending.push(Pending::Done);
        }
    }

    /// Ends a stream that broke (`reason`: what the transport saw, e.g. `network error`): status
    /// `incomplete`, an [`AgentxError::StreamIncomplete`] error, and a [`StreamUpdate::Done`] with
    /// everything that arrived. Does nothing if the stream already ended.
    pub fn finish_interrupted(&mut self, reason: &str) {
        if self.status == StreamStatus::Streaming {
            self.release_held();
            self.status = StreamStatus::Incomplete;
            self.push_issue(
                Severity::Error,
                AgentxError::StreamIncomplete {
                    reason: reason.to_owned(),
                    packets: self.packets,
                },
            );
            self.pending.push(Pending::Done);
        }
    }

    fn materialize(&self, p: &Pending) -> Option<StreamUpdate> {
        match p {
            Pending::Owned(u) => Some(u.clone()),
            Pending::Part { msg, pos, text_len } => {
                let part = self.messages.get(*msg)?.parts.get(*pos)?;
                let part = match part {
                    Part::Text(t) if t.text.len() > *text_len => {
                        let mut t = t.clone();
                        t.text.truncate(*text_len);
                        Part::Text(t)
                    }
                    other => other.clone(),
                };
                Some(StreamUpdate::Part {
                    message_index: index(*msg),
                    part_index: index(*pos),
                    part,
                })
            }
            Pending::Text {
                msg,
                pos,
                start,
                end,
            } => Some(StreamUpdate::TextDelta {
                message_index: index(*msg),
                part_index: index(*pos),
                delta: self.text_range(*msg, *pos, *start, *end).to_owned(),
            }),
            Pending::Done => Some(StreamUpdate::Done {
                status: self.status,
                messages: self.messages.clone(),
            }),
        }
    }

    fn text_range(&self, msg: usize, pos: usize, start: usize, end: usize) -> &str {
        match self.messages.get(msg).and_then(|m| m.parts.get(pos)) {
            Some(Part::Text(t)) => t.text.get(start..end).unwrap_or(""),
            _ => "",
        }
    }

    /// Takes the updates recorded since the last drain, in order.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        let pending = std::mem::take(&mut self.pending);
        self.runs.clear();
        pending.iter().filter_map(|p| self.materialize(p)).collect()
    }

    /// Appends the updates recorded since the last drain to `out` as a JSON array (the shape of
    /// `StreamUpdate[]`) without materializing them, and clears them.
    pub fn drain_updates_json(&mut self, out: &mut String) {
        // Each update is written into one reused buffer, so draining allocates nothing per update.
        let mut scratch = std::mem::take(&mut self.scratch);
        out.push('[');
        let mut first = true;
        for p in &self.pending {
            if let Pending::Part { msg, pos, .. } = p {
                if self
                    .messages
                    .get(*msg)
                    .and_then(|m| m.parts.get(*pos))
                    .is_none()
                {
                    continue;
                }
            }
            if !first {
                out.push(',');
            }
            first = false;
            match p {
                Pending::Owned(u) => write_json(&mut scratch, out, u),
                Pending::Part { msg, pos, text_len } => {
                    let part = self.messages.get(*msg).and_then(|m| m.parts.get(*pos));
                    let view = match part {
                        Some(Part::Text(t)) => Some(PartView::Text(TextView {
                            kind: "text",
                            text: t.text.get(..*text_len).unwrap_or(&t.text),
                            extra: &t.extra,
                        })),
                        Some(other) => Some(PartView::Whole(other)),
                        None => None,
                    };
                    let update = view.map(|part| PartRef {
                        kind: "part",
                        message_index: index(*msg),
                        part_index: index(*pos),
                        part,
                    });
                    write_json(&mut scratch, out, &update);
                }
                Pending::Text {
                    msg,
                    pos,
                    start,
                    end,
                } => write_json(
                    &mut scratch,
                    out,
                    &TextDeltaRef {
                        kind: "textDelta",
                        message_index: index(*msg),
                        part_index: index(*pos),
                        delta: self.text_range(*msg, *pos, *start, *end),
                    },
                ),
                Pending::Done => write_json(
                    &mut scratch,
                    out,
                    &DoneRef {
                        kind: "done",
                        status: self.status,
                        messages: &self.messages,
                    },
                ),
            }
        }
        out.push(']');
        self.pending.clear();
        self.runs.clear();
        self.scratch = scratch;
    }
}

/// Appends `value` as JSON to `out` (`null` if it cannot be written), through `scratch`.
fn write_json<T: Serialize>(scratch: &mut Vec<u8>, out: &mut String, value: &T) {
    scratch.clear();
    let text = match serde_json::to_writer(&mut *scratch, value) {
        Ok(()) => std::str::from_utf8(scratch).unwrap_or("null"),
        Err(_) => "null",
    };
    out.push_str(text);
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TextDeltaRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_index: u32,
    part_index: u32,
    delta: &'a str,
}

#[derive(Serialize)]
struct TextView<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(flatten)]
    extra: &'a JsonMap,
}

#[derive(Serialize)]
#[serde(untagged)]
enum PartView<'a> {
    Whole(&'a Part),
    Text(TextView<'a>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PartRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_index: u32,
    part_index: u32,
    part: PartView<'a>,
}

#[derive(Serialize)]
struct DoneRef<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    status: StreamStatus,
    messages: &'a [Message],
}

/// SSE decoding and assembly in one: bytes of an AgentX response (`text/event-stream`, one packet
/// per event `data`) in, updates and the assembled messages out. This is what the JavaScript client
/// runs on every network chunk.
///
/// A connection broken by the network can continue when the server gives its events SSE `id`s:
/// call [`reconnect`](Self::reconnect), send [`last_event_id`](Self::last_event_id) as
/// `Last-Event-ID`, and feed the new connection's bytes: packets already applied are skipped (see
/// [`EventCursor`]).
#[derive(Debug, Clone, Default)]
pub struct AgentxStream {
    sse: SseDecoder,
    assembler: Assembler,
    /// Bytes fed, all connections together.
    bytes: u64,
}

impl AgentxStream {
    /// A new stream.
    pub fn new(options: AssemblerOptions) -> Self {
        Self {
            sse: SseDecoder::with_options(options.sse),
            assembler: Assembler::new(options),
            bytes: 0,
        }
    }

    /// Decodes and applies the next chunk of bytes (any split: the result does not depend on where
    /// chunks begin and end). After [`Limits::max_stream_bytes`], or once the stream ended, bytes
    /// are ignored.
    ///
    /// # Errors
    /// Problems become [`StreamUpdate::Issue`]s (SSE errors, malformed packets); decoding goes on.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.assembler.status != StreamStatus::Streaming {
            return;
        }
        let limit = self.assembler.options.limits.max_stream_bytes;
        let (bytes, over) = limits::admit_bytes(&mut self.bytes, limit, bytes);
        let assembler = &mut self.assembler;
        self.sse.feed_dyn(bytes, &mut |item| match item {
            SseItem::Event(e) => assembler.push_sse_event(&e),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => assembler.sse_issue(e),
        });
        if let (true, Some(limit)) = (over, limit) {
            self.assembler.stream_too_large(limit);
        }
    }

    /// The connection broke and a new one continues the stream: the SSE decoder starts afresh (a
    /// packet cut by the break is dropped: the server sends it again), keeping the last event
    /// id, and packets already applied are skipped.
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

    /// The connection closed: ends the stream. If it closed inside an SSE event (bytes after the
    /// last blank line), that is reported ([`SseError::IncompleteEvent`], a warning with what it
    /// held, in strict mode too: the transport broke, not the document), the event's data is
    /// still applied if it is a whole packet, and the stream ends `incomplete`
    /// ([`AgentxError::StreamIncomplete`]); otherwise it ends `complete`.
    pub fn finish(&mut self) {
        let assembler = &mut self.assembler;
        let mut broke = false;
        self.sse.finish_dyn(&mut |item| match item {
            SseItem::Event(e) => assembler.push_sse_event(&e),
            SseItem::Retry(_) => {}
            SseItem::Error(e) => {
                let SseError::IncompleteEvent {
                    data, truncated, ..
                } = &e
                else {
                    assembler.sse_issue(e);
                    return;
                };
                broke = true;
                let salvage = (!*truncated && !data.is_empty()).then(|| data.clone());
                // The transport broke, not the document: a warning in strict mode too.
                if assembler.status == StreamStatus::Streaming {
                    assembler.warn(e.into());
                }
                if let Some(data) = salvage {
                    assembler.push_if_valid(&data);
                }
            }
        });
        if broke {
            self.assembler
                .finish_interrupted("the stream ended inside an SSE event");
        } else {
            self.assembler.finish();
        }
    }

    /// The transport failed (`reason`: what it saw): ends the stream `incomplete`, keeping
    /// everything (see [`Assembler::finish_interrupted`]). Bytes held by the SSE decoder are dropped.
    pub fn finish_interrupted(&mut self, reason: &str) {
        self.sse.reset();
        self.assembler.finish_interrupted(reason);
    }

    /// Where the stream is.
    pub fn status(&self) -> StreamStatus {
        self.assembler.status()
    }

    /// The logical messages assembled so far.
    pub fn messages(&self) -> &[Message] {
        self.assembler.messages()
    }

    /// Message `index` as a body (see [`Assembler::body`]).
    pub fn body(&self, index: usize) -> Option<Body> {
        self.assembler.body(index)
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

    /// Takes the updates recorded since the last drain.
    pub fn drain_updates(&mut self) -> Vec<StreamUpdate> {
        self.assembler.drain_updates()
    }
}
