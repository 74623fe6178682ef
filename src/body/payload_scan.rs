//! The byte-level loops of the payload validator (`agentwire::body::validate_payload`, in the
//! agentwire crate, src/body/payload.rs), kept in agentwire-core so that they are compiled at
//! opt-level 3: at `"z"` they made validating a 10 MB payload 3.4 times slower. Internal.

use serde_json::Value;

/// A place in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// 0-based byte offset.
    pub offset: usize,
}

/// Locations of increasing byte offsets, computed in one forward pass.
pub struct Locator<'a> {
    text: &'a str,
    at: Location,
}

impl<'a> Locator<'a> {
    /// A locator over `text`.
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            at: Location {
                line: 1,
                column: 1,
                offset: 0,
            },
        }
    }

    /// The location of byte `offset` (moved back to a character boundary, clamped to the end).
    /// Offsets must not decrease between calls (an earlier one restarts from the beginning).
    pub fn locate(&mut self, offset: usize) -> Location {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        if offset < self.at.offset {
            self.at = Location {
                line: 1,
                column: 1,
                offset: 0,
            };
        }
        let chunk = self.text.get(self.at.offset..offset).unwrap_or("");
        for c in chunk.chars() {
            if c == '\n' {
                self.at.line += 1;
                self.at.column = 1;
            } else {
                self.at.column += 1;
            }
        }
        self.at.offset = offset;
        self.at
    }

    /// The location of serde_json's 1-based (line, byte column).
    pub fn locate_line_column(&mut self, line: usize, column: usize) -> Location {
        let mut start = 0;
        if line > 1 {
            match memchr::memchr_iter(b'\n', self.text.as_bytes()).nth(line - 2) {
                Some(nl) => start = nl + 1,
                None => start = self.text.len(),
            }
        }
        self.locate(start + column.saturating_sub(1))
    }
}

/// The result of the byte scan: too deep at an offset, or the start offsets of the elements of
/// the top-level `parts` array (when its key is written without escapes).
#[derive(Debug, PartialEq, Eq)]
pub enum Scan {
    /// Nested deeper than the limit at this byte offset.
    TooDeep {
        /// Where.
        offset: usize,
    },
    /// Where each element of `parts` starts.
    Ok {
        /// Byte offsets.
        part_starts: Vec<usize>,
    },
}

/// One linear pass over the bytes: nesting depth (strings and escapes understood) and where each
/// element of the top-level object's `parts` array starts.
pub fn scan(bytes: &[u8], max_depth: usize) -> Scan {
    let mut depth = 0usize;
    // The last string closed at depth 1 (a key, or a value: only a key is followed by `:`).
    let mut last_key: Option<(usize, usize)> = None;
    let mut after_key = false;
    let mut in_parts = false;
    let mut expect_element = false;
    let mut part_starts = Vec::new();
    let mut next = 0;
    while let Some(&b) = bytes.get(next) {
        let i = next;
        next += 1;
        if b.is_ascii_whitespace() {
            continue;
        }
        if in_parts && depth == 2 && expect_element && b != b']' {
            part_starts.push(i);
            expect_element = false;
        }
        match b {
            // A string, skipped to its closing quote: searched for with `memchr2` (strings are
            // most of a payload's bytes; a loop over them byte by byte was most of its time).
            b'"' => {
                let mut from = next;
                let end = loop {
                    match bytes
                        .get(from..)
                        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
                    {
                        Some(k) if bytes.get(from + k) == Some(&b'\\') => from += k + 2,
                        Some(k) => break from + k,
                        None => return Scan::Ok { part_starts }, // unterminated: the parser says so
                    }
                };
                if depth == 1 {
                    last_key = Some((i + 1, end));
                }
                next = end + 1;
            }
            b':' if depth == 1 => {
                after_key = last_key.is_some();
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Scan::TooDeep { offset: i };
                }
                if depth == 2 && b == b'[' && after_key {
                    let key = last_key.and_then(|(s, e)| bytes.get(s..e));
                    if key == Some(b"parts".as_slice()) {
                        in_parts = true;
                        expect_element = true;
                        part_starts.clear();
                    }
                }
            }
            b']' | b'}' => {
                if depth == 2 {
                    in_parts = false;
                }
                depth = depth.saturating_sub(1);
            }
            b',' if in_parts && depth == 2 => expect_element = true,
            _ => {}
        }
        if depth <= 1 {
            after_key = false;
        }
    }
    Scan::Ok { part_starts }
}

/// Whether `v`, serialized compactly, is more than `limit` bytes (stops writing past the limit).
pub fn part_over(v: &Value, limit: usize) -> bool {
    crate::limits::json_size_within(v, limit).is_none()
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use proptest::prelude::*;

    use super::{scan, Scan};

    /// The scan as it was written first, a byte at a time (strings too): what `scan` must answer.
    fn bytewise(bytes: &[u8], max_depth: usize) -> Scan {
        let (mut depth, mut in_string, mut escaped, mut string_start) = (0usize, false, false, 0);
        let mut last_key: Option<(usize, usize)> = None;
        let (mut after_key, mut in_parts, mut expect_element) = (false, false, false);
        let mut part_starts = Vec::new();
        for (i, &b) in bytes.iter().enumerate() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_string = false;
                    if depth == 1 {
                        last_key = Some((string_start + 1, i));
                    }
                }
                continue;
            }
            if b.is_ascii_whitespace() {
                continue;
            }
            if in_parts && depth == 2 && expect_element && b != b']' {
                part_starts.push(i);
                expect_element = false;
            }
            match b {
                b'"' => {
                    in_string = true;
                    string_start = i;
                }
                b':' if depth == 1 => {
                    after_key = last_key.is_some();
                    continue;
                }
                b'[' | b'{' => {
                    depth += 1;
                    if depth > max_depth {
                        return Scan::TooDeep { offset: i };
                    }
                    if depth == 2 && b == b'[' && after_key {
                        let key = last_key.and_then(|(s, e)| bytes.get(s..e));
                        if key == Some(b"parts".as_slice()) {
                            in_parts = true;
                            expect_element = true;
                            part_starts.clear();
                        }
                    }
                }
                b']' | b'}' => {
                    if depth == 2 {
                        in_parts = false;
                    }
                    depth = depth.saturating_sub(1);
                }
                b',' if in_parts && depth == 2 => expect_element = true,
                _ => {}
            }
            if depth <= 1 {
                after_key = false;
            }
        }
        Scan::Ok { part_starts }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]

        /// Payload-like text (a `parts` array of objects, strings with escaped quotes and
        /// brackets, unterminated strings, a backslash at the end): the same answer.
        #[test]
        fn scan_answers_as_the_bytewise_scan(
            head in prop::sample::select(vec!["", "{\"parts\": [", "{\"a\": 1, \"parts\":[{", " [", "{\"par\\\"ts\": ["]),
            body in "[{}\\[\\]\",: a\\\\pt]{0,80}",
            max_depth in 1usize..6,
        ) {
            let text = format!("{head}{body}");
            prop_assert_eq!(scan(text.as_bytes(), max_depth), bytewise(text.as_bytes(), max_depth), "{:?}", text);
        }
    }
}
