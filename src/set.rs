//! Sets of names kept as maps to unused `usize`s.
//!
//! A `BTreeSet<K>` compiles the B-tree's node code (insertion, splitting, dropping) for its key
//! type even where a `BTreeMap<K, usize>` of the same key type is compiled already; these sets
//! use that map instead: about 4 KB less of the wasm module for the sets of `String` and `&str`
//! the dialects' name makers, the tool loops and the run schemas keep.

use std::borrow::Borrow;
use std::collections::BTreeMap;

/// A set of `K`, in key order (what a `BTreeSet<K>` is, through a `BTreeMap<K, usize>`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Set<K: Ord>(BTreeMap<K, usize>);

impl<K: Ord> Set<K> {
    /// An empty set.
    pub(crate) fn new() -> Self {
        Self(BTreeMap::new())
    }

    /// Adds `key`: `true` if it was not in the set.
    pub(crate) fn insert(&mut self, key: K) -> bool {
        self.0.insert(key, 0).is_none()
    }

    /// Whether `key` is in the set.
    pub(crate) fn contains<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.0.contains_key(key)
    }
}

#[cfg(test)]
mod tests {
    use super::Set;

    #[test]
    fn a_set_tells_new_keys_from_known_ones() {
        let mut set = Set::new();
        assert!(set.insert("b".to_owned()));
        assert!(set.insert("a".to_owned()));
        assert!(!set.insert("b".to_owned()));
        assert!(set.contains("a") && set.contains("b") && !set.contains("c"));
    }
}
