//! The incremental parser: a byte-at-a-time state machine over [RFC 8259] with an explicit stack of
//! open containers, editing its value in place.
//!
//! [RFC 8259]: https://www.rfc-editor.org/rfc/rfc8259

#[cfg(test)]
use serde::Deserialize;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{PartialChange, PartialJsonError, PathSegment};
use agentwire_core::json::{Fields, MAX_DEPTH};

/// Open numbers whose text is longer than this many bytes are not shown until they are complete
/// (re-reading a long number after every one-digit delta would make parsing quadratic).
pub const MAX_PARTIAL_NUMBER_LEN: usize = 64;

/// Limits of a [`PartialJson`]. JSON (camelCase): `{"maxDepth": 64, "maxBytes": 4194304}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase", default)]
pub struct PartialJsonLimits {
    /// How many arrays and objects may be open at once (`[[1]]` is 2 levels). Default 64 (for a
    /// tool call's arguments, [`StreamedArguments`](crate::tool::StreamedArguments) defaults to
    /// [`MAX_ARGUMENTS_DEPTH`](crate::tool::MAX_ARGUMENTS_DEPTH), 127, the depth validation reads).
    /// At most [`MAX_DEPTH`] (127, the JSON reader's own limit): a larger value is read as 127.
    /// A value is written to JavaScript, cloned and dropped recursively, and until stop 61 a
    /// `maxDepth` of 10^9 let 12,000 levels through, which overflowed wasm's stack when the
    /// value was read (the module died).
    #[cfg_attr(test, serde(deserialize_with = "saturating"))]
    pub max_depth: usize,
    /// The most bytes of UTF-8 text the parser accepts, all pushes together. Default 4 MiB
    /// (4,194,304 bytes).
    #[cfg_attr(test, serde(deserialize_with = "saturating"))]
    pub max_bytes: usize,
}

/// A limit read as a `u64`, saturating to `usize::MAX`: in wasm a `usize` is 32 bits, and a
/// JavaScript `maxDepth` of 10^10 is as valid as one of 10^9 (it was refused: "expected usize").
fn saturate(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// [`saturate`] for the derived reader of the tests.
#[cfg(test)]
fn saturating<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    u64::deserialize(d).map(saturate)
}

agentwire_core::deserialize_by_fields!(PartialJsonLimits, "struct PartialJsonLimits");

impl PartialJsonLimits {
    /// Reads the fields as the derived reader would (see `agentwire_core::json::Fields`).
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        let d = Self::default();
        Ok(Self {
            // (`u64` as `Saturating` reads it: its reader is compiled for other fields already.)
            max_depth: saturate(f.or("maxDepth", d.max_depth as u64)?),
            max_bytes: saturate(f.or("maxBytes", d.max_bytes as u64)?),
        })
    }
}

impl Default for PartialJsonLimits {
    fn default() -> Self {
        Self {
            max_depth: 64,
            max_bytes: 4 * 1024 * 1024,
        }
    }
}

/// An incremental JSON parser that keeps a best-effort value of the text so far.
///
/// Push the text in pieces of any size with [`push`](Self::push) (each is read once); read
/// [`value`](Self::value) and [`changes`](Self::changes) after each; call
/// [`finish`](Self::finish) at the end. The [module documentation](super) lists exactly what a
/// partial value shows.
///
/// ```
/// use agentwire::json::PartialJson;
/// use serde_json::json;
///
/// let mut p = PartialJson::new(Default::default());
/// for delta in ["{\"query\": \"rust", " wasm\", \"top_k\": 1", "0}"] {
///     p.push(delta)?;
/// }
/// assert_eq!(p.finish()?, json!({"query": "rust wasm", "top_k": 10}));
/// # Ok::<(), agentwire::json::PartialJsonError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PartialJson {
    limits: PartialJsonLimits,
    root: Option<Value>,
    frames: Vec<Frame>,
    mode: Mode,
    /// Bytes consumed by earlier pushes.
    offset: usize,
    /// The open number's text.
    number: String,
    /// Where the open number starts (byte offset).
    number_start: usize,
    /// `number.len()` when the number was last shown; 0 when it is not shown.
    number_shown: usize,
    /// The length of the longest prefix of `number`, at most [`MAX_PARTIAL_NUMBER_LEN`] bytes,
    /// that is a complete number (0 when none is).
    number_complete: usize,
    changes: Vec<PartialChange>,
    /// The first bytes of a character split across [`push_bytes`](Self::push_bytes) calls.
    utf8_tail: [u8; 4],
    utf8_tail_len: u8,
    /// Whether the last entry of `changes` is an append to the open string.
    appending: bool,
    error: Option<PartialJsonError>,
}

/// An open array or object, and where its current member is.
#[derive(Debug, Clone)]
enum Frame {
    /// `count` elements came before the current one (so it has index `count`); `shown` says
    /// whether the current one is in the value yet.
    Array { count: usize, shown: bool },
    /// The current member's key (being read, or read); `shown` as for arrays.
    Object { key: String, shown: bool },
}

/// Where the parser is in the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A value must come: at the start, after `:`, after `,` in an array.
    Value,
    /// Just after `[`: a value or `]`.
    ArrayStart,
    /// Just after `{`: a key or `}`.
    ObjectStart,
    /// After `,` in an object: a key.
    Key,
    /// Inside a key.
    KeyString(Escape),
    /// After a key: `:`.
    Colon,
    /// Inside a string value.
    ValueString(Escape),
    /// Inside a number.
    Number(Num),
    /// Inside `true`, `false` or `null`, `matched` bytes of `word` read.
    Literal { word: &'static [u8], matched: usize },
    /// After a value inside a container: `,` or the closing bracket.
    AfterValue,
    /// The root value is complete: only whitespace may follow.
    Done,
}

/// Where the parser is inside an escape sequence of a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// Not in an escape.
    None,
    /// After `\`.
    Backslash,
    /// After `\u` and `digits` hex digits making `code`.
    Hex { code: u32, digits: u8 },
    /// After a high surrogate's `\uXXXX`: `\` must follow.
    LowBackslash { high: u32 },
    /// After a high surrogate and `\`: `u` must follow.
    LowU { high: u32 },
    /// After a high surrogate and `\u` and `digits` hex digits making `code`.
    LowHex { high: u32, code: u32, digits: u8 },
}

/// The number grammar of RFC 8259 section 6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

impl Num {
    /// Whether the text so far is a complete number.
    fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
    }

    /// The state after `b`, or `None` when `b` cannot continue the number.
    fn next(self, b: u8) -> Option<Num> {
        let digit = b.is_ascii_digit();
        match self {
            Num::Minus if b == b'0' => Some(Num::Zero),
            Num::Minus | Num::Int if digit => Some(Num::Int),
            Num::Zero | Num::Int | Num::Frac if b == b'e' || b == b'E' => Some(Num::Exp),
            Num::Zero | Num::Int if b == b'.' => Some(Num::Dot),
            Num::Dot | Num::Frac if digit => Some(Num::Frac),
            Num::Exp if b == b'+' || b == b'-' => Some(Num::ExpSign),
            Num::Exp | Num::ExpSign | Num::ExpDigits if digit => Some(Num::ExpDigits),
            _ => None,
        }
    }
}

const TRUE: &[u8] = b"true";
const FALSE: &[u8] = b"false";
const NULL: &[u8] = b"null";

fn is_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn hex_value(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// The value reached from `root` by following each frame's current member.
fn walk<'a>(root: &'a mut Option<Value>, frames: &[Frame]) -> Option<&'a mut Value> {
    let mut cur = root.as_mut()?;
    for frame in frames {
        cur = match (frame, cur) {
            (Frame::Array { count, .. }, Value::Array(a)) => a.get_mut(*count)?,
            // The open member is the object's last (members are added in the text's order and
            // the map keeps that order), found without hashing its name; a name given twice
            // replaces the first member's value in its place, found by name.
            (Frame::Object { key, .. }, Value::Object(m)) => {
                if m.keys().next_back() == Some(key) {
                    m.values_mut().next_back()?
                } else {
                    m.get_mut(key.as_str())?
                }
            }
            _ => return None,
        };
    }
    Some(cur)
}

impl PartialJson {
    /// A parser with the given limits (`PartialJsonLimits::default()`: 64 levels, 4 MiB); a
    /// `max_depth` above [`MAX_DEPTH`] (127) is read as 127.
    pub fn new(mut limits: PartialJsonLimits) -> Self {
        limits.max_depth = limits.max_depth.min(MAX_DEPTH);
        Self {
            limits,
            root: None,
            frames: Vec::new(),
            mode: Mode::Value,
            offset: 0,
            number: String::new(),
            number_start: 0,
            number_shown: 0,
            number_complete: 0,
            changes: Vec::new(),
            utf8_tail: [0; 4],
            utf8_tail_len: 0,
            appending: false,
            error: None,
        }
    }

    /// The limits this parser was made with.
    pub fn limits(&self) -> PartialJsonLimits {
        self.limits
    }

    /// Reads the next piece of the text. Each byte is read once: the cost is linear in
    /// `delta.len()`, plus a walk from the root to the open value for each token (at most
    /// [`max_depth`](PartialJsonLimits::max_depth) steps). Clears and refills
    /// [`changes`](Self::changes).
    ///
    /// # Errors
    ///
    /// [`PartialJsonError::Syntax`], [`TooDeep`](PartialJsonError::TooDeep),
    /// [`TrailingCharacters`](PartialJsonError::TrailingCharacters) and
    /// [`NumberOutOfRange`](PartialJsonError::NumberOutOfRange) at the offending byte (what came before
    /// it in the push is applied); [`TooLarge`](PartialJsonError::TooLarge) when the text would
    /// exceed [`max_bytes`](PartialJsonLimits::max_bytes) (nothing of the push is applied). After
    /// an error every later push returns the same error.
    pub fn push(&mut self, delta: &str) -> Result<(), PartialJsonError> {
        self.begin_push()?;
        let result = if self.utf8_tail_len > 0 {
            // The bytes pushed before end inside a character that `delta` cannot complete.
            Err(PartialJsonError::InvalidUtf8 {
                offset: self.offset,
            })
        } else {
            self.check_size(delta.len())
                .and_then(|()| self.feed(delta))
                .map(|()| self.show_open_number())
        };
        self.end_push(result)
    }

    /// Reads the next piece of the text as UTF-8 bytes, which may end (and the next piece begin)
    /// in the middle of a character: the incomplete character (at most 3 bytes) is held until the
    /// next push completes it. Otherwise as [`push`](Self::push).
    ///
    /// # Errors
    ///
    /// As [`push`](Self::push), and [`PartialJsonError::InvalidUtf8`] at the first byte that is
    /// not UTF-8 (`serde_json::from_slice` refuses it too).
    pub fn push_bytes(&mut self, delta: &[u8]) -> Result<(), PartialJsonError> {
        self.begin_push()?;
        let result = self
            .check_size(usize::from(self.utf8_tail_len).saturating_add(delta.len()))
            .and_then(|()| self.feed_bytes(delta))
            .map(|()| self.show_open_number());
        self.end_push(result)
    }

    fn begin_push(&mut self) -> Result<(), PartialJsonError> {
        self.changes.clear();
        self.appending = false;
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn end_push(&mut self, result: Result<(), PartialJsonError>) -> Result<(), PartialJsonError> {
        if let Err(e) = &result {
            self.error = Some(e.clone());
        }
        result
    }

    /// Refuses a push of `len` more bytes past [`max_bytes`](PartialJsonLimits::max_bytes).
    fn check_size(&self, len: usize) -> Result<(), PartialJsonError> {
        let size = self.offset.saturating_add(len);
        if size > self.limits.max_bytes {
            return Err(PartialJsonError::TooLarge {
                limit: self.limits.max_bytes,
                size,
            });
        }
        Ok(())
    }

    /// Runs the state machine over `text` and counts its bytes.
    fn feed(&mut self, text: &str) -> Result<(), PartialJsonError> {
        let result = self.run(text);
        self.offset += text.len();
        result
    }

    /// Decodes UTF-8 (completing a character held from the last push) and feeds it.
    fn feed_bytes(&mut self, mut bytes: &[u8]) -> Result<(), PartialJsonError> {
        let invalid = |offset| PartialJsonError::InvalidUtf8 { offset };
        if self.utf8_tail_len > 0 {
            let mut buf = self.utf8_tail;
            let have = usize::from(self.utf8_tail_len);
            let [lead, ..] = buf;
            let want = utf8_char_len(lead);
            let take = want.saturating_sub(have).min(bytes.len());
            let (head, rest) = bytes.split_at(take);
            if let Some(slot) = buf.get_mut(have..have + take) {
                slot.copy_from_slice(head);
            }
            bytes = rest;
            if have + take < want {
                // Still incomplete; check what is there so far.
                let so_far = buf.get(..have + take).unwrap_or_default();
                return match std::str::from_utf8(so_far) {
                    Err(e) if e.error_len().is_none() => {
                        self.utf8_tail = buf;
                        self.utf8_tail_len = (have + take) as u8;
                        Ok(())
                    }
                    _ => Err(invalid(self.offset)),
                };
            }
            self.utf8_tail_len = 0;
            let c = buf.get(..want).and_then(|b| std::str::from_utf8(b).ok());
            let mut char_buf = [0u8; 4];
            let Some(c) = c.and_then(|s| s.chars().next()) else {
                return Err(invalid(self.offset));
            };
            self.feed(c.encode_utf8(&mut char_buf))?;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => self.feed(text),
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                // `valid` is UTF-8 by construction.
                self.feed(std::str::from_utf8(valid).unwrap_or_default())?;
                match e.error_len() {
                    None => match self.utf8_tail.get_mut(..rest.len()) {
                        Some(slot) => {
                            slot.copy_from_slice(rest);
                            self.utf8_tail_len = rest.len() as u8;
                            Ok(())
                        }
                        None => Err(invalid(self.offset)),
                    },
                    _ => Err(invalid(self.offset)),
                }
            }
        }
    }

    /// The best-effort value of the text so far (see the [module documentation](super) for what
    /// it shows); `None` until a value has begun to appear. Borrowed: it is kept up to date in
    /// place, never rebuilt.
    pub fn value(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    /// What the last [`push`](Self::push) changed in [`value`](Self::value), in order. Empty after
    /// a push that changed nothing visible (e.g. one inside a pending key).
    pub fn changes(&self) -> &[PartialChange] {
        &self.changes
    }

    /// Whether the root value is complete (only whitespace may follow). A number at the root is
    /// complete only once something follows it, or at [`finish`](Self::finish).
    pub fn is_complete(&self) -> bool {
        self.mode == Mode::Done && self.error.is_none()
    }

    /// How many bytes the pushes so far have consumed (UTF-8; not counting the bytes of a
    /// character that [`push_bytes`](Self::push_bytes) holds until it is complete).
    pub fn bytes_pushed(&self) -> usize {
        self.offset
    }

    /// The error that stopped the parser, if any.
    pub fn error(&self) -> Option<&PartialJsonError> {
        self.error.as_ref()
    }

    /// Forgets everything pushed (and any error), keeping the limits and the allocated buffers.
    pub fn reset(&mut self) {
        self.root = None;
        self.frames.clear();
        self.mode = Mode::Value;
        self.offset = 0;
        self.number.clear();
        self.number_start = 0;
        self.number_shown = 0;
        self.number_complete = 0;
        self.changes.clear();
        self.utf8_tail_len = 0;
        self.appending = false;
        self.error = None;
    }

    /// The best-effort value as it stands, without checking that the text is complete (for a
    /// stream that ended early).
    pub fn into_value(self) -> Option<Value> {
        self.root
    }

    /// Ends the text and returns its value, equal to `serde_json::from_str` of the whole text.
    ///
    /// # Errors
    ///
    /// The error of an earlier push, if any; [`PartialJsonError::UnexpectedEnd`] when the value is
    /// not complete (including empty text); [`NumberOutOfRange`](PartialJsonError::NumberOutOfRange)
    /// for a root number such as `1e400`.
    pub fn finish(mut self) -> Result<Value, PartialJsonError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.utf8_tail_len > 0 {
            return Err(PartialJsonError::InvalidUtf8 {
                offset: self.offset,
            });
        }
        if let Mode::Number(state) = self.mode {
            if self.frames.is_empty() && state.complete() {
                self.end_number()?;
            }
        }
        let expected = self.expected();
        match (self.mode, self.root) {
            (Mode::Done, Some(value)) => Ok(value),
            _ => Err(PartialJsonError::UnexpectedEnd {
                offset: self.offset,
                expected,
            }),
        }
    }

    /// Runs the state machine over one push.
    fn run(&mut self, delta: &str) -> Result<(), PartialJsonError> {
        let bytes = delta.as_bytes();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match self.mode {
                Mode::KeyString(_) | Mode::ValueString(_) => {
                    i = self.string(delta, i)?;
                    continue;
                }
                Mode::Number(state) => {
                    match state.next(b) {
                        Some(next) => {
                            self.number.push(char::from(b));
                            self.mode = Mode::Number(next);
                            if next.complete() && self.number.len() <= MAX_PARTIAL_NUMBER_LEN {
                                self.number_complete = self.number.len();
                            }
                            i += 1;
                        }
                        None if state.complete() => self.end_number()?,
                        None => return Err(self.syntax(delta, i, "a digit")),
                    }
                    continue;
                }
                Mode::Literal { word, matched } => {
                    if word.get(matched) != Some(&b) {
                        return Err(self.syntax(delta, i, literal_rest(word)));
                    }
                    i += 1;
                    if matched + 1 < word.len() {
                        self.mode = Mode::Literal {
                            word,
                            matched: matched + 1,
                        };
                    } else {
                        let value = match word.first() {
                            Some(b't') => Value::Bool(true),
                            Some(b'f') => Value::Bool(false),
                            _ => Value::Null,
                        };
                        self.set_current(value);
                        self.after_value();
                    }
                    continue;
                }
                _ => {}
            }
            if is_whitespace(b) {
                i += 1;
                continue;
            }
            match self.mode {
                Mode::Value => self.begin_value(delta, i)?,
                Mode::ArrayStart if b == b']' => self.close(),
                Mode::ArrayStart => self.begin_value(delta, i)?,
                Mode::ObjectStart if b == b'}' => self.close(),
                Mode::ObjectStart | Mode::Key if b == b'"' => self.begin_key(),
                Mode::ObjectStart | Mode::Key | Mode::Colon | Mode::AfterValue => {
                    self.structural(delta, i, b)?
                }
                Mode::Done => {
                    return Err(PartialJsonError::TrailingCharacters {
                        offset: self.offset + i,
                        found: char_at(delta, i),
                    })
                }
                // Handled above.
                Mode::KeyString(_)
                | Mode::ValueString(_)
                | Mode::Number(_)
                | Mode::Literal { .. } => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// `:`, `,` and closing brackets.
    fn structural(&mut self, delta: &str, i: usize, b: u8) -> Result<(), PartialJsonError> {
        match (self.mode, b, self.frames.last_mut()) {
            (Mode::Colon, b':', _) => self.mode = Mode::Value,
            (Mode::AfterValue, b',', Some(Frame::Array { count, shown })) => {
                *count += 1;
                *shown = false;
                self.mode = Mode::Value;
            }
            (Mode::AfterValue, b',', Some(Frame::Object { .. })) => self.mode = Mode::Key,
            (Mode::AfterValue, b']', Some(Frame::Array { .. }))
            | (Mode::AfterValue, b'}', Some(Frame::Object { .. })) => self.close(),
            _ => return Err(self.syntax(delta, i, self.expected())),
        }
        Ok(())
    }

    /// What the grammar needs at this point, for error messages.
    fn expected(&self) -> &'static str {
        let after_value = match self.frames.last() {
            Some(Frame::Array { .. }) => "',' or ']'",
            Some(Frame::Object { .. }) => "',' or '}'",
            None => "the end of the text",
        };
        match self.mode {
            Mode::Value => "a JSON value",
            Mode::ArrayStart => "a JSON value or ']'",
            Mode::ObjectStart => "'\"' starting a key, or '}'",
            Mode::Key => "'\"' starting a key",
            Mode::KeyString(_) | Mode::ValueString(_) => "'\"' closing the string",
            Mode::Colon => "':'",
            Mode::Number(state) if state.complete() => after_value,
            Mode::Number(_) => "a digit",
            Mode::Literal { word, .. } => literal_rest(word),
            Mode::AfterValue | Mode::Done => after_value,
        }
    }

    fn syntax(&self, delta: &str, i: usize, expected: &'static str) -> PartialJsonError {
        PartialJsonError::Syntax {
            offset: self.offset + i,
            expected,
            found: char_at(delta, i),
        }
    }

    /// Starts the value whose first byte is at `i`.
    fn begin_value(&mut self, delta: &str, i: usize) -> Result<(), PartialJsonError> {
        let Some(&b) = delta.as_bytes().get(i) else {
            return Ok(());
        };
        match b {
            b'{' | b'[' => {
                if self.frames.len() >= self.limits.max_depth {
                    return Err(PartialJsonError::TooDeep {
                        offset: self.offset + i,
                        limit: self.limits.max_depth,
                    });
                }
                if b == b'{' {
                    self.set_current(Value::Object(Map::new()));
                    self.frames.push(Frame::Object {
                        key: String::new(),
                        shown: false,
                    });
                    self.mode = Mode::ObjectStart;
                } else {
                    self.set_current(Value::Array(Vec::new()));
                    self.frames.push(Frame::Array {
                        count: 0,
                        shown: false,
                    });
                    self.mode = Mode::ArrayStart;
                }
            }
            b'"' => {
                self.set_current(Value::String(String::new()));
                self.mode = Mode::ValueString(Escape::None);
            }
            b'-' | b'0'..=b'9' => {
                self.number.clear();
                self.number.push(char::from(b));
                self.number_start = self.offset + i;
                self.number_shown = 0;
                self.number_complete = usize::from(b != b'-');
                self.mode = Mode::Number(match b {
                    b'-' => Num::Minus,
                    b'0' => Num::Zero,
                    _ => Num::Int,
                });
            }
            b't' | b'f' | b'n' => {
                let word = match b {
                    b't' => TRUE,
                    b'f' => FALSE,
                    _ => NULL,
                };
                self.mode = Mode::Literal { word, matched: 1 };
            }
            _ => return Err(self.syntax(delta, i, self.expected())),
        }
        Ok(())
    }

    fn begin_key(&mut self) {
        if let Some(Frame::Object { key, shown }) = self.frames.last_mut() {
            key.clear();
            *shown = false;
        }
        self.mode = Mode::KeyString(Escape::None);
    }

    fn close(&mut self) {
        self.frames.pop();
        self.after_value();
    }

    fn after_value(&mut self) {
        self.mode = if self.frames.is_empty() {
            Mode::Done
        } else {
            Mode::AfterValue
        };
    }

    /// The path of the current value.
    fn path(&self) -> Vec<PathSegment> {
        self.frames
            .iter()
            .map(|f| match f {
                Frame::Array { count, .. } => PathSegment::Index(*count),
                Frame::Object { key, .. } => PathSegment::Key(key.clone()),
            })
            .collect()
    }

    /// Puts `value` at the current position (appending to the array, inserting the member, or
    /// replacing what is there) and records the change.
    fn set_current(&mut self, value: Value) {
        self.changes.push(PartialChange::Set {
            path: self.path(),
            value: value.clone(),
        });
        self.appending = false;
        let Some((last, parents)) = self.frames.split_last_mut() else {
            self.root = Some(value);
            return;
        };
        let container = walk(&mut self.root, parents);
        match (last, container) {
            (Frame::Array { count, shown }, Some(Value::Array(a))) => {
                if *shown {
                    if let Some(slot) = a.get_mut(*count) {
                        *slot = value;
                    }
                } else {
                    a.push(value);
                    *shown = true;
                }
            }
            (Frame::Object { key, shown }, Some(Value::Object(m))) => {
                m.insert(key.clone(), value);
                *shown = true;
            }
            _ => debug_assert!(false, "the open container is not where the frames say"),
        }
    }

    /// Appends decoded text to the open string value and records the change.
    fn append(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.changes.last_mut() {
            Some(PartialChange::Append { value, .. }) if self.appending => value.push_str(text),
            _ => {
                self.changes.push(PartialChange::Append {
                    path: self.path(),
                    value: text.to_owned(),
                });
                self.appending = true;
            }
        }
        match walk(&mut self.root, &self.frames) {
            Some(Value::String(s)) => s.push_str(text),
            _ => debug_assert!(false, "the open string is not where the frames say"),
        }
    }

    /// Decoded string text: into the pending key, or the open string value.
    fn string_text(&mut self, is_key: bool, text: &str) {
        if is_key {
            if let Some(Frame::Object { key, .. }) = self.frames.last_mut() {
                key.push_str(text);
            }
        } else {
            self.append(text);
        }
    }

    fn string_char(&mut self, is_key: bool, c: char) {
        let mut buf = [0u8; 4];
        self.string_text(is_key, c.encode_utf8(&mut buf));
    }

    /// The UTF-16 code unit of a complete `\uXXXX` escape that is not the low half of a pair: a
    /// high surrogate waits for its low half; a lone low surrogate reads as U+FFFD (as
    /// `JSON.parse` then `toWellFormed()` read it, and as `agentwire_core::json::parse_value`
    /// does); anything else is its character.
    fn code_unit(&mut self, is_key: bool, code: u32) {
        if (0xD800..0xDC00).contains(&code) {
            self.set_escape(is_key, Escape::LowBackslash { high: code });
        } else {
            let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
            self.string_char(is_key, c);
            self.set_escape(is_key, Escape::None);
        }
    }

    fn set_escape(&mut self, is_key: bool, escape: Escape) {
        self.mode = if is_key {
            Mode::KeyString(escape)
        } else {
            Mode::ValueString(escape)
        };
    }

    /// Reads string bytes from `i` (runs of plain characters at once) until the string ends or
    /// the push does; returns where it stopped.
    fn string(&mut self, delta: &str, mut i: usize) -> Result<usize, PartialJsonError> {
        let bytes = delta.as_bytes();
        let is_key = matches!(self.mode, Mode::KeyString(_));
        loop {
            let escape = match self.mode {
                Mode::KeyString(e) | Mode::ValueString(e) => e,
                _ => return Ok(i),
            };
            let Some(&b) = bytes.get(i) else {
                return Ok(i);
            };
            match escape {
                Escape::None => {
                    let start = i;
                    while let Some(&c) = bytes.get(i) {
                        if c == b'"' || c == b'\\' || c < 0x20 {
                            break;
                        }
                        i += 1;
                    }
                    if i > start {
                        // `start` and `i` sit next to ASCII bytes (or the ends), so on char
                        // boundaries.
                        self.string_text(is_key, delta.get(start..i).unwrap_or_default());
                    }
                    match bytes.get(i) {
                        None => return Ok(i),
                        Some(b'"') => {
                            if is_key {
                                self.mode = Mode::Colon;
                            } else {
                                self.after_value();
                            }
                            return Ok(i + 1);
                        }
                        Some(b'\\') => {
                            self.set_escape(is_key, Escape::Backslash);
                            i += 1;
                        }
                        Some(_) => {
                            return Err(self.syntax(
                                delta,
                                i,
                                "a string character (control characters must be escaped)",
                            ))
                        }
                    }
                }
                Escape::Backslash => {
                    let c = match b {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.set_escape(is_key, Escape::Hex { code: 0, digits: 0 });
                            i += 1;
                            continue;
                        }
                        _ => return Err(self.syntax(
                            delta,
                            i,
                            "an escape character: '\"', '\\', '/', 'b', 'f', 'n', 'r', 't' or 'u'",
                        )),
                    };
                    self.string_char(is_key, c);
                    self.set_escape(is_key, Escape::None);
                    i += 1;
                }
                Escape::Hex { code, digits } => {
                    let d = hex_value(b).ok_or_else(|| self.syntax(delta, i, "a hex digit"))?;
                    let code = code * 16 + d;
                    i += 1;
                    if digits < 3 {
                        self.set_escape(
                            is_key,
                            Escape::Hex {
                                code,
                                digits: digits + 1,
                            },
                        );
                    } else {
                        self.code_unit(is_key, code);
                    }
                }
                Escape::LowBackslash { high } | Escape::LowU { high } => {
                    let wanted = if matches!(escape, Escape::LowBackslash { .. }) {
                        b'\\'
                    } else {
                        b'u'
                    };
                    if b != wanted {
                        // The high half is unpaired: U+FFFD, and this byte is read again, as the
                        // string's next character or (after `\`) the next escape's.
                        self.string_char(is_key, char::REPLACEMENT_CHARACTER);
                        let state = if wanted == b'\\' {
                            Escape::None
                        } else {
                            Escape::Backslash
                        };
                        self.set_escape(is_key, state);
                        continue;
                    }
                    let next = if wanted == b'\\' {
                        Escape::LowU { high }
                    } else {
                        Escape::LowHex {
                            high,
                            code: 0,
                            digits: 0,
                        }
                    };
                    self.set_escape(is_key, next);
                    i += 1;
                }
                Escape::LowHex { high, code, digits } => {
                    let d = hex_value(b).ok_or_else(|| self.syntax(delta, i, "a hex digit"))?;
                    let code = code * 16 + d;
                    i += 1;
                    if digits < 3 {
                        self.set_escape(
                            is_key,
                            Escape::LowHex {
                                high,
                                code,
                                digits: digits + 1,
                            },
                        );
                    } else if (0xDC00..0xE000).contains(&code) {
                        let c = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                        self.string_char(is_key, char::from_u32(c).unwrap_or_default());
                        self.set_escape(is_key, Escape::None);
                    } else {
                        // The high half is unpaired; the escape after it is read on its own.
                        self.string_char(is_key, char::REPLACEMENT_CHARACTER);
                        self.code_unit(is_key, code);
                    }
                }
            }
        }
    }

    /// Completes the open number (its text is a complete number) and shows its final value.
    fn end_number(&mut self) -> Result<(), PartialJsonError> {
        if self.number_shown != self.number.len() {
            let n = agentwire_core::json::parse_number(&self.number).ok_or_else(|| {
                PartialJsonError::NumberOutOfRange {
                    offset: self.number_start,
                    text: truncate(&self.number, 100),
                }
            })?;
            self.set_current(Value::Number(n));
            self.number_shown = self.number.len();
        }
        self.after_value();
        Ok(())
    }

    /// At the end of a push: shows the longest prefix of the open number that is a complete
    /// number of at most [`MAX_PARTIAL_NUMBER_LEN`] bytes (so what is shown does not depend on
    /// where the pushes were split).
    fn show_open_number(&mut self) {
        if !matches!(self.mode, Mode::Number(_)) {
            return;
        }
        let len = self.number_complete;
        if len == 0 || len == self.number_shown {
            return;
        }
        // Every prefix ending in a digit is a complete number. The longest one may be out of
        // range (`1e400`, an error once complete): then show the longest that is not.
        let mut shown = None;
        for l in (1..=len).rev() {
            let Some(text) = self.number.get(..l) else {
                continue;
            };
            if text.ends_with(|c: char| c.is_ascii_digit()) {
                if let Some(n) = agentwire_core::json::parse_number(text) {
                    shown = Some((l, n));
                    break;
                }
            }
        }
        if let Some((l, n)) = shown {
            if l != self.number_shown {
                self.set_current(Value::Number(n));
                self.number_shown = l;
            }
        }
    }
}

/// `text` cut to at most `max` bytes (number text is ASCII), with `…` when cut.
fn truncate(text: &str, max: usize) -> String {
    match text.get(..max) {
        Some(head) if head.len() < text.len() => format!("{head}…"),
        _ => text.to_owned(),
    }
}

/// The length of the UTF-8 sequence a lead byte starts (1 for anything else).
fn utf8_char_len(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// What a partial literal still needs.
fn literal_rest(word: &[u8]) -> &'static str {
    match word.first() {
        Some(b't') => "the rest of `true`",
        Some(b'f') => "the rest of `false`",
        _ => "the rest of `null`",
    }
}

/// The character at byte `i` of `delta` (`i` is on a char boundary wherever an error is raised).
fn char_at(delta: &str, i: usize) -> char {
    delta
        .get(i..)
        .and_then(|s| s.chars().next())
        .unwrap_or(char::REPLACEMENT_CHARACTER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The hand-written reader against serde's derived one (these tests derive `Deserialize`).
    #[test]
    fn limits_hand_reader_reads_as_the_derived_one() {
        let limits = json!({"maxDepth": 4, "maxBytes": 5});
        let read = agentwire_core::json::same_reading(
            &limits,
            &["maxDepth", "maxBytes"],
            "struct PartialJsonLimits",
            PartialJsonLimits::read_fields,
        );
        assert!(read.unwrap() > 10);
    }

    fn parse_in_pieces(pieces: &[&str]) -> Result<Value, PartialJsonError> {
        let mut p = PartialJson::new(Default::default());
        for piece in pieces {
            p.push(piece)?;
        }
        p.finish()
    }

    #[test]
    fn number_states_follow_the_grammar() {
        for ok in ["0", "-0", "12", "1.5", "1e5", "1E+5", "-1.25e-3", "0.0"] {
            assert_eq!(
                parse_in_pieces(&[ok]).unwrap(),
                serde_json::from_str::<Value>(ok).unwrap(),
                "{ok}"
            );
        }
        for bad in ["-", "1.", "1e", "1e+", "01", "-a", ".5", "+1"] {
            assert!(parse_in_pieces(&[bad]).is_err(), "{bad}");
            assert!(serde_json::from_str::<Value>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn frames_track_the_open_member() {
        let mut p = PartialJson::new(Default::default());
        p.push(r#"{"a": [1, {"b": "x"#).unwrap();
        assert_eq!(
            p.path(),
            vec![
                PathSegment::Key("a".into()),
                PathSegment::Index(1),
                PathSegment::Key("b".into())
            ]
        );
        assert_eq!(p.value(), Some(&json!({"a": [1, {"b": "x"}]})));
    }

    #[test]
    fn reset_forgets_an_error() {
        let mut p = PartialJson::new(Default::default());
        assert!(p.push("{]").is_err());
        assert!(p.push("{}").is_err());
        p.reset();
        p.push("{}").unwrap();
        assert_eq!(p.finish().unwrap(), json!({}));
    }
}
