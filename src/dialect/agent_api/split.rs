//! Updates and responses in split form: JSON for the structure, and the streamed text beside it as
//! offsets into one UTF-16 string, for a JavaScript caller that builds the objects without the
//! text being escaped in wasm and parsed again in JavaScript (`src/wasm/updates.js` builds them).

use super::model::{AgentResponse, Content, Message};
use super::StreamUpdate;
use crate::json::write::write_large_value;

/// Stream updates (written by
/// [`Assembler::drain_updates_split`](super::Assembler::drain_updates_split)) or a response
/// (written by [`Assembler::response_split`](super::Assembler::response_split)) in two parts: the
/// structure as JSON, and streamed text as offsets into one UTF-16 string. Text deltas, the most
/// frequent update, are only offsets, and plain message and content updates numbers and offsets;
/// the text of other `content` updates and of the text contents of a response (`done`, or the
/// response itself) are left out of the JSON and put back by the reader. A JavaScript reader
/// needs one `JSON.parse` and a `substring` per string.
///
/// For example the updates `[{"type":"issue",…}, textDelta m1/0 "Hé", textDelta m1/0 "!"]`
/// are `json` = `[{"type":"issue",…}]`, `text` = `m1Hé!` (as five UTF-16 code units), `table` =
/// `[0, 1,0,2,0,2,4, 1,0,2,0,4,5]`.
///
/// A text is taken out of the JSON only where it is the last field serde writes for its content
/// (no field after `text` is set), so that setting it on the parsed object last gives the same
/// key order as the whole JSON would.
#[derive(Debug, Clone, Default)]
pub struct SplitUpdates {
    /// Updates: a JSON array of the updates that are neither text deltas nor plain message and
    /// content updates, in order (the shape of `StreamUpdate[]`). A response: its JSON.
    pub json: String,
    /// The texts, the deltas' message ids and the strings of plain updates, one after another
    /// (a message id is written once for a run of updates of the same message), in UTF-16 code
    /// units: a JavaScript reader makes it a string without decoding UTF-8 (Node's `Buffer` reads
    /// UTF-16 about 3x faster than Node 20's `TextDecoder` decodes UTF-8 with non-ASCII text).
    pub text: Vec<u16>,
    /// Updates: per update, in order, one entry:
    /// - [`SplitUpdates::JSON`]: the next update of `json`;
    /// - [`SplitUpdates::TEXT_DELTA`] and five numbers: a text delta (the message id's start and
    ///   end, the content's `index`, the delta's start and end);
    /// - [`SplitUpdates::CONTENT_TEXT`] and two numbers: the next update of `json`, a `content`
    ///   update whose `content.text` is the text from the first to the second;
    /// - [`SplitUpdates::RESPONSE_TEXTS`] and a response's texts: the next update of `json`, a
    ///   `done` update whose `response` has those texts;
    /// - [`SplitUpdates::PLAIN_MESSAGE`] and eleven numbers: a `message` update whose message
    ///   has no contents and nothing beyond `id`, `type`, `status`, `role` and `sequence_number`
    ///   (every message update of a plain stream): which fields are set (bits 1, 2, 4, 8: `id`,
    ///   `status`, `role`, `sequence_number`), the start and end of `id`, `type`, `status` and
    ///   `role`, and `sequence_number` as its high and low 32 bits (absent fields: zeros);
    /// - [`SplitUpdates::PLAIN_CONTENT`] and sixteen numbers: a `content` update whose content has
    ///   nothing beyond `type`, `index`, `delta`, `msg_id`, `status`, `sequence_number` and
    ///   `text`: the update's `msgId` (start, end) and `index`, which content fields are set (bits
    ///   1, 2, 4, 8, 16, 32: `index`, `delta`, `msg_id`, `status`, `sequence_number`, `text`), the
    ///   start and end of `type`, its `index`, `delta` (0 or 1), the start and end of `msg_id` and
    ///   `status`, `sequence_number` (high, low), the start and end of `text`.
    ///
    /// Plain message and content updates are built from `table` rather than parsed: they are
    /// nearly all the updates besides text deltas, and `JSON.parse` of their small objects cost
    /// more than the rest of a batched drain (V8, 2026-11-21). A reader builds their fields in the
    /// order serde writes them (the order of the struct's fields).
    ///
    /// A response's texts (also all of `table` for a response): their count `n`, then `n` times
    /// the message's position in `output`, the content's position in its `content`, the text's
    /// start and end.
    ///
    /// Offsets are indexes into `text` (as JavaScript's `String.prototype.substring` takes
    /// them); one split form holds less than 4 Gi code units.
    pub table: Vec<u32>,
    /// The last message id written to `text`: its range, and the address and length of the
    /// string it was written from.
    last_id: Option<LastId>,
}

/// The last message id written to [`SplitUpdates::text`].
#[derive(Debug, Clone, Copy)]
struct LastId {
    start: u32,
    end: u32,
    /// The address and byte length of the `str` it was written from. Every id of one drain is
    /// borrowed from the response, from a pending update or from the assembler's buffer of
    /// copied-out deltas, which stay alive and unchanged until the drain ends (and
    /// [`SplitUpdates::clear`] starts each drain), so an id at the same
    /// address with the same length is the same id: per event, nearly every text delta's,
    /// which is then not compared code unit by code unit (that compare was about 190 of the 4,600
    /// instructions per event of a per-event drain, natively).
    from: (usize, usize),
}

impl SplitUpdates {
    /// A `table` entry: the next update of `json`.
    pub const JSON: u32 = 0;
    /// A `table` entry: a text delta, whose five numbers follow.
    pub const TEXT_DELTA: u32 = 1;
    /// A `table` entry: the next update of `json`, whose `content.text` is in `text` (its start
    /// and end follow).
    pub const CONTENT_TEXT: u32 = 2;
    /// A `table` entry: the next update of `json`, a `done` whose response's texts follow.
    pub const RESPONSE_TEXTS: u32 = 3;
    /// A `table` entry: a plain `message` update, whose eleven numbers follow.
    pub const PLAIN_MESSAGE: u32 = 4;
    /// A `table` entry: a plain `content` update, whose sixteen numbers follow.
    pub const PLAIN_CONTENT: u32 = 5;

    /// Empties the three parts (their buffers are kept).
    pub fn clear(&mut self) {
        self.json.clear();
        self.text.clear();
        self.table.clear();
        self.last_id = None;
    }

    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub(super) fn push_text_delta(&mut self, msg_id: &str, index: u32, delta: &str) {
        let (id_start, id_end) = self.push_id(Some(msg_id));
        let (start, end) = self.push_text(delta);
        self.table
            .extend_from_slice(&[Self::TEXT_DELTA, id_start, id_end, index, start, end]);
    }

    /// Records a run of text deltas of one content whose texts follow one another: `text` is
    /// their texts joined, `ranges` each delta's range, in order, the first starting at
    /// `ranges`' own origin and each starting where the last ended (the ranges of the content's
    /// accumulated text they are). The joined text is written once, so a run costs one UTF-16
    /// write rather than one per delta; the table gets the same entries as
    /// [`push_text_delta`](Self::push_text_delta) per delta would write.
    pub(super) fn push_text_run(
        &mut self,
        msg_id: &str,
        index: u32,
        text: &str,
        ranges: impl ExactSizeIterator<Item = (usize, usize)>,
    ) {
        self.table.reserve(6 * ranges.len());
        let (id_start, id_end) = self.push_id(Some(msg_id));
        let (start, end) = self.push_text(text);
        // Every byte of ASCII text is one code unit: offsets are byte offsets from `start`.
        let ascii = (end - start) as usize == text.len();
        let bytes = text.as_bytes();
        let (mut origin, mut at) = (None, start);
        // Text with some non-ASCII characters: where the next one starts, searched eight bytes at
        // a time, so that a delta before it (most deltas) is not counted byte by byte.
        let mut wide = 0;
        for (s, e) in ranges {
            let origin = *origin.get_or_insert(s);
            let (s, e) = (s.saturating_sub(origin), e.saturating_sub(origin));
            if !ascii && wide < s {
                wide = next_non_ascii(bytes, s);
            }
            let units = if ascii || wide >= e {
                e.saturating_sub(s)
            } else {
                utf16_len(bytes.get(s..e).unwrap_or_default())
            };
            let next = at.saturating_add(clamp(units));
            self.table
                .extend_from_slice(&[Self::TEXT_DELTA, id_start, id_end, index, at, next]);
            at = next;
        }
    }

    /// Writes `update` as a [`SplitUpdates::PLAIN_MESSAGE`] or [`SplitUpdates::PLAIN_CONTENT`]
    /// entry if it is one of those; says whether it did.
    pub(super) fn push_plain(&mut self, update: &StreamUpdate) -> bool {
        match update {
            StreamUpdate::Message { message } if is_plain_message(message) => {
                let m = message;
                let flags = u32::from(m.id.is_some())
                    | u32::from(m.status.is_some()) << 1
                    | u32::from(m.role.is_some()) << 2
                    | u32::from(m.sequence_number.is_some()) << 3;
                let id = self.push_id(m.id.as_deref());
                let kind = self.push_str(Some(m.kind.as_str()));
                let status = self.push_str(m.status.as_ref().map(|s| s.as_str()));
                let role = self.push_str(m.role.as_ref().map(|r| r.as_str()));
                let (seq_hi, seq_lo) = split_u64(m.sequence_number);
                self.table.extend_from_slice(&[
                    Self::PLAIN_MESSAGE,
                    flags,
                    id.0,
                    id.1,
                    kind.0,
                    kind.1,
                    status.0,
                    status.1,
                    role.0,
                    role.1,
                    seq_hi,
                    seq_lo,
                ]);
                true
            }
            StreamUpdate::Content {
                msg_id,
                index,
                content,
            } if is_plain_content(content) => {
                let c = content;
                let flags = u32::from(c.index.is_some())
                    | u32::from(c.delta.is_some()) << 1
                    | u32::from(c.msg_id.is_some()) << 2
                    | u32::from(c.status.is_some()) << 3
                    | u32::from(c.sequence_number.is_some()) << 4
                    | u32::from(c.text.is_some()) << 5;
                let update_id = self.push_id(Some(msg_id));
                let kind = self.push_str(Some(c.kind.as_str()));
                let content_id = self.push_id(c.msg_id.as_deref());
                let status = self.push_str(c.status.as_ref().map(|s| s.as_str()));
                let (seq_hi, seq_lo) = split_u64(c.sequence_number);
                let text = self.push_str(c.text.as_deref());
                self.table.extend_from_slice(&[
                    Self::PLAIN_CONTENT,
                    update_id.0,
                    update_id.1,
                    *index,
                    flags,
                    kind.0,
                    kind.1,
                    c.index.unwrap_or(0),
                    u32::from(c.delta == Some(true)),
                    content_id.0,
                    content_id.1,
                    status.0,
                    status.1,
                    seq_hi,
                    seq_lo,
                    text.0,
                    text.1,
                ]);
                true
            }
            _ => false,
        }
    }

    /// Writes `s` to `text`; its start and end (`(0, 0)` for `None`).
    fn push_str(&mut self, s: Option<&str>) -> (u32, u32) {
        s.map_or((0, 0), |s| self.push_text(s))
    }

    /// Writes a message id to `text`, or reuses the last one written if it is the same; its
    /// start and end (`(0, 0)` for `None`).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn push_id(&mut self, id: Option<&str>) -> (u32, u32) {
        let Some(id) = id else { return (0, 0) };
        let from = (id.as_ptr() as usize, id.len());
        if let Some(last) = &mut self.last_id {
            let same = last.from == from || {
                let units = self.text.get(last.start as usize..last.end as usize);
                id.encode_utf16()
                    .eq(units.unwrap_or_default().iter().copied())
            };
            if same {
                last.from = from;
                return (last.start, last.end);
            }
        }
        let (start, end) = self.push_text(id);
        self.last_id = Some(LastId { start, end, from });
        (start, end)
    }

    /// Records a `content` update's text (its JSON, without it, was written to `json`).
    pub(super) fn push_content_text(&mut self, text: &str) {
        let (start, end) = self.push_text(text);
        self.table
            .extend_from_slice(&[Self::CONTENT_TEXT, start, end]);
    }

    /// Writes a `done` update's response to `json` through `write` (its texts left out) and
    /// records the entry.
    pub(super) fn push_done(
        &mut self,
        response: &mut AgentResponse,
        write: impl FnOnce(&mut String, &AgentResponse),
    ) {
        self.table.push(Self::RESPONSE_TEXTS);
        self.push_response(response, write);
    }

    /// Writes `response` to `json` through `write` with its texts taken out (and put back after),
    /// and records the texts in `table`.
    pub(super) fn push_response(
        &mut self,
        response: &mut AgentResponse,
        write: impl FnOnce(&mut String, &AgentResponse),
    ) {
        let mut taken = Vec::new();
        for (m, message) in response.output.iter_mut().enumerate() {
            for (c, content) in message.content.iter_mut().enumerate() {
                if text_is_last(content) {
                    if let Some(t) = content.text.take() {
                        taken.push((m, c, t));
                    }
                }
            }
        }
        write(&mut self.json, response);
        self.table.push(clamp(taken.len()));
        // The whole response's texts at once: one allocation of at most their byte length in
        // code units, rather than growth by doubling (which, for the response at the end of a
        // long stream, had held up to twice the texts, and the copy beside it while it grew).
        self.text
            .reserve(taken.iter().map(|(_, _, t)| t.len()).sum::<usize>());
        self.table.reserve(4 * taken.len());
        for (m, c, t) in taken {
            let (start, end) = self.push_text(&t);
            self.table
                .extend_from_slice(&[clamp(m), clamp(c), start, end]);
            if let Some(content) = response
                .output
                .get_mut(m)
                .and_then(|msg| msg.content.get_mut(c))
            {
                content.text = Some(t);
            }
        }
    }

    /// Reads the updates back as JSON values, as `src/wasm/updates.js` builds them (the same as
    /// [`Assembler::drain_updates_json`](super::Assembler::drain_updates_json) gives): for tests,
    /// and for callers outside JavaScript. `None` if the parts do not fit together (as the
    /// assembler writes them, they do).
    pub fn updates_json(&self) -> Option<Vec<serde_json::Value>> {
        let texts = Texts(&self.text);
        let others = crate::json::parse_value(&self.json).ok()?;
        let serde_json::Value::Array(others) = others else {
            return None;
        };
        let mut others = others.into_iter();
        let mut out = Vec::new();
        let t = &self.table;
        let mut i = 0;
        while i < t.len() {
            match t[i] {
                Self::JSON => {
                    out.push(others.next()?);
                    i += 1;
                }
                Self::TEXT_DELTA => {
                    let e = t.get(i + 1..i + 6)?;
                    out.push(serde_json::json!({
                        "type": "textDelta",
                        "msgId": texts.get(e[0], e[1])?,
                        "index": e[2],
                        "delta": texts.get(e[3], e[4])?,
                    }));
                    i += 6;
                }
                Self::CONTENT_TEXT => {
                    let mut u = others.next()?;
                    let text = texts.get(*t.get(i + 1)?, *t.get(i + 2)?)?;
                    let content = u.get_mut("content")?.as_object_mut()?;
                    if content.insert("text".into(), text.into()).is_some() {
                        return None; // the text was in the JSON too
                    }
                    out.push(u);
                    i += 3;
                }
                Self::RESPONSE_TEXTS => {
                    let mut u = others.next()?;
                    i = put_texts(u.get_mut("response")?, &texts, t, i + 1)?;
                    out.push(u);
                }
                Self::PLAIN_MESSAGE => {
                    let e = t.get(i + 1..i + 12)?;
                    let flags = e[0];
                    let mut m = serde_json::Map::new();
                    m.insert("object".into(), "message".into());
                    let text = |bit: u32, at: usize| -> Option<Option<String>> {
                        Some(if flags & bit != 0 {
                            Some(texts.get(e[at], e[at + 1])?)
                        } else {
                            None
                        })
                    };
                    if let Some(id) = text(1, 1)? {
                        m.insert("id".into(), id.into());
                    }
                    m.insert("type".into(), texts.get(e[3], e[4])?.into());
                    if let Some(status) = text(2, 5)? {
                        m.insert("status".into(), status.into());
                    }
                    if let Some(role) = text(4, 7)? {
                        m.insert("role".into(), role.into());
                    }
                    m.insert("content".into(), serde_json::Value::Array(Vec::new()));
                    if flags & 8 != 0 {
                        m.insert("sequence_number".into(), join_u64(e[9], e[10]).into());
                    }
                    out.push(serde_json::json!({ "type": "message", "message": m }));
                    i += 12;
                }
                Self::PLAIN_CONTENT => {
                    let e = t.get(i + 1..i + 17)?;
                    let flags = e[3];
                    let mut c = serde_json::Map::new();
                    c.insert("object".into(), "content".into());
                    c.insert("type".into(), texts.get(e[4], e[5])?.into());
                    if flags & 1 != 0 {
                        c.insert("index".into(), e[6].into());
                    }
                    if flags & 2 != 0 {
                        c.insert("delta".into(), (e[7] != 0).into());
                    }
                    if flags & 4 != 0 {
                        c.insert("msg_id".into(), texts.get(e[8], e[9])?.into());
                    }
                    if flags & 8 != 0 {
                        c.insert("status".into(), texts.get(e[10], e[11])?.into());
                    }
                    if flags & 16 != 0 {
                        c.insert("sequence_number".into(), join_u64(e[12], e[13]).into());
                    }
                    if flags & 32 != 0 {
                        c.insert("text".into(), texts.get(e[14], e[15])?.into());
                    }
                    out.push(serde_json::json!({
                        "type": "content",
                        "msgId": texts.get(e[0], e[1])?,
                        "index": e[2],
                        "content": c,
                    }));
                    i += 17;
                }
                _ => return None,
            }
        }
        others.next().is_none().then_some(out)
    }

    /// Reads a response written by
    /// [`Assembler::response_split`](super::Assembler::response_split) back as a JSON value.
    /// `None` if the parts do not fit together.
    pub fn response_json(&self) -> Option<serde_json::Value> {
        let mut response = crate::json::parse_value(&self.json).ok()?;
        let end = put_texts(&mut response, &Texts(&self.text), &self.table, 0)?;
        (end == self.table.len()).then_some(response)
    }

    /// Appends `s` to `text` in UTF-16; its start and end.
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn push_text(&mut self, s: &str) -> (u32, u32) {
        let start = clamp(self.text.len());
        push_utf16(&mut self.text, s);
        (start, clamp(self.text.len()))
    }
}

/// `text`, for reading offsets back.
struct Texts<'a>(&'a [u16]);

impl Texts<'_> {
    fn get(&self, start: u32, end: u32) -> Option<String> {
        let units = self
            .0
            .get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)?;
        String::from_utf16(units).ok()
    }
}

/// Sets a response's texts from `table` at `i` (their count, then message position, content
/// position, start and end for each); returns the index after them.
fn put_texts(
    response: &mut serde_json::Value,
    texts: &Texts<'_>,
    table: &[u32],
    i: usize,
) -> Option<usize> {
    let n = usize::try_from(*table.get(i)?).ok()?;
    let end = i.checked_add(1)?.checked_add(n.checked_mul(4)?)?;
    for e in table.get(i + 1..end)?.chunks(4) {
        let content = response
            .get_mut("output")?
            .get_mut(usize::try_from(e[0]).ok()?)?
            .get_mut("content")?
            .get_mut(usize::try_from(e[1]).ok()?)?
            .as_object_mut()?;
        if content
            .insert("text".into(), texts.get(e[2], e[3])?.into())
            .is_some()
        {
            return None; // the text was in the JSON too
        }
    }
    Some(end)
}

/// Writes `response` in split form to `out` (cleared first): see [`SplitUpdates`].
pub(super) fn write_response(out: &mut SplitUpdates, response: &mut AgentResponse) {
    out.clear();
    out.push_response(response, write_large_value);
}

/// `n` as its high and low 32 bits (`(0, 0)` for `None`).
fn split_u64(n: Option<u64>) -> (u32, u32) {
    let n = n.unwrap_or(0);
    ((n >> 32) as u32, n as u32)
}

fn join_u64(hi: u32, lo: u32) -> u64 {
    u64::from(hi) << 32 | u64::from(lo)
}

/// Whether a message update's message is written as a [`SplitUpdates::PLAIN_MESSAGE`] entry (whose
/// `object` is always `"message"`).
fn is_plain_message(m: &Message) -> bool {
    m.object == "message"
        && m.content.is_empty()
        && m.code.is_none()
        && m.message.is_none()
        && m.usage.is_none()
        && m.metadata.is_none()
        && m.error.is_none()
        && m.extra.is_empty()
}

/// Whether a content update's content is written as a [`SplitUpdates::PLAIN_CONTENT`] entry (whose
/// `object` is always `"content"`).
fn is_plain_content(c: &Content) -> bool {
    c.object == "content" && c.error.is_none() && nothing_after_text(c)
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether a content has a `text` that is the last field its JSON has (no field serde writes
/// after it is set), so adding it to the parsed object last keeps the JSON's key order.
pub(super) fn text_is_last(c: &Content) -> bool {
    c.text.is_some() && nothing_after_text(c)
}

/// Whether none of the fields serde writes after a content's `text` is set.
fn nothing_after_text(c: &Content) -> bool {
    c.image_url.is_none()
        && c.data.is_none()
        && c.format.is_none()
        && c.file_url.is_none()
        && c.file_id.is_none()
        && c.filename.is_none()
        && c.file_data.is_none()
        && c.refusal.is_none()
        && c.video_url.is_none()
        && c.extra.is_empty()
}

/// The number of UTF-16 code units of the UTF-8 text `bytes` (whole characters): one per
/// character, two for one outside the Basic Multilingual Plane (a four-byte sequence).
fn utf16_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// The high bit of each byte of a 64-bit word: a word of eight bytes is all ASCII when `word &
/// HIGH_BITS == 0`.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The index of the first byte at or after `from` that is not ASCII (`bytes.len()` if there is
/// none), eight bytes at a time as a little-endian word (so the lowest flagged byte comes first).
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(word) = bytes.get(i..i + 8) {
        let high = word.try_into().map_or(HIGH_BITS, u64::from_le_bytes) & HIGH_BITS;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b >= 0x80))
        .map_or(bytes.len(), |k| i + k)
}

/// Appends `s` to `out` in UTF-16 code units. Eight ASCII bytes are widened at a time (found
/// with a 64-bit word; the copy is vectorized); other characters are decoded from their UTF-8
/// sequence (well formed: `s` is a `str`), those outside the Basic Multilingual Plane written as
/// a surrogate pair.
fn push_utf16(out: &mut Vec<u16>, s: &str) {
    let bytes = s.as_bytes();
    let start = out.len();
    // Never more code units than bytes.
    out.resize(start + bytes.len(), 0);
    let dst = &mut out[start..];
    let (mut i, mut n) = (0, 0);
    while let Some(&lead) = bytes.get(i) {
        if let (Some(src), Some(d)) = (bytes.get(i..i + 8), dst.get_mut(n..n + 8)) {
            let w = src.try_into().map_or(HIGH_BITS, u64::from_le_bytes);
            if w & HIGH_BITS == 0 {
                for (d, &b) in d.iter_mut().zip(src) {
                    *d = u16::from(b);
                }
                i += 8;
                n += 8;
                continue;
            }
        }
        let lead = u32::from(lead);
        let next = |k: usize| u32::from(bytes.get(i + k).map_or(0, |b| b & 0x3F));
        let (c, len) = match lead {
            0..=0x7F => (lead, 1),
            0x80..=0xDF => ((lead & 0x1F) << 6 | next(1), 2),
            0xE0..=0xEF => ((lead & 0x0F) << 12 | next(1) << 6 | next(2), 3),
            _ => (
                (lead & 0x07) << 18 | next(1) << 12 | next(2) << 6 | next(3),
                4,
            ),
        };
        i += len;
        if let Some(c) = c.checked_sub(0x1_0000) {
            if let Some([hi, lo]) = dst.get_mut(n..n + 2) {
                *hi = 0xD800 | (c >> 10) as u16;
                *lo = 0xDC00 | (c & 0x3FF) as u16;
            }
            n += 2;
        } else {
            if let Some(d) = dst.get_mut(n) {
                *d = c as u16;
            }
            n += 1;
        }
    }
    out.truncate(start + n);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn utf16(s: &str) -> Vec<u16> {
        let mut out = vec![7];
        push_utf16(&mut out, s);
        out
    }

    #[test]
    fn utf16_of_each_utf8_width() {
        for s in [
            "",
            "abc",
            "caf\u{e9}",
            "\u{6771}\u{4eac}",
            "\u{1F600}",
            "12345678\u{1F600}\u{e9}x\u{1F680}",
            "abcdefghijklmnopq\u{e9}abcdefgh\u{1F600}",
        ] {
            let mut expected = vec![7];
            expected.extend(s.encode_utf16());
            assert_eq!(utf16(s), expected, "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn next_non_ascii_is_the_first_byte_over_7f(
            s in "[a-z \u{e9}\u{6771}\u{1F600}]{0,40}",
            from in 0usize..48,
        ) {
            let b = s.as_bytes();
            let expected = (from..b.len()).find(|&i| b[i] >= 0x80).unwrap_or(b.len());
            prop_assert_eq!(next_non_ascii(b, from), expected);
        }

        #[test]
        fn a_run_of_deltas_gets_each_deltas_own_utf16_range(
            pieces in proptest::collection::vec("[a-z \u{e9}\u{6771}\u{1F600}]{0,12}", 1..12),
        ) {
            // The ranges are where the pieces are in a content's text (here from byte 100 on).
            let mut ranges = Vec::new();
            let mut at = 100;
            for p in &pieces {
                ranges.push((at, at + p.len()));
                at += p.len();
            }
            let mut out = SplitUpdates::default();
            out.text.extend("before".encode_utf16());
            out.push_text_run("m1", 3, &pieces.concat(), ranges.into_iter());
            prop_assert_eq!(out.table.len(), 6 * pieces.len());
            for (e, piece) in out.table.chunks(6).zip(&pieces) {
                prop_assert_eq!(&e[..4], &[SplitUpdates::TEXT_DELTA, 6, 8, 3][..]);
                let units = out.text.get(e[4] as usize..e[5] as usize).unwrap_or_default();
                let got = String::from_utf16(units).ok();
                prop_assert_eq!(got.as_ref(), Some(piece));
            }
        }

        #[test]
        fn utf16_is_what_encode_utf16_writes(s in "\\PC*|[a\u{e9}\u{6771}\u{1F600}]*") {
            let mut expected = vec![7];
            expected.extend(s.encode_utf16());
            prop_assert_eq!(utf16(&s), expected);
        }
    }
}
