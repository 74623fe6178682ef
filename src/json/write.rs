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
/// crate's own types, which have no non-string map keys). For the updates of the streaming path:
/// a large value is written by [`write_large_value`].
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

/// Appends a value serialized by serde_json to `out` as [`write_value`] does, but straight into
/// the string, with no buffer between: a response of megabytes (`response()`, the `done` update)
/// is then not held twice, nor left behind in a buffer as large as itself. The pieces serde_json
/// writes go through a 512-byte buffer on the stack, checked as UTF-8 and appended a buffer at a
/// time. By callgrind (docs/performance-log.md, stop 48), the bench's stream then costs 0.3% more
/// instructions per event than through `write_value` (its `done` update writes the whole
/// response), where checking and appending each piece on its own had cost 3.5%, and writing every
/// update so 4.7%: small updates keep `write_value`.
pub(crate) fn write_large_value<T: serde::Serialize + ?Sized>(out: &mut String, value: &T) {
    let start = out.len();
    let mut writer = StrWriter {
        out: &mut *out,
        buf: [0; StrWriter::BUF],
        len: 0,
    };
    let written = serde_json::to_writer(&mut writer, value).is_ok() && writer.drain().is_ok();
    if !written {
        out.truncate(start);
        out.push_str("null");
    }
}

/// An `io::Write` that appends to a `String` through a small buffer of whole pieces, checked as
/// UTF-8 a buffer at a time. serde_json writes whole characters in each call (string contents as
/// slices of the `str` between the ASCII bytes it escapes; numbers and punctuation as ASCII), so
/// the buffer always ends on a character boundary; bytes that were not UTF-8 would be an error
/// (and [`write_large_value`] would write `null`), never a broken string. The buffer keeps
/// serde_json's many small writes (a quote, a colon, a name) from each paying for a check and an
/// append.
struct StrWriter<'a> {
    out: &'a mut String,
    buf: [u8; StrWriter::BUF],
    len: usize,
}

impl StrWriter<'_> {
    const BUF: usize = 512;

    /// Appends the buffered pieces to the string.
    fn drain(&mut self) -> std::io::Result<()> {
        let pieces = self.buf.get(..self.len).unwrap_or_default();
        self.len = 0;
        push_utf8(self.out, pieces)
    }
}

fn push_utf8(out: &mut String, bytes: &[u8]) -> std::io::Result<()> {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            out.push_str(s);
            Ok(())
        }
        Err(_) => Err(std::io::ErrorKind::InvalidData.into()),
    }
}

impl std::io::Write for StrWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, piece: &[u8]) -> std::io::Result<()> {
        if let Some(room) = self.buf.get_mut(self.len..self.len + piece.len()) {
            room.copy_from_slice(piece);
            self.len += piece.len();
            return Ok(());
        }
        self.drain()?;
        match self.buf.get_mut(..piece.len()) {
            Some(room) => {
                room.copy_from_slice(piece);
                self.len = piece.len();
                Ok(())
            }
            None => push_utf8(self.out, piece),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.drain()
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
        write_large_value(&mut out, &vec![map]);
        assert!(
            serde_json::to_string(&vec![std::collections::BTreeMap::from([((1, 2), 3)])]).is_err()
        );
        assert_eq!(out, "[null");
    }

    /// Pieces longer than the writer's buffer, and pieces that fill it exactly, after others.
    #[test]
    fn long_pieces_are_written_whole() {
        for n in [0, 1, 170, 171, 509, 510, 511, 512, 513, 2000] {
            let value =
                serde_json::json!(["x".repeat(n), "é€😀".repeat(n), {"k": "\u{1}".repeat(n)}]);
            let mut out = String::from("[");
            write_large_value(&mut out, &value);
            assert_eq!(
                out,
                format!("[{}", serde_json::to_string(&value).unwrap()),
                "{n}"
            );
        }
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
            write_large_value(&mut out, &value);
            out.push(',');
            write_value(&mut out, &mut Vec::new(), &s);
            out.push(',');
            write_large_value(&mut out, &s);
            let s = serde_json::to_string(&s).unwrap();
            let expected = format!("[1,{},{s},{s}", serde_json::to_string(&value).unwrap());
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
