//! Element types a tensor can store.

use std::fmt::Debug;

/// A numeric component type: anything with `0`, `1`, `+`, `-`, `*`, `/`, `%`
/// that is plain data.
///
/// Blanket-implemented, so it covers `f32`, `f64`, all signed and unsigned
/// integers, and user types that implement [`num_traits::Num`].
///
/// Unlike [`Index`](crate::Index) and [`ModeOrder`](crate::ModeOrder), not
/// sealed: no unsafe code relies on how an implementation behaves. Values are
/// only stored, combined and compared as data; arithmetic that misbehaves
/// gives wrong values, and arithmetic (or `zero`, or `clone`) that panics
/// cannot leave a tensor invalid.
pub trait Value: num_traits::Num + Copy + Debug + PartialOrd + Send + Sync + 'static {}

impl<T> Value for T where T: num_traits::Num + Copy + Debug + PartialOrd + Send + Sync + 'static {}

#[cfg(test)]
mod tests {
    use super::Value;

    fn is_value<V: Value>() -> bool {
        V::zero() + V::one() == V::one()
    }

    #[test]
    fn primitive_numbers_are_values() {
        assert!(is_value::<f32>() && is_value::<f64>());
        assert!(is_value::<i8>() && is_value::<i16>() && is_value::<i32>() && is_value::<i64>());
        assert!(is_value::<u8>() && is_value::<u16>() && is_value::<u32>() && is_value::<u64>());
        assert!(is_value::<isize>() && is_value::<usize>());
    }
}
