//! JSON helpers: the incremental (partial) JSON parser for streamed tool arguments (to be written).
