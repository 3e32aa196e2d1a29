//! Element types a tensor can store.

use std::fmt::Debug;

/// The type of a tensor's values, and of a kernel's arithmetic.
///
/// A value type is plain data with the ring operations of [`num_traits::Num`]: `0`, `1`,
/// `+`, `-`, `*`, `/`, `%`, `==` and `from_str_radix`. Nothing more: no ordering (so not
/// `PartialOrd`), no `Display`, no conversion from floats (a kernel's literals need one:
/// see "Literals" below). Blanket-implemented, so it covers
///
/// - `f32`, `f64`, and every integer type: `i8`..`i128`, `isize`, `u8`..`u128`, `usize`;
/// - complex numbers, [`num_complex::Complex<f32>`](crate::num_complex::Complex) and
///   `Complex<f64>` (re-exported as [`sparse_runtime::num_complex`](crate::num_complex));
/// - any user type that implements [`num_traits::Num`], `Copy`, `Debug`, `Send` and `Sync`
///   (modular integers, dual numbers, fixed-point types, ...).
///
/// Why each bound: `Num` is the arithmetic kernels emit (`+` to accumulate and union,
/// `*` to multiply and intersect, `-` and `/` as written, `zero()` to fill dense outputs and
/// start sums) and what [`io`](crate::io) parses values with (`from_str_radix`). Nothing
/// else is asked of a type that is not a primitive number: over it a kernel spells an
/// accumulation `x = x + v` (no `AddAssign`) and a negation `0 - a` (no `Neg`, as for
/// unsigned integers; so a complex part `+0.0` negates to `+0.0`, not `-0.0`); a scalar
/// parameter or output of a kernel (`alpha: Complex64`, `out: &mut Complex64`) has its
/// tensors' value type, written the same way. `==` is what
/// [`same_values`](crate::Tensor::same_values) and [`pruned`](crate::Tensor::pruned)
/// compare with zero; `Copy` lets level functions and kernels read values out of slices;
/// `Debug` prints them (errors, [`Display`](std::fmt::Display) of a tensor, files written
/// by [`io`](crate::io)); `Send + Sync` let readers fill tensors on several threads, and
/// `'static` lets [`io`](crate::io) recognize `Complex<f32>` and `Complex<f64>` (by
/// `TypeId`) to read and write their parts. No kernel orders values: taco's operations
/// are sums and products, so complex numbers run in every kernel the macro accepts.
///
/// Arithmetic is the type's own operators, written out as Rust: an integer kernel
/// overflows as Rust code does (a panic with overflow checks, the debug default; a
/// wrap without, the release default), so an unsigned `a(i) - b(i)` where `b(i) > a(i)`,
/// or the `0 - b(i)` computed where only `b` stores an entry, panics in a debug build and
/// wraps in a release build. A kernel that panics leaves a sparse output the empty tensor
/// of its shape.
///
/// # Literals
///
/// In a kernel over a primitive number type a literal is written as that type (`2.0 * a(i)`
/// over `f32` is `2.0_f32 * a(i)`; a float literal over an integer type is a compile error).
/// Over any other value type the literal is converted with [`num_traits::FromPrimitive`]:
/// an integer literal by `from_u128`, a float literal by `from_f64` (so over
/// `Complex<f32>`, `0.1` is `Complex::new(0.1_f32, 0.0)`). A kernel with a literal over a
/// type without `FromPrimitive` is a compile error at the literal, and a suffixed literal
/// (`2.0f32`) over such a type is refused (the suffix would be ignored). A literal whose
/// conversion returns `None` panics, naming it, when the kernel evaluates it. Note that
/// `FromPrimitive::from_f64`'s default implementation truncates (`2.5` becomes `2`): a
/// type holding fractions overrides it. A constant of another kind (an imaginary unit) is
/// passed as a scalar parameter of the kernel (`alpha: Complex64`).
///
/// # Not sealed
///
/// Unlike [`Index`](crate::Index) and [`ModeOrder`](crate::ModeOrder), `Value` is not
/// sealed, and no unsafe code relies on how an implementation behaves (nor may any be
/// added that does): positions and coordinates are never computed from values. Values are
/// only stored, combined and compared as data; arithmetic that misbehaves (a `+` that is
/// not associative, an `==` that is not reflexive) gives wrong values, and arithmetic (or
/// `zero`, or `clone`) that panics cannot leave a tensor invalid.
///
/// ```
/// use sparse_runtime::num_complex::Complex64;
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     fn scaled_spmv(y: &mut Dense1<Complex64>, a: &Csr<Complex64>, x: &Dense1<Complex64>) {
///         y(i) = 2.0 * a(i, j) * x(j)
///     }
/// }
///
/// let i = Complex64::new(0.0, 1.0);
/// let a = Csr::from_entries(&[2, 2], [([0, 0], i), ([1, 1], Complex64::new(1.0, 0.0))])?;
/// let x = Dense1::from_vec(vec![i, Complex64::new(3.0, 0.0)]);
/// let mut y = Dense1::zeros(2);
/// scaled_spmv(&mut y, &a, &x)?;
/// assert_eq!(y.as_slice(), &[Complex64::new(-2.0, 0.0), Complex64::new(6.0, 0.0)]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub trait Value: num_traits::Num + Copy + Debug + Send + Sync + 'static {}

impl<T> Value for T where T: num_traits::Num + Copy + Debug + Send + Sync + 'static {}

/// A literal of a kernel over a value type that is not a primitive number, converted by
/// [`num_traits::FromPrimitive`] (see [`Value`]'s "Literals"). Generated code calls it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a literal in a kernel over `{Self}` needs `{Self}: num_traits::FromPrimitive`",
    label = "converted to `{Self}` by `num_traits::FromPrimitive`",
    note = "implement `num_traits::FromPrimitive` for `{Self}`, or pass the constant as a scalar parameter of the kernel"
)]
pub trait Literal: Value {
    /// The integer literal `n`, written `text` in the kernel.
    fn integer(n: u128, text: &'static str) -> Self;
    /// The float literal `x`, written `text` in the kernel.
    fn float(x: f64, text: &'static str) -> Self;
}

impl<V: Value + num_traits::FromPrimitive> Literal for V {
    #[inline]
    #[track_caller]
    fn integer(n: u128, text: &'static str) -> Self {
        match V::from_u128(n) {
            Some(v) => v,
            None => unconverted::<V>(text),
        }
    }

    #[inline]
    #[track_caller]
    fn float(x: f64, text: &'static str) -> Self {
        match V::from_f64(x) {
            Some(v) => v,
            None => unconverted::<V>(text),
        }
    }
}

#[cold]
#[track_caller]
fn unconverted<V>(text: &str) -> ! {
    panic!(
        "the kernel's literal `{text}` is not a value of `{}` (`FromPrimitive` returned `None`)",
        std::any::type_name::<V>()
    )
}

#[cfg(test)]
mod tests {
    use super::{Literal, Value};
    use num_complex::Complex;

    fn is_value<V: Value>() -> bool {
        V::zero() + V::one() == V::one()
    }

    #[test]
    fn primitive_numbers_are_values() {
        assert!(is_value::<f32>() && is_value::<f64>());
        assert!(is_value::<i8>() && is_value::<i16>() && is_value::<i32>() && is_value::<i64>());
        assert!(is_value::<u8>() && is_value::<u16>() && is_value::<u32>() && is_value::<u64>());
        assert!(is_value::<i128>() && is_value::<u128>());
        assert!(is_value::<isize>() && is_value::<usize>());
    }

    #[test]
    fn complex_numbers_are_values() {
        assert!(is_value::<Complex<f32>>() && is_value::<Complex<f64>>());
    }

    #[test]
    fn literals_convert_by_from_primitive() {
        assert_eq!(
            Complex::<f32>::float(0.1, "0.1"),
            Complex::new(0.1_f32, 0.0)
        );
        assert_eq!(Complex::<f64>::integer(3, "3"), Complex::new(3.0, 0.0));
        assert_eq!(<u8 as Literal>::integer(255, "255"), 255);
    }

    #[test]
    #[should_panic(expected = "the kernel's literal `256` is not a value of `u8`")]
    fn a_literal_out_of_range_panics_naming_it() {
        let _ = <u8 as Literal>::integer(256, "256");
    }
}
