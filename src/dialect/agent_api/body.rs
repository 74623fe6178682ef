//! The Agent API message as a body (to be written).
