//! Where JSON text breaks JSON's grammar (RFC 8259 §2–§7), in serde_json's words and at serde_json's
//! position: what `serde_json::from_str::<serde::de::IgnoredAny>` reports (a proptest compares the
//! two on arbitrary text), without compiling serde_json's text reader for it (its validator was
//! about 3 KB of the gzipped wasm module; docs/performance-log.md, stop 37).
//!
//! Like serde_json's validator it checks the grammar only: no depth limit, numbers of any size,
//! `\u` escapes of any code unit. [`super::parse_value`] gives this error for text that is not
//! JSON, and its own for JSON that a tree cannot hold.

/// serde_json's `ErrorCode` messages for the syntax errors its validator reports.
const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const EXPECTED_COLON: &str = "expected `:`";
const EXPECTED_LIST_COMMA_OR_END: &str = "expected `,` or `]`";
const EXPECTED_OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
const EXPECTED_IDENT: &str = "expected ident";
const EXPECTED_VALUE: &str = "expected value";
const INVALID_ESCAPE: &str = "invalid escape";
const INVALID_NUMBER: &str = "invalid number";
const CONTROL_CHARACTER: &str = "control character (\\u0000-\\u001F) found while parsing a string";
const KEY_MUST_BE_A_STRING: &str = "key must be a string";
const TRAILING_CHARACTERS: &str = "trailing characters";

/// Every message above: what [`is_syntax_error`] recognizes.
const MESSAGES: [&str; 14] = [
    EOF_LIST,
    EOF_OBJECT,
    EOF_STRING,
    EOF_VALUE,
    EXPECTED_COLON,
    EXPECTED_LIST_COMMA_OR_END,
    EXPECTED_OBJECT_COMMA_OR_END,
    EXPECTED_IDENT,
    EXPECTED_VALUE,
    INVALID_ESCAPE,
    INVALID_NUMBER,
    CONTROL_CHARACTER,
    KEY_MUST_BE_A_STRING,
    TRAILING_CHARACTERS,
];

/// A syntax error: its message and the byte index serde_json reports it at.
type Broken = (&'static str, usize);

/// The checker: the text's bytes and the position (a byte index), as serde_json's `SliceRead`.
struct Check<'a> {
    b: &'a [u8],
    i: usize,
}

impl Check<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// serde_json's `next_char_or_null`: the next byte, consumed; 0 at the end (nothing consumed).
    fn next_or_null(&mut self) -> u8 {
        match self.peek() {
            Some(c) => {
                self.i += 1;
                c
            }
            None => 0,
        }
    }

    fn skip_whitespace(&mut self) -> Option<u8> {
        while let Some(c) = self.peek() {
            if !matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(c);
            }
            self.i += 1;
        }
        None
    }

    /// An error about the byte last read (serde_json's `error`: at the position).
    fn error(&self, message: &'static str) -> Result<(), Broken> {
        Err((message, self.i))
    }

    /// An error about the byte ahead (serde_json's `peek_error`: one byte on, within the text).
    fn peek_error(&self, message: &'static str) -> Result<(), Broken> {
        Err((message, (self.i + 1).min(self.b.len())))
    }

    /// One JSON text (serde_json's `ignore_value`): the open arrays and objects on a stack of
    /// their opening brackets, innermost last.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn value(&mut self) -> Result<(), Broken> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.skip_whitespace() else {
                return self.peek_error(EOF_VALUE);
            };
            match c {
                b'n' => self.ident(b"ull")?,
                b't' => self.ident(b"rue")?,
                b'f' => self.ident(b"alse")?,
                b'-' => {
                    self.i += 1;
                    self.number()?;
                }
                b'0'..=b'9' => self.number()?,
                b'"' => {
                    self.i += 1;
                    self.string()?;
                }
                b'[' | b'{' => {
                    self.i += 1;
                    open.push(c);
                }
                _ => return self.peek_error(EXPECTED_VALUE),
            }
            // After an opening bracket, a value or the closing one; after a value, a comma or the
            // closing bracket of what holds it.
            let mut after_value = !matches!(c, b'[' | b'{');
            let Some(&(mut frame)) = open.last() else {
                return Ok(());
            };
            loop {
                match self.skip_whitespace() {
                    Some(b',') if after_value => {
                        self.i += 1;
                        break;
                    }
                    Some(b']') if frame == b'[' => {}
                    Some(b'}') if frame == b'{' => {}
                    Some(_) if after_value => {
                        return self.peek_error(if frame == b'[' {
                            EXPECTED_LIST_COMMA_OR_END
                        } else {
                            EXPECTED_OBJECT_COMMA_OR_END
                        });
                    }
                    Some(_) => break,
                    None => {
                        return self.peek_error(if frame == b'[' { EOF_LIST } else { EOF_OBJECT });
                    }
                }
                self.i += 1;
                open.pop();
                frame = match open.last() {
                    Some(&f) => f,
                    None => return Ok(()),
                };
                after_value = true;
            }
            if frame == b'{' {
                match self.skip_whitespace() {
                    Some(b'"') => self.i += 1,
                    Some(_) => return self.peek_error(KEY_MUST_BE_A_STRING),
                    None => return self.peek_error(EOF_OBJECT),
                }
                self.string()?;
                match self.skip_whitespace() {
                    Some(b':') => self.i += 1,
                    Some(_) => return self.peek_error(EXPECTED_COLON),
                    None => return self.peek_error(EOF_OBJECT),
                }
            }
        }
    }

    /// `null`, `true` or `false` from its first letter (serde_json's `parse_ident`).
    fn ident(&mut self, rest: &[u8]) -> Result<(), Broken> {
        self.i += 1;
        for &want in rest {
            match self.peek() {
                None => return self.error(EOF_VALUE),
                Some(c) => {
                    self.i += 1;
                    if c != want {
                        return self.error(EXPECTED_IDENT);
                    }
                }
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> bool {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i > start
    }

    /// A number after its sign (serde_json's `ignore_integer`, `ignore_decimal`,
    /// `ignore_exponent`).
    #[cfg_attr(agentwire_size, optimize(size))]
    fn number(&mut self) -> Result<(), Broken> {
        match self.next_or_null() {
            b'0' => {
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return self.peek_error(INVALID_NUMBER);
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return self.error(INVALID_NUMBER),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !self.digits() {
                return self.peek_error(INVALID_NUMBER);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !self.next_or_null().is_ascii_digit() {
                return self.error(INVALID_NUMBER);
            }
            self.digits();
        }
        Ok(())
    }

    /// A string after its opening quote (serde_json's `ignore_str` and `ignore_escape`).
    #[cfg_attr(agentwire_size, optimize(size))]
    fn string(&mut self) -> Result<(), Broken> {
        loop {
            let Some(c) = self.peek() else {
                return self.error(EOF_STRING);
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return self.error(EOF_STRING);
                    };
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => match self.b.get(self.i..self.i + 4) {
                            Some(hex) => {
                                self.i += 4;
                                if !hex.iter().all(u8::is_ascii_hexdigit) {
                                    return self.error(INVALID_ESCAPE);
                                }
                            }
                            None => {
                                self.i = self.b.len();
                                return self.error(EOF_STRING);
                            }
                        },
                        _ => return self.error(INVALID_ESCAPE),
                    }
                }
                0..=0x1f => return self.error(CONTROL_CHARACTER),
                _ => self.i += 1,
            }
        }
    }
}

/// The 1-based line of byte `i` of `b` and its column as serde_json gives it (bytes since the
/// line's start: the 1-based column of the byte before `i`).
fn line_column(b: &[u8], i: usize) -> (usize, usize) {
    let (mut line, mut line_start) = (1, 0);
    for (k, &c) in b[..i].iter().enumerate() {
        if c == b'\n' {
            line += 1;
            line_start = k + 1;
        }
    }
    (line, i - line_start)
}

/// The first syntax error of `text` as a JSON text (one value, whitespace around it), as
/// serde_json's validator reports it: the same message, line and column, and the same `Display`
/// ("expected value at line 1 column 5"). `None` if `text` is JSON. The error is a serde_json
/// custom error (`is_data`), so tell it by [`not_json`](super::not_json), not by `is_syntax`.
/// Not API.
#[doc(hidden)]
#[cold]
#[inline(never)]
#[cfg_attr(agentwire_size, optimize(size))]
pub fn syntax_error(text: &str) -> Option<serde_json::Error> {
    use serde::de::Error as _;
    let mut check = Check {
        b: text.as_bytes(),
        i: 0,
    };
    let (message, i) = match check.value() {
        Ok(()) if check.skip_whitespace().is_none() => return None,
        Ok(()) => (TRAILING_CHARACTERS, (check.i + 1).min(check.b.len())),
        Err(broken) => broken,
    };
    let (line, column) = line_column(check.b, i);
    // serde_json's custom errors take their line and column from this suffix.
    Some(serde_json::Error::custom(format_args!(
        "{message} at line {line} column {column}"
    )))
}

/// Whether `e` is one of [`syntax_error`]'s errors.
pub(crate) fn is_syntax_error(e: &serde_json::Error) -> bool {
    if e.line() == 0 {
        return false;
    }
    let text = e.to_string();
    MESSAGES.iter().any(|m| {
        text.strip_prefix(m)
            .is_some_and(|rest| rest.starts_with(" at line "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn serde_jsons(text: &str) -> Option<String> {
        serde_json::from_str::<serde::de::IgnoredAny>(text)
            .err()
            .map(|e| e.to_string())
    }

    fn same_as_serde_json(text: &str) {
        let ours = syntax_error(text);
        assert_eq!(
            ours.as_ref().map(ToString::to_string),
            serde_jsons(text),
            "{text:?}"
        );
        if let Some(e) = ours {
            assert!(is_syntax_error(&e), "{text:?}");
            let theirs = serde_json::from_str::<serde::de::IgnoredAny>(text).unwrap_err();
            assert_eq!((e.line(), e.column()), (theirs.line(), theirs.column()));
        }
    }

    /// Each of serde_json's messages, at its position.
    #[test]
    fn every_error_as_serde_json_gives_it() {
        for text in [
            "",
            " ",
            "[",
            "[1",
            "[1,",
            "[1,]",
            "[1 2]",
            "{",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\" 1}",
            "{1:2}",
            "{\"a\":1 \"b\"}",
            "{,}",
            "nul",
            "nulx",
            "tru",
            "trux",
            "fals",
            "falsy",
            "-",
            "-x",
            "01",
            "1.",
            "1.x",
            "1e",
            "1e+",
            "1ex",
            "\"abc",
            "\"\\",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12",
            "\"\\u12g4\"",
            "\"a\u{1}\"",
            "[1] x",
            "1 2",
            "\n\n  [1 2]",
            "x",
            "]",
            "}",
            "[}",
            "{]",
            "\"é\u{2}\"",
            "[\n1,\n]",
        ] {
            same_as_serde_json(text);
        }
        for text in [
            "0",
            "-0.5e+10",
            "1E-3",
            "\"\\ud800\"",
            "[[[[]]]]",
            "{\"a\":[{}],\"b\":null}",
            " true ",
            "\"\\u00e9\\n\"",
            "1e400",
        ] {
            assert!(syntax_error(text).is_none(), "{text:?}");
        }
        // No depth limit (the tree reader's is 127 levels).
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(syntax_error(&deep).is_none());
    }

    /// A mutation's witness: a data error of serde_json's own is not taken for a syntax error.
    #[test]
    fn only_its_own_errors_are_syntax_errors() {
        use serde::de::Error as _;
        assert!(!is_syntax_error(&serde_json::Error::custom(
            "invalid number"
        )));
        assert!(!is_syntax_error(&serde_json::Error::custom(
            "missing field `a` at line 1 column 2"
        )));
        assert!(is_syntax_error(&syntax_error("[1,").unwrap()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// On any text over JSON's characters, the same error (or none) as serde_json's validator.
        #[test]
        fn any_text_as_serde_json(text in "[ \n{}\\[\\]\":,a-z0-9.eE+\\-\\\\/\u{0}-\u{1f}é]{0,40}") {
            let ours = syntax_error(&text).map(|e| e.to_string());
            prop_assert_eq!(ours, serde_jsons(&text), "{:?}", text);
        }

        /// On near-JSON (a JSON text with one byte changed, dropped or doubled), the same.
        #[test]
        fn near_json_as_serde_json(
            value in crate::json::tests::value(),
            at in any::<prop::sample::Index>(),
            edit in 0..3u8,
            byte in prop::sample::select(b" \n,:[]{}\"\\0-.eEtnfu1x".to_vec()),
        ) {
            let mut text = serde_json::to_string_pretty(&value).unwrap().into_bytes();
            let at = at.index(text.len() + 1).min(text.len().saturating_sub(1));
            if !text.is_empty() {
                match edit {
                    0 => text[at] = byte,
                    1 => { text.remove(at); }
                    _ => text.insert(at, byte),
                }
            }
            if let Ok(text) = String::from_utf8(text) {
                let ours = syntax_error(&text).map(|e| e.to_string());
                prop_assert_eq!(ours, serde_jsons(&text), "{:?}", text);
            }
        }
    }
}
