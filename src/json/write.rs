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

/// Appends a value serialized by serde_json to `out`, straight into the string (no buffer between:
/// a response of megabytes is not held twice). Writes `null` if serialization fails (it cannot for
/// the crate's own types, which have no non-string map keys).
pub(crate) fn write_value<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    let start = out.len();
    if serde_json::to_writer(StrWriter(out), value).is_err() {
        out.truncate(start);
        out.push_str("null");
    }
}

/// An `io::Write` that appends to a `String`, checking each piece as UTF-8 on its own. serde_json
/// writes whole characters in each call (string contents as slices of the `str` between the
/// ASCII bytes it escapes; numbers and punctuation as ASCII), so every piece is valid; one that
/// was not would be an error (and [`write_value`] would write `null`), never a broken string.
struct StrWriter<'a>(&'a mut String);

impl std::io::Write for StrWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match std::str::from_utf8(buf) {
            Ok(s) => {
                self.0.push_str(s);
                Ok(())
            }
            Err(_) => Err(std::io::ErrorKind::InvalidData.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A value serde_json cannot write (a map key that is not a string) leaves nothing of what
    /// was written before the error: `null` takes its place.
    #[test]
    fn a_value_that_fails_is_null_with_nothing_half_written() {
        let map = std::collections::BTreeMap::from([((1, 2), 3)]);
        let mut out = String::from("[");
        write_value(&mut out, &vec![map]);
        assert!(
            serde_json::to_string(&vec![std::collections::BTreeMap::from([((1, 2), 3)])]).is_err()
        );
        assert_eq!(out, "[null");
    }

    proptest! {
        #[test]
        fn strings_are_written_as_serde_json_writes_them(s in "\\PC*|[\u{0}-\u{1f}\"\\\\a-z]*") {
            let mut out = String::new();
            write_str(&mut out, &s);
            prop_assert_eq!(out, serde_json::to_string(&s).unwrap());
        }

        /// Any value (strings of any characters, escapes, numbers, nesting), written after text
        /// already in the string, is serde_json's text for it, appended.
        #[test]
        fn values_are_written_as_serde_json_writes_them(
            value in crate::json::tests::value(),
            s in "\\PC*|[\u{0}-\u{1f}\"\\\\a-zé€😀]*",
        ) {
            let mut out = String::from("[1,");
            write_value(&mut out, &value);
            out.push(',');
            write_value(&mut out, &s);
            let expected = format!(
                "[1,{},{}",
                serde_json::to_string(&value).unwrap(),
                serde_json::to_string(&s).unwrap()
            );
            prop_assert_eq!(out, expected);
        }

        #[test]
        fn integers_are_written_as_display_writes_them(n in any::<u32>()) {
            let mut out = String::from("x");
            write_u32(&mut out, n);
            prop_assert_eq!(out, format!("x{n}"));
        }
    }
}
