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
#[wasm_bindgen(typescript_custom_section)]
const VIOLATION_CODE: &str = crate::body::ViolationCode::TS_TYPE;

#[cfg(feature = "agentx")]
mod agentx {
    use super::*;
    use crate::dialect::agentx as x;

    #[wasm_bindgen(typescript_custom_section)]
    const ROLE: &str = x::Role::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const TOOL_ERROR_TYPE: &str = x::ToolErrorType::TS_TYPE;
}

#[cfg(feature = "atlas")]
mod atlas {
    use super::*;
    use crate::dialect::atlas as t;

    #[wasm_bindgen(typescript_custom_section)]
    const TOOL_STATUS: &str = t::ToolStatus::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const MESSAGE_TYPE: &str = t::MessageType::TS_TYPE;
}

#[cfg(feature = "acp")]
mod acp {
    use super::*;
    use crate::dialect::acp as c;

    #[wasm_bindgen(typescript_custom_section)]
    const RUN_STATUS: &str = c::RunStatus::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const RUN_MODE: &str = c::RunMode::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const AWAIT_TYPE: &str = c::AwaitType::TS_TYPE;
    #[wasm_bindgen(typescript_custom_section)]
    const SERVER_ERROR_CODE: &str = c::ServerErrorCode::TS_TYPE;
}

#[wasm_bindgen(typescript_custom_section)]
const COMMUNICATION_SCHEMA: &str = crate::run::CommunicationSchema::TS_TYPE;
