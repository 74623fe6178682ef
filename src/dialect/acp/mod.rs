//! The Agent Communication Protocol, ACP (to be written).
