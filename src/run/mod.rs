//! Runs and communication schemas (to be written).
