//! Pattern compile and match: any pattern text (glob or content type) compiles or fails with an
//! error, never a panic, and matching any input terminates; a literal pattern matches itself.
#![no_main]

use agentwire::pattern::Pattern;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (flags, rest) = common::split_first(data);
    let text = String::from_utf8_lossy(rest);
    // The pattern and the inputs are separated by NUL bytes.
    let mut pieces = text.split('\0');
    let pattern = pieces.next().unwrap_or("");
    let compiled = if flags & 1 == 0 {
        Pattern::new(pattern)
    } else {
        Pattern::content_type(pattern)
    };
    match compiled {
        Ok(p) => {
            assert_eq!(p.as_str(), pattern);
            for input in pieces {
                let _ = p.is_match(input);
            }
            if p.is_literal() && !p.is_content_type() && !pattern.contains('\\') {
                assert!(p.is_match(pattern), "a literal pattern matches itself");
            }
        }
        Err(e) => {
            let _ = (e.pattern(), e.position(), e.to_string());
        }
    }
});
