//! Glob patterns over part names and MIME content types (to be written).
