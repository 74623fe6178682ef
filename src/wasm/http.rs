//! Small helpers every `fetch`-based client of the binding shares (Agent API, ACP, AgentX).

use std::future::Future;
use std::pin::Pin;

use js_sys::{Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, AbortSignal, Headers, ReadableStreamDefaultReader, Request,
    RequestCredentials, RequestInit, Response,
};

use super::error::{invalid_argument, js_error};
use crate::transport::{truncate_body, TransportError};

/// Extra request headers, as the clients' options give them (`Record<string, string>`): each name
/// with its value, in the object's order (a JSON object keeps its members' order: serde_json's
/// `preserve_order`). A vector rather than a `BTreeMap<String, String>`: the headers are only stored,
/// copied and set on each request, and the map's node code, compiled for this one type, was about
/// 4 KB of the wasm module with its reader.
///
/// Read as a map is: ``invalid type: …, expected a map`` for anything but an object, a string
/// expected for each value.
#[derive(Debug, Clone, Default)]
pub struct HeaderList(pub Vec<(String, String)>);

impl<'de> serde::Deserialize<'de> for HeaderList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = HeaderList;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<HeaderList, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, String>()? {
                    entries.push(entry);
                }
                Ok(HeaderList(entries))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The `Promise` of an async method: `future` boxed as a trait object, so that the whole module has
/// one instance of `future_to_promise` instead of one per future type (nine of them cost 7 KB more
/// wasm, each wrapping its future's poll loop).
pub(crate) fn promise(future: impl Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>> = Box::pin(future);
    wasm_bindgen_futures::future_to_promise(future)
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(input: &Request) -> Promise;

    #[wasm_bindgen(js_name = setTimeout)]
    pub(crate) fn set_timeout(callback: &Function, milliseconds: i32) -> JsValue;

    #[wasm_bindgen(js_name = clearTimeout)]
    pub(crate) fn clear_timeout(id: &JsValue);
}

#[wasm_bindgen(module = "/src/wasm/bytes.js")]
extern "C" {
    /// The bytes of a caller's chunk as a fresh `Uint8Array` (a `Uint8Array` viewed through its
    /// internal slots, an `ArrayBuffer` viewed, an array of byte values copied); what it throws is
    /// returned: a string (the reason) for anything else, or a getter's exception.
    #[wasm_bindgen(js_name = byteChunk, catch)]
    fn byte_chunk_js(value: &JsValue) -> Result<Uint8Array, JsValue>;

    /// `reader.read()` as a promise (a synchronous throw its rejection).
    #[wasm_bindgen(js_name = readFrom)]
    pub(crate) fn read_from(reader: &ReadableStreamDefaultReader) -> Promise;

    /// What an exception says (its `message`, and its `cause`'s), `fallback` if it says nothing;
    /// its own getters cannot throw from here.
    #[wasm_bindgen(js_name = describeError)]
    fn describe_error(e: &JsValue, fallback: &str) -> String;

    /// The answer's header `name`, `None` if absent or if reading it throws.
    #[wasm_bindgen(js_name = headerOf)]
    pub(crate) fn header_of(response: &Response, name: &str) -> Option<String>;

    /// The answer's status (0 if it has none, or if reading it throws).
    #[wasm_bindgen(js_name = statusOf)]
    pub(crate) fn status_of(response: &Response) -> u16;

    /// `reader.cancel()`, its synchronous throw and its rejection ignored (a cancel is only a
    /// release of what is not wanted any more).
    #[wasm_bindgen(js_name = cancelQuietly)]
    pub(crate) fn cancel_quietly(reader: &ReadableStreamDefaultReader);

    /// `promise`, or a rejection with `signal`'s reason once it fires (`None`: `promise`).
    #[wasm_bindgen(js_name = untilAborted)]
    pub(crate) fn until_aborted(promise: &Promise, signal: Option<&AbortSignal>) -> Promise;

    /// Cancels `reader` quietly when `signal` fires; gives the function that stops watching.
    #[wasm_bindgen(js_name = cancelOnAbort)]
    fn cancel_on_abort(
        reader: &ReadableStreamDefaultReader,
        signal: Option<&AbortSignal>,
    ) -> Function;

    /// A reader of the answer's body, `None` without one; what reading it throws is returned.
    #[wasm_bindgen(js_name = readerOf, catch)]
    fn reader_of(response: &Response) -> Result<Option<ReadableStreamDefaultReader>, JsValue>;
}

/// Whether the answer's status is 2xx (`Response.ok`, computed from the status: a mock's or a
/// subclass's `ok` getter is not read).
pub(crate) fn is_ok(response: &Response) -> bool {
    (200..300).contains(&status_of(response))
}

/// Waits `ms` milliseconds (at most `i32::MAX`, about 24.8 days: `setTimeout`'s limit), or until
/// `signal` fires, whichever comes first: a user's abort ends a client's wait (before resuming a
/// stream, between polls) at once instead of when the wait was over. The timer is cleared and the
/// listener removed either way, so nothing keeps a Node process alive after it.
pub(crate) async fn sleep(ms: u32, signal: Option<&AbortSignal>) {
    if signal.is_some_and(AbortSignal::aborted) {
        return;
    }
    let mut timer = JsValue::UNDEFINED;
    let mut wake = None;
    let promise = Promise::new(&mut |resolve, _reject| {
        timer = set_timeout(&resolve, i32::try_from(ms).unwrap_or(i32::MAX));
        if let Some(signal) = signal {
            let _ = signal.add_event_listener_with_callback("abort", &resolve);
        }
        wake = Some(resolve);
    });
    let _ = JsFuture::from(promise).await;
    clear_timeout(&timer);
    if let (Some(signal), Some(wake)) = (signal, wake) {
        let _ = signal.remove_event_listener_with_callback("abort", &wake);
    }
}

/// A `fetch` request: `method` to `url` with `headers` (the client's own first, then `extra`,
/// the client's options: a later one replaces an earlier of the same name), `body` as text,
/// `credentials` and `signal`.
///
/// # Errors
/// `invalid-argument` (`details.what` = `"request"`) with the platform's reason where `fetch`'s
/// `Request` refuses it: a URL it cannot parse (a relative `baseUrl` outside a page), a header
/// name or value that is not allowed (a newline in a value).
pub(crate) fn build_request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    extra: &HeaderList,
    body: Option<&str>,
    credentials: Option<RequestCredentials>,
    signal: Option<&AbortSignal>,
) -> Result<Request, JsValue> {
    let refused = |e: JsValue| invalid_argument("request", &describe(&e));
    let all = Headers::new()?;
    let pairs = headers.iter().copied();
    for (k, v) in pairs.chain(extra.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        all.set(k, v).map_err(refused)?;
    }
    let init = RequestInit::new();
    init.set_method(method);
    init.set_headers(&all);
    if let Some(body) = body {
        init.set_body(&JsValue::from_str(body));
    }
    if let Some(c) = credentials {
        init.set_credentials(c);
    }
    if signal.is_some() {
        init.set_signal(signal);
    }
    Request::new_with_str_and_init(url, &init).map_err(refused)
}

/// Default of the clients' `stallTimeoutMs`: 90 s without a byte (or, before it, without the
/// answer's head) ends a stream.
pub const DEFAULT_STALL_TIMEOUT_MS: u32 = 90_000;

/// The signal to send a request with, and the request's own controller: aborting the controller
/// (a stall) aborts the request without touching the user's `signal`, and the user's signal still
/// aborts it (both joined by `AbortSignal.any`).
///
/// # Errors
/// Only if the platform cannot make an `AbortController` (never in practice).
pub(crate) fn request_signal(
    user: Option<&AbortSignal>,
) -> Result<(AbortController, AbortSignal), JsValue> {
    let controller = AbortController::new()?;
    let signal = match user {
        Some(user) => AbortSignal::any(&js_sys::Array::of2(user, &controller.signal())),
        None => controller.signal(),
    };
    Ok((controller, signal))
}

/// Sends `request` with the client's `fetch` (`options.fetch`) or the global one, and waits for
/// the answer's head (any status), at most `timeout` milliseconds if it is given (with the
/// controller it aborts then; 0: no limit).
///
/// # Errors
/// `aborted` if the request fails while `aborted()` says the user's signal fired; `stalled`
/// (`details.timeoutMs`) if no answer came within the timeout; else `network-error` with the
/// failure's description: the request failed, a custom `fetch` threw, or it gave something that
/// is not a `Response` (`undefined`, say, from a wrapper that forgot to return).
pub(crate) async fn send(
    fetch: Option<&Function>,
    request: &Request,
    aborted: &dyn Fn() -> bool,
    timeout: Option<(u32, &AbortController)>,
) -> Result<Response, JsValue> {
    let network = |reason: String| js_error(&TransportError::Network { reason });
    let answer = match fetch {
        // What a custom `fetch` throws, or returns instead of a promise, is settled as a promise.
        Some(f) => match f.call1(&JsValue::NULL, request) {
            Ok(value) => Promise::resolve(&value),
            Err(e) => Promise::reject(&e),
        },
        None => global_fetch(request),
    };
    // A custom `fetch` may ignore the request's signal: the wait ends at the abort all the same.
    let answer = until_aborted(&answer, Some(&request.signal()));
    let answer = match timeout {
        Some((ms, controller)) if ms > 0 => match within(answer, ms).await {
            // The user's abort wins over a timer that fired in the same instant.
            Ok(None) if aborted() => return Err(js_error(&TransportError::Aborted)),
            Ok(None) => {
                controller.abort();
                return Err(js_error(&TransportError::Stalled { timeout_ms: ms }));
            }
            other => other.map(Option::unwrap_or_default),
        },
        _ => JsFuture::from(answer).await,
    };
    match answer {
        // A `Response`, or an object that reads as one (a mock, another library's `Response`):
        // its `status` a number other than 0 (`statusOf`). `{}` would read as HTTP 0.
        Ok(r)
            if r.is_instance_of::<Response>()
                || (r.is_object() && status_of(r.unchecked_ref()) != 0) =>
        {
            Ok(r.unchecked_into())
        }
        Ok(r) if r.is_object() => Err(network(
            "fetch gave an object that is not a Response (it has no numeric status)".to_owned(),
        )),
        Ok(r) => Err(network(format!(
            "fetch gave {} instead of a Response",
            r.js_typeof().as_string().unwrap_or_default()
        ))),
        Err(_) if aborted() => Err(js_error(&TransportError::Aborted)),
        Err(e) => Err(network(describe(&e))),
    }
}

/// `promise`'s value, or `Ok(None)` if it has not settled within `ms` milliseconds (0: no limit).
pub(crate) async fn within(promise: Promise, ms: u32) -> Result<Option<JsValue>, JsValue> {
    if ms == 0 {
        return JsFuture::from(promise).await.map(Some);
    }
    // The timer resolves the race with an object of its own, which no other value is.
    let timed_out = JsValue::from(js_sys::Object::new());
    let mut timer = JsValue::UNDEFINED;
    let timeout = Promise::new(&mut |resolve, _reject| {
        let wake: Function = resolve.bind1(&JsValue::NULL, &timed_out).unchecked_into();
        timer = set_timeout(&wake, i32::try_from(ms).unwrap_or(i32::MAX));
    });
    let race = Promise::race(&js_sys::Array::of2(&promise, &timeout));
    let result = JsFuture::from(race).await;
    clear_timeout(&timer);
    match result {
        Ok(v) if v == timed_out => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(e) => Err(e),
    }
}

/// The body of an answer that is not the expected one, for an error's `details.body`: its
/// first 64 KiB as text, or what came before `stall_ms` passed without a byte (see [`text_of`]).
///
/// # Errors
/// `aborted` if `aborted()` says the user's signal fired meanwhile (the answer's error would
/// hide the abort).
pub(crate) async fn error_body(
    response: &Response,
    aborted: &dyn Fn() -> bool,
    signal: Option<&AbortSignal>,
    stall_ms: u32,
) -> Result<String, JsValue> {
    let body = text_of(response, signal, stall_ms).await;
    if aborted() {
        return Err(js_error(&TransportError::Aborted));
    }
    Ok(body)
}

/// The whole body of a JSON answer as text, as `Response.text()` decodes it (UTF-8, bad sequences
/// replaced, a leading byte order mark dropped), each read waiting at most `stall_ms` milliseconds
/// for more bytes (0: no limit): a server that sends the head and then stops leaves no wait for
/// ever. At most `limit` bytes are read, if it is given. An answer without a body stream (a mock
/// with only `text()`) is read by its `text()`, whose wait ends only at the abort.
///
/// # Errors
/// `aborted` if `aborted()` says the user's signal fired meanwhile; `stalled`
/// (`details.timeoutMs`) when no byte came for `stall_ms`, `stream-too-large`
/// (`details.limit`) for a body over `limit` bytes (the body is then cancelled);
/// `network-error` if the body failed or gave a chunk that is not bytes.
pub(crate) async fn body_text(
    response: &Response,
    aborted: &dyn Fn() -> bool,
    signal: Option<&AbortSignal>,
    stall_ms: u32,
    limit: Option<u64>,
) -> Result<String, JsValue> {
    let failed = |e: &JsValue| {
        if aborted() {
            js_error(&TransportError::Aborted)
        } else {
            js_error(&TransportError::Network {
                reason: describe(e),
            })
        }
    };
    let reader = match reader_of(response) {
        Ok(Some(reader)) => BodyReader::new(reader, signal),
        Ok(None) => {
            // A custom `fetch`'s body may not end at the abort by itself: the wait does.
            let text = response.text().map_err(|e| failed(&e))?;
            let promise = until_aborted(&text, signal);
            return match JsFuture::from(promise).await {
                Ok(t) => Ok(t.as_string().unwrap_or_default()),
                Err(e) => Err(failed(&e)),
            };
        }
        Err(e) => return Err(failed(&e)),
    };
    // One byte past the limit tells a body over it.
    let cap = limit.map_or(usize::MAX, |l| {
        usize::try_from(l).map_or(usize::MAX, |l| l.saturating_add(1))
    });
    let (bytes, end) = read_body(&reader, stall_ms, cap).await;
    // The user's abort wins over a timer that fired in the same instant.
    if aborted() {
        return Err(js_error(&TransportError::Aborted));
    }
    match (end, limit) {
        (BodyEnd::Capped, Some(limit)) => {
            return Err(js_error(&crate::limits::LimitError::StreamTooLarge {
                limit,
            }))
        }
        (BodyEnd::Done | BodyEnd::Capped, _) => {}
        (BodyEnd::Stalled, _) => {
            return Err(js_error(&TransportError::Stalled {
                timeout_ms: stall_ms,
            }))
        }
        (BodyEnd::Failed(e), _) => return Err(failed(&e)),
        (BodyEnd::NotBytes(failure), _) => return Err(js_error(&failure)),
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    Ok(String::from_utf8_lossy(text).into_owned())
}

/// The reader of an answer's body, cancelled when `signal` fires: a body a custom `fetch` made
/// may not end at the request's abort by itself, and a read waiting on it then would wait for
/// ever. Dropping it stops watching the signal. It dereferences to the reader.
pub(crate) struct BodyReader {
    reader: ReadableStreamDefaultReader,
    stop_watching: Function,
}

impl BodyReader {
    fn new(reader: ReadableStreamDefaultReader, signal: Option<&AbortSignal>) -> Self {
        let stop_watching = cancel_on_abort(&reader, signal);
        Self {
            reader,
            stop_watching,
        }
    }
}

impl std::ops::Deref for BodyReader {
    type Target = ReadableStreamDefaultReader;

    fn deref(&self) -> &ReadableStreamDefaultReader {
        &self.reader
    }
}

impl Drop for BodyReader {
    fn drop(&mut self) {
        let _ = self.stop_watching.call0(&JsValue::NULL);
    }
}

/// The body reader of a `text/event-stream` answer (the media type compared case-insensitively,
/// parameters ignored), cancelled when `signal` fires (see [`BodyReader`]).
///
/// # Errors
/// `not-event-stream` with the content type and the body (its first 64 KiB, or what came before
/// `stall_ms` passed without a byte) for any other answer, or one without a body; `aborted` if
/// `aborted()` says the user's signal fired while that body was read.
pub(crate) async fn event_stream_reader(
    response: &Response,
    aborted: &dyn Fn() -> bool,
    signal: Option<&AbortSignal>,
    stall_ms: u32,
) -> Result<BodyReader, JsValue> {
    let ct = content_type(response);
    let media = ct.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("text/event-stream") {
        return Err(js_error(&TransportError::NotEventStream {
            content_type: ct,
            body: error_body(response, aborted, signal, stall_ms).await?,
        }));
    }
    match reader_of(response) {
        Ok(Some(reader)) => Ok(BodyReader::new(reader, signal)),
        Ok(None) => Err(js_error(&TransportError::NotEventStream {
            content_type: ct,
            body: String::new(),
        })),
        Err(e) => Err(js_error(&TransportError::Network {
            reason: ["the response body cannot be read: ", &describe(&e)].concat(),
        })),
    }
}

/// What one `reader.read()` result held.
pub(crate) enum Chunk {
    /// The body ended (`done`).
    End,
    /// Bytes.
    Bytes(Uint8Array),
    /// Something that is not bytes (a body stream a custom `fetch` built from strings, say): the
    /// stream cannot go on, as the Fetch standard's own readers of a body refuse such a chunk.
    NotBytes(TransportError),
}

/// Reads a `ReadableStreamDefaultReader.read()` result `{done, value}`: `value` through
/// [`byte_chunk`] (a `Uint8Array`, or an `ArrayBuffer` or array of byte values, which a body
/// built by hand may hold).
pub(crate) fn read_chunk(chunk: &JsValue) -> Chunk {
    let done = Reflect::get(chunk, &"done".into())
        .ok()
        .and_then(|d| d.as_bool())
        .unwrap_or(true);
    if done {
        return Chunk::End;
    }
    let value = Reflect::get(chunk, &"value".into()).unwrap_or(JsValue::UNDEFINED);
    match byte_chunk_js(&value) {
        Ok(bytes) => Chunk::Bytes(bytes),
        Err(e) => Chunk::NotBytes(TransportError::Network {
            reason: [
                "the response body gave a chunk that is not bytes: ",
                &not_bytes(&e),
            ]
            .concat(),
        }),
    }
}

/// Copies `bytes` into `buf` (replacing it). `to_vec` copies into fresh capacity: a buffer kept
/// and resized would first be zero-filled, which at this crate's opt-level `"z"` is a byte loop
/// (5.4 ms of a 50 ms run over the benchmark's 14.9 MB in a V8 profile). The old buffer is freed
/// first, so that the allocator can hand its memory back and two copies never coexist (with both,
/// a 2 MiB network chunk fed 64 KiB at a time raised wasm memory's mark by 0.13 MiB).
pub(crate) fn copy_bytes(bytes: &Uint8Array, buf: &mut Vec<u8>) {
    *buf = Vec::new();
    *buf = bytes.to_vec();
}

/// The bytes of a chunk a JavaScript caller feeds: a `Uint8Array` (a Node `Buffer` is one), an
/// `ArrayBuffer` (viewed, not copied) or an array of byte values (integers from 0 to 255). Read by
/// `byteChunk` (src/wasm/bytes.js), so that no getter or `Proxy` trap of the value throws through
/// the module.
///
/// # Errors
/// `invalid-argument` (`details.what` = `what`) for anything else: a string, another typed array,
/// `null`, an array with an element that is not a byte value (`300`, `-1`, `1.5`, `"97"`, a hole:
/// a `Uint8Array` would store them as other bytes) or whose getter throws, an array of more than
/// 2^28 elements, a detached `ArrayBuffer`… A string is the usual mistake, and read as bytes it
/// would be zeros; an `ArrayBuffer` read as an array would be empty.
pub(crate) fn byte_chunk(value: JsValue, what: &str) -> Result<Uint8Array, JsValue> {
    bytes_of(&value).map_err(|reason| invalid_argument(what, &reason))
}

/// [`byte_chunk`]'s bytes, or the reason it refuses `value`.
pub(crate) fn bytes_of(value: &JsValue) -> Result<Uint8Array, String> {
    byte_chunk_js(value).map_err(|e| not_bytes(&e))
}

/// The reason `byteChunk` refused a value: what it threw.
fn not_bytes(thrown: &JsValue) -> String {
    match thrown.as_string() {
        Some(reason) => reason,
        None => ["it cannot be read: ", &describe(thrown)].concat(),
    }
}

/// A client's `options.fetch`: the function used instead of the global `fetch`, if it is one.
pub(crate) fn fetch_option(options: &JsValue) -> Option<Function> {
    Reflect::get(options, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
}

/// A client's `options.credentials` (`omit`, `same-origin` or `include`; the Fetch standard's
/// `RequestCredentials`).
///
/// # Errors
/// `invalid-argument` naming `options.credentials` for any other value.
pub(crate) fn credentials_option(
    value: Option<&str>,
) -> Result<Option<RequestCredentials>, JsValue> {
    match value {
        None => Ok(None),
        Some("omit") => Ok(Some(RequestCredentials::Omit)),
        Some("same-origin") => Ok(Some(RequestCredentials::SameOrigin)),
        Some("include") => Ok(Some(RequestCredentials::Include)),
        Some(other) => Err(invalid_argument(
            "options.credentials",
            &format!("`{other}` is not omit, same-origin or include"),
        )),
    }
}

/// The response's `Content-Type` header (`""` if none).
pub(crate) fn content_type(r: &Response) -> String {
    header_of(r, "content-type").unwrap_or_default()
}

/// How [`read_body`] ended.
enum BodyEnd {
    /// The body ended.
    Done,
    /// The bytes wanted were read; the rest was cancelled.
    Capped,
    /// No byte came within the stall timeout; the rest was cancelled.
    Stalled,
    /// A read failed (with what it rejected with).
    Failed(JsValue),
    /// A chunk was not bytes (see [`Chunk::NotBytes`]); the rest was cancelled.
    NotBytes(TransportError),
}

/// Reads `reader` until its body ends, `cap` bytes or more were read, no byte came for
/// `stall_ms` milliseconds (0: no limit), a read failed or a chunk was not bytes: what came, and
/// which of these ended it. The rest of a body not read to its end is cancelled.
async fn read_body(reader: &BodyReader, stall_ms: u32, cap: usize) -> (Vec<u8>, BodyEnd) {
    let mut bytes = Vec::new();
    loop {
        if bytes.len() >= cap {
            cancel_quietly(reader);
            return (bytes, BodyEnd::Capped);
        }
        let chunk = match within(read_from(reader), stall_ms).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => {
                cancel_quietly(reader);
                return (bytes, BodyEnd::Stalled);
            }
            // Nothing left to release after a failed read.
            Err(e) => return (bytes, BodyEnd::Failed(e)),
        };
        match read_chunk(&chunk) {
            Chunk::Bytes(b) => bytes.extend_from_slice(&b.to_vec()),
            Chunk::NotBytes(failure) => {
                cancel_quietly(reader);
                return (bytes, BodyEnd::NotBytes(failure));
            }
            Chunk::End => return (bytes, BodyEnd::Done),
        }
    }
}

/// The response body's first 64 KiB as text (UTF-8, bad sequences replaced, cut at a character
/// boundary), or `""` if it cannot be read. Only that much is read: the rest is cancelled, so that
/// an error answer with an endless body neither holds the request nor fills memory. When `signal`
/// fires, or no byte comes for `stall_ms` milliseconds (0: no limit; the rest is then cancelled),
/// the read ends with what came: an error answer whose body stops does not hold the request
/// either.
pub(crate) async fn text_of(r: &Response, signal: Option<&AbortSignal>, stall_ms: u32) -> String {
    /// Bytes read: the 64 KiB kept and a character's worth more (a cut sequence past the cut).
    const READ: usize = 64 * 1024 + 4;
    let Ok(Some(reader)) = reader_of(r) else {
        return String::new();
    };
    let reader = BodyReader::new(reader, signal);
    // However it ends (a failure, a chunk that is not bytes), what came is the body: the error is
    // about the answer's status or type.
    let (bytes, _) = read_body(&reader, stall_ms, READ).await;
    truncate_body(String::from_utf8_lossy(&bytes).into_owned())
}

/// A readable description of a JavaScript error value: an `Error`'s message and its cause's, a
/// string as it is, else `"unknown error"` (also when reading it throws). (An `Error` whose
/// `message` is not a string gives `""` for it.) Read by `describeError` (src/wasm/bytes.js).
pub(crate) fn describe(e: &JsValue) -> String {
    describe_error(e, "unknown error")
}

/// Gives the stream's closing issue the error the stream fails with: in `updates` (a JavaScript
/// array of a stream's updates, as a dialect's drain gives them), the `stream-incomplete` issue
/// the assembler wrote when its input ended takes `failure`'s `code`, `message` and `details`
/// (`network-error` with its `reason`, `stalled` with its `timeoutMs`), so that `onError` gets the
/// code `response`, `messages` or `run` rejects with. Other updates are left as they are.
pub(crate) fn name_failure(updates: &JsValue, failure: &TransportError) {
    use crate::error::ErrorCode;
    for u in js_sys::Array::from(updates).iter() {
        let code = Reflect::get(&u, &"code".into())
            .ok()
            .and_then(|c| c.as_string());
        if code.as_deref() == Some("stream-incomplete") {
            let _ = Reflect::set(&u, &"code".into(), &failure.code().into());
            let _ = Reflect::set(&u, &"message".into(), &failure.to_string().into());
            if let Ok(d) = super::convert::to_js(&failure.details()) {
                let _ = Reflect::set(&u, &"details".into(), &d);
            }
        }
    }
}
