//! Tools: definitions, JSON Schema argument validation, tool errors (to be written).
