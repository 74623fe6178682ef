//! `SseDecoder` for JavaScript: the sans-IO decoder over `Uint8Array` chunks.

use agentwire_core::json::Fields;
use serde::Serialize;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use super::convert::{from_js, to_ts};
use crate::error::ErrorCode;
use crate::sse::{SseItem, SseOptions};

/// One item the decoder produced, in stream order.
#[derive(Serialize, Tsify)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SseDecoderItem {
    /// A dispatched event (`event` type, `data`, last event `id`).
    Event {
        /// Event type (`"message"` by default).
        event: String,
        /// Data lines joined with LF.
        data: String,
        /// The last event ID string at dispatch.
        id: String,
    },
    /// A valid `retry` field: the reconnection time in milliseconds (saturated at 2^64 − 1, and a
    /// number: exact up to 2^53).
    Retry {
        /// Milliseconds.
        retry: u64,
    },
    /// A recoverable error (`event-too-large`, `incomplete-event`); decoding went on.
    Error {
        /// Stable code.
        code: String,
        /// Readable message.
        message: String,
        /// Details.
        #[tsify(type = "JsonValue")]
        details: serde_json::Value,
    },
}

/// A list of decoder items.
#[derive(Serialize, Tsify)]
pub struct SseDecoderItems(Vec<SseDecoderItem>);

/// Options of `new SseDecoder(options)`.
#[derive(Tsify, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct SseDecoderOptions {
    /// Largest event in bytes (default 16 MiB).
    #[tsify(optional)]
    pub max_event_size: Option<usize>,
}

agentwire_core::deserialize_by_fields!(SseDecoderOptions, "struct SseDecoderOptions");

impl SseDecoderOptions {
    /// Reads the fields by name (see `agentwire_core::json::Fields`), as serde's derive did:
    /// each of an `Option` type may be absent or `null`, unknown ones are ignored.
    pub(crate) fn read_fields(f: &mut Fields) -> Result<Self, serde_json::Error> {
        Ok(Self {
            max_event_size: f.optional("maxEventSize")?,
        })
    }
}

fn own(item: SseItem<'_>) -> SseDecoderItem {
    match item {
        SseItem::Event(e) => SseDecoderItem::Event {
            event: e.event.into(),
            data: e.data.into(),
            id: e.id.into(),
        },
        SseItem::Retry(ms) => SseDecoderItem::Retry { retry: ms },
        SseItem::Error(e) => SseDecoderItem::Error {
            code: e.code().into(),
            message: e.to_string(),
            details: e.details(),
        },
    }
}

/// A WHATWG-exact server-sent events decoder (see the Rust `sse` module): feed it the bytes of a
/// `text/event-stream` as they arrive.
#[wasm_bindgen(js_name = SseDecoder)]
pub struct JsSseDecoder(crate::sse::SseDecoder);

#[wasm_bindgen(js_class = SseDecoder)]
impl JsSseDecoder {
    /// A decoder; `options.maxEventSize` in bytes (default 16 MiB).
    ///
    /// # Errors
    /// `invalid-argument` if `options` has the wrong shape.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<Ts<SseDecoderOptions>>) -> Result<JsSseDecoder, JsValue> {
        let o: SseDecoderOptions = match options {
            Some(o) => from_js(&o.js_value(), "options")?,
            None => SseDecoderOptions::default(),
        };
        let mut sse = SseOptions::default();
        if let Some(m) = o.max_event_size {
            sse.max_event_size = m;
        }
        Ok(Self(crate::sse::SseDecoder::with_options(sse)))
    }

    /// Decodes the next chunk (a `Uint8Array`, an `ArrayBuffer` or an array of byte values);
    /// returns the items it completed.
    ///
    /// # Errors
    /// `invalid-argument` (`details.what` = `"bytes"`) for anything else, such as a string.
    pub fn feed(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | ArrayBuffer | number[]")]
        bytes: JsValue,
    ) -> Result<Ts<SseDecoderItems>, JsValue> {
        let bytes = super::http::byte_chunk(bytes, "bytes")?.to_vec();
        let mut out = Vec::new();
        self.0.feed_dyn(&bytes, &mut |i| out.push(own(i)));
        to_ts(&SseDecoderItems(out))
    }

    /// Ends the stream (an unterminated event is reported, not dispatched) and resets.
    pub fn finish(&mut self) -> Result<Ts<SseDecoderItems>, JsValue> {
        let mut out = Vec::new();
        self.0.finish_dyn(&mut |i| out.push(own(i)));
        to_ts(&SseDecoderItems(out))
    }

    /// Starts a new stream, keeping the last event ID and reconnection time.
    pub fn reset(&mut self) {
        self.0.reset();
    }

    /// The last event ID string (what a reconnecting client sends as `Last-Event-ID`).
    #[wasm_bindgen(getter, js_name = lastEventId)]
    pub fn last_event_id(&self) -> String {
        self.0.last_event_id().to_owned()
    }

    /// The reconnection time in milliseconds, if a `retry` field set one (saturated at 2^64 − 1,
    /// exact up to 2^53).
    #[wasm_bindgen(getter)]
    pub fn retry(&self) -> Option<f64> {
        self.0.retry().map(|r| r as f64)
    }
}
