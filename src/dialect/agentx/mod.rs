//! The AgentX message format (to be written).
