//! The Agent API stream decoder and assembler: arbitrary bytes in arbitrary chunks, in lenient and
//! strict mode, with default and tiny limits, retaining or releasing finished messages, with and
//! without a reconnect, never panic; the same bytes split differently give the same response and
//! updates; the JSON drain and the split drain (read back) agree with the typed one, and so does
//! the response in split form; and `AgentStream`, whose event reader checks the UTF-8 of each
//! event's data as it reads it, agrees with an `Assembler` fed the SSE decoder's decoded events.
#![no_main]

use agentwire::dialect::agent_api::{
    AgentResponse, AgentStream, Assembler, AssemblerOptions, SplitUpdates, StreamUpdate,
};
use agentwire::sse::{SseDecoder, SseItem};
use agentwire::limits::Limits;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fn options(flags: u8) -> AssemblerOptions {
    let mut o = AssemblerOptions {
        strict: flags & 1 != 0,
        coalesce: flags & 2 != 0,
        updates: flags & 8 == 0,
        retain_messages: flags & 128 == 0,
        ..AssemblerOptions::default()
    };
    if flags & 4 != 0 {
        o.limits = Limits {
            max_message_size: 64,
            max_parts: 3,
            max_part_size: 24,
            max_depth: 4,
            max_stream_bytes: (flags & 32 != 0).then_some(700),
        };
        o.sse.max_event_size = 512;
    }
    o
}

/// What a run produced: the response and the updates (typed, or as JSON values).
#[derive(Debug, PartialEq)]
struct Outcome {
    response: AgentResponse,
    updates: Vec<StreamUpdate>,
    json: Vec<serde_json::Value>,
}

/// How a run takes the updates.
#[derive(Clone, Copy, PartialEq)]
enum Drain {
    Typed,
    /// `drain_updates_json`, into `Outcome::json`.
    Json,
    /// `drain_updates_split` read back, into `Outcome::json`.
    Split,
}

/// Feeds `chunks` (with a reconnect before chunk `reconnect_at`, if any), draining the updates
/// after every chunk as `how` says.
fn run(o: AssemblerOptions, chunks: &[&[u8]], reconnect_at: Option<usize>, how: Drain) -> Outcome {
    let mut s = AgentStream::new(o);
    let mut out = Outcome {
        response: AgentResponse::default(),
        updates: Vec::new(),
        json: Vec::new(),
    };
    let mut split = SplitUpdates::default();
    let mut drain = |s: &mut AgentStream, out: &mut Outcome| match how {
        Drain::Json => {
            let mut text = String::new();
            s.assembler_mut().drain_updates_json(&mut text);
            let v: serde_json::Value = serde_json::from_str(&text).expect("drained JSON parses");
            out.json.extend(v.as_array().cloned().unwrap_or_default());
        }
        Drain::Split => {
            s.assembler_mut().drain_updates_split(&mut split);
            out.json
                .extend(split.updates_json().expect("the split form reads back"));
        }
        Drain::Typed => out.updates.extend(s.drain_updates()),
    };
    for (i, chunk) in chunks.iter().enumerate() {
        if reconnect_at == Some(i) {
            s.reconnect();
            let _ = s.last_event_id();
        }
        s.feed(chunk);
        drain(&mut s, &mut out);
    }
    s.finish();
    drain(&mut s, &mut out);
    out.response = s.response().clone();
    if how == Drain::Split {
        // The response in split form reads back as its JSON, and is left as it was.
        let mut split = SplitUpdates::default();
        s.assembler_mut().response_split(&mut split);
        let read = split
            .response_json()
            .expect("the response's split form reads back");
        // Compared through a reading of the response's JSON text (serde_json, with its exact
        // float reading, `float_roundtrip`: agentwire reads floats exactly too).
        let text = serde_json::to_string(s.response()).expect("response serializes");
        let whole: serde_json::Value = serde_json::from_str(&text).expect("response parses");
        assert_eq!(read, whole);
        assert_eq!(
            s.response(),
            &out.response,
            "response_split changed the response"
        );
    }
    out
}

/// The bytes decoded by the SSE decoder's `feed` (each event's data as a `str`, invalid UTF-8
/// replaced), the events pushed into an `Assembler`: what `AgentStream` does without the stream
/// byte limit (the caller skips that option).
fn decoded(o: AssemblerOptions, bytes: &[u8]) -> (AgentResponse, Vec<StreamUpdate>) {
    let mut a = Assembler::new(o);
    let mut sse = SseDecoder::with_options(o.sse);
    let on_item = |a: &mut Assembler, item: SseItem<'_>| match item {
        SseItem::Event(e) => a.push_sse_event(&e),
        SseItem::Retry(_) => {}
        SseItem::Error(e) => a.sse_issue(e),
    };
    sse.feed(bytes, &mut |item| on_item(&mut a, item));
    sse.finish(&mut |item| on_item(&mut a, item));
    a.finish();
    (a.response().clone(), a.drain_updates())
}

fuzz_target!(|data: &[u8]| {
    let (flags, rest) = common::split_first(data);
    let (seed, bytes) = common::split_first(rest);
    let o = options(flags);
    let chunks = common::chunks(seed, bytes);
    if flags & 16 != 0 {
        // A reconnect in the middle, the second connection starting from an earlier byte.
        let cut = usize::from(seed) % (bytes.len() + 1);
        let back = cut / 2;
        let (a, b) = (&bytes[..cut], &bytes[back..]);
        let how = if flags & 64 != 0 {
            Drain::Split
        } else {
            Drain::Typed
        };
        let _ = run(o, &[a, b], Some(1), how);
        return;
    }
    let whole = run(o, &[bytes], None, Drain::Typed);
    if o.limits.max_stream_bytes.is_none() {
        let (response, updates) = decoded(o, bytes);
        assert_eq!(whole.response, response, "AgentStream and the decoded events differ");
        assert_eq!(whole.updates, updates, "AgentStream and the decoded events differ");
    }
    if flags & 64 == 0 {
        let split = run(o, &chunks, None, Drain::Typed);
        assert_eq!(
            whole.response, split.response,
            "the response depends on the split"
        );
        if !o.coalesce {
            assert_eq!(
                whole.updates, split.updates,
                "the updates depend on the split"
            );
        }
    } else {
        // The JSON drain and the split drain say what the typed drain says, whole and in the
        // chunks of the seed.
        let json = run(o, &[bytes], None, Drain::Json);
        let typed = serde_json::to_string(&whole.updates).expect("updates serialize");
        let typed: serde_json::Value = serde_json::from_str(&typed).expect("updates parse");
        assert_eq!(
            serde_json::Value::Array(json.json),
            typed,
            "JSON and typed drains differ"
        );
        assert_eq!(json.response, whole.response);
        let split = run(o, &[bytes], None, Drain::Split);
        assert_eq!(
            serde_json::Value::Array(split.json),
            typed,
            "split and typed drains differ"
        );
        if !o.coalesce {
            let split = run(o, &chunks, None, Drain::Split);
            let typed = run(o, &chunks, None, Drain::Json);
            assert_eq!(
                split.json, typed.json,
                "split and JSON drains differ in chunks"
            );
        }
    }
});
