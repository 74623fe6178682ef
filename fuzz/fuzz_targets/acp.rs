//! The ACP stream decoder and assembler (text joined and not): arbitrary bytes in arbitrary chunks, in lenient and
//! strict mode, with default and tiny limits, with and without a reconnect, never panic; the same
//! bytes split differently give the same response and updates; the JSON drain agrees with the
//! typed one.
#![no_main]

use agentwire::dialect::acp::{
    AcpOptions as AssemblerOptions, AcpStream as AgentStream, Run as AgentResponse,
    Update as StreamUpdate,
};
use agentwire::limits::Limits;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fn options(flags: u8) -> AssemblerOptions {
    let mut o = AssemblerOptions {
        strict: flags & 1 != 0,
        coalesce: flags & 2 != 0,
        join_text: flags & 8 == 0,
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

/// Feeds `chunks` (with a reconnect before chunk `reconnect_at`, if any), draining the updates
/// after every chunk, typed or (`json`) through `drain_updates_json`.
fn run(o: AssemblerOptions, chunks: &[&[u8]], reconnect_at: Option<usize>, json: bool) -> Outcome {
    let mut s = AgentStream::new(o);
    let mut out = Outcome {
        response: AgentResponse::default(),
        updates: Vec::new(),
        json: Vec::new(),
    };
    let drain = |s: &mut AgentStream, out: &mut Outcome| {
        if json {
            let mut text = String::new();
            s.assembler_mut().drain_updates_json(&mut text);
            let v: serde_json::Value = serde_json::from_str(&text).expect("drained JSON parses");
            out.json.extend(v.as_array().cloned().unwrap_or_default());
        } else {
            out.updates.extend(s.drain_updates());
        }
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
    out.response = s.run().clone();
    for i in 0..out.response.output.len() {
        let _ = s.assembler().body(i);
    }
    out
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
        let _ = run(o, &[a, b], Some(1), flags & 64 != 0);
        return;
    }
    let whole = run(o, &[bytes], None, false);
    if flags & 64 == 0 {
        let split = run(o, &chunks, None, false);
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
        // The JSON drain says what the typed drain says.
        let json = run(o, &[bytes], None, true);
        let typed = serde_json::to_string(&whole.updates).expect("updates serialize");
        let typed: serde_json::Value = serde_json::from_str(&typed).expect("updates parse");
        assert_eq!(
            serde_json::Value::Array(json.json),
            typed,
            "JSON and typed drains differ"
        );
        assert_eq!(json.response, whole.response);
    }
});
