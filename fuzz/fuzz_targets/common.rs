//! Helpers shared by the fuzz targets (included with `#[path]`).
#![allow(dead_code)]

/// Splits `data` into chunks whose lengths come from a small PRNG seeded by `seed`: the same
/// input always splits the same way, and different seeds give very different splits (single
/// bytes, short runs, long runs).
pub fn chunks(seed: u8, data: &[u8]) -> Vec<&[u8]> {
    let max = match seed & 3 {
        0 => 1,
        1 => 4,
        2 => 17,
        _ => 256,
    };
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let len = (state as usize % max + 1).min(rest.len());
        let (a, b) = rest.split_at(len);
        out.push(a);
        rest = b;
    }
    out
}

/// Takes the first byte of `data` (0 when empty) and the rest.
pub fn split_first(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((b, rest)) => (*b, rest),
        None => (0, data),
    }
}
