//! JSON text to `serde_json::Value` with correctly rounded floats (used by the Atlas dialect and the
//! body bindings, whose float timestamps and metadata must survive round trips bit for bit).
//!
//! serde_json (without its `float_roundtrip` feature, which this crate does not enable) parses
//! floats "best effort": about one Python `time.time()` timestamp in sixty comes back one ULP off
//! (`1758972921.8811321` reads as `1758972921.881132`). Atlas messages carry float timestamps that
//! must survive a round trip exactly, so [`parse`] lets serde_json validate the text and build the
//! value, then walks the text once more and re-reads every float literal with the standard
//! library's correctly rounded `f64::from_str`.

// Every function here is `#[inline]`, so that it is compiled in agentwire at opt-level "z" (cold
// code: see "Cold code in this crate" in src/core.rs).

use serde_json::{Number, Value};

/// Parses JSON text like `serde_json::from_str::<Value>`, but every float is the nearest `f64` to
/// its literal.
///
/// # Errors
///
/// serde_json's error when `text` is not JSON.
#[doc(hidden)]
#[inline]
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut value: Value = serde_json::from_str(text)?;
    let mut pos = 0;
    // The text is valid JSON (serde_json just said so), nested at most 128 deep (serde_json's
    // limit), so the walk always finishes; if it ever stops early, the values it did not reach
    // keep serde_json's reading.
    let _ = fix(text.as_bytes(), &mut pos, Some(&mut value));
    Ok(value)
}

#[inline]
fn skip_ws(text: &[u8], pos: &mut usize) {
    while matches!(text.get(*pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        *pos += 1;
    }
}

/// Skips a string literal starting at `pos` (on its opening quote); returns its text with quotes.
#[inline]
fn string<'a>(text: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let start = *pos;
    *pos += 1;
    loop {
        match text.get(*pos)? {
            b'\\' => *pos += 2,
            b'"' => {
                *pos += 1;
                return text.get(start..*pos);
            }
            _ => *pos += 1,
        }
    }
}

/// Walks the value at `pos`, replacing each float of `value` (the same value as parsed by serde_json,
/// or `None` where the text and the value part ways, e.g. a key given twice) with the correctly
/// rounded reading of its literal.
#[inline]
fn fix(text: &[u8], pos: &mut usize, mut value: Option<&mut Value>) -> Option<()> {
    skip_ws(text, pos);
    match *text.get(*pos)? {
        b'{' => {
            *pos += 1;
            loop {
                skip_ws(text, pos);
                match *text.get(*pos)? {
                    b'}' => {
                        *pos += 1;
                        return Some(());
                    }
                    b',' => *pos += 1,
                    _ => {
                        let raw = string(text, pos)?;
                        // (`raw` is a whole string literal of a `&str`, so UTF-8; read as a
                        // `str`, serde_json's reader for `&str` is the one the module has already,
                        // where `from_slice` would compile its reader of bytes for this one call.)
                        let key: String =
                            serde_json::from_str(std::str::from_utf8(raw).ok()?).ok()?;
                        skip_ws(text, pos);
                        if text.get(*pos) != Some(&b':') {
                            return None;
                        }
                        *pos += 1;
                        let child = match value.as_deref_mut() {
                            Some(Value::Object(map)) => map.get_mut(&key),
                            _ => None,
                        };
                        fix(text, pos, child)?;
                    }
                }
            }
        }
        b'[' => {
            *pos += 1;
            let mut index = 0usize;
            loop {
                skip_ws(text, pos);
                match *text.get(*pos)? {
                    b']' => {
                        *pos += 1;
                        return Some(());
                    }
                    b',' => *pos += 1,
                    _ => {
                        let child = match value.as_deref_mut() {
                            Some(Value::Array(items)) => items.get_mut(index),
                            _ => None,
                        };
                        fix(text, pos, child)?;
                        index += 1;
                    }
                }
            }
        }
        b'"' => string(text, pos).map(|_| ()),
        b'-' | b'0'..=b'9' => {
            let start = *pos;
            while matches!(
                text.get(*pos),
                Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
            ) {
                *pos += 1;
            }
            if let Some(Value::Number(n)) = value {
                if n.is_f64() {
                    let literal = std::str::from_utf8(text.get(start..*pos)?).ok()?;
                    let exact = literal.parse::<f64>().ok().and_then(Number::from_f64);
                    if let Some(exact) = exact {
                        *n = exact;
                    }
                }
            }
            Some(())
        }
        _ => {
            // `true`, `false`, `null`.
            while matches!(text.get(*pos), Some(b'a'..=b'z')) {
                *pos += 1;
            }
            Some(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_correctly_rounded_where_serde_json_is_not() {
        let text = r#"{"t": 1758972921.8811321, "a": [1795691546.6036239, {"x": -1.4901437678453860e129}]}"#;
        let fast: Value = serde_json::from_str(text).unwrap_or_default();
        let exact = parse(text).unwrap_or_default();
        assert_ne!(fast["t"].as_f64(), Some(1758972921.8811321_f64));
        assert_eq!(exact["t"].as_f64(), Some(1758972921.8811321_f64));
        assert_eq!(exact["a"][0].as_f64(), Some(1795691546.6036239_f64));
        assert_eq!(
            exact["a"][1]["x"].as_f64(),
            Some(-1.490143767845386e129_f64)
        );
    }

    #[test]
    fn integers_strings_and_duplicate_keys_are_serde_json_s() {
        let text = r#"{"i": 18446744073709551615, "n": -3, "s": "1.5\"}", "d": 1.5, "d": {"k": 2.5}, "e": [true, null, false]}"#;
        let v = parse(text).unwrap_or_default();
        assert_eq!(v["i"].as_u64(), Some(u64::MAX));
        assert_eq!(v["n"].as_i64(), Some(-3));
        assert_eq!(v["s"], "1.5\"}");
        assert_eq!(v["d"]["k"].as_f64(), Some(2.5));
        assert_eq!(v["e"], serde_json::json!([true, null, false]));
    }

    #[test]
    fn invalid_json_is_serde_json_s_error() {
        assert!(parse("{\"a\": 1.5").is_err());
        assert!(parse("").is_err());
    }
}
