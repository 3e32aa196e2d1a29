//! Element types a tensor can store.

use std::fmt::Debug;

/// A numeric component type: anything with `0`, `1`, `+`, `-`, `*`, `/`, `%`
/// that is plain data.
///
/// Blanket-implemented, so it covers `f32`, `f64`, all signed and unsigned
/// integers, and user types that implement [`num_traits::Num`].
pub trait Value: num_traits::Num + Copy + Debug + PartialOrd + Send + Sync + 'static {}

impl<T> Value for T where T: num_traits::Num + Copy + Debug + PartialOrd + Send + Sync + 'static {}
