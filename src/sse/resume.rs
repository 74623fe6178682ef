//! Resuming a stream on a new connection without duplicating or losing events.

use std::collections::BTreeMap;

use crate::error::ErrorCode;

/// What a resumed stream found wrong with the events it was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The first new event after a reconnect is not the one after the last applied event: events
    /// in between were lost (the server resumed too late). Reported only while the ids (or
    /// sequence numbers) so far went up by exactly one each time. The event is applied.
    #[error("events were lost on resume: the last applied event was `{last_event_id}`, the next one received is `{event_id}` ({missing} missing)")]
    Gap {
        /// The last event applied before the gap (an SSE id, or a sequence number in decimal).
        last_event_id: String,
        /// The first event after the gap.
        event_id: String,
        /// How many events are missing.
        missing: u64,
    },
    /// After a reconnect, and after new events had arrived on the new connection, an event came
    /// again that was already applied (its id or sequence number went back). It was skipped.
    #[error("event `{event_id}` was already applied; the repeat was skipped")]
    Duplicate {
        /// The repeated event's id (or sequence number in decimal).
        event_id: String,
    },
    /// After a reconnect, an event numbered as one already applied (so taken for the server's
    /// replay of the overlap) names what this stream never had: another response, or a message
    /// the stream never saw. The new connection serves another stream (a load balancer that sent
    /// the resume to another instance, a server that restarted and numbers from 0 again). Checked
    /// by the Agent API's assembler, which reads each replayed event for it.
    #[error("the resumed connection sent event `{event_id}` of another stream: it names {what} `{id}`, which this stream does not have")]
    Mismatch {
        /// The event's id (or sequence number in decimal).
        event_id: String,
        /// What it names: `response` or `message`.
        what: &'static str,
        /// The id it names.
        id: String,
    },
}

impl ErrorCode for ResumeError {
    fn code(&self) -> &'static str {
        match self {
            ResumeError::Gap { .. } => "resume-gap",
            ResumeError::Duplicate { .. } => "duplicate-event",
            ResumeError::Mismatch { .. } => "resume-mismatch",
        }
    }

    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        use crate::error::Details;
        match self {
            ResumeError::Gap {
                last_event_id,
                event_id,
                missing,
            } => Details::new()
                .field("lastEventId", last_event_id)
                .field("eventId", event_id)
                .field("missing", missing)
                .into(),
            ResumeError::Duplicate { event_id } => Details::new().field("eventId", event_id).into(),
            ResumeError::Mismatch { event_id, what, id } => Details::new()
                .field("eventId", event_id)
                .field("what", what)
                .field("id", id)
                .into(),
        }
    }
}

/// What to do with an event (see [`EventCursor`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// A new event: apply it.
    Apply,
    /// A new event, but events before it were lost: apply it and report the gap.
    ApplyAfterGap(ResumeError),
    /// An event the server sent again right after a reconnect (the overlap of a resume): skip it
    /// silently.
    Replayed,
    /// An event already applied that came again later: skip it and report it.
    Duplicate(ResumeError),
}

/// Where an event is: its id and how many events since the event that set that id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    id: String,
    /// 0 for the event whose own lines set the id, 1, 2… for the events that inherited it.
    k: u64,
}

/// Tracks which events of a stream were applied, across reconnections, so a resumed stream
/// applies every event exactly once.
///
/// A server that supports resuming gives its events SSE `id`s (WHATWG HTML §9.2: a reconnecting
/// client sends the last one as `Last-Event-ID`, and the server continues after it). The Agent API
/// also numbers its events (`sequence_number`), which serves when there are no SSE ids.
///
/// An event's position is the id it was dispatched with and how many events have inherited that id
/// since the event that set it (an event without an `id` field keeps the last one, so a server
/// that sets ids only now and then still resumes exactly: the events after the last id are the
/// ones it sends again). A server resumes where an id tells it to: right after the
/// `Last-Event-ID` event, or, replaying an overlap, at an event that carries its own id. Ids made
/// only of ASCII digits whose value fits a `u64` (at most 18446744073709551615) are ordered as
/// numbers; other ids are remembered as a set.
///
/// Rules:
/// - Before the first [`reconnect`](Self::reconnect), every event is applied: a server's
///   numbering is not trusted until a resume depends on it.
/// - After a reconnect, an event at or before the furthest applied position (numeric ids,
///   sequence numbers) or with an id already applied (other ids) is skipped: silently while the
///   server is replaying the overlap ([`Admission::Replayed`]), with a report once new events have
///   arrived on the connection ([`Admission::Duplicate`]).
/// - The first new event after a reconnect that skips numbers (id or sequence number more than
///   one above the last applied, while every event so far carried its own number, each one more
///   than the last) is applied and reported ([`Admission::ApplyAfterGap`]). A server that numbers
///   only some events, or skips numbers, gets no gap reports.
/// - Events without an id or sequence number are always applied: such a stream cannot be
///   de-duplicated.
///
/// The cursor judges by numbers only. The Agent API's assembler also reads each event taken for a
/// replay and checks that it names the stream's response and messages; one that names others
/// ([`ResumeError::Mismatch`]) shows that the new connection serves another stream, and
/// [`restart`](Self::restart) then makes the cursor apply what follows.
#[derive(Debug, Clone)]
pub struct EventCursor {
    /// The id of the last event seen, and how many events inherited it.
    current: Option<Position>,
    /// Furthest numeric SSE position applied.
    high: Option<(u64, u64)>,
    /// Numeric ids applied so far went up by exactly one.
    gapless: bool,
    /// Non-numeric ids applied, with the largest `k` applied for each.
    seen: BTreeMap<String, u64>,
    /// Furthest sequence number applied, and whether they went up by one.
    seq_high: Option<u64>,
    seq_gapless: bool,
    /// The last applied event's key, as text (for `Last-Event-ID` from sequence numbers).
    last_seq: Option<u64>,
    /// A reconnect happened: skip what was applied.
    resumed: bool,
    /// Since the last reconnect, no new event was applied yet.
    replaying: bool,
    reconnects: u32,
}

impl Default for EventCursor {
    fn default() -> Self {
        Self::new()
    }
}

fn numeric(id: &str) -> Option<u64> {
    if id.is_empty() || id.len() > 20 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    id.parse().ok()
}

impl EventCursor {
    /// A cursor for a new stream.
    pub fn new() -> Self {
        Self {
            current: None,
            high: None,
            gapless: true,
            seen: BTreeMap::new(),
            seq_high: None,
            seq_gapless: true,
            last_seq: None,
            resumed: false,
            replaying: false,
            reconnects: 0,
        }
    }

    /// A new connection continues the stream: from now on, events already applied are skipped.
    pub fn reconnect(&mut self) {
        self.resumed = true;
        self.replaying = true;
        self.reconnects = self.reconnects.saturating_add(1);
        // The events that follow on the new connection without an `id` field inherit the last
        // id: they are the ones after the event that set it.
        if let Some(p) = &mut self.current {
            p.k = 0;
        }
    }

    /// Forgets which events were applied (it keeps the count of reconnects): every event from
    /// now on is applied, as on a new stream. For a resumed connection found to serve another
    /// stream ([`ResumeError::Mismatch`]), whose numbering says nothing about what was applied.
    pub fn restart(&mut self) {
        *self = Self {
            reconnects: self.reconnects,
            ..Self::new()
        };
    }

    /// How many times [`reconnect`](Self::reconnect) was called.
    pub fn reconnects(&self) -> u32 {
        self.reconnects
    }

    /// Whether the cursor is past a reconnect and still before the first new event.
    pub fn is_replaying(&self) -> bool {
        self.resumed && self.replaying
    }

    /// The sequence number of the last event applied by [`admit_sequence`](Self::admit_sequence)
    /// (what a client sends when the server numbers events but gives no SSE ids).
    pub fn last_sequence(&self) -> Option<u64> {
        self.last_seq
    }

    /// Decides about an SSE event dispatched with last event ID `id` (`has_id`: its own lines set
    /// it; see [`SseEvent::has_id`](super::SseEvent::has_id)). `None` when the event has no id
    /// (`id` is empty): decide with [`admit_sequence`](Self::admit_sequence), or apply it.
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub fn admit_event(&mut self, id: &str, has_id: bool) -> Option<Admission> {
        let k = match &self.current {
            _ if has_id => 0,
            Some(p) if p.id == id => p.k.saturating_add(1),
            // An id set by an id-only block: the event is the first after it.
            _ => 1,
        };
        self.current = Some(Position {
            id: id.to_owned(),
            k,
        });
        if id.is_empty() {
            return None;
        }
        let n = numeric(id);
        let applied = match n {
            Some(n) => self.high.is_some_and(|h| (n, k) <= h),
            None => self.seen.get(id).is_some_and(|&m| k <= m),
        };
        if self.resumed && applied {
            return Some(self.skip(id.to_owned()));
        }
        let mut admission = Admission::Apply;
        if let (Some(n), Some((h, _))) = (n, self.high) {
            if self.is_replaying() && self.gapless && k == 0 && n > h.saturating_add(1) {
                admission = Admission::ApplyAfterGap(ResumeError::Gap {
                    last_event_id: h.to_string(),
                    event_id: id.to_owned(),
                    missing: n - h - 1,
                });
            }
        }
        match n {
            Some(n) => {
                // Gaps can be told only when every event carries the next number.
                match self.high {
                    _ if k > 0 => self.gapless = false,
                    Some((h, _)) if n != h.saturating_add(1) => self.gapless = false,
                    _ => {}
                }
                if self.high.is_none_or(|h| (n, k) > h) {
                    self.high = Some((n, k));
                }
            }
            None => {
                let m = self.seen.entry(id.to_owned()).or_insert(k);
                *m = (*m).max(k);
            }
        }
        self.replaying = false;
        Some(admission)
    }

    /// Decides about an event numbered `seq` (the Agent API's `sequence_number`), for a stream
    /// without SSE ids. (`#[inline(always)]`: it runs per event, and a second caller, the Agent API
    /// assembler's check of a replay, made rustc stop inlining it: 100 instructions per event.)
    #[inline(always)]
    pub fn admit_sequence(&mut self, seq: u64) -> Admission {
        let applied = self.seq_high.is_some_and(|h| seq <= h);
        if self.resumed && applied {
            return self.skip(seq.to_string());
        }
        let mut admission = Admission::Apply;
        if let Some(h) = self.seq_high {
            if self.is_replaying() && self.seq_gapless && seq > h.saturating_add(1) {
                admission = Admission::ApplyAfterGap(ResumeError::Gap {
                    last_event_id: h.to_string(),
                    event_id: seq.to_string(),
                    missing: seq - h - 1,
                });
            }
            if seq != h.saturating_add(1) {
                self.seq_gapless = false;
            }
        }
        if self.seq_high.is_none_or(|h| seq > h) {
            self.seq_high = Some(seq);
        }
        self.last_seq = Some(seq);
        self.replaying = false;
        admission
    }

    fn skip(&mut self, event_id: String) -> Admission {
        if self.replaying {
            Admission::Replayed
        } else {
            Admission::Duplicate(ResumeError::Duplicate { event_id })
        }
    }
}
