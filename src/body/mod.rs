//! Message bodies: named parts, queried like a filesystem, checked against body schemas.

mod part;

pub use part::{Body, ContentEncoding, Part, PartKind, PartStatus};
