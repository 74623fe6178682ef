//! Decimal to binary floating point: a JSON number's digits read as the nearest `f64`, ties to
//! even (IEEE 754 §5.12.2; what `JSON.parse`, ECMAScript's StringToNumber, and `f64::from_str`
//! give), without tables: [`json::parse_value`](super::parse_value)'s float reader.
//!
//! Most literals take Clinger's fast path (at most 2^53 and a power of ten up to 10^22, both exact
//! as `f64`, so one rounding). The others start from an estimate within a few ULPs and step to
//! the nearest `f64` by comparing the exact decimal value with the halfway points between
//! neighbouring floats, in big integers (the "bigcomp" method of David Gay's `strtod`). That is
//! slower, but numbers a float cannot hold exactly with 15 significant digits are rare in agent
//! traffic, and the alternative tables (`f64::from_str`'s 128-bit powers of five, serde_json's
//! `float_roundtrip`) were the larger part of the wasm module's number reading.

use std::cmp::Ordering;

/// Significant digits compared exactly; a literal's further digits only count as "more than
/// zero". A halfway point between two `f64`s has at most 767 significant decimal digits, so a
/// value cut after 768 digits, plus a nonzero digit standing for the rest, compares with every
/// halfway point as the whole value does.
const MAX_DIGITS: usize = 768;

/// 10^0 to 10^22: the powers of ten an `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The nearest `f64` to the non-negative decimal `int.frac × 10^exp`, where `int` and `frac` are
/// ASCII digits (either may be empty; leading zeros allowed) and `exp` the exponent as written
/// (saturated by the caller to ±10^9, which only moves values already far out of range).
/// `None` if it rounds to infinity (above `f64::MAX` by half an ULP or more); values too small for
/// the smallest subnormal round to `0.0`.
pub(crate) fn decimal_to_f64(int: &[u8], frac: &[u8], exp: i64) -> Option<f64> {
    // The significant digits: from the first nonzero digit to the last nonzero one.
    let all = || int.iter().chain(frac).copied();
    let Some(first) = all().position(|d| d != b'0') else {
        return Some(0.0);
    };
    let total = int.len() + frac.len();
    let last = total - 1 - all().rev().position(|d| d != b'0').unwrap_or(0);
    let count = last + 1 - first;
    // The value is digits × 10^scale, with the digits read as an integer.
    let scale = exp - frac.len() as i64 + (total - 1 - last) as i64;
    // 10^(count + scale - 1) <= value < 10^(count + scale).
    let magnitude = count as i64 + scale;
    if magnitude > 310 {
        return None;
    }
    if magnitude < -324 {
        return Some(0.0);
    }
    let digits = || all().skip(first).take(count);

    // Clinger's fast path.
    if count <= 15 && (-22..=22).contains(&scale) {
        let n = digits().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')) as f64;
        let p = POW10[scale.unsigned_abs() as usize];
        return Some(if scale < 0 { n / p } else { n * p });
    }

    // The exact value as a big integer and a power of ten: at most MAX_DIGITS digits, and a `1`
    // after them when nonzero digits were cut.
    let kept = count.min(MAX_DIGITS);
    let mut big = Big::default();
    let mut chunk = 0u32;
    let mut in_chunk = 0;
    for d in digits().take(kept) {
        chunk = chunk * 10 + u32::from(d - b'0');
        in_chunk += 1;
        if in_chunk == 9 {
            big.mul_add(1_000_000_000, chunk);
            chunk = 0;
            in_chunk = 0;
        }
    }
    big.mul_add(10u32.pow(in_chunk), chunk);
    let mut scale = scale + (count - kept) as i64;
    if count > kept {
        big.mul_add(10, 1);
        scale -= 1;
    }

    // An estimate from the first 19 digits, then the comparisons.
    let head = digits()
        .take(19)
        .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
    let head_scale = magnitude - count.min(19) as i64;
    let mut estimate = scaled(head as f64, head_scale);
    if estimate.is_infinite() {
        estimate = f64::MAX;
    }
    let decimal = Decimal { digits: big, scale };
    let mut x = estimate;
    loop {
        let (m, e) = parts(x);
        // Above the halfway point to the next float up?
        match decimal.cmp_binary(2 * m + 1, e - 1) {
            Ordering::Greater => {
                x = next_up(x);
                if x.is_infinite() {
                    return None;
                }
                continue;
            }
            Ordering::Equal => return Some(if m % 2 == 0 { x } else { next_up(x) }),
            Ordering::Less => {}
        }
        if x == 0.0 {
            return Some(x);
        }
        // Below the halfway point to the next float down? (Half as far at a power of two, where
        // the spacing below is half the spacing above, unless `x` is the smallest normal.)
        let (low_m, low_e) = if m == 1 << 52 && e > -1074 {
            (4 * m - 1, e - 2)
        } else {
            (2 * m - 1, e - 1)
        };
        match decimal.cmp_binary(low_m, low_e) {
            Ordering::Less => x = next_down(x),
            Ordering::Equal => return Some(if m % 2 == 0 { x } else { next_down(x) }),
            Ordering::Greater => return Some(x),
        }
    }
}

/// `n × 10^scale` in floating point (an estimate: each step rounds), in steps that neither
/// overflow nor underflow before the end where the result does not.
fn scaled(mut n: f64, mut scale: i64) -> f64 {
    while scale > 22 {
        n *= 1e22;
        scale -= 22;
    }
    while scale < -22 {
        n /= 1e22;
        scale += 22;
    }
    let p = POW10[scale.unsigned_abs() as usize];
    if scale < 0 {
        n / p
    } else {
        n * p
    }
}

/// `x` (finite, non-negative) as `m × 2^e` with the integer significand `m` (the hidden bit
/// included for normal numbers).
fn parts(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, exponent - 1075)
    }
}

/// The next `f64` above `x` (finite, non-negative): infinity after `f64::MAX`.
fn next_up(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

/// The next `f64` below `x` (positive).
fn next_down(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

/// A decimal `digits × 10^scale`, exactly.
struct Decimal {
    digits: Big,
    scale: i64,
}

impl Decimal {
    /// How the decimal compares with `m × 2^e`: both sides multiplied up to integers.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn cmp_binary(&self, m: u64, e: i64) -> Ordering {
        let mut left = self.digits.clone();
        let mut right = Big::default();
        right.mul_add(1, (m & 0xffff_ffff) as u32);
        right.add_high((m >> 32) as u32);
        if self.scale >= 0 {
            left.mul_pow10(self.scale as u64);
        } else {
            right.mul_pow10(self.scale.unsigned_abs());
        }
        if e >= 0 {
            right.shl(e as u64);
        } else {
            left.shl(e.unsigned_abs());
        }
        left.cmp(&right)
    }
}

/// An unsigned big integer, 32-bit limbs, least significant first, no high zero limbs.
#[derive(Clone, Default)]
struct Big(Vec<u32>);

impl Big {
    /// `self = self × factor + add`.
    fn mul_add(&mut self, factor: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(factor) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self += high × 2^32`, for `self` < 2^32.
    fn add_high(&mut self, high: u32) {
        if high != 0 {
            if self.0.is_empty() {
                self.0.push(0);
            }
            self.0.push(high);
        }
    }

    /// `self × 10^k`.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn mul_pow10(&mut self, mut k: u64) {
        while k >= 9 {
            self.mul_add(1_000_000_000, 0);
            k -= 9;
        }
        self.mul_add(10u32.pow(k as u32), 0);
    }

    /// `self × 2^k`.
    #[cfg_attr(agentwire_size, optimize(size))]
    fn shl(&mut self, k: u64) {
        if self.0.is_empty() {
            return;
        }
        let limbs = (k / 32) as usize;
        let bits = (k % 32) as u32;
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = *limb;
                *limb = v << bits | carry;
                carry = v >> (32 - bits);
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    #[cfg_attr(agentwire_size, optimize(size))]
    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::decimal_to_f64;

    /// Reads `text` (a JSON number without sign) as the function's caller does.
    fn read(text: &str) -> Option<f64> {
        let (mantissa, exp) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], text[at + 1..].parse::<i64>().unwrap()),
            None => (text, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        decimal_to_f64(int.as_bytes(), frac.as_bytes(), exp)
    }

    /// What the standard library reads (correctly rounded), `None` for infinity.
    fn std(text: &str) -> Option<f64> {
        Some(text.parse::<f64>().unwrap()).filter(|x| x.is_finite())
    }

    #[test]
    fn hard_cases_are_read_as_the_standard_library_reads_them() {
        for text in [
            "0",
            "0.0",
            "000.000e5",
            "1",
            "1.5",
            "1758972921.8811321",
            "1795691546.6036239",
            "4200001210513.073410",
            "1.4901437678453860e129",
            "9007199254740993",
            "9007199254740995",
            "9007199254740992.5",
            "18446744073709551616",
            "123456789012345678901234567890",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "2.2250738585072014e-308",
            "2.225073858507201136057409796709131975934819546351645648e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.47032822920623272088284396434110686182529901307162382212792841250337753635104375932649918180817996189898282347722858865463328355177969898199387398005390939063150356595155702263922908583924491051844359318028499365361525003193704576782492193656236698636584807570015857692699037063119282795585513329278343384093519780155312465972635795746227664652728272200563740064854999770965994704540208281662262378573934507363390079677619305775067401763246736009689513405355374585166611342237666786041621596804619144672918403005300575308490487653917113865916462395249126236538818796362393732804238910186723484976682350898633885879256283027559956575244555072551893136908362547791869486679949683240497058210285131854513962138377228261454376934125320985913276672363281255e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999",
            "1e308",
            "1e309",
            "1e-324",
            "1e-400",
            "0.1",
            "0.30000000000000004",
            "3.141592653589793",
            "123.456e-7",
            "7.038531e-26",
            "9.999999999999999e22",
            "1e23",
            "8.98846567431158e307",
            "5e-324",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
        ] {
            assert_eq!(read(text), std(text), "{text}");
        }
        assert_eq!(read("1e999999999"), None);
        assert_eq!(read("1e-999999999"), Some(0.0));
    }

    /// Below a power of two the floats are spaced half as far as above it: the halfway points
    /// between every power of two and the float just below it, and their closest neighbours.
    #[test]
    fn halfway_points_below_powers_of_two_round_to_even() {
        for exponent in 1u64..2047 {
            let below = f64::from_bits((exponent << 52) - 1);
            let half = exact_midpoint(below, f64::from_bits(exponent << 52));
            for nudge in -1..=1 {
                let text = nudged(&half, nudge);
                assert_eq!(read(&text), std(&text), "{text}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Random digits and exponents over the whole range, subnormals and overflow included.
        #[test]
        fn random_literals_read_as_the_standard_library(
            int in "[0-9]{1,25}",
            frac in "[0-9]{0,25}",
            exp in -360i64..330,
        ) {
            let text = if frac.is_empty() { format!("{int}e{exp}") } else { format!("{int}.{frac}e{exp}") };
            prop_assert_eq!(read(&text), std(&text), "{}", text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5_000))]

        /// The halfway points between neighbouring floats and their closest neighbours (the
        /// halfway point written exactly, then its last digit moved one way or the other).
        #[test]
        fn halfway_points_round_to_even(bits in 1u64..0x7fef_ffff_ffff_ffff, nudge in -1i32..=1) {
            let x = f64::from_bits(bits);
            let up = f64::from_bits(bits + 1);
            // The exact halfway point: both are m × 2^e; (x + up) / 2 in decimal, exactly.
            let half = exact_midpoint(x, up);
            let text = nudged(&half, nudge);
            prop_assert_eq!(read(&text), std(&text), "{}", text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Long literals: cut after 768 digits, the rest only counted as nonzero.
        #[test]
        fn long_literals_read_as_the_standard_library(
            int in "[1-9][0-9]{0,3}",
            frac in "[0-9]{700,900}",
            exp in -330i64..300,
        ) {
            let text = format!("{int}.{frac}e{exp}");
            prop_assert_eq!(read(&text), std(&text), "{}", text);
        }
    }

    /// `(a + b) / 2` written exactly in decimal scientific notation (`f64`s are dyadic rationals:
    /// their midpoint is one too, with a finite decimal expansion).
    fn exact_midpoint(a: f64, b: f64) -> String {
        // Both as integer × 2^-1075 (one more bit than the smallest subnormal's exponent).
        let as_int = |x: f64| -> (Vec<u32>, i64) {
            let (m, e) = super::parts(x);
            (vec![m as u32, (m >> 32) as u32], e)
        };
        let (ma, ea) = as_int(a);
        let (mb, eb) = as_int(b);
        let e = ea.min(eb) - 1;
        let mut sum = super::Big(ma);
        sum.shl((ea - e) as u64);
        let mut other = super::Big(mb);
        other.shl((eb - e) as u64);
        // sum += other
        let mut carry = 0u64;
        let n = sum.0.len().max(other.0.len());
        sum.0.resize(n, 0);
        for (i, limb) in sum.0.iter_mut().enumerate() {
            let v = u64::from(*limb) + u64::from(*other.0.get(i).unwrap_or(&0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            sum.0.push(carry as u32);
        }
        // The midpoint is sum × 2^(e - 1). Write sum × 5^k / 10^k for k = 1 - e when e < 1.
        let mut digits_scale = 0i64;
        if e - 1 < 0 {
            for _ in 0..(1 - e) {
                sum.mul_add(5, 0);
            }
            digits_scale = e - 1;
        } else {
            sum.shl((e - 1) as u64);
        }
        // Decimal digits of `sum`.
        let mut limbs = sum.0.clone();
        let mut digits = Vec::new();
        while limbs.iter().any(|&l| l != 0) {
            let mut rem = 0u64;
            for limb in limbs.iter_mut().rev() {
                let v = rem << 32 | u64::from(*limb);
                *limb = (v / 10) as u32;
                rem = v % 10;
            }
            digits.push(b'0' + rem as u8);
        }
        digits.reverse();
        format!("{}e{}", String::from_utf8(digits).unwrap(), digits_scale)
    }

    /// `text` (digits `e` exponent) with its last digit moved by `nudge` (when it can be).
    fn nudged(text: &str, nudge: i32) -> String {
        let (digits, exp) = text.split_once('e').unwrap();
        let mut digits = digits.as_bytes().to_vec();
        let last = digits.last_mut().unwrap();
        let moved = i32::from(*last - b'0') + nudge;
        if (0..=9).contains(&moved) {
            *last = b'0' + moved as u8;
        }
        format!("{}e{exp}", String::from_utf8(digits).unwrap())
    }
}
