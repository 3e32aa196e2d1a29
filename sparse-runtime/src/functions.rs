//! The functions `sparse_kernel!` knows by name: a kernel may call `min(a(i, j), b(i, j))`,
//! `and(a(i), b(i))` or `pow(a(i), 2)` in its statement, and the generated code calls them
//! by absolute path (`::sparse_runtime::functions::min(a, b)`). They are ordinary
//! `#[inline]` generic functions, usable outside kernels too.
//!
//! ```
//! use sparse_runtime::functions::{and, ldexp, min, pow, shl, Infinity};
//!
//! assert_eq!(min(3.0, f64::infinity()), 3.0);
//! assert_eq!(and(2, 0), 0);
//! assert_eq!(pow(-2i32, 3), -8);
//! assert_eq!(shl(1u8, 9), 0); // shifted out, no panic
//! assert_eq!(ldexp(3.0, 4.0), 48.0);
//! ```
//!
//! None of them panics, whatever its arguments: integer arithmetic wraps (`pow`), shifts
//! past the width saturate (`shl`, `shr`), `abs(i32::MIN)` is `i32::MIN`, and a negative
//! integer power is computed as an integer division truncating toward zero, with
//! `pow(0, -1)` defined as 0.
//!
//! # Algebraic properties
//!
//! A sparse kernel skips the components its operands do not store, which is exact only
//! if the function it computes there gives what skipping assumes. So the compiler knows,
//! for each function, the properties of Henry et al. 2021 (section 5.1) that decide which
//! components it must visit and which fill value its result has: an *annihilator* `x`
//! (`f = x` whenever an argument, or the argument at position `p`, is `x`: the other
//! operands need not be visited there), an *identity* `x` (`f(x, y) = y`: a component
//! where one operand holds its fill value `x` is the other operand's), and whether `f` is
//! *commutative*, *associative* (it may be reduced in any grouping) and *idempotent*
//! (`f(x, .., x) = x`). The table below says which hold, mathematically, of the functions
//! of this module; the compiler's own table (in `sparse-core`) is what kernels are
//! compiled with.
//!
//! | function | arguments | commutative | associative | idempotent | identity | annihilator |
//! |---|---|---|---|---|---|---|
//! | [`min`] | 2 | yes | yes | yes | `+∞` ([`Infinity::infinity`]) | `-∞` |
//! | [`max`] | 2 | yes | yes | yes | `-∞` ([`Infinity::neg_infinity`]) | `+∞` |
//! | [`and`] | 2 | yes | yes | on 0/1 | `1` (on 0/1) | `0` |
//! | [`or`] | 2 | yes | yes | on 0/1 | `0` (on 0/1) | `1` (on 0/1) |
//! | [`xor`] | 2 | yes | yes | no | `0` (on 0/1) | none |
//! | [`not`] | 1 | | | | | |
//! | [`eq`], [`ne`] | 2 | yes | no | no | none | none |
//! | [`lt`], [`le`], [`gt`], [`ge`] | 2 | no | no | no | none | none |
//! | [`abs`], [`sqrt`] | 1 | | | | | `0` |
//! | [`exp`] | 1 | | | | | |
//! | [`pow`] | 2 | no | no | no | `1` at the exponent | `1` at the base |
//! | [`ldexp`] | 2 | no | no | no | `0` at the exponent | `0` at the value |
//! | [`shl`], [`shr`] | 2 | no | no | no | `0` at the shift | `0` at the value |
//!
//! "On 0/1": the boolean functions return 1 or 0 whatever their arguments (any value
//! other than zero is true), so `and(x, 1)` is `1`, not `x`, for `x = 5`: the identity
//! and idempotence hold over the values 0 and 1, the results of these functions and of
//! the comparisons. The properties of [`min`] and [`max`] hold over values that are not
//! `NaN` (see [`min`]). The unary functions map a fill value to a fill value: `abs(0)`
//! and `sqrt(0)` are 0, `exp(0)` and `not(0)` are 1, so `exp` of a tensor of fill value 0
//! has fill value 1.
//!
//! # Bounds
//!
//! Each function asks only what it uses: `min` and `max` an order (`PartialOrd`, so
//! floats and integers; not complex numbers), the comparisons and the boolean functions
//! `==` plus a zero and a one to return ([`num_traits::Zero`], [`num_traits::One`]),
//! `sqrt`, `exp` and `ldexp` a float ([`num_traits::Float`]), and `abs`, `pow`, the shifts
//! and the infinities a trait of this module implemented for the primitive numbers.

use num_traits::{Float, One, Zero};

/// The largest and the smallest value of a type: `+∞` and `-∞` for `f32` and `f64`,
/// `MAX` and `MIN` for every primitive integer (`i8`..`i128`, `isize`, `u8`..`u128`,
/// `usize`; `0` is an unsigned type's `MIN`).
///
/// They are the identities of [`min`] (`min(infinity(), x) = x`) and [`max`]
/// (`max(neg_infinity(), x) = x`), so a tensor filled with `infinity()` is one whose
/// unstored components do not change a `min`: the tropical (min, +) semiring's "no
/// path" in a distance matrix. An integer type has no infinity, and its `MAX` is the
/// value that plays that part: `min(i32::MAX, x) = x` for every `i32`. (Unlike an
/// infinity, `MAX + 1` overflows: a shortest-path kernel over integers adds to `MAX`
/// only where a path exists.)
///
/// ```
/// use sparse_runtime::functions::{max, min, Infinity};
///
/// assert_eq!(f64::infinity(), f64::INFINITY);
/// assert_eq!(<u8 as Infinity>::neg_infinity(), 0);
/// assert_eq!(min(i64::infinity(), -7), -7);
/// assert_eq!(max(f32::neg_infinity(), -7.5), -7.5);
/// ```
pub trait Infinity: Sized {
    /// `+∞`, or the type's largest value.
    fn infinity() -> Self;
    /// `-∞`, or the type's smallest value.
    fn neg_infinity() -> Self;
}

macro_rules! infinity_float {
    ($($t:ty),*) => {$(
        impl Infinity for $t {
            #[inline]
            fn infinity() -> Self {
                <$t>::INFINITY
            }
            #[inline]
            fn neg_infinity() -> Self {
                <$t>::NEG_INFINITY
            }
        }
    )*};
}

macro_rules! infinity_int {
    ($($t:ty),*) => {$(
        impl Infinity for $t {
            #[inline]
            fn infinity() -> Self {
                <$t>::MAX
            }
            #[inline]
            fn neg_infinity() -> Self {
                <$t>::MIN
            }
        }
    )*};
}

infinity_float!(f32, f64);
infinity_int!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// The smaller of `a` and `b`: `if b < a { b } else { a }`, so `a` on a tie.
///
/// With `NaN`: `b < a` is false if either is `NaN`, so `min(a, NaN)` is `a` (a `NaN` `b`
/// is never chosen) and `min(NaN, b)` is `NaN` (a `NaN` `a` is always kept). This differs
/// from [`f64::min`] (which returns the other argument in both cases) and from NumPy's
/// `minimum` (which returns `NaN` in both). A tie between `0.0` and `-0.0` gives `a`.
///
/// ```
/// use sparse_runtime::functions::{max, min};
///
/// assert_eq!(min(2, -3), -3);
/// assert_eq!(max(2, -3), 2);
/// assert_eq!(min(1.0, f64::NAN), 1.0); // a NaN `b` is never chosen
/// assert!(min(f64::NAN, 1.0).is_nan()); // a NaN `a` is kept
/// assert_eq!(max(1.0, f64::NAN), 1.0);
/// assert!(max(f64::NAN, 1.0).is_nan());
/// ```
#[inline]
pub fn min<V: PartialOrd + Copy>(a: V, b: V) -> V {
    if b < a {
        b
    } else {
        a
    }
}

/// The larger of `a` and `b`: `if b > a { b } else { a }`, so `a` on a tie.
///
/// With `NaN`, as [`min`]: `max(a, NaN)` is `a` and `max(NaN, b)` is `NaN`.
#[inline]
pub fn max<V: PartialOrd + Copy>(a: V, b: V) -> V {
    if b > a {
        b
    } else {
        a
    }
}

/// The absolute value; see [`abs`].
pub trait Abs {
    /// The absolute value.
    fn abs(self) -> Self;
}

macro_rules! abs_float {
    ($($t:ty),*) => {$(
        impl Abs for $t {
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
        }
    )*};
}

macro_rules! abs_signed {
    ($($t:ty),*) => {$(
        impl Abs for $t {
            #[inline]
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
        }
    )*};
}

macro_rules! abs_unsigned {
    ($($t:ty),*) => {$(
        impl Abs for $t {
            #[inline]
            fn abs(self) -> Self {
                self
            }
        }
    )*};
}

abs_float!(f32, f64);
abs_signed!(i8, i16, i32, i64, i128, isize);
abs_unsigned!(u8, u16, u32, u64, u128, usize);

/// The absolute value of `a`: of a float, its magnitude (`abs(-0.0)` is `0.0`,
/// `abs(NaN)` is `NaN`); of a signed integer, `wrapping_abs`, so the type's `MIN`, whose
/// magnitude does not fit, stays `MIN` rather than panicking; an unsigned integer itself.
///
/// ```
/// use sparse_runtime::functions::abs;
///
/// assert_eq!(abs(-2.5), 2.5);
/// assert_eq!(abs(-7i32), 7);
/// assert_eq!(abs(i8::MIN), i8::MIN); // no panic: -128 has no positive i8
/// assert_eq!(abs(7u32), 7);
/// ```
#[inline]
pub fn abs<V: Abs>(a: V) -> V {
    a.abs()
}

/// The square root of `a` (`NaN` for a negative `a`, `-0.0` for `-0.0`).
///
/// ```
/// use sparse_runtime::functions::{exp, sqrt};
///
/// assert_eq!(sqrt(9.0), 3.0);
/// assert!(sqrt(-1.0f32).is_nan());
/// assert_eq!(exp(0.0), 1.0);
/// assert_eq!(exp(f64::NEG_INFINITY), 0.0);
/// ```
#[inline]
pub fn sqrt<V: Float>(a: V) -> V {
    a.sqrt()
}

/// `e` to the power `a` (`exp(0)` is 1, `exp(-∞)` is 0).
#[inline]
pub fn exp<V: Float>(a: V) -> V {
    a.exp()
}

/// `x * 2^e`, the exponent taken as a float (C's `ldexp`, whose exponent is an integer,
/// for an integral `e`).
///
/// Computed as `x * 2^e` when `2^e` is a normal float, else in three steps of a third of
/// the exponent each, so that a result within the float's range is found even when `2^e`
/// alone is not (`ldexp(2^-1074, 1100)` is `2^26`, not `∞`); with an integral `e` the
/// steps are exact unless the result is subnormal. `x` zero, infinite or `NaN` gives `x`
/// for every finite `e`; a `NaN` `e` gives `NaN`; an infinite `e` gives `x * 2^e`
/// (`±∞` or `±0`, `NaN` for `ldexp(∞, -∞)`); `ldexp(0, e)` is 0 for every `e`.
///
/// ```
/// use sparse_runtime::functions::ldexp;
///
/// assert_eq!(ldexp(3.0, 2.0), 12.0);
/// assert_eq!(ldexp(1.0, -1.0), 0.5);
/// assert_eq!(ldexp(f64::from_bits(1), 1100.0), 67108864.0); // 2^-1074 * 2^1100 = 2^26
/// assert_eq!(ldexp(0.0, 5000.0), 0.0);
/// assert_eq!(ldexp(1.0f32, 200.0), f32::INFINITY); // beyond the range: saturates
/// ```
#[inline]
pub fn ldexp<V: Float>(x: V, e: V) -> V {
    // 0 annihilates `ldexp` at the value, whatever the exponent (even infinite or NaN,
    // where `0 * 2^e` would be NaN): the compiler relies on it.
    if x.is_zero() {
        return x;
    }
    let p = e.exp2();
    if p.is_normal() || !e.is_finite() {
        return x * p;
    }
    if x.is_zero() || !x.is_finite() {
        return x;
    }
    // Beyond 2^4096 or 2^-4096 every finite, nonzero float saturates (to ±∞ or ±0, which
    // is `x * p`); below, the steps' exponents are small integers, exact.
    let limit = <V as num_traits::NumCast>::from(4096).unwrap_or_else(V::max_value);
    if e.abs() > limit {
        return x * p;
    }
    let three = V::one() + V::one() + V::one();
    let third = (e / three).trunc();
    let step = third.exp2();
    x * step * step * (e - third - third).exp2()
}

/// A power whose exponent has the base's type; see [`pow`].
pub trait Pow {
    /// `self` to the power `e`.
    fn pow(self, e: Self) -> Self;
}

macro_rules! pow_float {
    ($($t:ty),*) => {$(
        impl Pow for $t {
            #[inline]
            fn pow(self, e: Self) -> Self {
                self.powf(e)
            }
        }
    )*};
}

/// `base^e` modulo 2^BITS (wrapping) for any non-negative exponent: `wrapping_pow` where
/// the exponent fits a `u32`, else square-and-multiply over its 128 bits.
macro_rules! wrapping_pow_u128 {
    ($base:expr, $e:expr) => {{
        let (base, e): (_, u128) = ($base, $e);
        match u32::try_from(e) {
            Ok(e) => base.wrapping_pow(e),
            Err(_) => {
                let (mut acc, mut square, mut e) = (1, base, e);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = square.wrapping_mul(acc);
                    }
                    square = square.wrapping_mul(square);
                    e >>= 1;
                }
                acc
            }
        }
    }};
}

macro_rules! pow_signed {
    ($($t:ty),*) => {$(
        impl Pow for $t {
            #[inline]
            fn pow(self, e: Self) -> Self {
                if e >= 0 {
                    // `e` is non-negative, so it converts to u128 exactly.
                    return wrapping_pow_u128!(self, e as u128);
                }
                // 1 / self^|e|, truncated toward zero.
                match self {
                    1 => 1,
                    -1 => if e % 2 == 0 { 1 } else { -1 },
                    // 0^e for e < 0 divides by zero: defined as 0.
                    _ => 0,
                }
            }
        }
    )*};
}

macro_rules! pow_unsigned {
    ($($t:ty),*) => {$(
        impl Pow for $t {
            #[inline]
            fn pow(self, e: Self) -> Self {
                // Every unsigned value converts to u128 exactly.
                wrapping_pow_u128!(self, e as u128)
            }
        }
    )*};
}

pow_float!(f32, f64);
pow_signed!(i8, i16, i32, i64, i128, isize);
pow_unsigned!(u8, u16, u32, u64, u128, usize);

/// `a` to the power `e`, the exponent of `a`'s type.
///
/// - Floats: `powf` (`pow(x, 0.0)` and `pow(1.0, y)` are 1 even for a `NaN` `x` or `y`).
/// - Integers, `e >= 0`: the power wrapped to the type's width, as `wrapping_pow` (an
///   overflow wraps in every build, as NumPy's integer `power` does), for every exponent,
///   including those beyond `u32::MAX` (computed exactly by squaring: `pow(3i64, 2^40)`
///   is `3^(2^40)` mod `2^64`, `pow(2i64, 2^40)` is 0).
/// - Integers, `e < 0`: `1 / a^|e|` truncated toward zero, as an integer division would
///   give it: 1 for `a = 1`; 1 or -1 for `a = -1` (by the parity of `e`); 0 for every
///   other `a`, including `a = 0`, where the division is by zero: NumPy raises an error
///   ("Integers to negative integer powers are not allowed"), a kernel cannot panic, so
///   `pow(0, -1)` is defined as 0.
///
/// ```
/// use sparse_runtime::functions::pow;
///
/// assert_eq!(pow(2.0, 3.0), 8.0);
/// assert_eq!(pow(4.0, -0.5), 0.5);
/// assert_eq!(pow(3i32, 4), 81);
/// assert_eq!(pow(2u8, 9), 0); // 512 wraps to 0
/// assert_eq!(pow(-1i64, i64::MAX), -1); // an odd exponent beyond u32: no panic
/// assert_eq!(pow(2i32, -1), 0); // 1/2 truncated
/// assert_eq!(pow(-1i32, -3), -1);
/// assert_eq!(pow(0i32, -1), 0); // no division-by-zero panic
/// ```
#[inline]
pub fn pow<V: Pow>(a: V, e: V) -> V {
    a.pow(e)
}

/// Bit shifts of primitive integers that never panic; see [`shl`] and [`shr`].
pub trait Shift {
    /// `self << n`, 0 when `n` is negative or at least the width.
    fn shl(self, n: Self) -> Self;
    /// `self >> n` (arithmetic for a signed type), saturated when `n` is negative or at
    /// least the width: 0, or -1 for a negative `self`.
    fn shr(self, n: Self) -> Self;
}

macro_rules! shift_signed {
    ($($t:ty),*) => {$(
        impl Shift for $t {
            #[inline]
            fn shl(self, n: Self) -> Self {
                // `0 <= n < BITS`, so `n` fits a u32.
                if n >= 0 && (n as u128) < u128::from(<$t>::BITS) {
                    self << (n as u32)
                } else {
                    0
                }
            }

            #[inline]
            fn shr(self, n: Self) -> Self {
                if n >= 0 && (n as u128) < u128::from(<$t>::BITS) {
                    self >> (n as u32)
                } else if self < 0 {
                    -1
                } else {
                    0
                }
            }
        }
    )*};
}

macro_rules! shift_unsigned {
    ($($t:ty),*) => {$(
        impl Shift for $t {
            #[inline]
            fn shl(self, n: Self) -> Self {
                if (n as u128) < u128::from(<$t>::BITS) {
                    self << (n as u32)
                } else {
                    0
                }
            }

            #[inline]
            fn shr(self, n: Self) -> Self {
                if (n as u128) < u128::from(<$t>::BITS) {
                    self >> (n as u32)
                } else {
                    0
                }
            }
        }
    )*};
}

shift_signed!(i8, i16, i32, i64, i128, isize);
shift_unsigned!(u8, u16, u32, u64, u128, usize);

/// `a << n`, the shift amount of `a`'s type: bits shifted past the width are lost, and a
/// shift by a negative amount or by the width or more gives 0 (Rust's `<<` panics there
/// in a debug build).
///
/// ```
/// use sparse_runtime::functions::{shl, shr};
///
/// assert_eq!(shl(3i32, 2), 12);
/// assert_eq!(shl(1u8, 8), 0);
/// assert_eq!(shl(1i32, -1), 0);
/// assert_eq!(shr(-8i32, 1), -4); // arithmetic
/// assert_eq!(shr(-8i32, 40), -1); // saturated: the sign fills every bit
/// assert_eq!(shr(8i32, -1), 0);
/// assert_eq!(shr(200u8, 200), 0);
/// ```
#[inline]
pub fn shl<V: Shift>(a: V, n: V) -> V {
    a.shl(n)
}

/// `a >> n`, the shift amount of `a`'s type, arithmetic (the sign copied in) for a signed
/// type; a shift by a negative amount or by the width or more gives what shifting every
/// bit out would: 0, or -1 for a negative `a`.
#[inline]
pub fn shr<V: Shift>(a: V, n: V) -> V {
    a.shr(n)
}

/// One if `yes`, else zero.
#[inline]
fn one_if<V: Zero + One>(yes: bool) -> V {
    if yes {
        V::one()
    } else {
        V::zero()
    }
}

/// 1 if `a == b`, else 0, in the value type (so a comparison can be stored, summed or
/// multiplied as any value). As `==` compares: `eq(NaN, NaN)` is 0, `eq(0.0, -0.0)` is 1.
///
/// ```
/// use sparse_runtime::functions::{eq, ge, gt, le, lt, ne};
///
/// assert_eq!(eq(2, 2), 1);
/// assert_eq!(ne(2, 2), 0);
/// assert_eq!(lt(1.0, 2.0), 1.0);
/// assert_eq!(le(2.0, 2.0), 1.0);
/// assert_eq!(gt(1u8, 2), 0);
/// assert_eq!(ge(f64::NAN, 0.0), 0.0); // every ordering of NaN is false
/// assert_eq!(ne(f64::NAN, f64::NAN), 1.0);
/// ```
#[inline]
pub fn eq<V: PartialEq + Zero + One>(a: V, b: V) -> V {
    one_if(a == b)
}

/// 1 if `a != b`, else 0 (1 when either is `NaN`).
#[inline]
pub fn ne<V: PartialEq + Zero + One>(a: V, b: V) -> V {
    one_if(a != b)
}

/// 1 if `a < b`, else 0 (0 when either is `NaN`).
#[inline]
pub fn lt<V: PartialOrd + Zero + One>(a: V, b: V) -> V {
    one_if(a < b)
}

/// 1 if `a <= b`, else 0 (0 when either is `NaN`).
#[inline]
pub fn le<V: PartialOrd + Zero + One>(a: V, b: V) -> V {
    one_if(a <= b)
}

/// 1 if `a > b`, else 0 (0 when either is `NaN`).
#[inline]
pub fn gt<V: PartialOrd + Zero + One>(a: V, b: V) -> V {
    one_if(a > b)
}

/// 1 if `a >= b`, else 0 (0 when either is `NaN`).
#[inline]
pub fn ge<V: PartialOrd + Zero + One>(a: V, b: V) -> V {
    one_if(a >= b)
}

/// Whether `a` is true: not zero (so `NaN` is true, and `-0.0` false).
#[inline]
fn truthy<V: Zero + PartialEq>(a: V) -> bool {
    a != V::zero()
}

/// 1 if both `a` and `b` are true (not zero), else 0, in the value type.
///
/// The boolean functions read any value as true unless it is zero (`NaN` is true, `-0.0`
/// false), and return 1 or 0: `and(5, 3)` is 1.
///
/// ```
/// use sparse_runtime::functions::{and, not, or, xor};
///
/// assert_eq!(and(5, 3), 1);
/// assert_eq!(and(5, 0), 0);
/// assert_eq!(or(0.0, -2.5), 1.0);
/// assert_eq!(or(0u8, 0), 0);
/// assert_eq!(xor(1, 7), 0);
/// assert_eq!(xor(0, 7), 1);
/// assert_eq!(not(0.0), 1.0);
/// assert_eq!(not(f64::NAN), 0.0); // NaN is true
/// ```
#[inline]
pub fn and<V: Zero + One + PartialEq>(a: V, b: V) -> V {
    one_if(truthy(a) && truthy(b))
}

/// 1 if `a` or `b` is true (not zero), else 0.
#[inline]
pub fn or<V: Zero + One + PartialEq>(a: V, b: V) -> V {
    one_if(truthy(a) || truthy(b))
}

/// 1 if exactly one of `a` and `b` is true (not zero), else 0.
#[inline]
pub fn xor<V: Zero + One + PartialEq>(a: V, b: V) -> V {
    one_if(truthy(a) != truthy(b))
}

/// 1 if `a` is false (zero), else 0.
#[inline]
pub fn not<V: Zero + One + PartialEq>(a: V) -> V {
    one_if(!truthy(a))
}
