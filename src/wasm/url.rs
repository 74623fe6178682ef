//! URL classification for JavaScript.

use tsify::Ts;
use wasm_bindgen::prelude::*;

use super::convert::to_ts;
use crate::url::UrlClass;

/// Classifies a URL from a message part before rendering it: `{kind, safe, scheme, mediaType}`
/// (see the Rust `url` module's table). Render only URLs whose `safe` is `true`.
///
/// # Errors
/// Never in practice (a conversion failure would be an `internal-error`).
#[wasm_bindgen(js_name = classifyUrl)]
pub fn classify_url(url: &str) -> Result<Ts<UrlClass>, JsValue> {
    to_ts(&crate::url::classify_url(url))
}
