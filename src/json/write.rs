//! Writing JSON text directly into a `String`, for the hot path of update delivery.

use std::fmt::Write as _;

/// Appends `s` to `out` as a JSON string literal (RFC 8259 §7: `"` and `\` escaped, control
/// characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`; everything else as is — the same text
/// serde_json writes).
pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    // The bytes to escape are exactly those the JSON scanner stops at: `"`, `\` and controls.
    while let Some((i, _)) = crate::json::scan::next_special(bytes, start) {
        let Some(&b) = bytes.get(i) else { break };
        // `i` is an ASCII byte, so both slices end on character boundaries.
        out.push_str(s.get(start..i).unwrap_or(""));
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        start = i + 1;
    }
    out.push_str(s.get(start..).unwrap_or(""));
    out.push('"');
}

/// Appends `n` in decimal (what `write!(out, "{n}")` writes, without the formatting machinery).
pub(crate) fn write_u32(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10]; // u32::MAX has 10 digits
    let mut len = 0;
    loop {
        if let Some(d) = digits.get_mut(len) {
            *d = b'0' + (n % 10) as u8;
        }
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in digits.iter().take(len).rev() {
        out.push(char::from(d));
    }
}

/// Appends a value serialized by serde_json to `out`, through `scratch` (reused between calls so
/// that no allocation happens per value). Writes `null` if serialization fails (it cannot for the
/// crate's own types, which have no non-string map keys).
pub(crate) fn write_value<T: serde::Serialize + ?Sized>(
    out: &mut String,
    scratch: &mut Vec<u8>,
    value: &T,
) {
    scratch.clear();
    match serde_json::to_writer(&mut *scratch, value) {
        Ok(()) => match std::str::from_utf8(scratch) {
            Ok(s) => out.push_str(s),
            Err(_) => out.push_str("null"),
        },
        Err(_) => out.push_str("null"),
    }
}

/// Appends a large value serialized by serde_json to `out`, written straight into `out`'s own
/// buffer: for the response at a stream's end, which [`write_value`] would hold twice while it is
/// copied (its scratch buffer, grown to the response's size and kept, and `out`). The same serde_json
/// writer as [`write_value`]'s (`&mut Vec<u8>`), so no serde code is compiled twice. The whole of
/// `out` is checked as UTF-8 afterwards (once per value), so [`write_value`] suits many small
/// values. Writes `null` if serialization fails (it cannot for the crate's own types).
pub(crate) fn write_large_value<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    let mut bytes = std::mem::take(out).into_bytes();
    let len = bytes.len();
    if serde_json::to_writer(&mut bytes, value).is_err() {
        bytes.truncate(len);
        bytes.extend_from_slice(b"null");
    }
    *out = String::from_utf8(bytes).unwrap_or_else(|e| {
        // Unreachable: serde_json writes UTF-8, and the text before `len` was a `String`.
        let mut bytes = e.into_bytes();
        bytes.truncate(len);
        bytes.extend_from_slice(b"null");
        String::from_utf8(bytes).unwrap_or_default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_are_written_as_serde_json_writes_them(s in "\\PC*|[\u{0}-\u{1f}\"\\\\a-z]*") {
            let mut out = String::new();
            write_str(&mut out, &s);
            prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }

        #[test]
        fn integers_are_written_as_display_writes_them(n in any::<u32>()) {
            let mut out = String::from("x");
            write_u32(&mut out, n);
            prop_assert_eq!(out, format!("x{n}"));
        }

        #[test]
        fn large_values_are_appended_as_serde_json_writes_them(
            before in "\\PC*", v in proptest::collection::vec(("\\PC*", any::<u32>()), 0..8)
        ) {
            let mut out = before.clone();
            write_large_value(&mut out, &v);
            prop_assert_eq!(out, before + &serde_json::to_string(&v).unwrap());
        }
    }
}
