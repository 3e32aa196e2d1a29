//! Plain slices as dense vectors in kernels: a kernel parameter `x: &[f64]` is an input and
//! `y: &mut [f64]` an output of the format `Dense1`, read and written in place without a copy.
//! Generated code binds such a parameter on entry to one of the wrappers below, which answer
//! the calls it makes on a `Dense1` tensor (`shape`, `levels`, `vals`, `vals_mut`).
//!
//! The wrappers derive the shape and the level from the slice's own length, so the invariant
//! generated code relies on (every position below the level's size holds a value) holds by
//! construction.

use crate::error::Error;
use crate::level::Dense;
use crate::tensor::Tensor;
use crate::update::Updated;
use crate::value::Value;

/// A shared slice seen as a `Dense1` tensor.
#[doc(hidden)]
pub struct DenseSlice<'a, V> {
    vals: &'a [V],
    shape: [usize; 1],
    levels: (Dense,),
}

impl<'a, V: Value> DenseSlice<'a, V> {
    /// The slice as a vector of its length.
    #[inline]
    pub fn new(vals: &'a [V]) -> Self {
        DenseSlice {
            vals,
            shape: [vals.len()],
            levels: (Dense::new(vals.len()),),
        }
    }

    /// `[len]`.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The one dense level.
    #[inline]
    pub fn levels(&self) -> &(Dense,) {
        &self.levels
    }

    /// The values.
    #[inline]
    pub fn vals(&self) -> &'a [V] {
        self.vals
    }
}

/// A mutable slice seen as a `Dense1` output.
#[doc(hidden)]
pub struct DenseSliceMut<'a, V> {
    vals: &'a mut [V],
    shape: [usize; 1],
    levels: (Dense,),
}

impl<'a, V: Value> DenseSliceMut<'a, V> {
    /// The slice as a vector of its length.
    #[inline]
    pub fn new(vals: &'a mut [V]) -> Self {
        let n = vals.len();
        DenseSliceMut {
            vals,
            shape: [n],
            levels: (Dense::new(n),),
        }
    }

    /// `[len]`.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The one dense level.
    #[inline]
    pub fn levels(&self) -> &(Dense,) {
        &self.levels
    }

    /// The values.
    #[inline]
    pub fn vals(&self) -> &[V] {
        self.vals
    }

    /// The values, to write.
    #[inline]
    pub fn vals_mut(&mut self) -> &mut [V] {
        self.vals
    }
}

impl<V: Value> Updated for DenseSliceMut<'_, V> {
    type Old = Tensor<V, (Dense,)>;

    /// A slice's storage cannot move: its values are copied out, then zeroed.
    fn take_old(&mut self) -> Result<Self::Old, Error> {
        let old = Tensor::from_levels(&self.shape, self.levels, self.vals.to_vec())?;
        self.vals.fill(V::zero());
        Ok(old)
    }

    fn restore(&mut self, old: Self::Old) {
        self.vals.copy_from_slice(old.vals());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::Update;

    #[test]
    fn a_slice_output_moves_its_old_contents_out_and_back() {
        let mut data = vec![1.0, 2.0, 3.0];
        let mut out = DenseSliceMut::new(&mut data);
        assert_eq!((out.shape(), out.levels().0.size()), (&[3][..], 3));
        let mut guard = Update::take(&mut out).unwrap();
        let (new, old) = guard.parts();
        assert_eq!(
            (old.vals(), new.vals()),
            (&[1.0, 2.0, 3.0][..], &[0.0; 3][..])
        );
        new.vals_mut()[1] = 9.0;
        drop(guard);
        assert_eq!(data, [1.0, 2.0, 3.0]);
    }

    #[test]
    fn an_empty_slice_is_an_empty_vector() {
        let empty: &[f64] = &[];
        let view = DenseSlice::new(empty);
        assert_eq!((view.shape(), view.vals().len()), (&[0][..], 0));
    }
}
