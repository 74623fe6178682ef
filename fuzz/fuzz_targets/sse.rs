//! The SSE decoder: arbitrary bytes in arbitrary chunks never panic, and give the same items as
//! the whole input fed at once (split invariance).
#![no_main]

use agentwire::sse::{SseDecoder, SseItem, SseOptions};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

#[derive(Debug, PartialEq)]
enum Item {
    Event(String, String, String, bool),
    Retry(u64),
    Error(String),
}

fn decode(chunks: &[&[u8]], options: SseOptions) -> (Vec<Item>, String) {
    let mut decoder = SseDecoder::with_options(options);
    let mut items = Vec::new();
    let mut sink = |item: SseItem<'_>| {
        items.push(match item {
            SseItem::Event(e) => Item::Event(
                e.event.to_owned(),
                e.data.to_owned(),
                e.id.to_owned(),
                e.has_id,
            ),
            SseItem::Retry(ms) => Item::Retry(ms),
            SseItem::Error(e) => Item::Error(format!("{e:?}")),
        })
    };
    for chunk in chunks {
        decoder.feed(chunk, &mut sink);
    }
    decoder.finish(&mut sink);
    let id = decoder.last_event_id().to_owned();
    (items, id)
}

fuzz_target!(|data: &[u8]| {
    let (seed, bytes) = common::split_first(data);
    let options = SseOptions {
        max_event_size: if seed & 0x80 != 0 {
            32
        } else {
            SseOptions::DEFAULT_MAX_EVENT_SIZE
        },
    };
    let whole = decode(&[bytes], options);
    let split = decode(&common::chunks(seed >> 2, bytes), options);
    assert_eq!(
        whole, split,
        "the same bytes split differently gave different items"
    );
});
