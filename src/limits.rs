//! Limits on what a stream may make the assembler hold, with documented defaults.
//!
//! agentwire assembles bytes from servers it does not control; in a browser tab, a buffer without
//! a bound is a way to exhaust memory. Every dialect's assembler options
//! ([`agent_api::AssemblerOptions`](crate::dialect::agent_api::AssemblerOptions),
//! `agentwire::dialect::acp::AcpOptions`, `agentwire::dialect::agentx::AssemblerOptions`: those
//! dialects are in the agentwire crate, this module in agentwire-core) have a `limits` field
//! of this type. The sixth limit, the size of one SSE event, is the decoder's
//! [`SseOptions::max_event_size`](crate::sse::SseOptions::max_event_size) (16 MiB).
//!
//! | limit | default | unit | when hit | the stream |
//! |---|---|---|---|---|
//! | [`max_message_size`](Limits::max_message_size) | 64 MiB | bytes of one assembled message (the sum of its parts' sizes) | the piece that does not fit is cut at the limit (text at a character boundary; a JSON value that does not fit is dropped), the part and the message are marked incomplete, later content for the message is dropped; issue `message-too-large` | goes on |
//! | [`max_parts`](Limits::max_parts) | 10,000 | parts (contents) of one message | the part is dropped, the message is marked incomplete, later new parts of it are dropped; issue `too-many-parts` | goes on |
//! | [`max_part_size`](Limits::max_part_size) | 32 MiB | bytes of one part | the piece is cut as above, the part is marked incomplete, later content for it is dropped; issue `part-too-large` | goes on |
//! | [`max_depth`](Limits::max_depth) | 64 | levels of JSON arrays and objects in one event's data | the event is skipped before it is parsed; issue `too-deep` | goes on |
//! | [`max_stream_bytes`](Limits::max_stream_bytes) | none (off) | bytes of the whole stream, all connections of a resumed stream together | the bytes up to the limit are decoded, the rest is not; issue `stream-too-large` | ends: the response is marked incomplete, later bytes are ignored |
//!
//! A part's size is the bytes of its payload: text, URLs, inline data (UTF-8 bytes of strings; a
//! JSON value counts as the length of its compact JSON text, and a JSON delta as the length of
//! the delta, so a merged value counts at most what was sent). A limit is reported once per part
//! or message (later content that is dropped for the same reason is not reported again), with
//! `details.limit` and where it was hit. These issues have severity `error`: what the assembler
//! keeps is no longer everything the server sent.
//!
//! The nesting depth is checked by a linear scan of the event's bytes before they are read (like
//! the payload validator's, `agentwire::body::validate_payload`). agentwire's JSON readers
//! themselves read at most 127 levels (serde_json's recursion limit) and refuse deeper data as
//! `invalid-json`, in every dialect, so a `max_depth` above 127 has no effect beyond that.
//!
//! ```
//! use agentwire::dialect::agent_api::{AgentStream, AssemblerOptions, RunStatus, StreamUpdate};
//! use agentwire::limits::Limits;
//!
//! let mut stream = AgentStream::new(AssemblerOptions {
//!     limits: Limits { max_part_size: 8, ..Limits::default() },
//!     ..AssemblerOptions::default()
//! });
//! stream.feed(b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"delta\":true,\"type\":\"text\",\"text\":\"Hello, \"}\n\n");
//! stream.feed(b"data: {\"object\":\"content\",\"msg_id\":\"m1\",\"index\":0,\"delta\":true,\"type\":\"text\",\"text\":\"world\"}\n\n");
//! let content = &stream.response().output[0].content[0];
//! assert_eq!(content.text.as_deref(), Some("Hello, w")); // cut at the limit, kept
//! assert_eq!(content.status, Some(RunStatus::Incomplete));
//! let codes: Vec<String> = stream.drain_updates().into_iter().filter_map(|u| match u {
//!     StreamUpdate::Issue { code, .. } => Some(code),
//!     _ => None,
//! }).collect();
//! assert_eq!(codes, ["part-too-large"]);
//! ```

#[cfg(test)]
use serde::Deserialize;
use serde::Serialize;

use crate::error::ErrorCode;
use crate::json::Fields;

/// Limits of one stream's assembly. All sizes are in bytes. See the [module docs](self) for what
/// happens when each is hit. JSON (and JavaScript) field names are camelCase; a missing field takes
/// its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    /// Largest assembled message, in bytes (the sum of its parts' sizes). Default
    /// 64 MiB.
    pub max_message_size: usize,
    /// Most parts (Agent API contents) in one message. Default 10,000.
    pub max_parts: usize,
    /// Largest part, in bytes. Default 32 MiB.
    pub max_part_size: usize,
    /// Deepest nesting of JSON arrays and objects in one event's data (a top-level object is level
    /// 1). Default 64.
    pub max_depth: usize,
    /// Most bytes of the whole stream (every connection of a resumed stream counted); absent for no
    /// limit (the default).
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub max_stream_bytes: Option<u64>,
}

crate::deserialize_by_fields!(Limits, "struct Limits");

impl Limits {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    #[inline]
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        let d = Self::default();
        Ok(Self {
            max_message_size: f.or("maxMessageSize", d.max_message_size)?,
            max_parts: f.or("maxParts", d.max_parts)?,
            max_part_size: f.or("maxPartSize", d.max_part_size)?,
            max_depth: f.or("maxDepth", d.max_depth)?,
            max_stream_bytes: f.or("maxStreamBytes", d.max_stream_bytes)?,
        })
    }
}

impl Limits {
    /// Default of [`Limits::max_message_size`]: 64 MiB.
    pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;
    /// Default of [`Limits::max_parts`]: 10,000.
    pub const DEFAULT_MAX_PARTS: usize = 10_000;
    /// Default of [`Limits::max_part_size`]: 32 MiB.
    pub const DEFAULT_MAX_PART_SIZE: usize = 32 * 1024 * 1024;
    /// Default of [`Limits::max_depth`]: 64.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_message_size: Self::DEFAULT_MAX_MESSAGE_SIZE,
            max_parts: Self::DEFAULT_MAX_PARTS,
            max_part_size: Self::DEFAULT_MAX_PART_SIZE,
            max_depth: Self::DEFAULT_MAX_DEPTH,
            max_stream_bytes: None,
        }
    }
}

/// Which message a limit was hit in: an Agent API message id, or the 0-based position of the
/// message in an ACP run's output or an AgentX stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageRef {
    /// The message's id (Agent API `msg_id`).
    Id(String),
    /// The message's position (0-based).
    Index(usize),
}

impl MessageRef {
    fn put(&self, map: &mut serde_json::Map<String, serde_json::Value>) {
        match self {
            MessageRef::Id(id) => map.insert("msgId".into(), id.clone().into()),
            MessageRef::Index(i) => map.insert("messageIndex".into(), (*i).into()),
        };
    }
}

/// A limit of [`Limits`] was hit. Codes: `message-too-large`, `too-many-parts`, `part-too-large`,
/// `too-deep`, `stream-too-large`; details always have `limit`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitError {
    /// A message grew past [`Limits::max_message_size`]; it is kept up to the limit and marked
    /// incomplete.
    #[error("a message exceeded the limit of {limit} bytes; it was cut there")]
    MessageTooLarge {
        /// The limit, in bytes.
        limit: usize,
        /// The message.
        message: MessageRef,
    },
    /// A message got more parts than [`Limits::max_parts`]; the extra parts were dropped and the
    /// message is marked incomplete.
    #[error("a message exceeded the limit of {limit} parts; later parts were dropped")]
    TooManyParts {
        /// The limit, in parts.
        limit: usize,
        /// The message.
        message: MessageRef,
    },
    /// A part grew past [`Limits::max_part_size`]; it is kept up to the limit and marked
    /// incomplete.
    #[error("a part exceeded the limit of {limit} bytes; it was cut there")]
    PartTooLarge {
        /// The limit, in bytes.
        limit: usize,
        /// The message.
        message: MessageRef,
        /// The part: an Agent API content `index`, or the 0-based position in the message.
        part: usize,
    },
    /// An event's data nests JSON deeper than [`Limits::max_depth`]; the event was skipped.
    #[error("event data nests JSON deeper than {limit} levels (at byte {offset}); it was skipped")]
    TooDeep {
        /// The limit, in levels.
        limit: usize,
        /// 0-based byte offset of the `[` or `{` that went too deep, in the data as read: UTF-8,
        /// with each sequence that is not UTF-8 replaced by U+FFFD (3 bytes), so it differs from
        /// the offset in the bytes received only after such a sequence.
        offset: usize,
        /// The event's data, up to its first 1,024 bytes.
        data: String,
    },
    /// The stream grew past [`Limits::max_stream_bytes`]; it was ended there.
    #[error("the stream exceeded the limit of {limit} bytes; it was ended there")]
    StreamTooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
}

impl ErrorCode for LimitError {
    fn code(&self) -> &'static str {
        match self {
            LimitError::MessageTooLarge { .. } => "message-too-large",
            LimitError::TooManyParts { .. } => "too-many-parts",
            LimitError::PartTooLarge { .. } => "part-too-large",
            LimitError::TooDeep { .. } => "too-deep",
            LimitError::StreamTooLarge { .. } => "stream-too-large",
        }
    }

    #[cfg_attr(agentwire_size, optimize(size))]
    fn details(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        match self {
            LimitError::MessageTooLarge { limit, message }
            | LimitError::TooManyParts { limit, message } => {
                map.insert("limit".into(), (*limit).into());
                message.put(&mut map);
            }
            LimitError::PartTooLarge {
                limit,
                message,
                part,
            } => {
                map.insert("limit".into(), (*limit).into());
                message.put(&mut map);
                let key = match message {
                    MessageRef::Id(_) => "index",
                    MessageRef::Index(_) => "partIndex",
                };
                map.insert(key.into(), (*part).into());
            }
            LimitError::TooDeep {
                limit,
                offset,
                data,
            } => {
                map.insert("limit".into(), (*limit).into());
                map.insert("offset".into(), (*offset).into());
                map.insert("data".into(), data.clone().into());
            }
            LimitError::StreamTooLarge { limit } => {
                map.insert("limit".into(), (*limit).into());
            }
        }
        serde_json::Value::Object(map)
    }
}

/// The offset of the first `[` or `{` (outside strings) that nests deeper than `max_depth`, or
/// `None` when the text stays within it. One linear pass over the bytes; it does not check that
/// the text is JSON.
pub fn nesting_exceeds(text: &[u8], max_depth: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Counts `bytes` against a stream's [`Limits::max_stream_bytes`]: returns the prefix that may be
/// decoded, and whether the limit was hit (the rest must not be decoded).
#[doc(hidden)]
pub fn admit_bytes<'a>(fed: &mut u64, limit: Option<u64>, bytes: &'a [u8]) -> (&'a [u8], bool) {
    let len = bytes.len() as u64;
    match limit {
        Some(limit) if fed.saturating_add(len) > limit => {
            let allowed = limit.saturating_sub(*fed);
            *fed = limit;
            let cut = usize::try_from(allowed)
                .unwrap_or(usize::MAX)
                .min(bytes.len());
            (bytes.get(..cut).unwrap_or_default(), true)
        }
        _ => {
            *fed = fed.saturating_add(len);
            (bytes, false)
        }
    }
}

/// The too-deep error for `data` (its first 1,024 bytes kept, cut at a character boundary).
#[doc(hidden)]
pub fn too_deep(data: &str, limit: usize, offset: usize) -> LimitError {
    LimitError::TooDeep {
        limit,
        offset,
        data: prefix(data, 1024).to_owned(),
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends at a character boundary.
#[doc(hidden)]
pub fn prefix(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// The length of `value`'s compact JSON text, without building it.
#[doc(hidden)]
pub fn json_size(value: &serde_json::Value) -> usize {
    json_size_within(value, usize::MAX).unwrap_or(usize::MAX)
}

/// The length of `value`'s compact JSON text (as serde_json writes it: `json::write`'s escapes,
/// serde_json's numbers) if it is at most `limit` bytes, without building it; `None` past `limit`
/// (counting stops there). Strings and integers are measured; a float (rarer in data) is written
/// into a scratch string, as serde_json writes it. Counted by hand rather than by serde_json's
/// writer into a counting sink, which compiled a second writer of a `Value`
/// (docs/performance-log.md, stop 37).
#[doc(hidden)]
pub fn json_size_within(value: &serde_json::Value, limit: usize) -> Option<usize> {
    let mut size = Size { n: 0, limit };
    size.value(value).then_some(size.n)
}

/// [`json_size_within`]'s count: bytes so far and the limit.
struct Size {
    n: usize,
    limit: usize,
}

/// The number of decimal digits of `n`.
fn digits(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

impl Size {
    /// Adds `len` bytes; `false` past the limit.
    fn add(&mut self, len: usize) -> bool {
        self.n = self.n.saturating_add(len);
        self.n <= self.limit
    }

    fn value(&mut self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match value {
            Value::Null | Value::Bool(true) => self.add(4),
            Value::Bool(false) => self.add(5),
            Value::Number(n) => self.add(match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => digits(u),
                (None, Some(i)) => 1 + digits(i.unsigned_abs()),
                _ => {
                    let mut text = String::new();
                    crate::json::write_json_value(&mut text, value);
                    text.len()
                }
            }),
            Value::String(s) => self.add(json_str_len(s)),
            // Brackets, and a comma between elements.
            Value::Array(a) => {
                self.add(2 + a.len().saturating_sub(1)) && a.iter().all(|v| self.value(v))
            }
            // Braces, a colon per member, a comma between members.
            Value::Object(m) => {
                self.add(2 + m.len() + m.len().saturating_sub(1))
                    && m.iter()
                        .all(|(k, v)| self.add(json_str_len(k)) && self.value(v))
            }
        }
    }
}

/// The length of `s` as a JSON string literal, quotes included (what `json::write`'s `write_str`
/// writes: `"`, `\` and the controls with a short escape take 2 bytes, the other controls 6).
fn json_str_len(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut len, mut j) = (b.len() + 2, 0);
    while let Some((i, _)) = crate::json::scan::next_special(b, j) {
        let Some(&c) = b.get(i) else { break };
        len += match c {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            _ => 5,
        };
        j = i + 1;
    }
    len
}

/// A byte budget: how much more a part and its message may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct Budget {
    /// Bytes the part may still take.
    pub part: usize,
    /// Bytes the message may still take.
    pub message: usize,
}

impl Budget {
    /// The smaller of the two.
    pub fn left(&self) -> usize {
        self.part.min(self.message)
    }
}

/// Per-message bookkeeping of an assembler: sizes so far and which limits were hit.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct MessageTally {
    /// Bytes of the message so far.
    pub bytes: usize,
    /// The message hit a limit (`message-too-large` or `too-many-parts`): later content for it
    /// is dropped.
    pub capped: bool,
    /// Its parts, by key (an Agent API content index, or a position in the message).
    pub parts: PartTallies,
}

/// The [`PartTally`]s of one message, by key: a vector sorted by key, which grows one slot at a
/// time from empty (see [`insert_part`]).
///
/// Not a B-tree: a `BTreeMap` allocates a node of eleven entries for the first (140 bytes in
/// wasm32, where an entry here is 12), and an assembler that keeps every message keeps one of
/// these per message. Not a hash map: it is read on every delta, and hashing cost more than the
/// lookups. Most deltas go to the last part, which is looked at first; others are found by binary
/// search. A server that sends its parts' keys in decreasing order makes each insertion move the
/// others: at most [`Limits::max_parts`] of them.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct PartTallies(Vec<(usize, PartTally)>);

impl PartTallies {
    /// Where part `key` is, or where it would go.
    #[inline]
    fn find(&self, key: usize) -> Result<usize, usize> {
        match self.0.last() {
            Some(&(last, _)) if last == key => Ok(self.0.len() - 1),
            Some(&(last, _)) if last < key => Err(self.0.len()),
            _ => self.0.binary_search_by_key(&key, |&(k, _)| k),
        }
    }

    /// Part `key`'s tally, if it has one.
    pub fn get(&self, key: usize) -> Option<&PartTally> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// Part `key`'s tally, created (zero, not capped) if it has none.
    pub fn entry(&mut self, key: usize) -> &mut PartTally {
        let i = match self.find(key) {
            Ok(i) => i,
            Err(i) => {
                insert_part(&mut self.0, i, (key, PartTally::default()));
                i
            }
        };
        &mut self.0[i].1
    }

    /// The tallies, in key order.
    pub fn values(&self) -> impl Iterator<Item = &PartTally> {
        self.0.iter().map(|(_, t)| t)
    }
}

/// Inserts `part` at `pos` of `parts` (as `Vec::insert`), growing the vector one slot at a time
/// from empty and then by doubling (1, 2, 4, 8, …).
///
/// An assembler keeps the parts of every message it holds, and most messages have one. `Vec`'s
/// own growth gives a vector of elements up to 1 KiB four slots at its first insertion: an Agent
/// API [`Content`](crate::dialect::agent_api::Content) was 352 bytes in wasm32, so a message of
/// one content held 1,408 bytes of which 1,056 were never used. With this growth (and the
/// tallies' vector) the memory benchmark's stream of 6,720 messages, all kept, ends at 10.9 MiB
/// of wasm memory instead of 18.4 (`docs/performance-log.md`, stop 48).
#[doc(hidden)]
#[inline]
pub fn insert_part<T>(parts: &mut Vec<T>, pos: usize, part: T) {
    if parts.len() == parts.capacity() {
        parts.reserve_exact(parts.len().max(1));
    }
    parts.insert(pos, part);
}

/// Appends `part` to `parts`, growing the vector as [`insert_part`] does.
#[doc(hidden)]
#[inline]
pub fn push_part<T>(parts: &mut Vec<T>, part: T) {
    insert_part(parts, parts.len(), part);
}

/// Per-part bookkeeping of an assembler.
#[derive(Debug, Clone, Copy, Default)]
#[doc(hidden)]
pub struct PartTally {
    /// Bytes of the part so far.
    pub size: usize,
    /// The part hit a limit: later content for it is dropped.
    pub capped: bool,
}

impl MessageTally {
    /// The budget of part `key` for a piece appended to it.
    pub fn append_budget(&self, limits: &Limits, key: usize) -> Budget {
        let size = self.parts.get(key).map_or(0, |p| p.size);
        Budget {
            part: limits.max_part_size.saturating_sub(size),
            message: limits.max_message_size.saturating_sub(self.bytes),
        }
    }

    /// The budget of part `key` for a value replacing it.
    pub fn replace_budget(&self, limits: &Limits, key: usize) -> Budget {
        let size = self.parts.get(key).map_or(0, |p| p.size);
        Budget {
            part: limits.max_part_size,
            message: limits
                .max_message_size
                .saturating_sub(self.bytes.saturating_sub(size)),
        }
    }

    /// Part `key` grew by `size` bytes.
    pub fn grow(&mut self, key: usize, size: usize) {
        let part = self.parts.entry(key);
        part.size = part.size.saturating_add(size);
        self.bytes = self.bytes.saturating_add(size);
    }

    /// Part `key` now has `size` bytes.
    pub fn set(&mut self, key: usize, size: usize) {
        let part = self.parts.entry(key);
        self.bytes = self.bytes.saturating_sub(part.size).saturating_add(size);
        part.size = size;
    }

    /// Whether part `key` hit a limit.
    pub fn part_capped(&self, key: usize) -> bool {
        self.parts.get(key).is_some_and(|p| p.capped)
    }

    /// Marks part `key` capped.
    pub fn cap_part(&mut self, key: usize) {
        self.parts.entry(key).capped = true;
    }
}

/// Cuts the pieces of a part to a [`Budget`]: strings are cut at a character boundary, a JSON
/// value that does not fit is dropped. Records whether anything was cut and which limit bound.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct Cutter {
    budget: Budget,
    used: usize,
    /// Something was cut or dropped.
    pub cut: bool,
}

impl Cutter {
    pub fn new(budget: Budget) -> Self {
        Self {
            budget,
            used: 0,
            cut: false,
        }
    }

    fn left(&self) -> usize {
        self.budget.left().saturating_sub(self.used)
    }

    /// Bytes kept so far.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Whether the message's limit (rather than the part's) is the one that bound.
    pub fn message_binds(&self) -> bool {
        self.budget.message < self.budget.part
    }

    /// Keeps as much of `s` as fits.
    pub fn string(&mut self, s: &mut String) {
        let keep = self.str(s).len();
        s.truncate(keep);
    }

    /// The part of `s` that fits (all of it, or a prefix ending on a character boundary).
    pub fn str<'s>(&mut self, s: &'s str) -> &'s str {
        let left = self.left();
        let kept = if s.len() > left {
            self.cut = true;
            prefix(s, left)
        } else {
            s
        };
        self.used += kept.len();
        kept
    }

    /// Keeps as much of `s` as fits.
    pub fn opt_string(&mut self, s: &mut Option<String>) {
        if let Some(s) = s {
            self.string(s);
        }
    }

    /// Keeps `v` if it fits, else drops it.
    pub fn json(&mut self, v: &mut Option<serde_json::Value>) {
        if let Some(value) = v {
            let size = json_size(value);
            if size > self.left() {
                *v = None;
                self.cut = true;
            } else {
                self.used += size;
            }
        }
    }

    /// Whether a piece of `size` bytes fits; counts it if it does, records a cut if not.
    pub fn fits(&mut self, size: usize) -> bool {
        if size > self.left() {
            self.cut = true;
            false
        } else {
            self.used += size;
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written reader against serde's derived one (these tests derive `Deserialize`).
    #[test]
    fn hand_reader_reads_as_the_derived_one() {
        let limits = serde_json::json!({"maxMessageSize": 1, "maxParts": 2, "maxPartSize": 3,
            "maxDepth": 4, "maxStreamBytes": 5});
        let names = [
            "maxMessageSize",
            "maxParts",
            "maxPartSize",
            "maxDepth",
            "maxStreamBytes",
        ];
        let read = crate::json::same_reading(&limits, &names, "struct Limits", Limits::read_fields);
        assert!(read.unwrap() > 10);
    }

    #[test]
    fn limits_are_camel_case_with_documented_defaults() {
        let json = serde_json::to_value(Limits::default()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "maxMessageSize": 67_108_864,
                "maxParts": 10_000,
                "maxPartSize": 33_554_432,
                "maxDepth": 64,
                "maxStreamBytes": null,
            })
        );
        // A missing field takes its default.
        let partial: Limits = serde_json::from_str(r#"{"maxParts": 3}"#).unwrap();
        assert_eq!(
            partial,
            Limits {
                max_parts: 3,
                ..Limits::default()
            }
        );
    }

    #[test]
    fn stream_bytes_are_admitted_up_to_the_limit() {
        let mut fed = 0;
        assert_eq!(admit_bytes(&mut fed, Some(5), b"abc"), (&b"abc"[..], false));
        assert_eq!(admit_bytes(&mut fed, Some(5), b"defg"), (&b"de"[..], true));
        assert_eq!(admit_bytes(&mut fed, Some(5), b"h"), (&b""[..], true));
        let mut fed = 0;
        assert_eq!(admit_bytes(&mut fed, None, b"abc"), (&b"abc"[..], false));
    }

    #[test]
    fn nesting_is_counted_outside_strings_only() {
        assert_eq!(nesting_exceeds(b"[[1]]", 2), None);
        assert_eq!(nesting_exceeds(b"[[[1]]]", 2), Some(2));
        assert_eq!(nesting_exceeds(br#"{"a": "[[[[\"[[["}"#, 1), None);
        assert_eq!(nesting_exceeds(br#"{"a": {"b": {}}}"#, 2), Some(12));
        assert_eq!(nesting_exceeds(b"]]]][", 1), None);
    }

    #[test]
    fn prefixes_end_at_character_boundaries() {
        assert_eq!(prefix("héllo", 2), "h");
        assert_eq!(prefix("héllo", 3), "hé");
        assert_eq!(prefix("abc", 10), "abc");
        assert_eq!(prefix("€", 2), "");
    }

    proptest::proptest! {
        /// Any value's size is the length of serde_json's compact text; within a limit below it,
        /// `None`.
        #[test]
        fn json_size_is_serde_jsons_length(value in crate::json::tests::value(), cut in 0..64usize) {
            let len = serde_json::to_string(&value).unwrap().len();
            proptest::prop_assert_eq!(json_size(&value), len);
            proptest::prop_assert_eq!(json_size_within(&value, len), Some(len));
            let limit = len.saturating_sub(cut + 1);
            proptest::prop_assert_eq!(json_size_within(&value, limit), None::<usize>);
        }
    }

    proptest::proptest! {
        /// Any sequence of lookups, growths and caps on any keys (in any order) reads as the same
        /// operations on a `BTreeMap`, the type `PartTallies` replaced; the tallies stay sorted.
        #[test]
        fn part_tallies_act_as_a_map(
            ops in proptest::collection::vec((0..4u8, 0..12usize, 0..100usize), 0..64),
        ) {
            let mut tally = MessageTally::default();
            let mut model = std::collections::BTreeMap::<usize, PartTally>::new();
            for (op, key, size) in ops {
                match op {
                    0 => {
                        tally.grow(key, size);
                        model.entry(key).or_default().size += size;
                    }
                    1 => {
                        tally.set(key, size);
                        model.entry(key).or_default().size = size;
                    }
                    2 => {
                        tally.cap_part(key);
                        model.entry(key).or_default().capped = true;
                    }
                    _ => {}
                }
                let got = tally.parts.get(key).map(|t| (t.size, t.capped));
                proptest::prop_assert_eq!(got, model.get(&key).map(|t| (t.size, t.capped)));
                proptest::prop_assert_eq!(tally.part_capped(key), model.get(&key).is_some_and(|t| t.capped));
            }
            let keys: Vec<usize> = tally.parts.0.iter().map(|&(k, _)| k).collect();
            proptest::prop_assert_eq!(keys, model.keys().copied().collect::<Vec<_>>());
            let values: Vec<(usize, bool)> = tally.parts.values().map(|t| (t.size, t.capped)).collect();
            proptest::prop_assert_eq!(values, model.values().map(|t| (t.size, t.capped)).collect::<Vec<_>>());
            proptest::prop_assert_eq!(tally.bytes, model.values().map(|t| t.size).sum::<usize>());
        }
    }

    /// Parts grow one slot at a time from empty, then by doubling, wherever they are inserted.
    #[test]
    #[allow(clippy::vec_init_then_push)] // `vec![…]` would allocate one slot: the push is the point
    fn parts_grow_from_one_slot() {
        let mut parts: Vec<[u8; 352]> = Vec::new();
        let mut capacities = Vec::new();
        for i in 0..9 {
            insert_part(&mut parts, i / 2, [i as u8; 352]);
            capacities.push(parts.capacity());
        }
        assert_eq!(capacities, [1, 2, 4, 4, 8, 8, 8, 8, 16]);
        // `insert` at `i / 2`: each element moved to its place.
        let firsts: Vec<u8> = parts.iter().map(|p| p[0]).collect();
        assert_eq!(firsts, [1, 3, 5, 7, 8, 6, 4, 2, 0]);
        let mut pushed: Vec<String> = Vec::new();
        push_part(&mut pushed, "a".into());
        assert_eq!((pushed.len(), pushed.capacity()), (1, 1));
        // `Vec::push` would have taken four slots for the first.
        let mut plain: Vec<[u8; 352]> = Vec::new();
        plain.push([0; 352]);
        assert_eq!(plain.capacity(), 4);
    }

    #[test]
    fn json_size_is_the_compact_length() {
        let v =
            serde_json::json!({"a": [1, "x\n\u{1}\"\\é", 2.5, -0.0, false], "b": null, "c\t": {}});
        let len = serde_json::to_string(&v).unwrap().len();
        assert_eq!(json_size(&v), len);
        // Within a limit: the length up to it, nothing past it.
        assert_eq!(json_size_within(&v, len), Some(len));
        assert_eq!(json_size_within(&v, len + 1), Some(len));
        assert_eq!(json_size_within(&v, len - 1), None);
        assert_eq!(json_size_within(&v, 0), None);
    }

    #[test]
    fn details_name_the_message_and_part() {
        let e = LimitError::PartTooLarge {
            limit: 8,
            message: MessageRef::Id("m1".into()),
            part: 2,
        };
        assert_eq!(e.code(), "part-too-large");
        assert_eq!(
            e.details(),
            serde_json::json!({"limit": 8, "msgId": "m1", "index": 2})
        );
        let e = LimitError::TooManyParts {
            limit: 3,
            message: MessageRef::Index(1),
        };
        assert_eq!(
            e.details(),
            serde_json::json!({"limit": 3, "messageIndex": 1})
        );
    }
}
