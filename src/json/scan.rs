//! A one-pass scanner over the top-level members of a JSON object, for the hot path of the stream
//! decoders: every SSE event of a protocol is one small object, most of whose members are scalars.
//!
//! [`Members`] reads each member's key and, for scalars, its value in place (strings without
//! escapes are borrowed; integers parsed); nested objects and arrays, and numbers that are not
//! integers, are handed over as the exact slice of JSON text they occupy, for `serde_json` to parse,
//! unless the caller reads an array of objects in place, each element by a `Members` of its own
//! ([`Elements`], [`Members::starting`]; the Agent API's `content` and `output`).
//! It returns `None` — meaning "use a full parser" — on anything it does not handle exactly as
//! RFC 8259 says (escaped keys, control characters in strings, malformed numbers or literals,
//! nesting deeper than asked, trailing text, …): callers then parse the text with `serde_json`,
//! which reports errors with their position. So the scanner never decides that input is invalid;
//! it only speeds up input that is valid and simple.

use std::borrow::Cow;

/// A member's key, as [`Members::key`] found it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Key<'a, K> {
    /// A key the caller's recognizer named.
    Known(K),
    /// Any other key's text (it has no escapes).
    Other(&'a str),
}

/// A member's value, as the scanner found it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scanned<'a> {
    /// A string, unescaped (borrowed when it had no escapes).
    Str(Cow<'a, str>),
    /// A non-negative integer that fits `u64`.
    UInt(u64),
    /// A negative integer that fits `i64`.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// Any other value (object, array, non-integer or out-of-range number): its exact JSON text.
    Raw(&'a str),
}

impl Scanned<'_> {
    /// The value as a `serde_json::Value`, or `None` if a raw value does not parse.
    pub(crate) fn into_value(self) -> Option<serde_json::Value> {
        Some(match self {
            Scanned::Str(s) => serde_json::Value::String(s.into_owned()),
            Scanned::UInt(n) => serde_json::Value::from(n),
            Scanned::Int(n) => serde_json::Value::from(n),
            Scanned::Bool(b) => serde_json::Value::Bool(b),
            Scanned::Null => serde_json::Value::Null,
            Scanned::Raw(raw) => tree_of(raw)?,
        })
    }
}

/// The index of the first byte at or after `b[i]` that is not JSON whitespace (`b.len()` if none).
#[inline(always)] // nearly always no whitespace: one comparison where it is called
fn skip_ws(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(&c) if c > b' ' => i,
        _ => skip_ws_loop(b, i),
    }
}

fn skip_ws_loop(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        i += 1;
    }
    i
}

/// Scans the string starting at `b[i] == b'"'`; returns its content's end (the closing quote's
/// index), whether it has escapes, and whether its content is known to be ASCII (`false` also when
/// not known: see [`next_special`]; of an escaped string, meaningless). `None` for a control
/// character or an unterminated string.
#[inline(always)] // two call sites per member on the hot path
fn scan_string(b: &[u8], i: usize) -> Option<(usize, bool, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    let mut ascii = true;
    loop {
        let (k, before_ascii) = next_special(b, j)?;
        ascii &= before_ascii;
        match *b.get(k)? {
            b'"' => return Some((k, escaped, ascii)),
            b'\\' => {
                escaped = true;
                j = k + 2;
            }
            _ => return None, // a control character
        }
    }
}

/// A JSON string (with its quotes, as [`scan_string`] found it: no control characters), its
/// content with its escapes replaced (RFC 8259 §7: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
/// `\r`, `\t`, and `\uXXXX`, a pair of them for a character outside the Basic Multilingual
/// Plane). An escaped surrogate that is not half of a pair (RFC 8259 §8.2: valid JSON, whose
/// reading the RFC leaves open) reads as U+FFFD, as `JSON.parse` then `toWellFormed()` read it:
/// the string a JavaScript client holds, once it is UTF-8 (serde_json refuses the whole text).
/// `None` for an invalid escape: the full parser then reports it.
/// (It replaced serde_json's reader of a `String`, whose error path compiled serde_json's number
/// reading into this crate at opt-level 3: 8.5 KB of the wasm module.)
#[inline(never)] // cold: only strings with escapes
#[cfg_attr(agentwire_size_build, optimize(speed))]
pub(crate) fn unescape(quoted: &str) -> Option<String> {
    let content = quoted.strip_prefix('"')?.strip_suffix('"')?;
    fn hex4(b: &[u8], at: usize) -> Option<u32> {
        b.get(at..at + 4)?
            .iter()
            .try_fold(0, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
    }
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(k) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(rest.get(..k)?);
        let b = rest.as_bytes();
        let (c, len) = match *b.get(k + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => match hex4(b, k + 2)? {
                high @ 0xD800..=0xDBFF => {
                    let low = match b.get(k + 6..k + 8) {
                        Some(b"\\u") => hex4(b, k + 8),
                        _ => None,
                    };
                    match low {
                        Some(low @ 0xDC00..=0xDFFF) => (
                            char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?,
                            12,
                        ),
                        // Unpaired: what follows is read on its own (and checked there).
                        _ => (char::REPLACEMENT_CHARACTER, 6),
                    }
                }
                code => (
                    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER),
                    6,
                ),
            },
            _ => return None,
        };
        out.push(c);
        // The escape is ASCII, so `k + len` is a character boundary.
        rest = rest.get(k + len..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// The JSON text at `path` in `s`, without the whitespace around it: `"\"a\\u00e9\""` for
/// `{"k": ["a\u00e9"]}` and the path `k`, 0. Each step is a member of an object (the last one if
/// the name is given twice, as the readers keep the last) or an element of an array. `None` if
/// the path leads nowhere or the text on the way is not JSON. For the rare reader that needs a
/// string's escapes as they were written (the cut surrogate pairs of [`super::cut_halves`]); it
/// reads every value it passes into a tree to skip it.
#[cold]
#[inline(never)]
#[cfg_attr(agentwire_size, optimize(size))]
pub(crate) fn text_at<'a>(s: &'a str, path: &[super::Step<'_>]) -> Option<&'a str> {
    use super::Step;
    let b = s.as_bytes();
    let (mut start, mut end) = (skip_ws(b, 0), b.len());
    for step in path {
        let open = match step {
            Step::Member(_) => b'{',
            Step::Element(_) => b'[',
        };
        if b.get(start) != Some(&open) {
            return None;
        }
        let mut j = skip_ws(b, start + 1);
        let mut found = None;
        let mut index = 0;
        while j < end && !matches!(b.get(j), Some(b'}' | b']')) {
            let hit = match *step {
                Step::Member(key) => {
                    let (name, after) = str_at(s, j)?;
                    j = skip_ws(b, after);
                    if b.get(j) != Some(&b':') {
                        return None;
                    }
                    j = skip_ws(b, j + 1);
                    name == key
                }
                Step::Element(i) => index == i,
            };
            let (_, next) = tree_at(s, j, TREE_DEPTH)?;
            if hit {
                found = Some((j, next));
            }
            index += 1;
            j = next;
            if b.get(j) != Some(&b',') {
                break;
            }
            j = skip_ws(b, j + 1);
        }
        (start, end) = found?;
    }
    // `tree_at` ends past the whitespace after the value.
    while end > start && matches!(b.get(end - 1), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        end -= 1;
    }
    s.get(start..end)
}

/// How deep [`tree_at`] reads: serde_json's limit (127 nested arrays or objects; the 128th is
/// its "recursion limit exceeded").
pub(crate) const TREE_DEPTH: usize = 127;

/// The tree of a nested value's JSON text as the scanner hands it over ([`Scanned::Raw`]: an
/// object, an array, or a number that is not an integer), as [`parse_value`](super::parse_value)
/// reads it. `None` if it is not JSON.
pub(crate) fn tree_of(raw: &str) -> Option<serde_json::Value> {
    let b = raw.as_bytes();
    match tree_at(raw, skip_ws(b, 0), TREE_DEPTH) {
        Some((value, end)) if end == b.len() => Some(value),
        _ => None,
    }
}

/// The JSON value at `b[i]` read into a tree, and the index just past it (and the whitespace
/// after it), as serde_json reads it into a `Value` (a proptest checks it): objects (a key given
/// twice keeps the last value), arrays, strings, `true`, `false`, `null`, and numbers: an integer
/// as `u64` when it fits, a negative one as `i64` when it fits, anything else (a fraction, an
/// exponent, `-0`, a longer integer) as the nearest `f64` ([`number_at`]). `None` for text that is
/// not JSON, and for JSON a tree cannot hold: nesting deeper than `depth`, a number beyond
/// `f64::MAX`. Keys and strings are read as the event scanner reads strings (a lone surrogate
/// escape as U+FFFD: see [`unescape`]).
fn tree_at(s: &str, i: usize, depth: usize) -> Option<(serde_json::Value, usize)> {
    use serde_json::Value;
    let b = s.as_bytes();
    let (value, next) = match *b.get(i)? {
        b'"' => {
            let (text, next) = string_at(s, i)?;
            (Value::String(text), next)
        }
        b'{' => {
            let depth = depth.checked_sub(1)?;
            let mut map = serde_json::Map::new();
            let mut j = skip_ws(b, i + 1);
            if b.get(j) != Some(&b'}') {
                loop {
                    if b.get(j) != Some(&b'"') {
                        return None;
                    }
                    let (key, after) = string_at(s, j)?;
                    j = skip_ws(b, after);
                    if b.get(j) != Some(&b':') {
                        return None;
                    }
                    let (value, after) = tree_at(s, skip_ws(b, j + 1), depth)?;
                    map.insert(key, value);
                    match b.get(after)? {
                        b',' => j = skip_ws(b, after + 1),
                        b'}' => {
                            j = after;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
            (Value::Object(map), j + 1)
        }
        b'[' => {
            let depth = depth.checked_sub(1)?;
            let mut items = Vec::new();
            let mut j = skip_ws(b, i + 1);
            if b.get(j) != Some(&b']') {
                loop {
                    let (item, after) = tree_at(s, j, depth)?;
                    items.push(item);
                    match b.get(after)? {
                        b',' => j = skip_ws(b, after + 1),
                        b']' => {
                            j = after;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
            (Value::Array(items), j + 1)
        }
        b't' if b.get(i..i + 4) == Some(b"true") => (Value::Bool(true), i + 4),
        b'f' if b.get(i..i + 5) == Some(b"false") => (Value::Bool(false), i + 5),
        b'n' if b.get(i..i + 4) == Some(b"null") => (Value::Null, i + 4),
        c @ (b'-' | b'0'..=b'9') => {
            let negative = c == b'-';
            let start = i + usize::from(negative);
            let mut end = start;
            let mut n = 0u64;
            while let Some(&d) = b.get(end).filter(|d| d.is_ascii_digit()) {
                n = n * 10 + u64::from(d - b'0');
                end += 1;
                if end - start > 18 {
                    return number_at(b, i); // may not fit `u64` or `i64`
                }
            }
            let digits = end - start;
            let leading_zero = b.get(start) == Some(&b'0');
            if digits == 0
                || (leading_zero && (digits > 1 || negative))
                || matches!(b.get(end), Some(b'.' | b'e' | b'E'))
            {
                return number_at(b, i); // invalid, `-0` (serde_json's `-0.0`), or a float
            }
            let value = if negative {
                Value::from(-i64::try_from(n).ok()?)
            } else {
                Value::from(n)
            };
            (value, end)
        }
        _ => return None,
    };
    Some((value, skip_ws(b, next)))
}

/// The number at `b[i]` (RFC 8259 §6) as serde_json reads it into a `Value`, and the index just
/// past it and the whitespace after it: an integer without fraction or exponent as `u64`, or, when
/// negative, `i64`, if it fits; anything else (`-0` too) as the nearest `f64`
/// ([`decimal_to_f64`](super::number::decimal_to_f64)). `None` if it is not a number or is beyond
/// `f64::MAX`. The rare numbers [`tree_at`] does not read in place.
#[inline(never)]
pub(crate) fn number_at(b: &[u8], i: usize) -> Option<(serde_json::Value, usize)> {
    let digits_from = |at: usize| {
        at + b
            .get(at..)
            .map_or(0, |r| r.iter().take_while(|d| d.is_ascii_digit()).count())
    };
    let negative = b.get(i) == Some(&b'-');
    let int_start = i + usize::from(negative);
    let int_end = digits_from(int_start);
    let int = b.get(int_start..int_end)?;
    if int.is_empty() || (int.len() > 1 && int[0] == b'0') {
        return None;
    }
    let mut end = int_end;
    let mut frac: &[u8] = &[];
    if b.get(end) == Some(&b'.') {
        let frac_end = digits_from(end + 1);
        frac = b.get(end + 1..frac_end)?;
        if frac.is_empty() {
            return None;
        }
        end = frac_end;
    }
    let mut exp = 0i64;
    let mut has_exp = false;
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let sign_at = end + 1;
        let exp_negative = b.get(sign_at) == Some(&b'-');
        let digits_at = sign_at + usize::from(matches!(b.get(sign_at), Some(b'-' | b'+')));
        let exp_end = digits_from(digits_at);
        let digits = b.get(digits_at..exp_end)?;
        if digits.is_empty() {
            return None;
        }
        // Saturated: beyond 10^9 every value is 0 or out of range already.
        let magnitude = digits.iter().fold(0i64, |e, d| {
            (e * 10 + i64::from(d - b'0')).min(1_000_000_000)
        });
        exp = if exp_negative { -magnitude } else { magnitude };
        has_exp = true;
        end = exp_end;
    }
    use serde_json::Value;
    if frac.is_empty() && !has_exp {
        // An integer: `u64`, or `i64` when negative, if it fits (`-0` is `-0.0`).
        let n = int.iter().try_fold(0u64, |n, d| {
            n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
        });
        match (n, negative) {
            (Some(n), false) => return Some((Value::from(n), skip_ws(b, end))),
            (Some(n), true) if n != 0 && n <= 1 << 63 => {
                return Some((Value::from(0i64.wrapping_sub_unsigned(n)), skip_ws(b, end)))
            }
            _ => {}
        }
    }
    let x = super::number::decimal_to_f64(int, frac, exp)?;
    let x = if negative { -x } else { x };
    Some((
        Value::Number(serde_json::Number::from_f64(x)?),
        skip_ws(b, end),
    ))
}

/// The string at `s[i]` (its opening quote), unescaped, and the index just past it.
pub(crate) fn string_at(s: &str, i: usize) -> Option<(String, usize)> {
    str_at(s, i).map(|(s, next)| (s.into_owned(), next))
}

/// The string at `s[i]` (its opening quote): borrowed when it has no escapes, else unescaped;
/// and the index just past it. `None` if it is not a JSON string. Its content is sliced out of
/// `s` between its quotes, ASCII characters, so it needs no UTF-8 check of its own.
#[inline(never)]
#[cfg_attr(agentwire_size_build, optimize(speed))]
pub(crate) fn str_at(s: &str, i: usize) -> Option<(Cow<'_, str>, usize)> {
    let (end, escaped, _) = scan_string(s.as_bytes(), i)?;
    let text = if escaped {
        Cow::Owned(unescape(s.get(i..=end)?)?)
    } else {
        Cow::Borrowed(s.get(i + 1..end)?)
    };
    Some((text, end + 1))
}

/// The `str` of a string's content (or of a number's digits) the scanner read: taken as it is when
/// the scan saw only ASCII bytes in it (`ascii`), else checked by the standard library's UTF-8
/// validator (`None` if it is not UTF-8). The scanner reads bytes, not a `str`: every byte of an
/// object it answers for is either one it matched against ASCII grammar (brackets, quotes, colons,
/// commas, literals, digits, whitespace) or part of a string or nested value it hands on through
/// here or through a check, so the event needs no UTF-8 pass of its own (that pass was 7% of a
/// per-event stream's time in V8, measured 2026-11-22).
#[inline(always)]
#[allow(unsafe_code)]
fn checked_str(bytes: &[u8], ascii: bool) -> Option<&str> {
    if ascii {
        debug_assert!(bytes.is_ascii(), "{bytes:?}");
        // SAFETY: `ascii` says the scan found every byte of `bytes` below 0x80 (the high bits of
        // the words it read, masked to the bytes before the special one it stopped at; see
        // `next_special`), and a byte below 0x80 is a whole UTF-8 character. The debug assertion
        // checks it in the tests and under the fuzzers.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes).ok()
    }
}

/// Strings up to this many bytes are searched eight bytes at a time; the rest of a longer one
/// with `memchr2` (SIMD), whose set-up costs more than a short string takes.
const SHORT_STRING: usize = 32;

/// Index of the first `"`, `\` or control character (U+0000 to U+001F) at or after `b[j]`, and
/// whether the bytes from `b[j]` to it are all ASCII, as the search saw them: `false` also when it
/// did not look (the rest of a string longer than [`SHORT_STRING`], searched with `memchr2`;
/// checked by [`checked_str`] instead).
#[cfg_attr(agentwire_size_build, optimize(speed))]
pub(crate) fn next_special(b: &[u8], mut j: usize) -> Option<(usize, bool)> {
    let start = j;
    // The high bits of the bytes searched so far.
    let mut high = 0u64;
    // Eight bytes at a time, as one little-endian word (so the lowest flagged byte comes first).
    while let Some(word) = b.get(j..j + 8) {
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let mask = special_bytes(w);
        if mask != 0 {
            let k = (mask.trailing_zeros() / 8) as usize;
            return Some((j + k, (high | (w & below(k))) == 0));
        }
        high |= w & HIGH;
        j += 8;
        if j - start >= SHORT_STRING {
            // A long string: the next quote or backslash (`memchr2`), then a control-character
            // check over the bytes skipped, eight at a time (`first_control`).
            let rest = b.get(j..)?;
            let k = memchr::memchr2(b'"', b'\\', rest);
            let skipped = rest.get(..k.unwrap_or(rest.len()))?;
            return match first_control(skipped) {
                Some(c) => Some((j + c, false)),
                None => k.map(|k| (j + k, false)),
            };
        }
    }
    // Fewer than eight bytes left: the last eight bytes of `b` as one word, shifted so that the
    // bytes left come first and the top is filled with 0xff (not special).
    let len = b.len();
    if j >= len {
        return None;
    }
    let Some(last) = len.checked_sub(8).and_then(|s| b.get(s..)) else {
        let rest = b.get(j..)?;
        let k = rest
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        return Some((j + k, high == 0 && rest.get(..k)?.is_ascii()));
    };
    let shift = 8 * (j + 8 - len) as u32; // 8..=56: the bytes already searched
    let word = u64::from_le_bytes(last.try_into().ok()?) >> shift | !0u64 << (64 - shift);
    let mask = special_bytes(word);
    (mask != 0).then(|| {
        let k = (mask.trailing_zeros() / 8) as usize;
        (j + k, (high | (word & below(k))) == 0)
    })
}

/// The index of the first control character (below 0x20) in `bytes`, eight bytes at a time (the
/// borrow trick of [`special_bytes`]). A `position` over the bytes, its exit tested at every
/// byte, made reading 10 MB of long strings into a tree a third slower than serde_json's reader.
fn first_control(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().ok()?);
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
        if control != 0 {
            return Some(at + (control.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&c| c < 0x20)
        .map(|k| at + k)
}

/// The high bit of every byte of a word.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bits of bytes `0..k` of a little-endian word (`k` < 8).
fn below(k: usize) -> u64 {
    (1u64 << (8 * k)).wrapping_sub(1) & HIGH
}

/// The high bit of each byte of `w` that is `"`, `\` or below 0x20, exact up to the lowest such
/// byte (bytes above it may be flagged falsely: a borrow only propagates upwards). The classic
/// bit tricks: `(x - 0x01…) & !x & 0x80…` flags zero bytes of `x`, and `(x - 0x20…) & !x & 0x80…`
/// bytes below 0x20.
fn special_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    quote | backslash | control
}

/// Whether `rest` starts with `name`, compared eight bytes at a time as words. Inlined with a
/// constant `name` this is a load and a compare with a constant per word, where a slice compare
/// (`starts_with`) is a call to `memcmp` on wasm32. Fewer than eight bytes left in `rest` at a
/// word take the slice compare.
#[inline(always)]
pub(crate) fn starts_with_words(rest: &[u8], name: &[u8]) -> bool {
    for (w, part) in name.chunks(8).enumerate() {
        let at = w * 8;
        let Some(have) = rest.get(at..at + 8).and_then(|b| b.try_into().ok()) else {
            return rest.starts_with(name);
        };
        let (mut want, mut mask) = (0u64, 0u64);
        for (k, &c) in part.iter().enumerate() {
            want |= u64::from(c) << (8 * k);
            mask |= 0xff << (8 * k);
        }
        if u64::from_le_bytes(have) & mask != want {
            return false;
        }
    }
    true
}

/// Whether `a` and `b` are the same bytes, compared eight bytes at a time as words: a slice `==`
/// is a call to `memcmp` on wasm32, which compares byte by byte. For short strings compared for
/// every event (a message id with the last message's: a V8 profile put `memcmp` at 1.7% of a
/// per-event run).
#[inline]
#[cfg_attr(agentwire_size_build, optimize(speed))]
pub(crate) fn eq_words(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |w: &[u8]| w.try_into().map_or(0, u64::from_ne_bytes);
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut wa).zip(&mut wb) {
        if word(x) != word(y) {
            return false;
        }
    }
    match a.len().checked_sub(8) {
        // The bytes after the last whole word: the last eight bytes, as one more word.
        Some(last) => a.get(last..).map(word) == b.get(last..).map(word),
        None => wa.remainder() == wb.remainder(),
    }
}

/// Scans a number starting at `i`; returns its end if it matches the JSON grammar
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) and whether it is an integer.
fn scan_number(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    match b.get(j)? {
        b'0' => j += 1,
        b'1'..=b'9' => {
            while b.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
        }
        _ => return None,
    }
    let mut integer = true;
    if b.get(j) == Some(&b'.') {
        integer = false;
        j += 1;
        let start = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        integer = false;
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let start = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    Some((j, integer))
}

/// Finds the end of the object or array starting at `b[i]` (its closing bracket's index + 1),
/// skipping strings; `None` if it is unterminated or nests deeper than `max_depth` counting the
/// enclosing object (`depth` levels are already open). Contents are not validated: the caller
/// parses the slice with `serde_json`.
fn skip_nested(b: &[u8], i: usize, depth: usize, max_depth: usize) -> Option<usize> {
    let mut level = depth;
    let mut j = i;
    loop {
        match *b.get(j)? {
            b'{' | b'[' => {
                level += 1;
                if level > max_depth {
                    return None;
                }
                j += 1;
            }
            b'}' | b']' => {
                level -= 1;
                j += 1;
                if level == depth {
                    return Some(j);
                }
            }
            b'"' => j = scan_string(b, j)?.0 + 1,
            _ => j += 1,
        }
    }
}

/// The members of the JSON object `text` (at most `max_depth` levels deep, the object itself
/// being level 1), in order: call [`Members::key`] until it answers `Some(None)` (the whole text
/// was one object, scanned to its end) or `None` (use a full parser), and after each key read its
/// value with [`Members::value_to`], or first try [`Members::literal`] for a value the caller
/// expects.
///
/// A loop over `key` rather than a callback, so that the caller's handling of each member is
/// compiled into the same loop as the scan (the hot path reads every event this way); and the key
/// apart from its value, so that the caller can compare the value it expects for that key before
/// the value is scanned.
pub(crate) struct Members<'a> {
    /// The object's text, read as bytes: not necessarily UTF-8 (see [`checked_str`]).
    text: &'a [u8],
    /// Where the next member (or the object's end) starts.
    i: usize,
    max_depth: usize,
    /// No member read yet (`}` may end the object right away; no `,` comes first).
    first: bool,
    /// An object inside the text (see [`Members::starting`]): it ends at its closing brace,
    /// whatever follows, and [`Members::end`] says where.
    inner: bool,
}

impl<'a> Members<'a> {
    /// Starts at the opening brace; `None` if `b` does not start (after whitespace) with one.
    #[cfg(test)]
    pub(crate) fn new(b: &'a [u8], max_depth: usize) -> Option<Self> {
        Self::starting(b, 0, false, max_depth)
    }

    /// The members of the object at `b[start]` (after whitespace), `max_depth` counting it as
    /// level 1. With `inner` false, as [`Members::new`] (`start` 0): the object is the whole
    /// text. With `inner` true, an object inside the text, such as an element of an array (see
    /// [`Elements`]): it ends at its closing brace, whatever follows, and [`Members::end`] then
    /// says where. One function for both, for the reader that reads both (the hot path's).
    #[inline(always)]
    pub(crate) fn starting(
        b: &'a [u8],
        start: usize,
        inner: bool,
        max_depth: usize,
    ) -> Option<Self> {
        if max_depth == 0 {
            return None;
        }
        let i = skip_ws(b, start);
        if b.get(i) != Some(&b'{') {
            return None;
        }
        Some(Self {
            text: b,
            i: skip_ws(b, i + 1),
            max_depth,
            first: true,
            inner,
        })
    }

    /// The first byte of the value [`Members::key`] left next (after whitespace).
    pub(crate) fn peek(&self) -> Option<u8> {
        self.text.get(self.i).copied()
    }

    /// Where the value [`Members::key`] left next starts.
    pub(crate) fn position(&self) -> usize {
        self.i
    }

    /// The value [`Members::key`] left next was read by the caller, up to just before
    /// `text[end]`; the next call is to `key`.
    pub(crate) fn resume(&mut self, end: usize) {
        self.i = skip_ws(self.text, end);
    }

    /// After [`Members::key`] answered `Some(None)` for an object inside the text (`inner`): the
    /// index just past its closing brace (meaningless for an object that is the whole text).
    pub(crate) fn end(&self) -> usize {
        self.i
    }

    /// The end of the object at its closing brace `b[i]`: `Some(None)`, or `None` when the object
    /// is the whole text and something other than whitespace follows.
    #[inline(always)]
    #[allow(clippy::option_option)]
    fn close<K>(&mut self, i: usize) -> Option<Option<Key<'a, K>>> {
        if self.inner {
            self.i = i + 1;
            return Some(None);
        }
        (skip_ws(self.text, i + 1) == self.text.len()).then_some(None)
    }

    /// The next member as `Some(Some((key, value)))`; `Some(None)` at the end of the object when
    /// nothing but whitespace follows it; `None` for anything the scanner does not handle.
    /// [`Members::key`] then [`Members::value`]; see `key` for `known`.
    #[cfg(test)]
    #[allow(clippy::option_option)] // three outcomes: a member, the end, or "use a full parser"
    pub(crate) fn next<K>(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(K, usize)>,
    ) -> Option<Option<(Key<'a, K>, Scanned<'a>)>> {
        match self.key(known)? {
            Some(key) => Some(Some((key, self.value()?))),
            None => Some(None),
        }
    }

    /// The next member's key as `Some(Some(key))`, read up to its value (which
    /// [`Members::value_to`] or [`Members::literal`] reads next); `Some(None)` at the end of the
    /// object when nothing but whitespace follows it; `None` for anything the scanner does not
    /// handle.
    ///
    /// `known` may recognize a key without the string scan: given the bytes after the key's
    /// opening quote, it answers `Some((k, n))` when they start with the `n` bytes of the key it
    /// calls `k`, none of which may be `"`, `\` or a control character. The scanner then checks
    /// that a `"` follows (so `known` need not: `"texts"` is not taken for `"text"`) and answers
    /// [`Key::Known`]; every other key is scanned and answered as [`Key::Other`].
    #[inline(always)] // one call site: the hot loop of the Agent API's event reader
    #[allow(clippy::option_option)] // three outcomes: a key, the end, or "use a full parser"
    pub(crate) fn key<K>(
        &mut self,
        known: impl Fn(&[u8]) -> Option<(K, usize)>,
    ) -> Option<Option<Key<'a, K>>> {
        let b = self.text;
        let mut i = self.i;
        if std::mem::take(&mut self.first) {
            if b.get(i) == Some(&b'}') {
                return self.close(i);
            }
        } else {
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b'}') => return self.close(i),
                _ => return None,
            }
        }
        // Key: a string without escapes.
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let recognized = b
            .get(i + 1..)
            .and_then(&known)
            .filter(|&(_, n)| b.get(i + 1 + n) == Some(&b'"'));
        let (key, end) = match recognized {
            Some((k, n)) => (Key::Known(k), i + 1 + n),
            None => {
                let (end, escaped, ascii) = scan_string(b, i)?;
                if escaped {
                    return None;
                }
                (Key::Other(checked_str(b.get(i + 1..end)?, ascii)?), end)
            }
        };
        i = skip_ws(b, end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        self.i = skip_ws(b, i + 1);
        Some(Some(key))
    }

    /// Whether the value [`Members::key`] left next is exactly the string `quoted` (its JSON text,
    /// quotes included, with no escape or control character inside); if it is, the value is read
    /// (the next call is to `key`), else nothing is (the next call is to `value_to`). For values a
    /// reader expects nearly always (`"object":"content"`): compared a word at a time, with no
    /// search for the closing quote and no `str` made.
    #[inline(always)]
    pub(crate) fn literal(&mut self, quoted: &[u8]) -> bool {
        let b = self.text;
        let hit = b
            .get(self.i..)
            .is_some_and(|rest| starts_with_words(rest, quoted));
        if hit {
            self.i = skip_ws(b, self.i + quoted.len());
        }
        hit
    }

    /// [`Members::value_to`] without the value's end.
    #[cfg(test)]
    pub(crate) fn value(&mut self) -> Option<Scanned<'a>> {
        self.value_to().map(|(value, _)| value)
    }

    /// The value [`Members::key`] left next, and the index just past it (before the whitespace
    /// after it); `None` for anything the scanner does not handle.
    #[inline(always)] // one call site: the hot loop of the Agent API's event reader
    pub(crate) fn value_to(&mut self) -> Option<(Scanned<'a>, usize)> {
        let b = self.text;
        let i = self.i;
        // Value.
        let (value, next) = match *b.get(i)? {
            b'"' => {
                let (s, end) = string_at_quote(b, i)?;
                (Scanned::Str(s), end)
            }
            b'{' | b'[' => {
                let end = skip_nested(b, i, 1, self.max_depth)?;
                (Scanned::Raw(std::str::from_utf8(b.get(i..end)?).ok()?), end)
            }
            b't' if b.get(i..i + 4) == Some(b"true") => (Scanned::Bool(true), i + 4),
            b'f' if b.get(i..i + 5) == Some(b"false") => (Scanned::Bool(false), i + 5),
            b'n' if b.get(i..i + 4) == Some(b"null") => (Scanned::Null, i + 4),
            b'-' | b'0'..=b'9' => {
                // A plain non-negative integer (sequence numbers, indexes) is read as it is
                // scanned; anything else (a sign, a fraction, an exponent, a leading zero) takes
                // scan_number and the general reading below.
                // Up to 19 digits always fit a u64, so the loop multiplies without an overflow
                // check (on wasm32 a checked 64-bit multiply is a call to a 128-bit multiply);
                // longer runs of digits are read again with the check.
                let (n, mut end, plain) = digits_at(b, i);
                let value = if plain {
                    if end - i <= 19 {
                        Scanned::UInt(n)
                    } else {
                        let digits = checked_str(b.get(i..end)?, true)?;
                        match digits.parse::<u64>() {
                            Ok(n) => Scanned::UInt(n),
                            Err(_) => Scanned::Raw(digits), // does not fit u64
                        }
                    }
                } else {
                    let (number_end, integer) = scan_number(b, i)?;
                    end = number_end;
                    let digits = checked_str(b.get(i..end)?, true)?;
                    if !integer {
                        Scanned::Raw(digits)
                    } else if let Some(neg) = digits.strip_prefix('-') {
                        match digits.parse::<i64>() {
                            Ok(n) if !neg.is_empty() => Scanned::Int(n),
                            _ => Scanned::Raw(digits),
                        }
                    } else {
                        // A leading zero: `0` itself (what follows is left to the caller).
                        match digits.parse::<u64>() {
                            Ok(n) => Scanned::UInt(n),
                            Err(_) => Scanned::Raw(digits),
                        }
                    }
                };
                (value, end)
            }
            _ => return None,
        };
        self.i = skip_ws(b, next);
        Some((value, next))
    }
}

/// The JSON string whose opening quote is `b[i]`, as [`Members::value_to`] reads it (borrowed when
/// it has no escape, its UTF-8 checked), and the index just past its closing quote; `None` when
/// it is unterminated, malformed or not UTF-8. Also the reader of a learned event layout's string
/// values (`agent_api::shape`), which must read them exactly as `value_to` does.
#[inline(always)]
pub(crate) fn string_at_quote(b: &[u8], i: usize) -> Option<(Cow<'_, str>, usize)> {
    let (end, escaped, ascii) = scan_string(b, i)?;
    let s = if escaped {
        let quoted = std::str::from_utf8(b.get(i..=end)?).ok()?;
        Cow::Owned(unescape(quoted)?)
    } else {
        Cow::Borrowed(checked_str(b.get(i + 1..end)?, ascii)?)
    };
    Some((s, end + 1))
}

/// The run of ASCII digits at `b[i]`: its value (wrapping: exact up to 19 digits), the index
/// just past it, and whether it is a plain non-negative integer (at least one digit, no leading
/// zero unless it is `0`, no fraction or exponent after it). As [`Members::value_to`] reads a
/// number's first digits; also the reader of a learned event layout's integers
/// (`agent_api::shape`).
#[inline(always)]
pub(crate) fn digits_at(b: &[u8], i: usize) -> (u64, usize, bool) {
    let mut end = i;
    let mut n = 0u64;
    while let Some(&d) = b.get(end).filter(|d| d.is_ascii_digit()) {
        n = n.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
        end += 1;
    }
    let plain = end > i
        && !matches!(b.get(end), Some(b'.' | b'e' | b'E'))
        && (end == i + 1 || b.get(i) != Some(&b'0'));
    (n, end, plain)
}

/// The elements of a JSON array of objects inside a text, read in place: [`Elements::element`]
/// answers where the next one starts (its `{`), the caller reads it (with [`Members::starting`])
/// and says where it ended ([`Elements::after`]); until `element` answers `Some(None)` at the
/// closing bracket ([`Elements::end`] is then just past it) or `None` (use a full parser: an
/// element that is not an object, a malformed array). The array's text is read once, by its
/// elements' reader.
pub(crate) struct Elements<'a> {
    text: &'a [u8],
    /// Where the next element (or the array's end) starts; after the end, just past it.
    i: usize,
    /// No element read yet (`]` may end the array right away; no `,` comes first).
    first: bool,
}

impl<'a> Elements<'a> {
    /// The array at `b[start]`, its opening bracket; `None` if there is none there.
    pub(crate) fn at(b: &'a [u8], start: usize) -> Option<Self> {
        if b.get(start) != Some(&b'[') {
            return None;
        }
        Some(Self {
            text: b,
            i: skip_ws(b, start + 1),
            first: true,
        })
    }

    /// The index of the next element's opening brace as `Some(Some(i))`; `Some(None)` at the
    /// array's closing bracket; `None` for anything else.
    #[allow(clippy::option_option)] // three outcomes: an element, the end, or "use a full parser"
    pub(crate) fn element(&mut self) -> Option<Option<usize>> {
        let b = self.text;
        let mut i = self.i;
        if !std::mem::take(&mut self.first) {
            match b.get(i) {
                Some(b',') => i = skip_ws(b, i + 1),
                Some(b']') => {
                    self.i = i + 1;
                    return Some(None);
                }
                _ => return None,
            }
        } else if b.get(i) == Some(&b']') {
            self.i = i + 1;
            return Some(None);
        }
        (b.get(i) == Some(&b'{')).then_some(Some(i))
    }

    /// The element [`Elements::element`] answered ended just before `b[end]`.
    pub(crate) fn after(&mut self, end: usize) {
        self.i = skip_ws(self.text, end);
    }

    /// After [`Elements::element`] answered `Some(None)`: the index just past the array.
    pub(crate) fn end(&self) -> usize {
        self.i
    }
}

/// Scans the JSON object `text` (see [`Members`]), calling `member(key, value)` for each member in
/// order. `member` may return `None` to abandon the scan, which makes `scan_object` return `None`.
///
/// Returns `Some(())` when the whole text was one object scanned to its end, else `None` (use a
/// full parser).
#[cfg(test)]
pub(crate) fn scan_object<'a>(
    text: &'a str,
    max_depth: usize,
    mut member: impl FnMut(&'a str, Scanned<'a>) -> Option<()>,
) -> Option<()> {
    let mut members = Members::new(text.as_bytes(), max_depth)?;
    while let Some((key, value)) = members.next(|_| None::<(std::convert::Infallible, usize)>)? {
        let Key::Other(key) = key;
        member(key, value)?;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Option<Vec<(String, Scanned<'_>)>> {
        let mut out = Vec::new();
        scan_object(text, 64, |k, v| {
            out.push((k.to_owned(), v));
            Some(())
        })?;
        Some(out)
    }

    #[test]
    fn scalars_are_read_in_place_and_nested_values_kept_as_text() {
        let m = members(
            r#" { "a" : "x\ny" , "b":12, "c":-3, "d":1.5e3, "e":true, "f":null, "g":{"h":[1,"]}"]}, "i":"plain" } "#,
        )
        .unwrap();
        assert_eq!(m[0].1, Scanned::Str(Cow::Owned("x\ny".into())));
        assert_eq!(m[1].1, Scanned::UInt(12));
        assert_eq!(m[2].1, Scanned::Int(-3));
        assert_eq!(m[3].1, Scanned::Raw("1.5e3"));
        assert_eq!(m[4].1, Scanned::Bool(true));
        assert_eq!(m[5].1, Scanned::Null);
        assert_eq!(m[6].1, Scanned::Raw(r#"{"h":[1,"]}"]}"#));
        assert!(matches!(m[7].1, Scanned::Str(Cow::Borrowed("plain"))));
        let m = members(r#"{"a":0,"b":18446744073709551615,"c":18446744073709551616,"d":0e1}"#)
            .unwrap();
        assert_eq!(m[0].1, Scanned::UInt(0));
        assert_eq!(m[1].1, Scanned::UInt(u64::MAX));
        assert_eq!(m[2].1, Scanned::Raw("18446744073709551616"));
        assert_eq!(m[3].1, Scanned::Raw("0e1"));
        // The longest integers read without an overflow check (19 digits), and longer ones.
        let m = members(
            r#"{"a":9999999999999999999,"b":10000000000000000000,"c":99999999999999999999}"#,
        )
        .unwrap();
        assert_eq!(m[0].1, Scanned::UInt(9_999_999_999_999_999_999));
        assert_eq!(m[1].1, Scanned::UInt(10_000_000_000_000_000_000));
        assert_eq!(m[2].1, Scanned::Raw("99999999999999999999"));
        assert_eq!(members("{}").unwrap(), vec![]);
    }

    /// The elements' texts, each read by [`Members::starting`], or `None` where either declines or
    /// the array is not the whole text (after whitespace).
    fn elements(text: &str, max_depth: usize) -> Option<Vec<&str>> {
        let b = text.as_bytes();
        let mut items = Elements::at(b, skip_ws(b, 0))?;
        let mut out = Vec::new();
        while let Some(start) = items.element()? {
            let mut members = Members::starting(b, start, true, max_depth)?;
            while members.key(|_| None::<((), usize)>)?.is_some() {
                members.value()?;
            }
            items.after(members.end());
            out.push(text.get(start..members.end())?);
        }
        (skip_ws(b, items.end()) == b.len()).then_some(out)
    }

    #[test]
    fn an_array_of_objects_is_split_into_their_texts() {
        assert_eq!(
            elements(r#" [ {"a": "}]", "b": [1, {"c": {}}]} , {} ] "#, 4),
            Some(vec![r#"{"a": "}]", "b": [1, {"c": {}}]}"#, "{}"])
        );
        assert_eq!(elements("[]", 1), Some(vec![]));
        assert_eq!(elements("[{}]", 0), None);
        assert_eq!(elements(" [ ] ", 0), Some(vec![]));
        // Not an array of objects, or not one array: left to a full parser.
        for text in [
            "",
            "{}",
            "[1]",
            r#"[{}, "x"]"#,
            "[{},]",
            "[,{}]",
            "[{} {}]",
            "[{}] x",
            "[{}",
            r#"[{"a": "]}"#,
        ] {
            assert_eq!(elements(text, 8), None, "{text}");
        }
        // Nesting: the element itself is level 1.
        assert_eq!(
            elements(r#"[{"a": [{}]}]"#, 3),
            Some(vec![r#"{"a": [{}]}"#])
        );
        assert_eq!(elements(r#"[{"a": [{}]}]"#, 2), None);
        assert_eq!(elements(r#"[{"b": [1, {"c": {}}]}]"#, 3), None);
    }

    #[test]
    fn the_text_at_a_path_is_found_as_written() {
        use crate::json::Step::{Element, Member};
        let s = r#" {"parts": [ {"text": "a\u00e9"} , "x\ud83d" ], "k": 1, "k": [2 ]} "#;
        assert_eq!(
            text_at(s, &[Member("k")]),
            Some("[2 ]"),
            "the last of a key given twice"
        );
        assert_eq!(
            text_at(s, &[Member("parts")]),
            Some(r#"[ {"text": "a\u00e9"} , "x\ud83d" ]"#)
        );
        let first = [Member("parts"), Element(0), Member("text")];
        assert_eq!(text_at(s, &first), Some(r#""a\u00e9""#));
        assert_eq!(
            text_at(s, &[Member("parts"), Element(1)]),
            Some(r#""x\ud83d""#)
        );
        assert_eq!(text_at(s, &[Member("parts"), Element(2)]), None);
        assert_eq!(text_at(s, &[]), Some(s.trim()));
        assert_eq!(text_at("[]", &[Element(0)]), None);
        assert_eq!(text_at("{}", &[Member("a")]), None);
        assert_eq!(text_at(s, &[Element(0)]), None, "not an array");
        assert_eq!(
            text_at(s, &[Member("parts"), Member("text")]),
            None,
            "not an object"
        );
        assert_eq!(text_at("[1, }", &[Element(1)]), None, "not JSON");
        assert_eq!(text_at(r#"{"a" 1}"#, &[Member("a")]), None, "not JSON");
    }

    #[test]
    fn the_word_compare_is_starts_with() {
        use proptest::prelude::*;
        proptest!(|(rest in prop::collection::vec(b'a'..=b'c', 0..20), name in prop::collection::vec(b'a'..=b'c', 0..18))| {
            prop_assert_eq!(starts_with_words(&rest, &name), rest.starts_with(&name));
        });
    }

    #[test]
    fn the_word_equality_is_slice_equality() {
        use proptest::prelude::*;
        // Two letters, so that equal strings and strings differing in one byte of a word or of
        // the tail both come up.
        proptest!(|(a in prop::collection::vec(b'a'..=b'b', 0..20), b in prop::collection::vec(b'a'..=b'b', 0..20), flip in 0usize..20)| {
            prop_assert_eq!(eq_words(&a, &b), a == b);
            prop_assert!(eq_words(&a, &a.clone()));
            let mut c = a.clone();
            if let Some(x) = c.get_mut(flip) {
                *x ^= 1;
                prop_assert!(!eq_words(&a, &c));
            }
        });
    }

    #[test]
    fn a_literal_reads_the_value_only_when_it_is_exactly_that_string() {
        let text = br#"{"a":"content" ,"b":"contents","c":"con\u0074ent","d":"conte","e":true}"#;
        let mut m = Members::new(text, 8).unwrap();
        let key = |m: &mut Members<'_>| match m.key(|_| None::<((), usize)>) {
            Some(Some(Key::Other(k))) => k.to_owned(),
            other => panic!("{other:?}"),
        };
        assert_eq!(key(&mut m), "a");
        assert!(
            m.literal(br#""content""#),
            "the value and the whitespace after it are read"
        );
        assert_eq!(key(&mut m), "b");
        assert!(
            !m.literal(br#""content""#),
            "a longer string is not the literal"
        );
        assert_eq!(m.value(), Some(Scanned::Str(Cow::Borrowed("contents"))));
        assert_eq!(key(&mut m), "c");
        assert!(
            !m.literal(br#""content""#),
            "an escaped string is left to `value`"
        );
        assert_eq!(m.value(), Some(Scanned::Str(Cow::Owned("content".into()))));
        assert_eq!(key(&mut m), "d");
        assert!(!m.literal(br#""content""#), "nor is a shorter one");
        assert_eq!(m.value(), Some(Scanned::Str(Cow::Borrowed("conte"))));
        assert_eq!(key(&mut m), "e");
        assert!(!m.literal(br#""true""#));
        assert!(m.literal(b"true"), "a literal is any JSON text");
        assert_eq!(m.key(|_| None::<((), usize)>), Some(None));
        // A literal longer than what is left, at the end of the text.
        let mut m = Members::new(br#"{"a":"con"#, 8).unwrap();
        assert_eq!(key(&mut m), "a");
        assert!(!m.literal(br#""content""#));
        assert_eq!(m.value(), None);
    }

    #[test]
    fn a_recognized_key_is_taken_only_when_its_closing_quote_follows() {
        let known = |rest: &[u8]| rest.starts_with(b"ab").then_some(((), 2));
        let mut m = Members::new(br#"{"ab":1,"abc":2, "a" :3,"ab\u0063":4}"#, 8).unwrap();
        assert_eq!(
            m.next(known),
            Some(Some((Key::Known(()), Scanned::UInt(1))))
        );
        assert_eq!(
            m.next(known),
            Some(Some((Key::Other("abc"), Scanned::UInt(2))))
        );
        assert_eq!(
            m.next(known),
            Some(Some((Key::Other("a"), Scanned::UInt(3))))
        );
        assert_eq!(
            m.next(known),
            None,
            "an escaped key is left to a full parser"
        );
    }

    #[test]
    fn anything_irregular_is_left_to_a_full_parser() {
        for text in [
            "",
            "[]",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":1} x",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":-}",
            "{\"a\":tru}",
            "{\"a\":nul}",
            "{\"a\":\"x\u{1}\"}",
            "{\"a\":\"unterminated}",
            "{\"k\\u0041\":1}",
            "{a:1}",
            "{\"a\":[1,2}",
            "{\"a\":\"\\x\"}",
            "{\"a\":1 \"b\":2}",
            "{\"a\":+1}",
            "{\"a\":1e}",
        ] {
            assert!(members(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn the_word_search_finds_the_first_special_byte() {
        use proptest::prelude::*;
        // Mostly plain bytes (ASCII and UTF-8 continuation/lead bytes), with quotes, backslashes
        // and control characters sprinkled in, at every length around the word and SIMD sizes.
        let byte = prop_oneof![
            30 => 0x20u8..=0xff,
            1 => prop::sample::select(vec![b'"', b'\\', 0, 0x1f, b'\n', 0x7f, 0x80, 0xa2, 0xdc]),
        ];
        // Past the word loop, a control character with no quote after it (found by this test).
        let mut long = vec![b' '; 40];
        long.push(0);
        assert_eq!(next_special(&long, 0), Some((40, false))); // (past the word search: not known)
                                                               // Non-ASCII bytes before the special one, in a word, in the last bytes of a longer text
                                                               // and in a text shorter than a word; and after it (not counted).
        assert_eq!(next_special(b"abcd\xc3\xa9fgh\"", 0), Some((9, false)));
        assert_eq!(next_special(b"abcdefghi\xc3\xa9\"", 2), Some((11, false)));
        assert_eq!(next_special(b"\xc3\xa9\"", 0), Some((2, false)));
        assert_eq!(next_special(b"ab\"\xc3\xa9", 0), Some((2, true)));
        assert_eq!(next_special(b"abcdefg\"\xc3\xa9", 1), Some((7, true)));
        proptest!(|(bytes in prop::collection::vec(byte, 0..160), from in 0usize..160)| {
            let naive = bytes
                .get(from..)
                .and_then(|rest| rest.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20))
                .map(|k| from + k);
            prop_assert_eq!(next_special(&bytes, from).map(|(k, _)| k), naive, "{:?} from {}", bytes, from);
            // What it says of the bytes before the one found: ASCII only when they are, and
            // always said of ASCII bytes the word search covered (not the long-string search).
            if let (Some((k, ascii)), Some(searched)) = (next_special(&bytes, from), bytes.get(from..)) {
                let before = &searched[..k - from];
                prop_assert!(!ascii || before.is_ascii(), "{:?} from {}", bytes, from);
                if before.is_ascii() && before.len() < SHORT_STRING {
                    prop_assert!(ascii, "{:?} from {}", bytes, from);
                }
            }
        });
    }

    #[test]
    fn text_that_is_not_utf8_is_left_to_a_full_parser() {
        use proptest::prelude::*;
        // Objects whose keys, string values and nested values hold bytes of every kind (invalid
        // UTF-8 among them: lone continuation bytes, truncated and overlong sequences,
        // surrogates), at every position of the word search.
        let piece = prop_oneof![
            4 => "[a-z \u{e9}\u{6771}\u{1f600}]{0,12}".prop_map(String::into_bytes),
            1 => prop::collection::vec(any::<u8>(), 0..12),
            1 => prop::sample::select(vec![
                vec![0x80], vec![0xc3], vec![0xe6, 0x9d], vec![0xc0, 0xaf], vec![0xed, 0xa0, 0x80],
                vec![0xf4, 0x90, 0x80, 0x80], vec![0xff],
            ]),
        ];
        let string = prop::collection::vec(piece, 0..4).prop_map(|p| {
            let mut s = vec![b'"'];
            s.extend(
                p.concat()
                    .into_iter()
                    .filter(|&c| c != b'"' && c != b'\\' && c >= 0x20),
            );
            s.push(b'"');
            s
        });
        let value = prop_oneof![
            3 => string.clone(),
            1 => string.clone().prop_map(|s| [b"[".to_vec(), s, b"]".to_vec()].concat()),
            1 => string.clone().prop_map(|s| [b"{\"k\":".to_vec(), s, b"}".to_vec()].concat()),
            1 => Just(b"12".to_vec()),
        ];
        let member = (string, value).prop_map(|(k, v)| [k, b":".to_vec(), v].concat());
        proptest!(|(members in prop::collection::vec(member, 0..5))| {
            let text = [b"{".to_vec(), members.join(&b","[..]), b"}".to_vec()].concat();
            let mut read = Vec::new();
            let scanned = Members::new(&text, 64).and_then(|mut m| {
                while let Some((key, value)) = m.next(|_| None::<(std::convert::Infallible, usize)>)? {
                    let Key::Other(key) = key;
                    read.push((key.to_owned(), value.into_value()?));
                }
                Some(())
            });
            let utf8 = std::str::from_utf8(&text).is_ok();
            prop_assert_eq!(scanned.is_some(), utf8, "{:?}", String::from_utf8_lossy(&text));
            if utf8 {
                let expected: Vec<(String, serde_json::Value)> =
                    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&text)
                        .unwrap()
                        .into_iter()
                        .collect();
                // (A repeated key: serde_json's map keeps the last value, in the first's place.)
                let mut deduped = serde_json::Map::new();
                for (k, v) in read {
                    deduped.insert(k, v);
                }
                prop_assert_eq!(deduped.into_iter().collect::<Vec<_>>(), expected);
            }
        });
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_left_to_a_full_parser() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(10), "]".repeat(10));
        assert!(scan_object(&deep, 11, |_, _| Some(())).is_some());
        assert!(scan_object(&deep, 10, |_, _| Some(())).is_none());
    }

    #[test]
    fn whenever_it_answers_it_agrees_with_serde_json() {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            any::<bool>().prop_map(serde_json::Value::Bool),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            ".*".prop_map(serde_json::Value::String),
            Just(serde_json::Value::Null),
        ];
        let value = leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
                prop::collection::btree_map(".{0,6}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        });
        proptest!(|(map in prop::collection::btree_map("[a-z_]{1,8}", value, 0..8), pretty in any::<bool>())| {
            let object = serde_json::Value::Object(map.into_iter().collect());
            let text = if pretty { serde_json::to_string_pretty(&object).unwrap() } else { object.to_string() };
            let mut rebuilt = serde_json::Map::new();
            let scanned = scan_object(&text, 64, |k, v| {
                rebuilt.insert(k.to_owned(), v.into_value()?);
                Some(())
            });
            prop_assert!(scanned.is_some(), "{}", text);
            // (Compared with serde_json's own reading of the text: without its float_roundtrip
            // feature, a float may not read back to the bits it was written from.)
            let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(serde_json::Value::Object(rebuilt), expected);
        });
    }

    #[test]
    fn arbitrary_text_never_panics_and_never_accepts_what_serde_json_refuses() {
        // (What serde_json refuses once lone surrogates are replaced: they read as U+FFFD.)
        use proptest::prelude::*;
        proptest!(|(text in "[ {}\\[\\]\":,a-z0-9.eE+\\-\\\\\u{0}-\u{1f}]{0,40}")| {
            let ok = scan_object(&text, 64, |_, v| v.into_value().map(drop)).is_some();
            if ok {
                let oracle = crate::json::replace_lone_surrogates(&text);
                prop_assert!(serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&oracle).is_ok(), "{:?}", text);
            }
        });
    }

    /// `unescape` reads every string content as serde_json reads the quoted string with its lone
    /// surrogates replaced by `\ufffd` (`replace_lone_surrogates`), and declines (`None`) exactly
    /// what serde_json then refuses: invalid escapes, a truncated `\u`.
    #[test]
    fn unescape_reads_strings_as_serde_json() {
        use proptest::prelude::*;
        let serde = |content: &str| {
            let quoted = crate::json::replace_lone_surrogates(&format!("\"{content}\""));
            serde_json::from_str::<String>(&quoted).ok()
        };
        // Unpaired or misordered surrogates read as U+FFFD, one for each.
        for (content, read) in [
            (r"\ud83d", "\u{fffd}"),
            (r"a\ud83d x", "a\u{fffd} x"),
            (r"\ud83d\u0041", "\u{fffd}A"),
            (r"\ude00\ud83d", "\u{fffd}\u{fffd}"),
            (r"\ud83d\ud83d\ude00", "\u{fffd}\u{1f600}"),
            (r"\ud83d\n", "\u{fffd}\n"),
        ] {
            assert_eq!(
                unescape(&format!("\"{content}\"")).as_deref(),
                Some(read),
                "{content:?}"
            );
        }
        assert_eq!(
            unescape(r#""\ud83d\u12""#),
            None,
            "the escape after it is still checked"
        );
        for content in [
            r"plain",
            r#"a\nb\tc\\d\/e\"f\b\f\r"#,
            r"\u00e9\u00E9 caf\u00e9",
            r"\ud83d\ude00 smile",
            r"\uD83D\uDE00",
            r"\u0000",
            r"\ud83d",
            r"\ud83d x",
            r"\ud83d\u0041",
            r"\ude00",
            r"\u12",
            r"\u12g4",
            r"\x",
            r"\",
            "東京\\n",
        ] {
            assert_eq!(
                unescape(&format!("\"{content}\"")),
                serde(content),
                "{content:?}"
            );
        }
        let token = prop_oneof![
            "[a-z é東]{0,3}",
            r#"\\[\"\\/bfnrtxu]"#,
            r"\\u[0-9a-fA-F]{4}",
            r"\\u[dD][89abAB][0-9a-fA-F]{2}",
            r"\\u[dD][c-fC-F][0-9a-fA-F]{2}",
            r"\\u[0-9a-g]{0,4}",
        ];
        proptest!(|(tokens in prop::collection::vec(token, 0..8))| {
            let content = tokens.concat();
            prop_assert_eq!(unescape(&format!("\"{content}\"")), serde(&content), "{:?}", content);
        });
    }

    /// `tree_of` gives serde_json's tree for every JSON value, and its own reader (`tree_at`)
    /// answers for those without floats or long integers; on any text where `tree_at` answers,
    /// serde_json reads the same tree.
    #[test]
    fn tree_at_reads_as_serde_json() {
        use proptest::prelude::*;
        use serde_json::Value;
        let serde = |text: &str| serde_json::from_str::<Value>(text).ok();
        let own = |text: &str| match tree_at(text, skip_ws(text.as_bytes(), 0), TREE_DEPTH) {
            Some((v, end)) if end == text.len() => Some(v),
            _ => None,
        };
        for (text, answers) in [
            (
                r#"{"a": [1, -2, "x\ny", true, false, null, {}], "b": {"c": []}}"#,
                true,
            ),
            (r#" { "a" : 1 , "a" : 2 } "#, true),
            (r#"{"\u00e9\"": "\ud83d\ude00"}"#, true),
            ("[999999999999999999, -999999999999999999, 0]", true),
            ("[1000000000000000000]", true),
            (
                "[18446744073709551615, 18446744073709551616, -9223372036854775808]",
                true,
            ),
            (
                "[-9223372036854775809, 123456789012345678901234567890]",
                true,
            ),
            ("-0", true),
            ("[-0, -0.0, 0.0, 0e5, -0E-5]", true),
            ("01", false),
            ("-", false),
            ("1.", false),
            (".5", false),
            ("1e", false),
            ("1e+", false),
            ("-01", false),
            ("1.5", true),
            (
                "[1e5, 1E+5, 1e-5, 2.5e-324, 1.7976931348623157e308, 1758972921.8811321]",
                true,
            ),
            ("[1e400]", false),
            ("[-1e400]", false),
            ("[1e-400, 1e-99999999999999999999]", true),
            ("[1,]", false),
            (r#"{"a":1,}"#, false),
            (r#"{"a" 1}"#, false),
            ("[\"\u{1}\"]", false),
            (r#"{"a":"\x"}"#, false),
            ("[1] x", false),
            ("", false),
        ] {
            assert_eq!(own(text).is_some(), answers, "{text:?}");
            if let Some(v) = own(text) {
                assert_eq!(Some(v), serde(text), "{text:?}");
            }
            assert_eq!(tree_of(text), serde(text), "{text:?}");
        }
        // serde_json refuses lone surrogates; they read as U+FFFD (`replace_lone_surrogates`).
        let text = r#"["\ud800", {"\udc00k": "\ud83d\ud83d\ude00"}]"#;
        assert_eq!(serde(text), None);
        assert_eq!(
            own(text),
            serde(&crate::json::replace_lone_surrogates(text))
        );
        assert_eq!(tree_of(text), own(text));
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(own(&deep), None);
        for depth in [127, 128] {
            let deep = "[".repeat(depth) + &"]".repeat(depth);
            assert_eq!(own(&deep), serde(&deep), "{depth}");
        }
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1000i64..1000).prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "[a-z é東\u{1}\"\\\\/\u{7f}\u{1F600}]{0,6}".prop_map(Value::String),
        ];
        let value = leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z\"\\\\é]{0,3}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        proptest!(|(v in value, pretty in any::<bool>())| {
            let text = if pretty {
                serde_json::to_string_pretty(&v).unwrap()
            } else {
                serde_json::to_string(&v).unwrap()
            };
            prop_assert_eq!(tree_of(&text), serde(&text), "{}", text);
            prop_assert_eq!(own(&text), serde(&text), "{}", text);
        });
        proptest!(|(text in "[ {}\\[\\]\":,a-z0-9.eE+\\-\\\\\u{0}-\u{1f}]{0,40}")| {
            prop_assert_eq!(own(&text), serde(&text), "{:?}", text);
        });
        // Numbers: any literal of the grammar, and near misses.
        proptest!(|(text in "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?|[-+0-9.eE]{1,12}")| {
            prop_assert_eq!(own(&text), serde(&text), "{:?}", text);
        });
    }
}
