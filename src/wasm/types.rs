//! TypeScript declarations of types the core defines without tsify (JSON values, open string
//! enums), generated from the same Rust constants.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const JSON_VALUE: &str = crate::wire::JSON_VALUE_TS;

#[cfg(feature = "agent-api")]
mod agent_api {
    use super::*;
    use crate::dialect::agent_api as a;

    #[wasm_bindgen(typescript_custom_section)]
    const ROLE: &str = a::Role::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const MESSAGE_TYPE: &str = a::MessageType::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const CONTENT_KIND: &str = a::ContentKind::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const RUN_STATUS: &str = a::RunStatus::TS_TYPE;
}

#[wasm_bindgen(typescript_custom_section)]
const PART_KIND: &str = crate::body::PartKind::TS_TYPE;
#[wasm_bindgen(typescript_custom_section)]
const CONTENT_ENCODING: &str = crate::body::ContentEncoding::TS_TYPE;
#[wasm_bindgen(typescript_custom_section)]
const PART_STATUS: &str = crate::body::PartStatus::TS_TYPE;
