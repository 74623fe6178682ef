//! The layout of a stream's text deltas, learned from one and matched against the next: the
//! event reader's shortcut for the event nearly every event is.
//!
//! A server writes each text delta with the same members in the same order, and most of their
//! values the same (agentscope-runtime 1.1.6:
//! `{"sequence_number":3,"object":"content","status":"in_progress","error":null,"type":"text",`
//! `"index":0,"delta":true,"msg_id":"msg_…","text":"hello"}`): only the sequence number, the index,
//! the message id and the text vary. [`DeltaShape::learn`] takes the bytes of a text delta that
//! [`RawEvent::scan_spans`] read, noting where those four values were ([`Spans`]), as the literal
//! text between them (keys, separators, whitespace and the values that do not vary, such as
//! `"object":"content"`), and [`DeltaShape::read`] reads a later event by comparing its bytes
//! with that literal text a word at a time, reading only the four values in between. Whatever
//! differs (another member, another order, other whitespace, a `null` where a number was, a
//! status that changed) makes `read` decline, and the event is read by `scan_into` as before.
//!
//! Where `read` answers, it answers as `scan_into` does: the literal text is byte for byte that of
//! an event `scan_into` read, its members' values are the ones `scan_into` read there, and the
//! values in between are read by the functions `scan_into` reads them with
//! ([`string_at_quote`], [`digits_at`]), accepting only what `scan_into` accepts (a plain
//! integer of up to 19 digits, an index that fits `u32`, a string; anything else declines).
//! The tests compare the two on generated events.

use std::borrow::Cow;

use super::event::{RawEvent, Rest};
use super::model::RunStatus;
use crate::json::scan::{digits_at, eq_words, string_at_quote, Scanned};
use crate::wire::CowStr;

/// A member whose value varies from delta to delta, read between two pieces of the literal text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Slot {
    SequenceNumber,
    Index,
    MsgId,
    Text,
}

/// Where [`RawEvent::scan_spans`] found the values of an event's [`Slot`] members: per slot, the
/// value's first byte and the index just past it, for a sequence number or index that is an
/// unsigned integer and a message id or text that is a string (a member given twice: its last
/// value, as the scan reads it; `null`: none). `(0, 0)`: none.
#[derive(Debug, Default)]
pub(crate) struct Spans([(usize, usize); 4]);

impl Spans {
    /// The value of `slot` is at `start..end`.
    #[inline(always)]
    pub(super) fn set(&mut self, slot: Slot, start: usize, end: usize) {
        self.0[slot as usize] = (start, end);
    }

    /// `slot` has no value to vary (`null`).
    #[inline(always)]
    pub(super) fn clear(&mut self, slot: Slot) {
        self.0[slot as usize] = (0, 0);
    }

    /// The value `v` of `slot` at `start..end`: noted if a string, else cleared.
    #[inline(always)]
    pub(super) fn note(&mut self, slot: Slot, v: &Scanned<'_>, start: usize, end: usize) {
        if matches!(v, Scanned::Str(_)) {
            self.set(slot, start, end);
        } else {
            self.clear(slot);
        }
    }
}

/// A stream's text-delta layout (see the module note). Empty until a text delta is learned.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeltaShape {
    /// The event's bytes but the varying values, one piece after another: ASCII.
    literal: Vec<u8>,
    /// Per varying value, in order: the length of the literal piece before it, and its member.
    /// The piece after the last value is the rest of `literal`.
    slots: Vec<(usize, Slot)>,
    /// What the members in the literal text give the event: `type` is `"text"` (else absent),
    /// `status` and `delta` as read (`object` is always `"content"`); `rest` is an empty
    /// [`Rest`] when a member other than a text delta's is there, `null` (agentscope-runtime's
    /// `"error":null`).
    kind_text: bool,
    rest: bool,
    status: Option<RunStatus>,
    delta: Option<bool>,
    /// Events read by the layout, and layouts learned: learning stops while they do not pay (a
    /// server that orders members differently from event to event).
    hits: u32,
    learned: u32,
}

impl DeltaShape {
    /// Reads `data` into `raw` (a [`RawEvent::default`]) if it has the learned layout, as
    /// [`RawEvent::scan_into`] would; `false` (and `raw` untouched) if it does not.
    #[inline]
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    pub(crate) fn read<'a>(&mut self, data: &'a [u8], raw: &mut RawEvent<'a>) -> bool {
        if self.literal.is_empty() {
            return false;
        }
        let hit = self.read_into(data, raw).is_some();
        self.hits = self.hits.saturating_add(u32::from(hit));
        hit
    }

    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn read_into<'a>(&self, data: &'a [u8], raw: &mut RawEvent<'a>) -> Option<()> {
        let (mut at, mut lit) = (0, 0);
        let (mut sequence_number, mut index, mut msg_id, mut text) = (None, None, None, None);
        for &(len, slot) in &self.slots {
            let piece = self.literal.get(lit..lit + len)?;
            if !eq_words(data.get(at..at + len)?, piece) {
                return None;
            }
            at += len;
            lit += len;
            match slot {
                Slot::SequenceNumber | Slot::Index => {
                    let (n, end, plain) = digits_at(data, at);
                    if !plain || end - at > 19 {
                        return None;
                    }
                    if slot == Slot::Index {
                        index = Some(u32::try_from(n).ok()?);
                    } else {
                        sequence_number = Some(n);
                    }
                    at = end;
                }
                Slot::MsgId | Slot::Text => {
                    if data.get(at) != Some(&b'"') {
                        return None;
                    }
                    let (s, end) = string_at_quote(data, at)?;
                    if slot == Slot::Text {
                        text = Some(CowStr(s));
                    } else {
                        msg_id = Some(CowStr(s));
                    }
                    at = end;
                }
            }
        }
        if !eq_words(data.get(at..)?, self.literal.get(lit..)?) {
            return None;
        }
        // Field by field: `raw` is a default event, and much of it is `rest`, left `None` here.
        raw.object = Some(CowStr(Cow::Borrowed("content")));
        raw.sequence_number = sequence_number;
        raw.status = self.status.clone();
        if self.kind_text {
            raw.kind = Some(CowStr(Cow::Borrowed("text")));
        }
        raw.index = index;
        raw.delta = self.delta;
        raw.msg_id = msg_id;
        raw.text = text;
        if self.rest {
            raw.rest = Some(Rest::default());
        }
        Some(())
    }

    /// After [`DeltaShape::read`] declined `data`: reads it into `raw` (a [`RawEvent::default`])
    /// with [`RawEvent::scan_into`] and learns its layout from it ([`DeltaShape::learn`]).
    /// `false` where `scan_into` is.
    #[inline]
    pub(crate) fn scan<'a>(
        &mut self,
        data: &'a [u8],
        raw: &mut RawEvent<'a>,
        max_depth: usize,
    ) -> bool {
        let mut spans = Spans::default();
        let read = raw.scan_spans(data, max_depth, &mut spans);
        if read {
            self.learn(data, raw, &spans);
        }
        read
    }

    /// After [`DeltaShape::read`] declined `data` and [`RawEvent::scan_spans`] read it as `raw`
    /// and noted `spans`: learns its layout if it is a text delta (`object` `"content"`, `delta`
    /// true, `type` `"text"` or absent, a known status or none, no other member but members of
    /// [`Rest`] that are `null`), else keeps the one it has. After four layouts, a new one is
    /// learned only once the layouts have read 64 events per layout learned: a server whose
    /// members come in another order each time costs a failed compare per event, not more.
    #[inline(never)]
    #[cfg_attr(agentwire_size, optimize(size))]
    pub(crate) fn learn(&mut self, data: &[u8], raw: &RawEvent<'_>, spans: &Spans) {
        let text_delta = raw.delta == Some(true)
            && raw.object.as_ref().is_some_and(|o| o.0 == "content")
            && raw.kind.as_ref().is_none_or(|k| k.0 == "text")
            && !matches!(raw.status, Some(RunStatus::Other(_)))
            && raw.rest.as_ref().is_none_or(Rest::is_empty);
        if !text_delta || (self.learned >= 4 && self.hits / 64 < self.learned) {
            return;
        }
        self.learned += 1;
        // The slots in the order of their values (at most four: picked one by one).
        let slots = [Slot::SequenceNumber, Slot::Index, Slot::MsgId, Slot::Text];
        let (mut literal, mut layout) = (Vec::new(), Vec::new());
        let mut from = 0;
        loop {
            let next = slots
                .iter()
                .map(|&slot| (spans.0[slot as usize], slot))
                .filter(|&((start, end), _)| end > start && start >= from)
                .min_by_key(|&((start, _), _)| start);
            let Some(((start, end), slot)) = next else {
                break;
            };
            let Some(piece) = data.get(from..start) else {
                return;
            };
            literal.extend_from_slice(piece);
            layout.push((start - from, slot));
            from = end;
        }
        let Some(piece) = data.get(from..) else {
            return;
        };
        literal.extend_from_slice(piece);
        if !literal.is_ascii() {
            return;
        }
        self.literal = literal;
        self.slots = layout;
        self.kind_text = raw.kind.is_some();
        self.rest = raw.rest.is_some();
        self.status = raw.status.clone();
        self.delta = raw.delta;
    }
}

/// For the `delta_shape` fuzz target: the event `second` as a layout learned from `first` reads it,
/// and as [`RawEvent::scan_into`] reads it (each in its `Debug` form; `None` where it declines,
/// or where `first` is not a text delta that `scan_into` reads and so teaches no layout), at the
/// default nesting limit. Where the layout answers, the two must be the same.
#[doc(hidden)]
pub fn layout_and_scan(first: &[u8], second: &[u8]) -> (Option<String>, Option<String>) {
    let max_depth = crate::limits::Limits::default().max_depth;
    let mut shape = DeltaShape::default();
    shape.scan(first, &mut RawEvent::default(), max_depth);
    let mut read = RawEvent::default();
    let read = shape.read(second, &mut read).then(|| format!("{read:?}"));
    let mut scanned = RawEvent::default();
    let scanned = scanned
        .scan_into(second, max_depth)
        .then(|| format!("{scanned:?}"));
    (read, scanned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The event `data` as `scan_into` reads it (its `Debug` form), or `None`.
    fn scanned(data: &str) -> Option<String> {
        let mut raw = RawEvent::default();
        raw.scan_into(data.as_bytes(), 64)
            .then(|| format!("{raw:?}"))
    }

    /// A layout learned from `first` (which must be read by `scan_into`).
    fn learned(first: &str) -> DeltaShape {
        let mut shape = DeltaShape::default();
        scan_and_learn(&mut shape, first);
        shape
    }

    /// As the assembler does when the layout declines: the scan, which may teach the layout.
    fn scan_and_learn(shape: &mut DeltaShape, data: &str) {
        let mut raw = RawEvent::default();
        assert!(shape.scan(data.as_bytes(), &mut raw, 64), "{data}");
    }

    /// `data` as the layout reads it (its `Debug` form), or `None`.
    fn read(shape: &mut DeltaShape, data: &str) -> Option<String> {
        let mut raw = RawEvent::default();
        shape
            .read(data.as_bytes(), &mut raw)
            .then(|| format!("{raw:?}"))
    }

    const CORPUS: &str = r#"{"sequence_number":3,"object":"content","type":"text","index":0,"delta":true,"msg_id":"msg_000000","status":"in_progress","text":"arrive"}"#;
    const AGENTSCOPE: &str = r#"{"sequence_number":2,"object":"content","status":"in_progress","error":null,"type":"text","index":0,"delta":true,"msg_id":"msg_1ad6","text":"Echo: "}"#;

    #[test]
    fn a_learned_layout_reads_the_next_deltas_as_the_scan_does() {
        for first in [CORPUS, AGENTSCOPE] {
            let mut shape = learned(first);
            assert_eq!(shape.slots.len(), 4, "{first}");
            let next = first
                .replace(":3,", ":41,")
                .replace(":2,", ":41,")
                .replace(r#""index":0"#, r#""index":7"#)
                .replace("msg_000000", r"m\u00e9 2")
                .replace("msg_1ad6", "東京")
                .replace("arrive", r#" \"quoted\"\n東京"#)
                .replace("Echo: ", "");
            let got = read(&mut shape, &next);
            assert!(got.is_some(), "{next}");
            assert_eq!(got, scanned(&next), "{next}");
            assert_eq!(read(&mut shape, first), scanned(first));
            assert_eq!(shape.hits, 2);
        }
    }

    #[test]
    fn anything_else_is_declined() {
        let mut shape = learned(CORPUS);
        for other in [
            // Another value where the literal text has one, another order, other whitespace.
            CORPUS.replace("in_progress", "completed"),
            CORPUS.replace(r#""delta":true"#, r#""delta":false"#),
            CORPUS.replace(r#""type":"text""#, r#""type":"data""#),
            CORPUS.replace(r#""index":0,"delta":true"#, r#""delta":true,"index":0"#),
            CORPUS.replace(r#","text""#, r#", "text""#),
            format!("{CORPUS} "),
            // Values of other kinds where the layout reads a value.
            CORPUS.replace(":3,", ":null,"),
            CORPUS.replace(":3,", ":-3,"),
            CORPUS.replace(":3,", ":3.5,"),
            CORPUS.replace(":3,", ":03,"),
            CORPUS.replace(":3,", ":12345678901234567890,"),
            CORPUS.replace(r#""index":0"#, r#""index":4294967296"#),
            CORPUS.replace(r#""msg_000000""#, "7"),
            CORPUS.replace(r#""arrive""#, "null"),
            // Malformed: an unterminated text, a bad escape, a control character, a cut event.
            CORPUS.replace(r#"arrive"}"#, r#"arrive}"#),
            CORPUS.replace("arrive", r"\x"),
            CORPUS.replace("arrive", "a\u{1}b"),
            CORPUS[..CORPUS.len() - 1].to_owned(),
            // Another member.
            CORPUS.replace(r#""index":0"#, r#""index":0,"beam":1"#),
        ] {
            assert_eq!(read(&mut shape, &other), None, "{other}");
        }
        assert_eq!(shape.hits, 0);
    }

    #[test]
    fn only_text_deltas_read_by_the_scan_are_learned() {
        for event in [
            CORPUS.replace(r#""delta":true"#, r#""delta":false"#),
            CORPUS.replace(r#""object":"content""#, r#""object":"message""#),
            CORPUS.replace(r#""type":"text""#, r#""type":"data""#),
            CORPUS.replace("in_progress", "thinking"),
            CORPUS.replace(r#""index":0"#, r#""index":0,"error":{"code":"E"}"#),
            CORPUS.replace(r#""index":0"#, r#""index":0,"beam":null"#),
        ] {
            assert!(learned(&event).literal.is_empty(), "{event}");
        }
        // A member given twice: the scan keeps the last value, and so does the layout, whose
        // literal text has the first.
        let event = CORPUS.replace(r#""text":"arrive""#, r#""text":"a","text":"b""#);
        let mut shape = learned(&event);
        let next = event.replace(r#""b""#, r#""c""#);
        assert!(read(&mut shape, &next).is_some());
        assert_eq!(read(&mut shape, &next), scanned(&next));
        assert_eq!(read(&mut shape, &next.replace(r#""a""#, r#""x""#)), None);
        let next = event.replace(r#""b""#, "null");
        assert_eq!(read(&mut shape, &next), None);
        // Without `type`, and with `null`s where values would vary: those are literal.
        let event = r#"{"object":"content","delta":true,"index":null,"msg_id":"m","text":null}"#;
        let mut shape = learned(event);
        assert_eq!(shape.slots, [(event.find(r#""m""#).unwrap(), Slot::MsgId)]);
        let next = event.replace(r#""m""#, r#""n""#);
        assert_eq!(read(&mut shape, &next), scanned(&next));
        assert!(read(&mut shape, &next).is_some());
    }

    #[test]
    fn learning_stops_while_it_does_not_pay() {
        let orders = [
            CORPUS.to_owned(),
            CORPUS.replace(r#""index":0,"delta":true"#, r#""delta":true,"index":0"#),
        ];
        let mut shape = DeltaShape::default();
        for i in 0..100 {
            let event = &orders[i % 2];
            let mut raw = RawEvent::default();
            if !shape.read(event.as_bytes(), &mut raw) {
                scan_and_learn(&mut shape, event);
            }
        }
        // Four layouts learned (two of each order, one after the other), then none: the last one
        // (the second order) reads every second event of the 96 left.
        assert_eq!((shape.learned, shape.hits), (4, 48));
    }

    #[test]
    fn a_real_server_s_deltas_after_the_first_are_read_by_the_layout() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/fixtures/agentscope-runtime"
        );
        // The text deltas of each (the others are data and image deltas).
        for (name, deltas) in [
            ("process-raw.sse", 3),
            ("process-text.sse", 3),
            ("process-agentscope.sse", 5),
        ] {
            let bytes = std::fs::read(format!("{root}/{name}")).unwrap();
            let mut datas = Vec::new();
            crate::sse::SseDecoder::new().feed(&bytes, &mut |i| {
                if let crate::sse::SseItem::Event(e) = i {
                    datas.push(e.data.to_owned());
                }
            });
            // As the assembler does: the layout first, else the scan, which may teach it.
            let mut shape = DeltaShape::default();
            for data in &datas {
                let mut raw = RawEvent::default();
                if shape.read(data.as_bytes(), &mut raw) {
                    assert_eq!(Some(format!("{raw:?}")), scanned(data), "{name}: {data}");
                } else {
                    scan_and_learn(&mut shape, data);
                }
            }
            assert_eq!((shape.learned, shape.hits), (1, deltas - 1), "{name}");
        }
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,12}",
            prop::sample::select(vec!["", "a\"b", "\\", "\u{1f600}", "\u{0}", "é"])
                .prop_map(str::to_owned),
        ]
    }

    proptest! {
        /// A layout learned from one generated delta reads another generated delta (of the same
        /// members, possibly other values, order and spacing, with or without `"error":null`)
        /// exactly as the scan does, or declines it.
        #[test]
        fn wherever_the_layout_answers_it_agrees_with_the_scan(
            order in Just((0..9).collect::<Vec<usize>>()).prop_shuffle(),
            error in prop::collection::vec(any::<bool>(), 2),
            values in prop::collection::vec((0u64..1 << 40, 0u32..5, text(), text()), 2),
            spaced in prop::collection::vec(any::<bool>(), 2),
            nulls in prop::collection::vec(0u8..8, 2),
            swap in any::<bool>(),
            same_layout in any::<bool>(),
        ) {
            let event = |k: usize| {
                let (seq, index, msg_id, text) = &values[k];
                // Half the cases: the second event is laid out as the first (its values differ).
                let l = if same_layout { 0 } else { k };
                let null = |i: u8| nulls[l] == i;
                let members = [
                    format!(r#""sequence_number":{}"#, if null(0) { "null".into() } else { seq.to_string() }),
                    r#""object":"content""#.to_owned(),
                    r#""type":"text""#.to_owned(),
                    format!(r#""index":{}"#, if null(1) { "null".into() } else { index.to_string() }),
                    r#""delta":true"#.to_owned(),
                    format!(r#""msg_id":{}"#, if null(2) { "null".into() } else { serde_json::to_string(msg_id).unwrap() }),
                    format!(r#""status":{}"#, if null(3) { "null" } else { r#""in_progress""# }),
                    format!(r#""text":{}"#, if null(4) { "null".into() } else { serde_json::to_string(text).unwrap() }),
                    r#""error":null"#.to_owned(),
                ];
                let mut order = order.clone();
                if swap && !same_layout && k == 1 {
                    order.swap(0, 1);
                }
                let sep = if spaced[l] { ", " } else { "," };
                let body: Vec<_> = order
                    .iter()
                    .filter(|&&i| i < 8 || error[l])
                    .map(|&i| members[i].clone())
                    .collect();
                format!("{{{}}}", body.join(sep))
            };
            let (first, second) = (event(0), event(1));
            let mut shape = learned(&first);
            prop_assert!(!shape.literal.is_empty(), "{}", first);
            prop_assert_eq!(read(&mut shape, &first), scanned(&first));
            let got = read(&mut shape, &second);
            if same_layout {
                prop_assert!(got.is_some(), "{} then {}", first, second);
            }
            if let Some(got) = got {
                prop_assert_eq!(Some(got), scanned(&second), "{} then {}", first, second);
            }
        }
    }
}
