//! The Agent API event reader's layout of text deltas (`agent_api::shape`): a layout learned from
//! one event reads another exactly as the member scan (`RawEvent::scan_into`) does, or declines
//! it. The input is two events, split at its first `\n` (an SSE event's data has none).
#![no_main]

use agentwire_core::dialect::agent_api::layout_and_scan;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (first, second) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    };
    let (read, scanned) = layout_and_scan(first, second);
    if read.is_some() {
        assert_eq!(read, scanned, "{:?} after {:?}", String::from_utf8_lossy(second), String::from_utf8_lossy(first));
    }
});
