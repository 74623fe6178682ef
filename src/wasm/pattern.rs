//! Glob patterns for JavaScript (always built: streams use them to query named parts).

use wasm_bindgen::prelude::*;

use super::error::js_error;
use crate::pattern::Pattern;

/// A compiled glob pattern over part names (`/sources/*`, `/files/**`, `/a/{b,c}`) or, with
/// `Pattern.contentType`, over MIME content types (`image/*`, `text/{plain,markdown}`). See the
/// Rust `pattern` module's "Syntax" section for exactly what matches.
#[wasm_bindgen(js_name = Pattern)]
pub struct JsPattern(pub(crate) Pattern);

#[wasm_bindgen(js_class = Pattern)]
impl JsPattern {
    /// Compiles a pattern over part names.
    ///
    /// # Errors
    /// A `ProtocolError` whose code names the problem (`unclosed-brace`, `trailing-escape`, …) with
    /// the pattern and the byte position in `details`.
    #[wasm_bindgen(constructor)]
    pub fn new(pattern: &str) -> Result<JsPattern, JsValue> {
        Pattern::new(pattern).map(Self).map_err(|e| js_error(&e))
    }

    /// Compiles a pattern over MIME content types (case-insensitive; parameters of the matched
    /// type are ignored).
    ///
    /// # Errors
    /// As the constructor.
    #[wasm_bindgen(js_name = contentType)]
    pub fn content_type(pattern: &str) -> Result<JsPattern, JsValue> {
        Pattern::content_type(pattern)
            .map(Self)
            .map_err(|e| js_error(&e))
    }

    /// Whether `text` matches.
    #[wasm_bindgen(js_name = isMatch)]
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// The pattern as written.
    #[wasm_bindgen(getter)]
    pub fn source(&self) -> String {
        self.0.as_str().to_owned()
    }

    /// Whether this is a content-type pattern (made by `Pattern.contentType`).
    #[wasm_bindgen(getter, js_name = isContentType)]
    pub fn is_content_type(&self) -> bool {
        self.0.is_content_type()
    }

    /// A copy sharing the compiled pattern (internal: lets other classes take a pattern argument).
    #[wasm_bindgen(js_name = "__share", skip_typescript)]
    pub fn share(&self) -> JsPattern {
        JsPattern(self.0.clone())
    }
}
