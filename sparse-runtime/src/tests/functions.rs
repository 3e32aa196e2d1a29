//! The functions kernels call by name (`crate::functions`): values, and the edge cases
//! where Rust's own operators would panic or where floats have special values.

use crate::functions::*;

#[test]
fn infinities_are_the_extremes_of_every_type() {
    assert_eq!(f32::infinity(), f32::INFINITY);
    assert_eq!(f32::neg_infinity(), f32::NEG_INFINITY);
    assert_eq!(f64::infinity(), f64::INFINITY);
    assert_eq!(f64::neg_infinity(), f64::NEG_INFINITY);
    macro_rules! ints {
        ($($t:ty),*) => {$(
            assert_eq!(<$t as Infinity>::infinity(), <$t>::MAX);
            assert_eq!(<$t as Infinity>::neg_infinity(), <$t>::MIN);
            // The identities of min and max.
            for x in [<$t>::MIN, <$t>::MIN / 2, 0, 1, <$t>::MAX / 3, <$t>::MAX] {
                assert_eq!(min(<$t>::infinity(), x), x);
                assert_eq!(min(x, <$t>::infinity()), x);
                assert_eq!(max(<$t>::neg_infinity(), x), x);
                assert_eq!(max(x, <$t>::neg_infinity()), x);
            }
        )*};
    }
    ints!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
}

#[test]
fn min_and_max_choose_the_first_on_ties_and_never_a_nan_second() {
    assert_eq!((min(1, 2), min(2, 1), max(1, 2), max(2, 1)), (1, 1, 2, 2));
    assert_eq!(min(-0.5, f64::INFINITY), -0.5);
    assert_eq!(max(-0.5, f64::NEG_INFINITY), -0.5);
    assert_eq!(min(f64::NEG_INFINITY, 1.0), f64::NEG_INFINITY); // the annihilator
    assert_eq!(max(f64::INFINITY, 1.0), f64::INFINITY);
    // Ties give `a`: the sign of zero shows it.
    assert!(min(0.0f64, -0.0).is_sign_positive());
    assert!(min(-0.0f64, 0.0).is_sign_negative());
    assert!(max(-0.0f64, 0.0).is_sign_negative());
    // A NaN `b` is never chosen; a NaN `a` is kept.
    assert_eq!(min(3.0, f64::NAN), 3.0);
    assert_eq!(max(3.0f32, f32::NAN), 3.0);
    assert!(min(f64::NAN, 3.0).is_nan());
    assert!(max(f32::NAN, 3.0).is_nan());
    assert!(min(f64::NAN, f64::NAN).is_nan());
    // Idempotent, commutative and associative away from NaN.
    let xs = [-2.5, -0.0, 0.0, 1.0, f64::INFINITY, f64::NEG_INFINITY];
    for &a in &xs {
        assert_eq!(min(a, a).to_bits(), a.to_bits());
        for &b in &xs {
            assert_eq!(min(a, b), min(b, a));
            assert_eq!(max(a, b), max(b, a));
            for &c in &xs {
                assert_eq!(min(min(a, b), c), min(a, min(b, c)));
                assert_eq!(max(max(a, b), c), max(a, max(b, c)));
            }
        }
    }
}

#[test]
fn abs_never_panics() {
    assert_eq!(abs(-3.5f32), 3.5);
    assert!(abs(-0.0f64).is_sign_positive());
    assert!(abs(f64::NAN).is_nan());
    assert_eq!(abs(f64::NEG_INFINITY), f64::INFINITY);
    assert_eq!(abs(-5i16), 5);
    assert_eq!(abs(i8::MIN), i8::MIN);
    assert_eq!(abs(i128::MIN), i128::MIN);
    assert_eq!(abs(isize::MIN + 1), isize::MAX);
    assert_eq!(abs(u64::MAX), u64::MAX);
    assert_eq!(abs(0usize), 0);
}

#[test]
fn sqrt_and_exp_follow_the_float() {
    assert_eq!(sqrt(16.0f32), 4.0);
    assert_eq!(sqrt(0.0), 0.0);
    assert!(sqrt(-0.0f64).is_sign_negative());
    assert!(sqrt(-4.0f64).is_nan());
    assert_eq!(sqrt(f64::INFINITY), f64::INFINITY);
    assert_eq!(exp(0.0f32), 1.0);
    assert_eq!(exp(1.0f64), std::f64::consts::E);
    assert_eq!(exp(f64::INFINITY), f64::INFINITY);
    assert_eq!(exp(f64::NEG_INFINITY), 0.0);
    assert!(exp(f64::NAN).is_nan());
}

#[test]
fn ldexp_scales_by_powers_of_two_across_the_whole_range() {
    assert_eq!(ldexp(3.0, 2.0), 12.0);
    assert_eq!(ldexp(-3.0f32, -2.0), -0.75);
    assert_eq!(ldexp(1.0, 0.5), std::f64::consts::SQRT_2);
    // 2^e alone is out of range, the result is not.
    let tiny = f64::from_bits(1); // 2^-1074
    assert_eq!(ldexp(tiny, 1100.0), 2f64.powi(26));
    assert_eq!(ldexp(tiny, 2097.0), 2f64.powi(1023));
    assert_eq!(ldexp(2f64.powi(1023), -2097.0), tiny);
    assert_eq!(ldexp(1.0, -1074.0), tiny);
    assert_eq!(ldexp(1.5, -1074.0), 2.0 * tiny); // rounded to even, once
    assert_eq!(ldexp(f32::from_bits(1), 170.0), 2f32.powi(21));
    assert_eq!(ldexp(1.0f32, -149.0), f32::from_bits(1));
    // Out of range: saturated, signs kept.
    assert_eq!(ldexp(1.0, 5000.0), f64::INFINITY);
    assert_eq!(ldexp(-1.0, 5000.0), f64::NEG_INFINITY);
    assert_eq!(ldexp(1.0, -5000.0), 0.0);
    assert!(ldexp(-1.0f64, -5000.0).is_sign_negative());
    assert_eq!(ldexp(1.0f32, -1e30), 0.0);
    assert_eq!(ldexp(1.0, 4097.0), f64::INFINITY);
    assert_eq!(ldexp(1.0, -4097.0), 0.0);
    assert_eq!(ldexp(1.0f32, 1e30), f32::INFINITY);
    // Zero, infinity and NaN values; infinite and NaN exponents.
    assert_eq!(ldexp(0.0, 5000.0), 0.0);
    assert!(ldexp(-0.0f64, 3.0).is_sign_negative());
    assert_eq!(ldexp(f64::INFINITY, -5000.0), f64::INFINITY);
    assert!(ldexp(f64::NAN, 1.0).is_nan());
    assert!(ldexp(1.0, f64::NAN).is_nan());
    assert_eq!(ldexp(2.0, f64::INFINITY), f64::INFINITY);
    assert_eq!(ldexp(2.0, f64::NEG_INFINITY), 0.0);
    // 0 annihilates ldexp at the value, whatever the exponent.
    assert_eq!(ldexp(0.0, f64::INFINITY), 0.0);
    assert_eq!(ldexp(0.0, f64::NAN), 0.0);
}

#[test]
fn float_pow_is_powf() {
    assert_eq!(pow(2.0f32, 10.0), 1024.0);
    assert_eq!(pow(9.0, 0.5), 3.0);
    assert_eq!(pow(2.0, -1.0), 0.5);
    assert_eq!(pow(f64::NAN, 0.0), 1.0);
    assert_eq!(pow(1.0, f64::NAN), 1.0);
    assert!(pow(-8.0f64, 1.0 / 3.0).is_nan());
    assert_eq!(pow(0.0, -1.0), f64::INFINITY);
}

#[test]
fn integer_pow_wraps_and_never_panics() {
    assert_eq!(pow(3i32, 4), 81);
    assert_eq!(pow(-3i32, 3), -27);
    assert_eq!(pow(7u64, 0), 1);
    assert_eq!(pow(0i8, 0), 1);
    assert_eq!(pow(2u8, 9), 0);
    assert_eq!(pow(3u8, 5), 243);
    assert_eq!(pow(3u8, 6), 3u8.wrapping_pow(6));
    assert_eq!(pow(i32::MAX, 2), 1);
    assert_eq!(pow(i32::MIN, 1), i32::MIN);
    // Exponents beyond u32: exact wrapping powers by squaring.
    let big = 1i64 << 40;
    assert_eq!(pow(2i64, big), 0);
    assert_eq!(pow(0i64, big), 0);
    assert_eq!(pow(1i64, i64::MAX), 1);
    assert_eq!(pow(-1i64, i64::MAX), -1);
    assert_eq!(pow(-1i64, i64::MAX - 1), 1);
    assert_eq!(pow(1u128, u128::MAX), 1);
    assert_eq!(pow(2u128, u128::MAX), 0);
    assert_eq!(pow(3u64, u64::MAX), wrapping_pow_by_squaring(3, u64::MAX));
    assert_eq!(
        pow(3i64, big + 1),
        wrapping_pow_by_squaring(3, (big + 1) as u64) as i64
    );
    // Odd numbers form a group of order 2^(N-1) modulo 2^N: x^(2^63) = 1 for 64 bits.
    assert_eq!(pow(3u64, 1 << 63), 1);
    assert_eq!(pow(5i128, i128::MAX), wrapping_pow_i128(5, i128::MAX));
    // Negative exponents: 1 / a^|e| truncated toward zero.
    assert_eq!(pow(1i32, -5), 1);
    assert_eq!(pow(-1i32, -5), -1);
    assert_eq!(pow(-1i32, -4), 1);
    assert_eq!(pow(-1i64, i64::MIN), 1);
    assert_eq!(pow(2i32, -1), 0);
    assert_eq!(pow(-2i32, -1), 0);
    assert_eq!(pow(i8::MIN, i8::MIN), 0);
    assert_eq!(pow(0i32, -1), 0);
    assert_eq!(pow(0isize, isize::MIN), 0);
}

/// `base^e` modulo 2^64 by repeated squaring over the bits of `e`, for the tests.
fn wrapping_pow_by_squaring(base: u64, mut e: u64) -> u64 {
    let (mut acc, mut sq) = (1u64, base);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(sq);
        }
        sq = sq.wrapping_mul(sq);
        e >>= 1;
    }
    acc
}

/// `base^e` modulo 2^128, for the tests.
fn wrapping_pow_i128(base: i128, mut e: i128) -> i128 {
    let (mut acc, mut sq) = (1i128, base);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(sq);
        }
        sq = sq.wrapping_mul(sq);
        e >>= 1;
    }
    acc
}

#[test]
fn shifts_saturate_instead_of_panicking() {
    assert_eq!(shl(1i32, 0), 1);
    assert_eq!(shl(1i32, 31), i32::MIN);
    assert_eq!(shl(1i32, 32), 0);
    assert_eq!(shl(-1i64, 63), i64::MIN);
    assert_eq!(shl(-1i64, 64), 0);
    assert_eq!(shl(5i8, -1), 0);
    assert_eq!(shl(5i8, i8::MIN), 0);
    assert_eq!(shl(0xffu8, 4), 0xf0);
    assert_eq!(shl(1u8, 8), 0);
    assert_eq!(shl(1u128, 127), 1 << 127);
    assert_eq!(shl(1u128, 128), 0);
    assert_eq!(shl(1usize, usize::MAX), 0);
    assert_eq!(shr(-16i32, 2), -4);
    assert_eq!(shr(-1i32, 31), -1);
    assert_eq!(shr(-16i32, 32), -1);
    assert_eq!(shr(-16i32, -1), -1);
    assert_eq!(shr(16i32, 32), 0);
    assert_eq!(shr(16i32, -3), 0);
    assert_eq!(shr(i128::MIN, 127), -1);
    assert_eq!(shr(i128::MAX, 200), 0);
    assert_eq!(shr(0x80u8, 7), 1);
    assert_eq!(shr(0x80u8, 8), 0);
    assert_eq!(shr(u64::MAX, u64::MAX), 0);
    assert_eq!(shr(0i16, -1), 0);
}

#[test]
fn comparisons_return_one_or_zero_of_the_value_type() {
    assert_eq!((eq(1, 1), eq(1, 2), ne(1, 1), ne(1, 2)), (1, 0, 0, 1));
    assert_eq!((lt(1, 2), lt(2, 2), le(2, 2), le(3, 2)), (1, 0, 1, 0));
    assert_eq!(
        (gt(3u8, 2), gt(2u8, 2), ge(2u8, 2), ge(1u8, 2)),
        (1, 0, 1, 0)
    );
    assert_eq!(eq(0.0, -0.0), 1.0);
    let nan = f64::NAN;
    assert_eq!(
        [
            eq(nan, nan),
            lt(nan, 1.0),
            le(nan, 1.0),
            gt(nan, 1.0),
            ge(1.0, nan)
        ],
        [0.0; 5]
    );
    assert_eq!(ne(nan, nan), 1.0);
    assert_eq!(lt(f64::NEG_INFINITY, f64::INFINITY), 1.0);
    assert_eq!(lt(i64::MIN, i64::MAX), 1);
    let c = crate::num_complex::Complex64::new(1.0, 2.0);
    assert_eq!(eq(c, c), crate::num_complex::Complex64::new(1.0, 0.0));
}

#[test]
fn booleans_read_anything_but_zero_as_true() {
    for (a, b) in [(0, 0), (0, 5), (-3, 0), (7, -1)] {
        let (x, y) = (a != 0, b != 0);
        assert_eq!(and(a, b), i32::from(x && y));
        assert_eq!(or(a, b), i32::from(x || y));
        assert_eq!(xor(a, b), i32::from(x != y));
        assert_eq!(not(a), i32::from(!x));
    }
    assert_eq!(and(f64::NAN, 2.0), 1.0);
    assert_eq!(and(-0.0, 2.0), 0.0);
    assert_eq!(not(-0.0), 1.0);
    assert_eq!(not(f64::NAN), 0.0);
    assert_eq!(or(0u8, u8::MAX), 1);
    assert_eq!(xor(i128::MIN, i128::MAX), 0);
    // The identities and annihilators of the module table, over 0 and 1.
    for x in [0, 1] {
        assert_eq!(and(x, 1), x);
        assert_eq!(and(x, 0), 0);
        assert_eq!(or(x, 0), x);
        assert_eq!(or(x, 1), 1);
        assert_eq!(xor(x, 0), x);
        assert_eq!(and(x, x), x);
        assert_eq!(or(x, x), x);
    }
}
