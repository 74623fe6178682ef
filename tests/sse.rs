//! SSE decoder fixtures: every pitfall of WHATWG HTML §9.2.6, each fed whole, byte by byte and split at
//! every byte index.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::sse::{SseDecoder, SseError, SseItem, SseItemBytes, SseOptions};
use agentwire::ErrorCode;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Event(String, String, String),
    Retry(u64),
    Error(SseError),
}

fn own(item: SseItem<'_>) -> Item {
    match item {
        SseItem::Event(e) => Item::Event(e.event.into(), e.data.into(), e.id.into()),
        SseItem::Retry(ms) => Item::Retry(ms),
        SseItem::Error(e) => Item::Error(e),
    }
}

/// The items of `chunks`; `feed_bytes` and `finish_bytes` (each event's data decoded afterwards)
/// give the same.
fn decode_chunks(chunks: &[&[u8]], options: SseOptions) -> Vec<Item> {
    let mut decoder = SseDecoder::with_options(options);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut |i| out.push(own(i)));
    }
    decoder.finish(&mut |i| out.push(own(i)));
    let mut decoder = SseDecoder::with_options(options);
    let mut raw = Vec::new();
    let mut own_bytes = |item: SseItemBytes<'_>| match item {
        SseItemBytes::Event(e) => e.decoded(|e| raw.push(own(SseItem::Event(e)))),
        SseItemBytes::Retry(ms) => raw.push(Item::Retry(ms)),
        SseItemBytes::Error(e) => raw.push(Item::Error(e)),
    };
    for chunk in chunks {
        decoder.feed_bytes(chunk, &mut own_bytes);
    }
    decoder.finish_bytes(&mut own_bytes);
    assert_eq!(raw, out, "feed_bytes and feed differ");
    out
}

/// Decodes `bytes` whole, byte by byte, and split in two at every index and in three at every pair of
/// indices (for short inputs); asserts all agree and returns the items.
fn decode(bytes: &[u8]) -> Vec<Item> {
    decode_with(bytes, SseOptions::default())
}

fn decode_with(bytes: &[u8], options: SseOptions) -> Vec<Item> {
    let whole = decode_chunks(&[bytes], options);
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode_chunks(&singles, options), whole, "byte by byte");
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        assert_eq!(decode_chunks(&[a, b], options), whole, "split at {i}");
        if bytes.len() <= 64 {
            for j in i..=bytes.len() {
                let (b1, c) = b.split_at(j - i);
                assert_eq!(
                    decode_chunks(&[a, b1, c], options),
                    whole,
                    "split at {i}, {j}"
                );
            }
        }
    }
    whole
}

fn ev(event: &str, data: &str, id: &str) -> Item {
    Item::Event(event.into(), data.into(), id.into())
}

#[test]
fn lf_crlf_and_bare_cr_line_endings_are_equivalent() {
    let expected = vec![ev("message", "a", ""), ev("message", "b", "")];
    assert_eq!(decode(b"data: a\n\ndata: b\n\n"), expected);
    assert_eq!(decode(b"data: a\r\n\r\ndata: b\r\n\r\n"), expected);
    assert_eq!(decode(b"data: a\r\rdata: b\r\r"), expected);
    assert_eq!(decode(b"data: a\r\n\rdata: b\n\r\n"), expected);
}

/// An event of one `data` line whose blank line is in the same chunk is dispatched from the chunk's
/// bytes, not copied into the data buffer first; every split of the stream into two chunks gives
/// the same events, whichever line ending ends the blank line.
#[test]
fn one_line_events_are_the_same_at_every_split() {
    let bytes: &[u8] =
        b"event: e\nid: 7\ndata: a\r\rdata:\n\ndata: b\r\n\r\ndata: c\r\r\ndata: d\n\r\n: x\ndata: e1\ndata: e2\n\n";
    let expected = vec![
        ev("e", "a", "7"),
        ev("message", "", "7"),
        ev("message", "b", "7"),
        ev("message", "c", "7"),
        ev("message", "d", "7"),
        ev("message", "e1\ne2", "7"),
    ];
    assert_eq!(decode(bytes), expected);
    for at in 0..=bytes.len() {
        let (a, b) = bytes.split_at(at);
        assert_eq!(
            decode_chunks(&[a, b], SseOptions::default()),
            expected,
            "split at {at}"
        );
    }
}

#[test]
fn cr_at_chunk_end_then_lf_at_next_chunk_start_is_one_terminator() {
    let got = decode_chunks(
        &[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"],
        SseOptions::default(),
    );
    assert_eq!(got, vec![ev("message", "a\nb", "")]);
}

#[test]
fn crlf_event_is_dispatched_as_soon_as_its_blank_line_arrives() {
    let mut decoder = SseDecoder::new();
    let mut got = Vec::new();
    decoder.feed(b"data: a\r\n\r\n", &mut |i| got.push(own(i)));
    assert_eq!(
        got,
        vec![ev("message", "a", "")],
        "not held until the stream ends"
    );
    let mut got = Vec::new();
    decoder.feed(b"data: b\r\r", &mut |i| got.push(own(i)));
    assert_eq!(got, vec![ev("message", "b", "")], "bare CR dispatches too");
}

/// Found by fuzzing (the `sse` target): a CR among the first bytes, held while the decoder looks for
/// a byte order mark, was forgotten, so the LF starting the next chunk became a blank line (which
/// here reset the event's size: a retry field got through that the limit refuses).
#[test]
fn cr_among_the_first_bytes_then_lf_in_the_next_chunk_is_one_terminator() {
    let options = SseOptions { max_event_size: 16 };
    let expected = vec![
        Item::Retry(1),
        Item::Error(SseError::EventTooLarge { limit: 16 }),
        Item::Error(SseError::IncompleteEvent {
            event: String::new(),
            data: String::new(),
            truncated: true,
        }),
    ];
    let bytes: &[u8] = b"x\r\nretry: 1\nretry: 2\n";
    assert_eq!(decode_with(bytes, options), expected);
    assert_eq!(
        decode_chunks(&[&bytes[..2], &bytes[2..]], options),
        expected
    );
}

#[test]
fn data_with_and_without_the_space() {
    assert_eq!(
        decode(b"data:a\n\ndata: b\n\ndata:  c\n\n"),
        vec![
            ev("message", "a", ""),
            ev("message", "b", ""),
            ev("message", " c", "")
        ]
    );
}

#[test]
fn multiple_data_lines_join_with_lf_and_empty_data_lines_count() {
    assert_eq!(
        decode(b"data: one\ndata\ndata: two\ndata:\n\n"),
        vec![ev("message", "one\n\ntwo\n", "")]
    );
}

#[test]
fn utf8_split_across_chunks() {
    let text = "data: 東京 café ✓ 🎉\n\n".as_bytes();
    assert_eq!(decode(text), vec![ev("message", "東京 café ✓ 🎉", "")]);
}

#[test]
fn invalid_utf8_becomes_replacement_and_later_events_survive() {
    let got = decode(b"data: a\xFFb\xE2\x82\n\ndata: \xF0\x9F\x8E\x89ok\n\n");
    assert_eq!(
        got,
        vec![
            ev("message", "a\u{FFFD}b\u{FFFD}", ""),
            ev("message", "🎉ok", "")
        ]
    );
    // A truncated multi-byte sequence right before the line break does not swallow the break.
    assert_eq!(
        decode(b"data: x\xE6\x9D\n\ndata: y\n\n"),
        vec![ev("message", "x\u{FFFD}", ""), ev("message", "y", "")]
    );
}

#[test]
fn retry_takes_ascii_digits_only() {
    assert_eq!(
        decode(b"retry: 1500\nretry: +42\nretry: 50x\nretry:\nretry: -1\nretry: 7\n\n"),
        vec![Item::Retry(1500), Item::Retry(7)]
    );
    let mut decoder = SseDecoder::new();
    decoder.feed(b"retry: 99999999999999999999999\n", &mut |_| {});
    assert_eq!(decoder.retry(), Some(u64::MAX), "overflow saturates");
}

#[test]
fn id_persists_and_an_id_with_nul_is_ignored() {
    assert_eq!(
        decode(b"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n"),
        vec![
            ev("message", "a", "1"),
            ev("message", "b", "1"),
            ev("message", "c", "1"),
            ev("message", "d", ""),
        ]
    );
}

#[test]
fn id_without_data_still_sets_the_last_event_id() {
    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 42\n\n", &mut |_| {});
    assert_eq!(decoder.last_event_id(), "42");
}

#[test]
fn bom_is_stripped_only_at_stream_start() {
    assert_eq!(
        decode(b"\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\ndata: \xEF\xBB\xBFc\n\n"),
        // The second BOM makes the field name "\u{FEFF}data", an unknown field: ignored.
        vec![ev("message", "a", ""), ev("message", "\u{FEFF}c", "")]
    );
    assert_eq!(decode(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n"), vec![]);
    assert_eq!(
        decode(b"\xEFdata: a\n\n"),
        vec![],
        "a lone BOM prefix is content"
    );
    assert_eq!(decode(b"\xEF\xBBdata: a\n\n"), vec![]);
}

#[test]
fn comments_and_unknown_fields_are_ignored() {
    assert_eq!(
        decode(b": keep-alive\n:\ndata: a\nfoo: bar\nDATA: no\n: more\n\n"),
        vec![ev("message", "a", "")]
    );
}

#[test]
fn event_type_applies_to_one_event_and_no_data_means_no_dispatch() {
    assert_eq!(
        decode(b"event: ping\n\nevent: delta\ndata: x\n\ndata: y\n\nevent\ndata: z\n\n"),
        vec![
            ev("delta", "x", ""),
            ev("message", "y", ""),
            ev("message", "z", "")
        ]
    );
}

#[test]
fn field_without_colon_has_empty_value() {
    // The data buffer is "\n": not empty, so an event with empty data is dispatched.
    assert_eq!(decode(b"data\n\n"), vec![ev("message", "", "")]);
    assert_eq!(decode(b"data\ndata\n\n"), vec![ev("message", "\n", "")]);
}

#[test]
fn unterminated_event_is_not_dispatched_but_reported() {
    let got = decode(b"data: a\n\nevent: x\ndata: partial");
    assert_eq!(
        got,
        vec![
            ev("message", "a", ""),
            Item::Error(SseError::IncompleteEvent {
                event: "x".into(),
                data: "partial".into(),
                truncated: false
            })
        ]
    );
    assert_eq!(
        decode(b"data: a\n"),
        vec![Item::Error(SseError::IncompleteEvent {
            event: String::new(),
            data: "a".into(),
            truncated: false
        })]
    );
    // A trailing `id`/`retry` line without terminator takes no effect.
    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: a\n\nid: 9", &mut |_| {});
    decoder.finish(&mut |_| {});
    assert_eq!(decoder.last_event_id(), "");
    // An event of only an `id` field (terminated, but no blank line after it) is not dispatched,
    // and reported as the others are: `has_pending` said it was pending. A comment line and a
    // `retry` field leave nothing pending.
    let incomplete = Item::Error(SseError::IncompleteEvent {
        event: String::new(),
        data: String::new(),
        truncated: false,
    });
    assert_eq!(
        decode(b"data: a\nid: 1\n\nid: 2\n"),
        vec![ev("message", "a", "1"), incomplete.clone()]
    );
    assert_eq!(decode(b"id: 5\n"), vec![incomplete]);
    assert_eq!(decode(b": comment\nretry: 10\n"), vec![Item::Retry(10)]);
    let mut decoder = SseDecoder::new();
    decoder.feed(b"id: 1\ndata: a\n\nid: 1\n", &mut |_| {});
    assert!(!decoder.has_pending(), "the same id again changes nothing");
}

#[test]
fn event_over_the_limit_is_skipped_with_a_typed_error_and_decoding_continues() {
    let options = SseOptions { max_event_size: 12 };
    let got = decode_with(b"data: 12345\n\ndata: 123456789\n\ndata: ok\n\n", options);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0], ev("message", "12345", ""));
    match &got[1] {
        Item::Error(e @ SseError::EventTooLarge { limit: 12 }) => {
            assert_eq!(e.code(), "event-too-large")
        }
        other => panic!("expected event-too-large, got {other:?}"),
    }
    assert_eq!(got[2], ev("message", "ok", ""));
}

#[test]
fn data_lines_accumulating_past_the_limit_are_skipped() {
    let options = SseOptions { max_event_size: 10 };
    let got = decode_with(b"data: 1234\ndata: 5678\ndata: 9\n\ndata: ok\n\n", options);
    assert!(matches!(
        got[0],
        Item::Error(SseError::EventTooLarge { .. })
    ));
    assert_eq!(&got[1..], &[ev("message", "ok", "")]);
}

#[test]
fn a_never_terminated_line_is_bounded() {
    let options = SseOptions {
        max_event_size: 1024,
    };
    let mut decoder = SseDecoder::with_options(options);
    let mut errors = 0;
    let chunk = [b'x'; 4096];
    decoder.feed(b"data: ", &mut |_| {});
    for _ in 0..1000 {
        decoder.feed(&chunk, &mut |i| {
            if let SseItem::Error(SseError::EventTooLarge { .. }) = i {
                errors += 1
            }
        });
    }
    assert_eq!(errors, 1, "reported once");
    let mut last = Vec::new();
    decoder.feed(b"\n\ndata: after\n\n", &mut |i| last.push(own(i)));
    assert_eq!(last, vec![ev("message", "after", "")]);
}

#[test]
fn reset_keeps_last_event_id_and_retry_and_allows_a_new_bom() {
    let mut decoder = SseDecoder::new();
    decoder.feed(b"retry: 10\nid: 5\ndata: a\n\ndata: half", &mut |_| {});
    decoder.reset();
    assert_eq!(decoder.last_event_id(), "5");
    assert_eq!(decoder.retry(), Some(10));
    let mut got = Vec::new();
    decoder.feed(b"\xEF\xBB\xBFdata: b\n\n", &mut |i| got.push(own(i)));
    assert_eq!(got, vec![ev("message", "b", "5")]);
}

#[test]
fn shared_fixtures_decode_identically_at_every_split() {
    let root = common::shared_dir().join("fixtures");
    let mut count = 0;
    for dir in std::fs::read_dir(root).expect("shared fixtures") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "sse") {
                let bytes = std::fs::read(&path).unwrap();
                let items = decode(&bytes);
                assert!(
                    items.iter().any(|i| matches!(i, Item::Event(..))),
                    "{path:?} has events"
                );
                assert!(
                    !items.iter().any(|i| matches!(i, Item::Error(_))),
                    "{path:?} decodes cleanly"
                );
                count += 1;
            }
        }
    }
    assert!(count >= 10, "found {count} fixtures");
}
