//! Updates and responses in split form: JSON for the structure, and the streamed text beside it as
//! offsets into one string, for a JavaScript caller that builds the objects without the text being
//! escaped in wasm and parsed again in JavaScript (`src/wasm/updates.js` builds them).

use super::model::{AgentResponse, Content};
use crate::json::write::write_value;

/// Stream updates (written by
/// [`Assembler::drain_updates_split`](super::Assembler::drain_updates_split)) or a response
/// (written by [`Assembler::response_split`](super::Assembler::response_split)) in two parts: the
/// structure as JSON, and streamed text as offsets into one string. Text deltas, the most frequent
/// update, are only offsets; the text of `content` updates and of the text contents of a response
/// (`done`, or the response itself) are left out of the JSON and put back by the reader. A
/// JavaScript reader needs one `JSON.parse` and a `substring` per text.
///
/// For example the updates `[{"type":"message",…}, textDelta m1/0 "Hé", textDelta m1/0 "!"]`
/// are `json` = `[{"type":"message",…}]`, `text` = `m1Hé!`, `table` = `[0, 1,0,2,0,2,4,
/// 1,0,2,0,4,5]`.
///
/// A text is taken out of the JSON only where it is the last field serde writes for its content
/// (no field after `text` is set), so that setting it on the parsed object last gives the same
/// key order as the whole JSON would.
#[derive(Debug, Clone, Default)]
pub struct SplitUpdates {
    /// Updates: a JSON array of the updates that are not text deltas, in order (the shape of
    /// `StreamUpdate[]`). A response: its JSON.
    pub json: String,
    /// The texts, and the deltas' message ids, one after another (a message id is written once
    /// for a run of deltas of the same message).
    pub text: String,
    /// Updates: per update, in order, one entry:
    /// - [`SplitUpdates::JSON`]: the next update of `json`;
    /// - [`SplitUpdates::TEXT_DELTA`] and five numbers: a text delta (the message id's start and
    ///   end, the content's `index`, the delta's start and end);
    /// - [`SplitUpdates::CONTENT_TEXT`] and two numbers: the next update of `json`, a `content`
    ///   update whose `content.text` is the text from the first to the second;
    /// - [`SplitUpdates::RESPONSE_TEXTS`] and a response's texts: the next update of `json`, a
    ///   `done` update whose `response` has those texts.
    ///
    /// A response's texts (also all of `table` for a response): their count `n`, then `n` times
    /// the message's position in `output`, the content's position in its `content`, the text's
    /// start and end.
    ///
    /// Offsets are in UTF-16 code units into `text` (as JavaScript's `String.prototype.substring`
    /// takes them); one split form holds less than 4 Gi of them.
    pub table: Vec<u32>,
    /// The length of `text` in UTF-16 code units.
    units: u32,
    /// The last message id written to `text`: its byte range and its UTF-16 range.
    last_id: Option<(usize, usize, u32, u32)>,
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

    /// Empties the three parts (their buffers are kept).
    pub fn clear(&mut self) {
        self.json.clear();
        self.text.clear();
        self.table.clear();
        self.units = 0;
        self.last_id = None;
    }

    pub(super) fn push_text_delta(&mut self, msg_id: &str, index: u32, delta: &str) {
        let (id_start, id_end) = match self.last_id {
            Some((s, e, us, ue)) if self.text.get(s..e) == Some(msg_id) => (us, ue),
            _ => {
                let s = self.text.len();
                let us = self.units;
                self.push_text(msg_id);
                self.last_id = Some((s, self.text.len(), us, self.units));
                (us, self.units)
            }
        };
        let start = self.units;
        self.push_text(delta);
        self.table.extend_from_slice(&[
            Self::TEXT_DELTA,
            id_start,
            id_end,
            index,
            start,
            self.units,
        ]);
    }

    /// Records a `content` update's text (its JSON, without it, was written to `json`).
    pub(super) fn push_content_text(&mut self, text: &str) {
        let start = self.units;
        self.push_text(text);
        self.table
            .extend_from_slice(&[Self::CONTENT_TEXT, start, self.units]);
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
        for (m, c, t) in taken {
            let start = self.units;
            self.push_text(&t);
            self.table
                .extend_from_slice(&[clamp(m), clamp(c), start, self.units]);
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
        let texts = Texts::new(&self.text);
        let others: Vec<serde_json::Value> = serde_json::from_str(&self.json).ok()?;
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
                _ => return None,
            }
        }
        others.next().is_none().then_some(out)
    }

    /// Reads a response written by
    /// [`Assembler::response_split`](super::Assembler::response_split) back as a JSON value.
    /// `None` if the parts do not fit together.
    pub fn response_json(&self) -> Option<serde_json::Value> {
        let mut response: serde_json::Value = serde_json::from_str(&self.json).ok()?;
        let end = put_texts(&mut response, &Texts::new(&self.text), &self.table, 0)?;
        (end == self.table.len()).then_some(response)
    }

    fn push_text(&mut self, s: &str) {
        self.text.push_str(s);
        self.units = self.units.saturating_add(clamp(utf16_len(s)));
    }
}

/// `text` in UTF-16 code units, for reading offsets back.
struct Texts(Vec<u16>);

impl Texts {
    fn new(text: &str) -> Self {
        Self(text.encode_utf16().collect())
    }

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
    texts: &Texts,
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
pub(super) fn write_response(
    out: &mut SplitUpdates,
    scratch: &mut Vec<u8>,
    response: &mut AgentResponse,
) {
    out.clear();
    out.push_response(response, |json, r| write_value(json, scratch, r));
}

fn clamp(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Whether a content has a `text` that is the last field its JSON has (no field serde writes
/// after it is set), so adding it to the parsed object last keeps the JSON's key order.
pub(super) fn text_is_last(c: &Content) -> bool {
    c.text.is_some()
        && c.image_url.is_none()
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

/// The length of `s` in UTF-16 code units: one per character, two for a character outside the
/// Basic Multilingual Plane (a four-byte UTF-8 sequence). That is the byte length, less the
/// continuation bytes (`10xxxxxx`), plus the lead bytes of four-byte sequences (`11110xxx`),
/// counted eight bytes at a time in a 64-bit word.
fn utf16_len(s: &str) -> usize {
    const LOW: u64 = 0x0101_0101_0101_0101;
    let bytes = s.as_bytes();
    let mut words = bytes.chunks_exact(8);
    let (mut continuation, mut four) = (0u32, 0u32);
    for word in &mut words {
        let w = word.try_into().map_or(0, u64::from_le_bytes);
        // Bit 0 of each byte: its bit 7 set and bit 6 clear.
        continuation += ((w >> 7) & !(w >> 6) & LOW).count_ones();
        // Bit 0 of each byte: its bits 7 to 4 set (in a `str` only a four-byte lead has them).
        four += ((w >> 7) & (w >> 6) & (w >> 5) & (w >> 4) & LOW).count_ones();
    }
    let mut units = bytes.len() - continuation as usize + four as usize;
    for &b in words.remainder() {
        units = units - usize::from(b & 0xC0 == 0x80) + usize::from(b >= 0xF0);
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn utf16_length_of_each_utf8_width() {
        for (s, units) in [
            ("", 0),
            ("abc", 3),
            ("caf\u{e9}", 4),
            ("\u{6771}\u{4eac}", 2),
            ("\u{1F600}", 2),
            ("12345678\u{1F600}\u{e9}x\u{1F680}", 14),
        ] {
            assert_eq!(utf16_len(s), units, "{s:?}");
        }
    }

    proptest! {
        #[test]
        fn utf16_length_is_what_encode_utf16_counts(s in "\\PC*|[a\u{e9}\u{6771}\u{1F600}]*") {
            prop_assert_eq!(utf16_len(&s), s.encode_utf16().count());
        }
    }
}
