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

/// An output whose old contents a kernel reads (`y(i) = a(i, j) * y(j)`): they move into a
/// tensor of the output's format, which every read names, and the output starts as the zero
/// tensor of its shape; if the kernel fails they move back, so an error loses nothing.
#[doc(hidden)]
pub trait Updated {
    /// The old contents.
    type Old;
    /// Moves the old contents out, leaving zeros.
    fn take_old(&mut self) -> Result<Self::Old, Error>;
    /// Puts the old contents back.
    fn restore(&mut self, old: Self::Old);
}

impl<V: Value, L: crate::Levels, O: crate::ModeOrder> Updated for Tensor<V, L, O> {
    type Old = Tensor<V, L, O>;

    fn take_old(&mut self) -> Result<Self::Old, Error> {
        let empty = Tensor::new(self.shape())?;
        Ok(std::mem::replace(self, empty))
    }

    fn restore(&mut self, old: Self::Old) {
        *self = old;
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

/// [`Updated::take_old`] of a kernel's output.
#[doc(hidden)]
pub fn take_for_update<T: Updated + ?Sized>(t: &mut T) -> Result<T::Old, Error> {
    t.take_old()
}

/// [`Updated::restore`] of a kernel's output.
#[doc(hidden)]
pub fn restore<T: Updated + ?Sized>(t: &mut T, old: T::Old) {
    t.restore(old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_output_moves_its_old_contents_out_and_back() {
        let mut data = vec![1.0, 2.0, 3.0];
        let mut out = DenseSliceMut::new(&mut data);
        assert_eq!((out.shape(), out.levels().0.size()), (&[3][..], 3));
        let old = take_for_update(&mut out).unwrap();
        assert_eq!(
            (old.vals(), out.vals()),
            (&[1.0, 2.0, 3.0][..], &[0.0; 3][..])
        );
        out.vals_mut()[1] = 9.0;
        restore(&mut out, old);
        assert_eq!(data, [1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_tensor_output_moves_its_old_contents_out_and_back() {
        let mut t =
            crate::Tensor::<f64, (Dense,)>::from_levels(&[2], (Dense::new(2),), vec![4.0, 5.0])
                .unwrap();
        let old = take_for_update(&mut t).unwrap();
        assert_eq!((old.vals(), t.vals()), (&[4.0, 5.0][..], &[0.0; 2][..]));
        restore(&mut t, old);
        assert_eq!(t.vals(), [4.0, 5.0]);
        let empty: &[f64] = &[];
        let view = DenseSlice::new(empty);
        assert_eq!((view.shape(), view.vals().len()), (&[0][..], 0));
    }
}
