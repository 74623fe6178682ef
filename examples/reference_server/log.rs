//! The events of each response, kept while it is generated and for a while after, so that a client
//! whose connection broke can resume with `Last-Event-ID` (`GET /process/resume/{response_id}`).
//! Generation runs independently of any connection: connections only read the log.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// How long a finished response's events stay available for resuming.
pub const KEEP: Duration = Duration::from_secs(120);

/// One response's events, in order: (sequence number, SSE text).
#[derive(Default)]
pub struct Log {
    inner: Mutex<Inner>,
    changed: Notify,
}

#[derive(Default)]
struct Inner {
    events: Vec<(u64, String)>,
    done: bool,
    finished_at: Option<Instant>,
}

impl Log {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends an event.
    pub fn push(&self, seq: u64, sse: String) {
        self.lock().events.push((seq, sse));
        self.changed.notify_waiters();
    }

    /// Marks the response complete.
    pub fn finish(&self) {
        let mut g = self.lock();
        g.done = true;
        g.finished_at = Some(Instant::now());
        drop(g);
        self.changed.notify_waiters();
    }

    /// Events from position `from`, and whether the log is complete; waits while there are none.
    pub async fn read_from(&self, from: usize) -> (Vec<(u64, String)>, bool) {
        loop {
            let notified = self.changed.notified();
            {
                let g = self.lock();
                if g.events.len() > from || g.done {
                    return (g.events[from.min(g.events.len())..].to_vec(), g.done);
                }
            }
            notified.await;
        }
    }

    /// The position of the first event after sequence number `seq`.
    pub fn position_after(&self, seq: u64) -> usize {
        self.lock()
            .events
            .iter()
            .take_while(|(s, _)| *s <= seq)
            .count()
    }

    fn expired(&self) -> bool {
        self.lock().finished_at.is_some_and(|t| t.elapsed() > KEEP)
    }
}

/// All responses' logs, by response id.
#[derive(Default)]
pub struct Logs(Mutex<HashMap<String, Arc<Log>>>);

impl Logs {
    /// A new log for `response_id` (dropping expired ones).
    pub fn create(&self, response_id: &str) -> Arc<Log> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.retain(|_, log| !log.expired());
        let log = Arc::new(Log::default());
        map.insert(response_id.to_owned(), Arc::clone(&log));
        log
    }

    /// The log of `response_id`.
    pub fn get(&self, response_id: &str) -> Option<Arc<Log>> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(response_id)
            .cloned()
    }
}
