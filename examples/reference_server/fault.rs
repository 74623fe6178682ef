//! Transport faults the reference server injects on request (`POST /process?fault=…`), so tests can
//! check that a client survives them with nothing lost:
//!
//! | fault | what the connection does |
//! |---|---|
//! | `close-after:N` | closes after N events (clean event boundary) |
//! | `close-mid-event:N` | sends the first half of event N, then closes |
//! | `stall:N:MS` | pauses MS milliseconds before event N |
//! | `garbage:N` | sends bytes that are not SSE (invalid UTF-8, a control byte, a broken JSON event) before event N |
//! | `invalid-utf8:N` | puts invalid UTF-8 bytes inside the text of the first text delta from event N |
//! | `huge-event:N` | sends a 20 MiB event before event N |
//! | `never-terminated:N` | sends event N without its terminating blank line, then nothing (the connection stays open for a minute) |
//!
//! Generation is not affected: the response's events are all in its log, so a client can resume.

use std::future::Future;
use std::time::Duration;

/// What the forwarder does next.
pub enum Outcome {
    /// Keep sending.
    Continue,
    /// Close the connection (the fault's doing).
    Close,
    /// The client closed the connection.
    ClientGone,
}

/// A fault to inject.
pub enum Fault {
    CloseAfter(usize),
    CloseMidEvent(usize),
    Stall {
        before: usize,
        ms: u64,
    },
    Garbage(usize),
    InvalidUtf8 {
        from: usize,
        done: std::sync::atomic::AtomicBool,
    },
    HugeEvent(usize),
    NeverTerminated(usize),
}

impl Fault {
    /// Parses `name:N[:MS]`.
    pub fn parse(spec: &str) -> Result<Fault, String> {
        let mut it = spec.split(':');
        let name = it.next().unwrap_or("");
        let mut num = || -> Result<u64, String> {
            it.next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("fault `{spec}`: expected a number after `{name}:`"))
        };
        Ok(match name {
            "close-after" => Fault::CloseAfter(num()? as usize),
            "close-mid-event" => Fault::CloseMidEvent(num()? as usize),
            "stall" => Fault::Stall {
                before: num()? as usize,
                ms: num()?,
            },
            "garbage" => Fault::Garbage(num()? as usize),
            "invalid-utf8" => Fault::InvalidUtf8 {
                from: num()? as usize,
                done: Default::default(),
            },
            "huge-event" => Fault::HugeEvent(num()? as usize),
            "never-terminated" => Fault::NeverTerminated(num()? as usize),
            _ => return Err(format!("unknown fault `{spec}`")),
        })
    }

    /// Sends event number `index` (0-based, SSE bytes) through `send`, with the fault applied.
    pub async fn apply<F, Fut>(&self, index: usize, mut event: Vec<u8>, send: &F) -> Outcome
    where
        F: Fn(Vec<u8>) -> Fut,
        Fut: Future<Output = bool>,
    {
        let gone = Outcome::ClientGone;
        match self {
            Fault::CloseAfter(n) if index >= *n => return Outcome::Close,
            Fault::CloseMidEvent(n) if index == *n => {
                event.truncate(event.len() / 2);
                let _ = send(event).await;
                return Outcome::Close;
            }
            Fault::CloseMidEvent(n) if index > *n => return Outcome::Close,
            Fault::Stall { before, ms } if index == *before => {
                tokio::time::sleep(Duration::from_millis(*ms)).await;
            }
            Fault::Garbage(n) if index == *n => {
                let garbage = b"\xff\xfe\x00garbage\x01\n:\xfe comment\ndata: {not json at all\n\n";
                if !send(garbage.to_vec()).await {
                    return gone;
                }
            }
            Fault::InvalidUtf8 { from, done } if index >= *from => {
                let marker = b"\"text\":\"";
                let seen = done.load(std::sync::atomic::Ordering::SeqCst);
                if !seen {
                    if let Some(at) = event.windows(marker.len()).position(|w| w == marker) {
                        let at = at + marker.len();
                        event.splice(at..at, [0xff, 0xfe, 0xc3]);
                        done.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            }
            Fault::HugeEvent(n) if index == *n => {
                let chunk = vec![b'x'; 64 * 1024];
                if !send(b"data: ".to_vec()).await {
                    return gone;
                }
                for _ in 0..320 {
                    if !send(chunk.clone()).await {
                        return gone;
                    }
                }
                if !send(b"\n\n".to_vec()).await {
                    return gone;
                }
            }
            Fault::NeverTerminated(n) if index == *n => {
                while event.ends_with(b"\n") {
                    event.pop();
                }
                if !send(event).await {
                    return gone;
                }
                tokio::time::sleep(Duration::from_secs(60)).await;
                return Outcome::Close;
            }
            _ => {}
        }
        if send(event).await {
            Outcome::Continue
        } else {
            gone
        }
    }
}
