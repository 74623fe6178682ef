//! The push decoder: bytes in, events out, no I/O.

use super::SseError;

/// One dispatched event, borrowed from the decoder's buffers.
///
/// Field names follow the WHATWG HTML standard, §9.2.6 "Interpreting an event stream":
/// `event` is the event type (`"message"` when the stream named none), `data` the data buffer with its
/// final LF removed, `id` the *last event ID string* at dispatch time (it persists across events until
/// an `id` field changes it: `""` before any `id` field, and after an empty one, which resets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// Event type: the last `event` field's value, or `"message"`.
    pub event: &'a str,
    /// The event's data: every `data` field's value joined with LF.
    pub data: &'a str,
    /// The last event ID string when this event was dispatched.
    pub id: &'a str,
    /// Whether the event's own lines set `id` (an `id` field without U+0000 since the previous
    /// blank line). `false` when `id` was inherited from an earlier event or an id-only block: a
    /// resuming client uses it to tell the event that carried an id from those that followed it
    /// (see [`EventCursor`](super::EventCursor)).
    pub has_id: bool,
}

impl SseEvent<'_> {
    /// Copies the event out of the decoder's buffers.
    pub fn to_owned(&self) -> OwnedSseEvent {
        OwnedSseEvent {
            event: self.event.to_owned(),
            data: self.data.to_owned(),
            id: self.id.to_owned(),
        }
    }
}

/// An [`SseEvent`] that owns its strings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
pub struct OwnedSseEvent {
    /// Event type (`"message"` by default).
    pub event: String,
    /// Data lines joined with LF.
    pub data: String,
    /// Last event ID string at dispatch (`""` if none was ever set).
    pub id: String,
}

/// What [`SseDecoder::feed`] hands to its sink, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem<'a> {
    /// A dispatched event.
    Event(SseEvent<'a>),
    /// A `retry` field with a valid value: the new reconnection time, in milliseconds (a value
    /// past `u64::MAX`, about 585 million years, is taken as `u64::MAX`).
    Retry(u64),
    /// A recoverable decoding error. Decoding continues after it: later events are never lost.
    Error(SseError),
}

/// An event as [`SseDecoder::feed_bytes`] dispatches it: an [`SseEvent`] whose data is not yet
/// decoded from UTF-8. Its `data` is the data buffer's bytes (with the final LF removed), which may
/// be any bytes: whoever reads it decodes it as UTF-8 with invalid sequences replaced by U+FFFD
/// (WHATWG HTML §9.2.6: the stream is decoded with "UTF-8 decode"), as
/// [`SseEventBytes::decoded`] does. `event` and `id` are decoded already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventBytes<'a> {
    /// Event type: the last `event` field's value, or `"message"`.
    pub event: &'a str,
    /// The event's data, undecoded: every `data` field's value joined with LF.
    pub data: &'a [u8],
    /// The last event ID string when this event was dispatched.
    pub id: &'a str,
    /// Whether the event's own lines set `id` (see [`SseEvent::has_id`]).
    pub has_id: bool,
}

impl SseEventBytes<'_> {
    /// Calls `f` with the event, its data decoded: borrowed when it is valid UTF-8 (checked by the
    /// standard library's validator), else a copy with each invalid sequence replaced by U+FFFD.
    pub fn decoded<R>(&self, f: impl FnOnce(SseEvent<'_>) -> R) -> R {
        let data = utf8_decode(self.data);
        f(SseEvent {
            event: self.event,
            data: &data,
            id: self.id,
            has_id: self.has_id,
        })
    }
}

/// `bytes` decoded as UTF-8 with each invalid sequence replaced by U+FFFD (the Encoding standard's
/// "UTF-8 decode", which WHATWG HTML §9.2.6 decodes the stream with): borrowed when they are valid
/// (nearly always), which the standard library's validator checks faster than
/// `String::from_utf8_lossy` alone does.
pub(crate) fn utf8_decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// What [`SseDecoder::feed_bytes`] hands to its sink: an [`SseItem`] whose event is an
/// [`SseEventBytes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItemBytes<'a> {
    /// A dispatched event, its data not yet decoded.
    Event(SseEventBytes<'a>),
    /// A `retry` field with a valid value: the new reconnection time, in milliseconds.
    Retry(u64),
    /// A recoverable decoding error.
    Error(SseError),
}

impl SseItemBytes<'_> {
    /// Calls `sink` with the item, its event's data decoded ([`SseEventBytes::decoded`]).
    fn decoded(self, sink: &mut impl FnMut(SseItem<'_>)) {
        match self {
            SseItemBytes::Event(e) => e.decoded(|e| sink(SseItem::Event(e))),
            SseItemBytes::Retry(ms) => sink(SseItem::Retry(ms)),
            SseItemBytes::Error(e) => sink(SseItem::Error(e)),
        }
    }
}

/// Options of [`SseDecoder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseOptions {
    /// Largest event the decoder buffers, in bytes: the lengths of all its lines (every line since the
    /// previous blank line, comments included, line terminators excluded). Default [`SseOptions::DEFAULT_MAX_EVENT_SIZE`] (16 MiB). A larger event is
    /// skipped up to its terminating blank line and reported as [`SseError::EventTooLarge`].
    pub max_event_size: usize,
}

impl SseOptions {
    /// Default of [`SseOptions::max_event_size`]: 16 MiB.
    pub const DEFAULT_MAX_EVENT_SIZE: usize = 16 * 1024 * 1024;
}

impl Default for SseOptions {
    fn default() -> Self {
        Self {
            max_event_size: Self::DEFAULT_MAX_EVENT_SIZE,
        }
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A sans-IO, push-style decoder of the `text/event-stream` format.
///
/// Implements WHATWG HTML §9.2.6 "Interpreting an event stream" exactly:
///
/// > The stream must then be parsed by reading everything line by line, with a U+000D CARRIAGE RETURN
/// > U+000A LINE FEED (CRLF) character pair, a single U+000A LINE FEED (LF) character not preceded by a
/// > U+000D CARRIAGE RETURN (CR) character, and a single U+000D CARRIAGE RETURN (CR) character not
/// > followed by a U+000A LINE FEED (LF) character being the ways in which a line can end.
///
/// - The bytes are decoded as UTF-8: one leading byte order mark is stripped at the start of the stream
///   (only there), and invalid sequences become U+FFFD (the maximal-subpart replacement of the
///   Encoding standard). Line terminators are ASCII, so lines are split on bytes and decoded whole: a
///   character split across two chunks is decoded once both halves have arrived.
/// - "If the line is empty (a blank line): dispatch the event." A line starting with `:` is a comment.
///   Otherwise the field name is the line up to the first `:`, the value the rest with one leading
///   space removed (or `""` when there is no colon).
/// - `event` sets the event type buffer; `data` appends the value and a LF to the data buffer; `id` sets
///   the last event ID buffer unless the value contains U+0000 NULL; `retry` sets the reconnection time
///   if the value is only ASCII digits (`+42`, `50x` and `""` are ignored; a value too large for `u64`
///   saturates); any other field is ignored.
/// - Dispatch: the last event ID string takes the buffer's value; "if the data buffer is an empty
///   string, set the data buffer and the event type buffer to the empty string and return"; otherwise one
///   trailing LF is removed and the event is dispatched with type `"message"` if none was set.
/// - "Once the end of the file is reached, any pending data must be discarded": [`SseDecoder::finish`]
///   does not dispatch an unterminated event, but reports it as [`SseError::IncompleteEvent`] with
///   what it held (an event of only an `id` field too), so nothing received is lost silently. (A
///   comment line, or a `retry` field, which takes effect at once, leaves nothing pending.)
///
/// Feeding the same bytes split at any indices gives the same items.
///
/// ```
/// use agentwire::sse::{SseDecoder, SseItem};
/// let mut decoder = SseDecoder::new();
/// let mut events = Vec::new();
/// let mut sink = |item: SseItem<'_>| if let SseItem::Event(e) = item { events.push(e.to_owned()) };
/// decoder.feed(b"event: delta\ndata: {\"text\":", &mut sink);
/// decoder.feed(b"\"Hi\"}\r\n\r\n", &mut sink);
/// decoder.finish(&mut sink);
/// assert_eq!(events[0].event, "delta");
/// assert_eq!(events[0].data, "{\"text\":\"Hi\"}");
/// ```
#[derive(Debug, Clone)]
pub struct SseDecoder {
    options: SseOptions,
    /// Bytes of the current line not yet terminated (only when a line spans chunks).
    line: Vec<u8>,
    /// Data buffer (raw bytes, each value followed by LF).
    data: Vec<u8>,
    /// Event type buffer.
    event_type: String,
    /// Last event ID buffer (set by `id` fields).
    id_buffer: String,
    /// Last event ID string (set at dispatch).
    last_event_id: String,
    /// Reconnection time in milliseconds, if a `retry` field set one.
    retry: Option<u64>,
    /// Bytes of the current event's completed lines (for the size limit).
    event_size: usize,
    /// The previous chunk ended with CR: a LF at the start of the next one belongs to it.
    after_cr: bool,
    /// Still at the start of the stream: a BOM may follow (holds up to 2 bytes of a possible BOM).
    bom: Option<Vec<u8>>,
    /// The current event exceeded the limit: discard lines until the blank line that ends it.
    skipping: bool,
    /// The current line's length when skipping (to tell a blank line from a long one).
    skipped_line_len: usize,
    /// Total bytes fed since construction or the last reset.
    bytes_fed: u64,
    /// An `id` field was accepted since the last blank line.
    id_in_event: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_options(SseOptions::default())
    }
}

impl SseDecoder {
    /// A decoder with default [`SseOptions`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder with the given options.
    pub fn with_options(options: SseOptions) -> Self {
        Self {
            options,
            line: Vec::new(),
            data: Vec::new(),
            event_type: String::new(),
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry: None,
            event_size: 0,
            after_cr: false,
            bom: Some(Vec::new()),
            skipping: false,
            skipped_line_len: 0,
            bytes_fed: 0,
            id_in_event: false,
        }
    }

    /// The options this decoder was made with.
    pub fn options(&self) -> &SseOptions {
        &self.options
    }

    /// The last event ID string (WHATWG: what a reconnecting client sends as `Last-Event-ID`).
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time in milliseconds set by the latest valid `retry` field, if any
    /// (saturated at `u64::MAX`).
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Bytes fed since construction or the last [`reset`](Self::reset).
    pub fn bytes_fed(&self) -> u64 {
        self.bytes_fed
    }

    /// Whether the decoder holds part of an event or line (bytes that a blank line has not yet ended).
    pub fn has_pending(&self) -> bool {
        !self.line.is_empty()
            || !self.data.is_empty()
            || !self.event_type.is_empty()
            || self.skipping
            || self.id_buffer != self.last_event_id
    }

    /// Starts a new stream, as a reconnection does: buffers, the pending event and the BOM state are
    /// cleared; the last event ID string and the reconnection time are kept (WHATWG: they belong to the
    /// `EventSource`, not to one connection).
    pub fn reset(&mut self) {
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.event_size = 0;
        self.id_buffer.clone_from(&self.last_event_id);
        self.after_cr = false;
        self.bom = Some(Vec::new());
        self.skipping = false;
        self.skipped_line_len = 0;
        self.bytes_fed = 0;
        self.id_in_event = false;
    }

    /// Decodes `bytes`, the next chunk of the stream, calling `sink` for every event, `retry` value and
    /// recoverable error it completes, in stream order.
    ///
    /// # Errors
    /// Errors go to the sink as [`SseItem::Error`] ([`SseError::EventTooLarge`]); decoding continues.
    pub fn feed(&mut self, bytes: &[u8], sink: &mut impl FnMut(SseItem<'_>)) {
        self.feed_bytes(bytes, &mut |item| item.decoded(sink));
    }

    /// [`feed`](Self::feed) for a reader that decodes each event's data from UTF-8 itself: the
    /// same items, each event's data left undecoded ([`SseEventBytes`]). The Agent API's event
    /// reader checks UTF-8 as it parses, rather than in a pass of its own before.
    ///
    /// # Errors
    /// As [`feed`](Self::feed).
    pub fn feed_bytes(&mut self, mut bytes: &[u8], sink: &mut impl FnMut(SseItemBytes<'_>)) {
        self.bytes_fed += bytes.len() as u64;
        if let Some(held) = &mut self.bom {
            // Strip one leading BOM, which may itself arrive split across chunks.
            let want = BOM.len() - held.len();
            let take = want.min(bytes.len());
            held.extend_from_slice(&bytes[..take]);
            if !BOM.starts_with(held) {
                // Not a BOM: what was held is ordinary stream content.
                let held = self.bom.take().unwrap_or_default();
                let rest_start = take;
                self.process(&held, sink);
                bytes = &bytes[rest_start..];
            } else if held.len() == BOM.len() {
                self.bom = None;
                bytes = &bytes[take..];
            } else {
                return; // a BOM prefix so far: wait for more bytes
            }
        }
        self.process(bytes, sink);
    }

    /// [`feed`](Self::feed) with the sink as a trait object. `feed` is compiled again for every
    /// closure type it is called with, the closure inlined into the decoder (the fastest path, for
    /// a caller on a hot path); every caller of `feed_dyn` shares one compiled decoder, at the cost
    /// of a call through the trait object per item. The wasm module decodes the Agent API's stream
    /// through [`feed_bytes`](Self::feed_bytes) and everything else through `feed_dyn` and
    /// `finish_dyn`: two instances of the decoder instead of nine, 2.2 KB of the gzipped module.
    pub fn feed_dyn(&mut self, bytes: &[u8], mut sink: &mut dyn FnMut(SseItem<'_>)) {
        self.feed_bytes_dyn(bytes, &mut |item| item.decoded(&mut sink));
    }

    /// [`finish`](Self::finish) with the sink as a trait object: see [`feed_dyn`](Self::feed_dyn).
    pub fn finish_dyn(&mut self, mut sink: &mut dyn FnMut(SseItem<'_>)) {
        self.finish_bytes_dyn(&mut |item| item.decoded(&mut sink));
    }

    /// The one compiled decoder of [`feed_dyn`](Self::feed_dyn) and
    /// [`finish_dyn`](Self::finish_dyn).
    fn feed_bytes_dyn(&mut self, bytes: &[u8], mut sink: &mut dyn FnMut(SseItemBytes<'_>)) {
        self.feed_bytes(bytes, &mut sink);
    }

    fn finish_bytes_dyn(&mut self, mut sink: &mut dyn FnMut(SseItemBytes<'_>)) {
        self.finish_bytes(&mut sink);
    }

    /// Ends the stream. An event that no blank line terminated is not dispatched (WHATWG: "any pending
    /// data must be discarded") but reported, with what it held, as [`SseError::IncompleteEvent`].
    /// The decoder is then [`reset`](Self::reset).
    pub fn finish(&mut self, sink: &mut impl FnMut(SseItem<'_>)) {
        self.finish_bytes(&mut |item| item.decoded(sink));
    }

    /// [`finish`](Self::finish) for the reader of [`feed_bytes`](Self::feed_bytes).
    pub fn finish_bytes(&mut self, sink: &mut impl FnMut(SseItemBytes<'_>)) {
        if let Some(held) = self.bom.take() {
            self.process(&held, sink);
        }
        // A last line without a terminator is not a line: its fields take no effect, but a `data`
        // value in it is reported with the rest of the unterminated event.
        if let Some(value) = self.line.strip_prefix(b"data:") {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            self.data.extend_from_slice(value);
            self.data.push(b'\n');
        } else if self.line == b"data" {
            self.data.push(b'\n');
        }
        // Whatever is pending, as `has_pending` says: an `id` field not yet dispatched too.
        if self.has_pending() {
            let data = String::from_utf8_lossy(self.data.strip_suffix(b"\n").unwrap_or(&self.data))
                .into_owned();
            sink(SseItemBytes::Error(SseError::IncompleteEvent {
                event: std::mem::take(&mut self.event_type),
                data,
                truncated: self.skipping,
            }));
        }
        self.reset();
    }

    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn process(&mut self, mut bytes: &[u8], sink: &mut impl FnMut(SseItemBytes<'_>)) {
        // Nothing to do; in particular a CR at the end of the last bytes must still be remembered
        // (found by fuzzing: the first two bytes `x\r`, held while looking for a BOM, were
        // followed by an empty call that forgot the CR, and the next chunk's LF became a blank line).
        if bytes.is_empty() {
            return;
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while !bytes.is_empty() {
            // A blank line (the end of every event) is found without a search.
            let found = match bytes[0] {
                b'\n' | b'\r' => Some(0),
                _ => memchr::memchr2(b'\n', b'\r', bytes),
            };
            let Some(end) = found else {
                self.hold(bytes, sink);
                return;
            };
            let (head, tail) = bytes.split_at(end);
            let terminator_len = if tail[0] == b'\r' {
                match tail.get(1) {
                    Some(b'\n') => 2,
                    Some(_) => 1,
                    None => {
                        self.after_cr = true;
                        1
                    }
                }
            } else {
                1
            };
            if self.skipping {
                let blank = self.skipped_line_len == 0 && head.is_empty();
                self.skipped_line_len = 0;
                if blank {
                    self.end_skip();
                }
            } else if !self.fits(head.len()) {
                self.too_large(head.len(), sink);
                self.skipped_line_len = 0; // the line has ended
            } else if self.line.is_empty() {
                let rest = &tail[terminator_len..];
                // The usual event: one `data:` line, then the blank line, both in these bytes.
                // Its data is handed on from them, not copied into the data buffer first.
                if let (true, Some(value), Some(&first)) = (
                    self.data.is_empty(),
                    head.strip_prefix(b"data:"),
                    rest.first(),
                ) {
                    if first == b'\n' || first == b'\r' {
                        let blank_len = if first == b'\n' {
                            1
                        } else {
                            match rest.get(1) {
                                Some(b'\n') => 2,
                                Some(_) => 1,
                                None => {
                                    self.after_cr = true;
                                    1
                                }
                            }
                        };
                        self.dispatch(Some(value.strip_prefix(b" ").unwrap_or(value)), sink);
                        bytes = &rest[blank_len..];
                        continue;
                    }
                }
                self.line_done(head, sink);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                self.line_done(&line, sink);
                line.clear();
                self.line = line; // keep the allocation
            }
            bytes = &tail[terminator_len..];
        }
    }

    /// Keeps an unterminated line's bytes until its terminator arrives.
    fn hold(&mut self, bytes: &[u8], sink: &mut impl FnMut(SseItemBytes<'_>)) {
        if self.skipping {
            self.skipped_line_len += bytes.len();
        } else if self.fits(bytes.len()) {
            self.line.extend_from_slice(bytes);
        } else {
            self.too_large(bytes.len(), sink);
        }
    }

    fn fits(&self, more: usize) -> bool {
        self.event_size + self.line.len() + more <= self.options.max_event_size
    }

    fn too_large(&mut self, more: usize, sink: &mut impl FnMut(SseItemBytes<'_>)) {
        sink(SseItemBytes::Error(SseError::EventTooLarge {
            limit: self.options.max_event_size,
        }));
        self.skipping = true;
        self.skipped_line_len = self.line.len() + more;
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.event_size = 0;
    }

    fn end_skip(&mut self) {
        self.skipping = false;
        self.id_in_event = false;
        self.skipped_line_len = 0;
        self.data.clear();
        self.event_type.clear();
        self.event_size = 0;
    }

    /// Processes one complete line (without its terminator).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn line_done(&mut self, line: &[u8], sink: &mut impl FnMut(SseItemBytes<'_>)) {
        if line.is_empty() {
            self.dispatch(None, sink);
            return;
        }
        self.event_size += line.len();
        if line[0] == b':' {
            return; // comment
        }
        let (field, value) = if let Some(value) = line.strip_prefix(b"data:") {
            (&b"data"[..], value.strip_prefix(b" ").unwrap_or(value)) // the usual line, found fast
        } else {
            match memchr::memchr(b':', line) {
                Some(colon) => {
                    let value = &line[colon + 1..];
                    (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
                }
                None => (line, &b""[..]),
            }
        };
        match field {
            b"data" => {
                self.data.extend_from_slice(value);
                self.data.push(b'\n');
            }
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&String::from_utf8_lossy(value));
            }
            // "If the field value does not contain U+0000 NULL, then set the last event ID buffer
            // to the field value. Otherwise, ignore the field."
            b"id" if memchr::memchr(0, value).is_none() => {
                self.id_buffer.clear();
                self.id_buffer.push_str(&String::from_utf8_lossy(value));
                self.id_in_event = true;
            }
            // "If the field value consists of only ASCII digits, then interpret the field value as
            // an integer in base ten, and set the event stream's reconnection time to that
            // integer. Otherwise, ignore the field."
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                let ms = value.iter().fold(0u64, |acc, d| {
                    acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                });
                self.retry = Some(ms);
                sink(SseItemBytes::Retry(ms));
            }
            _ => {} // "Otherwise: The field is ignored."
        }
    }

    /// Dispatches the event (a blank line ended it): its data is the data buffer, or `line`, the
    /// value of its only `data` line (the data buffer is then empty).
    #[cfg_attr(agentwire_size_build, optimize(speed))]
    fn dispatch(&mut self, line: Option<&[u8]>, sink: &mut impl FnMut(SseItemBytes<'_>)) {
        self.event_size = 0;
        let has_id = std::mem::take(&mut self.id_in_event);
        if self.last_event_id != self.id_buffer {
            self.last_event_id.clone_from(&self.id_buffer);
        }
        let data = match line {
            Some(value) => value,
            None if self.data.is_empty() => {
                self.event_type.clear();
                return;
            }
            None => {
                self.data.pop(); // the trailing LF
                &self.data
            }
        };
        let event = if self.event_type.is_empty() {
            "message"
        } else {
            &self.event_type
        };
        sink(SseItemBytes::Event(SseEventBytes {
            event,
            data,
            id: &self.last_event_id,
            has_id,
        }));
        self.data.clear();
        self.event_type.clear();
    }
}
