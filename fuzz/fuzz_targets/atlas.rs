//! Atlas `from_json`, lenient and strict: any text is a message or an error, never a panic; a
//! message read writes back to JSON that reads back to the same message, and its body view
//! converts back to it.
#![no_main]

use agentwire::dialect::atlas::{ReadOptions, StructuredMessage};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for options in [ReadOptions::LENIENT, ReadOptions::STRICT] {
        if let Ok(m) = StructuredMessage::from_json_with(text, &options) {
            let again = StructuredMessage::from_json_with(&m.to_json(), &options)
                .expect("a message's own JSON reads back");
            assert_eq!(again, m, "JSON round trip");
            let _ = StructuredMessage::from_body(&m.to_body());
        }
    }
});
