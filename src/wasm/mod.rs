//! The JavaScript binding: the only `#[wasm_bindgen]` code. It converts values and delegates to the
//! core; nothing here parses, assembles or validates.
//!
//! How values cross (one serializer for everything): Rust values become JSON text with
//! `serde_json` and JavaScript values with `JSON.parse`, and back with `JSON.stringify` (read into a
//! `serde_json::Value` first, then into the type: see `convert::from_js`); this is tsify's `json`
//! mode behind `tsify::Ts<T>`. `JSON.parse` creates own data properties, so a
//! `"__proto__"` key stays data and no prototype is ever changed (an object-by-object serializer that
//! assigns `obj[key] = value` would set the prototype instead).
//!
//! | Rust | JavaScript |
//! |---|---|
//! | `String`, `&str` | `string` |
//! | `u32`, `u64`, `i64`, `f64` | `number` (integers above 2^53 lose precision) |
//! | `Option<T>` | `T \| null` (`T \| undefined` where the field may be left out) |
//! | `Vec<T>` | `T[]` |
//! | `serde_json::Value` | `JsonValue` |
//! | byte input | `Uint8Array` |
//! | wire enums (`Role`, …) | string literal unions open to other strings |
//! | errors | `ProtocolError` (an `Error` subclass with `code` and `details`) |

#[cfg(feature = "acp")]
pub mod acp;
#[cfg(feature = "agent-api")]
pub mod agent_api;
#[cfg(feature = "agent-api-server")]
pub mod agent_api_server;
#[cfg(feature = "agentx")]
pub mod agentx;
#[cfg(feature = "atlas")]
pub mod atlas;
#[cfg(feature = "bodies")]
pub mod body;
#[cfg(feature = "agent-api")]
pub mod client;
mod convert;
pub mod error;
mod http;
#[cfg(feature = "tools")]
pub mod json;
pub mod pattern;
#[cfg(feature = "runs")]
pub mod run;
pub mod sse;
#[cfg(feature = "tools")]
pub mod tools;
mod types;
pub mod url;
