//! Chunk-split invariance for every fixture and every dialect: any split of the bytes gives the same
//! events, the same assembled result and the same updates.
//!
//! What the per-dialect tests already cover is not repeated: `tests/sse.rs` splits every shared
//! fixture in two at every index and byte by byte through the SSE decoder; `tests/agent_api.rs`
//! splits `process-raw.sse` in two at every index; `tests/acp.rs` does so for the ACP streams in
//! lenient mode. Here: every fixture (agentscope-runtime, acp-sdk, a2a-sdk, vercel-ai) in arbitrary
//! many-chunk splits (property tests) through the SSE decoder; the Agent API and ACP fixtures
//! through their assemblers at every two-way split, byte by byte and in arbitrary splits, in
//! lenient mode, strict mode, and with limits small enough to be hit (the cut points must not
//! depend on the chunks either); an AgentX stream the same way.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agentwire::dialect::acp::{AcpOptions, AcpStream};
use agentwire::dialect::agent_api::{AgentStream, AssemblerOptions};
use agentwire::dialect::agentx::{self, AgentxStream, MessageBuilder, Part, Role};
use agentwire::limits::Limits;
use agentwire::sse::{SseDecoder, SseItem};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every `.sse` file under `shared/fixtures`, by name.
fn sse_fixtures() -> Vec<(String, Vec<u8>)> {
    let root = common::shared_dir().join("fixtures");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root).expect("shared fixtures") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "sse") {
                let name = format!(
                    "{}/{}",
                    dir.file_name().unwrap().to_string_lossy(),
                    path.file_name().unwrap().to_string_lossy()
                );
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "found {} fixtures", out.len());
    out
}

/// `bytes` cut at `points` (sorted, deduplicated, clamped).
fn split<'a>(bytes: &'a [u8], points: &[usize]) -> Vec<&'a [u8]> {
    let mut points: Vec<usize> = points.iter().map(|p| p % (bytes.len() + 1)).collect();
    points.sort_unstable();
    points.dedup();
    let mut out = Vec::new();
    let mut at = 0;
    for p in points {
        out.push(&bytes[at..p]);
        at = p;
    }
    out.push(&bytes[at..]);
    out
}

fn sse_items(chunks: &[&[u8]]) -> Vec<String> {
    let mut d = SseDecoder::new();
    let mut out = Vec::new();
    let mut sink = |i: SseItem<'_>| {
        out.push(match i {
            SseItem::Event(e) => format!("{:?} {}", e.to_owned(), e.has_id),
            other => format!("{other:?}"),
        })
    };
    for c in chunks {
        d.feed(c, &mut sink);
    }
    d.finish(&mut sink);
    out
}

/// A dialect's stream: bytes in, the result and updates out, as JSON.
type Run = fn(&str, &[&[u8]]) -> (Value, Vec<Value>);

fn modes() -> [&'static str; 3] {
    ["lenient", "strict", "limits"]
}

fn tiny() -> Limits {
    Limits {
        max_message_size: 120,
        max_parts: 3,
        max_part_size: 40,
        max_depth: 6,
        max_stream_bytes: Some(5_000),
    }
}

fn json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

fn agent_api(mode: &str, chunks: &[&[u8]]) -> (Value, Vec<Value>) {
    let mut s = AgentStream::new(AssemblerOptions {
        strict: mode == "strict",
        limits: if mode == "limits" {
            tiny()
        } else {
            Limits::default()
        },
        ..AssemblerOptions::default()
    });
    let mut updates = Vec::new();
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates().iter().map(json));
    }
    s.finish();
    updates.extend(s.drain_updates().iter().map(json));
    (json(s.response()), updates)
}

fn acp(mode: &str, chunks: &[&[u8]]) -> (Value, Vec<Value>) {
    let mut s = AcpStream::new(AcpOptions {
        strict: mode == "strict",
        limits: if mode == "limits" {
            tiny()
        } else {
            Limits::default()
        },
        ..AcpOptions::default()
    });
    let mut updates = Vec::new();
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates().iter().map(json));
    }
    s.finish();
    updates.extend(s.drain_updates().iter().map(json));
    (json(s.run()), updates)
}

fn agentx(mode: &str, chunks: &[&[u8]]) -> (Value, Vec<Value>) {
    let mut s = AgentxStream::new(agentx::AssemblerOptions {
        strict: mode == "strict",
        limits: if mode == "limits" {
            tiny()
        } else {
            Limits::default()
        },
        ..agentx::AssemblerOptions::default()
    });
    let mut updates = Vec::new();
    for c in chunks {
        s.feed(c);
        updates.extend(s.drain_updates().iter().map(json));
    }
    s.finish();
    updates.extend(s.drain_updates().iter().map(json));
    (json(&s.messages()), updates)
}

fn agentx_stream() -> Vec<u8> {
    let mut reply = MessageBuilder::new(Role::Assistant);
    let args = json!({"path": "/hello.txt", "content": "Hello, world! é€😀"});
    let call = Part::tool_call("write_file", args.as_object().cloned().unwrap_or_default());
    let call_id = call.tool_call_id().unwrap_or_default().to_owned();
    let mut sse = reply.packet(vec![call]).to_sse();
    sse += &reply
        .tool_result(&call_id, json!({"status": "success"}))
        .to_sse();
    for piece in [
        "I have",
        " written",
        " the file ",
        "é€😀",
        " and more text to pass a limit.",
    ] {
        sse += &reply.text(piece).to_sse();
    }
    sse +=
        "data: {\"id\":\"msg_abc\",\"role\":\"user\",\"parts\":[{\"type\":\"hologram\"}]}\r\n\r\n";
    sse.into_bytes()
}

/// The dialects' streams under test: (name, bytes, run).
fn streams() -> Vec<(String, Vec<u8>, Run)> {
    let mut out: Vec<(String, Vec<u8>, Run)> = Vec::new();
    for f in [
        "agentscope-runtime/process-raw.sse",
        "agentscope-runtime/process-text.sse",
        "agentscope-runtime/process-agentscope.sse",
    ] {
        out.push((f.to_owned(), common::fixture(f), agent_api));
    }
    for f in [
        "acp-sdk/run-stream.sse",
        "acp-sdk/await-stream.sse",
        "acp-sdk/resume-stream.sse",
    ] {
        out.push((f.to_owned(), common::fixture(f), acp));
    }
    out.push(("agentx (builder)".to_owned(), agentx_stream(), agentx));
    out
}

/// Where to split a stream in two: every index of a short stream; in a longer one (the debug build
/// of the test suite must stay fast) every index within 8 bytes of a line break, where event and
/// line boundaries fall, and every 13th index elsewhere. The property tests below split anywhere.
fn split_points(bytes: &[u8]) -> Vec<usize> {
    if bytes.len() <= 3000 {
        return (0..=bytes.len()).collect();
    }
    (0..=bytes.len())
        .filter(|&i| {
            i % 13 == 0
                || bytes[i.saturating_sub(8)..(i + 8).min(bytes.len())]
                    .iter()
                    .any(|&b| b == b'\n' || b == b'\r')
        })
        .collect()
}

#[test]
fn every_dialect_fixture_at_every_two_way_split_and_byte_by_byte() {
    for (name, bytes, run) in streams() {
        for mode in modes() {
            if mode == "lenient" && (name.contains("process-raw") || name.contains("run-stream")) {
                continue; // tests/agent_api.rs and tests/acp.rs split these at every index
            }
            let whole = run(mode, &[&bytes]);
            let hits = ["process-raw", "process-agentscope", "run-stream", "agentx"];
            if mode == "limits" && hits.iter().any(|h| name.contains(h)) {
                assert!(
                    whole
                        .1
                        .iter()
                        .any(|u| u["type"] == "issue" && u["severity"] == "error"),
                    "{name}: the small limits are hit"
                );
            }
            let singles: Vec<&[u8]> = bytes.chunks(1).collect();
            assert_eq!(run(mode, &singles), whole, "{name} ({mode}): byte by byte");
            for i in split_points(&bytes) {
                let (a, b) = bytes.split_at(i);
                assert_eq!(run(mode, &[a, b]), whole, "{name} ({mode}): split at {i}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_fixture_decodes_the_same_in_any_chunks(points in prop::collection::vec(any::<usize>(), 0..24)) {
        for (name, bytes) in sse_fixtures() {
            let whole = sse_items(&[&bytes]);
            prop_assert_eq!(sse_items(&split(&bytes, &points)), whole, "{}", name);
        }
    }

    #[test]
    fn every_dialect_assembles_the_same_in_any_chunks(points in prop::collection::vec(any::<usize>(), 0..24)) {
        for (name, bytes, run) in streams() {
            for mode in modes() {
                let whole = run(mode, &[&bytes]);
                prop_assert_eq!(run(mode, &split(&bytes, &points)), whole, "{} ({})", &name, mode);
            }
        }
    }
}

#[test]
fn fuzz_regression_nothing_is_reported_after_strict_mode_ended_an_agentx_stream() {
    // Found by the `agentx` fuzz target: after strict mode had ended the stream, a cut event at the
    // end was reported (`incomplete-event`) only when its bytes came in the same chunk as the
    // violation, so the updates depended on the split.
    let bytes =
        b"data: {\"id\":\"msg_abc\",\"role\":\"assistant\",\"parts\":[]}\n\ndata: {\"role\"";
    let whole = agentx("strict", &[bytes]);
    let codes: Vec<&str> = whole
        .1
        .iter()
        .filter(|u| u["type"] == "issue")
        .filter_map(|u| u["code"].as_str())
        .collect();
    assert_eq!(codes, ["invalid-id"]);
    for i in 0..=bytes.len() {
        let (a, b) = bytes.split_at(i);
        assert_eq!(agentx("strict", &[a, b]), whole, "split at {i}");
    }
}
