//! The Atlas structured inter-agent message format (to be written).
