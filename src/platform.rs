//! The two things the core needs from its host: the time and random bytes. Native builds use the
//! operating system; wasm builds use `Date.now()` and `crypto.getRandomValues` (through `getrandom`).

/// Unix time in seconds (with a fractional part).
pub fn now_unix_seconds() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() / 1000.0
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64())
    }
}

/// Fills `buf` with random bytes. If the host has no random source, falls back to a time-seeded
/// xorshift (ids stay unique per process, not unpredictable).
pub fn random_bytes(buf: &mut [u8]) {
    if getrandom::getrandom(buf).is_ok() {
        return;
    }
    use std::sync::atomic::{AtomicU64, Ordering};
    static STATE: AtomicU64 = AtomicU64::new(0);
    let mut x =
        STATE.load(Ordering::Relaxed) ^ (now_unix_seconds() * 1e6) as u64 ^ 0x9E37_79B9_7F4A_7C15;
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    STATE.store(x, Ordering::Relaxed);
}

/// `n` random bytes as lowercase hex (`2n` characters).
pub fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    random_bytes(&mut bytes);
    let mut s = String::with_capacity(2 * n);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A random (version 4) UUID, hyphenated lowercase: `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`.
#[cfg_attr(agentwire_size, optimize(size))]
pub fn uuid_v4() -> String {
    let mut b = [0u8; 16];
    random_bytes(&mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push(char::from(HEX[usize::from(byte >> 4)]));
        s.push(char::from(HEX[usize::from(byte & 15)]));
    }
    s
}
