//! Literals over a value type that is not a primitive number are converted by
//! `num_traits::FromPrimitive` from their value: a suffix, or a literal no `u128` or
//! `f64` holds, is refused at the literal.
use sparse_runtime::num_complex::Complex64;
use sparse_runtime::prelude::*;

sparse_kernel! {
    fn suffixed(y: &mut Dense1<Complex64>, x: &Dense1<Complex64>) {
        y(i) = 2.0f32 * x(i) + 3u8 * x(i)
    }

    fn too_large(y: &mut Dense1<Complex64>, x: &Dense1<Complex64>) {
        y(i) = 1e400 * x(i) + 340282366920938463463374607431768211456 * x(i)
    }
}

fn main() {}
