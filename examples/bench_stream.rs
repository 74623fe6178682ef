//! Native benchmark of decode + assemble on the bench corpus, stage by stage, to show where the time
//! of `AgentStreamDecoder` goes without the wasm boundary.
//!
//! The corpus is `../shared/bench/gen-corpus.mjs`'s (`scripts/bench.sh` writes it to
//! `target/bench/corpus.sse`), split into the same 512–16,383-byte chunks as the JavaScript bench
//! (`splitChunks` of `../shared/bench/anchors.mjs`).
//!
//! ```sh
//! cargo run --release --example bench_stream -- target/bench/corpus.sse        # every stage, 7 runs
//! cargo run --release --example bench_stream -- target/bench/corpus.sse 20 final-only  # one stage
//! ```
//! One stage at a time is for profilers (`valgrind --tool=callgrind`, `perf record`). The release
//! profile is the wasm's (`opt-level = "z"`); `CARGO_PROFILE_RELEASE_OPT_LEVEL=3` compares.

use std::sync::OnceLock;
use std::time::Instant;

use agentwire::dialect::agent_api::{
    AgentEvent, AgentResponse, AgentStream, AssemblerOptions, SplitUpdates,
};
use agentwire::sse::{SseDecoder, SseItem};

/// `splitChunks` of anchors.mjs: `s = (s * 1103515245 + 12345) >>> 0` in JavaScript numbers (the
/// product is rounded to a double before the `>>> 0`), chunk length `512 + s % 16000`.
fn split_chunks(bytes: &[u8]) -> Vec<&[u8]> {
    let mut s: u32 = 12345;
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let p = f64::from(s) * 1_103_515_245.0 + 12345.0;
        s = (p % 4_294_967_296.0) as u32;
        let n = 512 + (s % 16000) as usize;
        let end = (i + n).min(bytes.len());
        out.push(&bytes[i..end]);
        i = end;
    }
    out
}

/// The SSE `data` of every event (for stages that start after SSE decoding).
fn event_data(chunks: &[&[u8]]) -> Vec<String> {
    let mut sse = SseDecoder::new();
    let mut out = Vec::new();
    for c in chunks {
        sse.feed(c, &mut |item| {
            if let SseItem::Event(e) = item {
                out.push(e.data.to_owned());
            }
        });
    }
    out
}

static RESPONSE: OnceLock<AgentResponse> = OnceLock::new();

/// One stage: runs over the chunks (or the events) and returns a checksum so nothing is optimized
/// away.
struct Stage {
    name: &'static str,
    what: &'static str,
    run: fn(&[&[u8]], &[String]) -> usize,
}

/// How a stage takes the updates after each chunk.
#[derive(Clone, Copy, PartialEq)]
enum Drain {
    /// Not at all (`updates: false`).
    None,
    /// `drain_updates_json`: one JSON text.
    Json,
    /// `drain_updates_split`: JSON and the text beside it (what the wasm decoder's `feed()` does).
    Split,
}

fn stream(chunks: &[&[u8]], options: AssemblerOptions, drain: Drain) -> usize {
    let mut stream = AgentStream::new(options);
    let mut json = String::new();
    let mut split = SplitUpdates::default();
    let mut n = 0;
    let mut take = |stream: &mut AgentStream| match drain {
        Drain::None => 0,
        Drain::Json => {
            json.clear();
            stream.assembler_mut().drain_updates_json(&mut json);
            json.len()
        }
        Drain::Split => {
            stream.assembler_mut().drain_updates_split(&mut split);
            split.json.len() + split.text.len() + split.table.len()
        }
    };
    for c in chunks {
        stream.feed(c);
        n += take(&mut stream);
    }
    stream.finish();
    n += take(&mut stream);
    n + stream.response().output.len()
}

const STAGES: &[Stage] = &[
    Stage {
        name: "sse",
        what: "SseDecoder::feed only (events counted)",
        run: |chunks, _| {
            let mut sse = SseDecoder::new();
            let mut n = 0;
            for c in chunks {
                sse.feed(c, &mut |item| {
                    if let SseItem::Event(e) = item {
                        n += e.data.len();
                    }
                });
            }
            n
        },
    },
    Stage {
        name: "json-skip",
        what: "serde_json parse of each event's data into IgnoredAny (the JSON reader alone)",
        run: |_, events| {
            events
                .iter()
                .filter(|d| serde_json::from_str::<serde::de::IgnoredAny>(d).is_ok())
                .count()
        },
    },
    Stage {
        name: "json-value",
        what: "serde_json parse of each event's data into serde_json::Value",
        run: |_, events| {
            events
                .iter()
                .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                .count()
        },
    },
    Stage {
        name: "event-parse",
        what: "AgentEvent::parse of each event's data (owned public events)",
        run: |_, events| {
            events
                .iter()
                .filter(|d| AgentEvent::parse(d).is_ok())
                .count()
        },
    },
    Stage {
        name: "assemble-events",
        what: "Assembler::push_data of each event's data, no updates (parse + assembly, no SSE)",
        run: |_, events| {
            let mut a = agentwire::dialect::agent_api::Assembler::new(AssemblerOptions {
                updates: false,
                ..AssemblerOptions::default()
            });
            for d in events {
                a.push_data(d);
            }
            a.response().output.len()
        },
    },
    Stage {
        name: "final-only",
        what: "AgentStream updates: false (SSE + parse + assembly)",
        run: |chunks, _| {
            let options = AssemblerOptions {
                updates: false,
                ..AssemblerOptions::default()
            };
            stream(chunks, options, Drain::None)
        },
    },
    Stage {
        name: "per-event",
        what: "AgentStream per-event updates, drained split each chunk (what feed() does)",
        run: |chunks, _| stream(chunks, AssemblerOptions::default(), Drain::Split),
    },
    Stage {
        name: "per-event-json",
        what: "AgentStream per-event updates, drained as one JSON text each chunk",
        run: |chunks, _| stream(chunks, AssemblerOptions::default(), Drain::Json),
    },
    Stage {
        name: "batch",
        what: "AgentStream batch updates, drained split each chunk",
        run: |chunks, _| {
            let options = AssemblerOptions {
                coalesce: true,
                ..AssemblerOptions::default()
            };
            stream(chunks, options, Drain::Split)
        },
    },
    Stage {
        name: "response-json",
        what: "serde_json::to_string of the assembled response (what response() serializes)",
        run: |chunks, _| {
            // The response is assembled once, by the first (unmeasured) run.
            let response = RESPONSE.get_or_init(|| {
                let mut stream = AgentStream::new(AssemblerOptions {
                    updates: false,
                    ..AssemblerOptions::default()
                });
                for c in chunks {
                    stream.feed(c);
                }
                stream.finish();
                stream.response().clone()
            });
            serde_json::to_string(response).map_or(0, |s| s.len())
        },
    },
];

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .map_or("target/bench/corpus.sse", String::as_str);
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(7).max(1);
    let only = args.get(3).map(String::as_str);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e} (run scripts/bench.sh once to write the corpus)");
            std::process::exit(2);
        }
    };
    let chunks = split_chunks(&bytes);
    let events = event_data(&chunks);
    println!(
        "corpus: {} bytes, {} events, {} chunks; {runs} runs per stage",
        bytes.len(),
        events.len(),
        chunks.len()
    );
    for stage in STAGES {
        if only.is_some_and(|o| o != stage.name) {
            continue;
        }
        let check = (stage.run)(&chunks, &events);
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            let c = (stage.run)(&chunks, &events);
            times.push(ms(t));
            assert_eq!(c, check, "{}: runs disagree", stage.name);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "{:<16} {:>8.1} ms {:>7.1} MB/s {:>6.0}k events/s  {}",
            stage.name,
            median,
            bytes.len() as f64 / 1e6 / (median / 1e3),
            events.len() as f64 / median,
            stage.what
        );
    }
}
