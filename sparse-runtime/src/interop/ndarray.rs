//! [`ndarray`] arrays (feature `ndarray`): `Array1`/`Array2`/`Array3` ⟷
//! [`Dense1`], [`Dense2`], [`Dense3`].
//!
//! - `Dense2::from(array)` **moves** the array's vector when the array is in standard
//!   layout (row-major and contiguous, as `Array2::zeros` and `from_shape_vec` make it);
//!   any other layout (a transposed or sliced array) is copied in row-major order, as are
//!   `&Array2` and `ArrayView2`. An array is always a valid dense tensor, so these are
//!   `From`.
//! - `Array2::try_from(dense)` moves the values back out; [`Dense2::as_array_view`] lends
//!   them to ndarray without a copy. They fail (`NotRepresentable`) only for a shape
//!   ndarray cannot hold (the product of the non-zero dimensions above `isize::MAX`, as
//!   `Dense2` of shape `0 x usize::MAX` has).
//! - A dense tensor stores every component, so its fill value
//!   ([`Tensor::fill`](crate::Tensor::fill)) is no component's value: the array holds the
//!   components whatever the fill value, and an array becomes a tensor of fill value zero.
//!   (A sparse tensor reaches ndarray through a dense format: converting it writes its
//!   fill value into the components it does not store.)
//!
//! ```
//! # #[cfg(feature = "ndarray")] {
//! use ndarray::{array, Array2};
//! use sparse_runtime::prelude::*;
//!
//! let x = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let at = x.as_ptr();
//! let d = Dense2::from(x); // moved
//! assert_eq!(d.as_slice().as_ptr(), at);
//! assert_eq!(d.shape(), &[2, 3]);
//!
//! let t = Dense2::from(d.as_array_view()?.t()); // a transposed view: copied
//! assert_eq!(t.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
//!
//! let back = Array2::try_from(d)?;
//! assert_eq!(back, array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
//! # }
//! # Ok::<(), sparse_runtime::Error>(())
//! ```

use crate::level::Dense;
use crate::{Dense1, Dense2, Dense3, Error, Tensor, Value};
use ndarray::{
    Array, Array1, Array2, Array3, ArrayBase, ArrayView, ArrayView1, ArrayView2, ArrayView3, Data,
    Dimension, Ix1, Ix2, Ix3, ShapeError,
};

/// An owned array's components in row-major order: its own vector (moved, the
/// allocation reused) if the array is in standard layout, else a copy.
fn into_row_major<V: Copy, D: Dimension>(a: Array<V, D>) -> Vec<V> {
    if !a.is_standard_layout() {
        return a.iter().copied().collect();
    }
    let n = a.len();
    let (mut v, offset) = a.into_raw_vec_and_offset();
    // In standard layout the components are `v[offset..offset + n]`, in order (an array
    // sliced in place keeps the rest of its vector); no offset means no component.
    match offset {
        Some(offset) if n > 0 => {
            v.truncate(offset + n);
            v.drain(..offset);
        }
        _ => v.clear(),
    }
    v
}

/// ndarray refused a shape.
fn refused(shape: &[usize], e: ShapeError) -> Error {
    Error::NotRepresentable {
        detail: format!("ndarray cannot hold an array of shape {shape:?}: {e}"),
    }
}

macro_rules! dense {
    ($dense:ident, $array:ident, $view:ident, $ix:ident, $n:literal, $($d:ident),+) => {
        impl<V: Value> $dense<V> {
            /// The tensor from its shape and row-major components, which ndarray guarantees
            /// agree and whose positions fit `usize`; validated all the same.
            fn from_ndarray([$($d),+]: [usize; $n], vals: Vec<V>) -> Self {
                Tensor::from_levels(&[$($d),+], ($(Dense::new($d),)+), vals)
                    .unwrap_or_else(|e| unreachable!("an ndarray array is a valid dense tensor: {e}"))
            }

            #[doc = concat!("The tensor as an ndarray `", stringify!($view), "` over its own values")]
            /// (no copy).
            ///
            /// Errors: `NotRepresentable` for a shape ndarray cannot hold (the product of the
            /// non-zero dimensions above `isize::MAX`).
            pub fn as_array_view(&self) -> Result<$view<'_, V>, Error> {
                let s = self.shape();
                let dims: [usize; $n] = std::array::from_fn(|k| s[k]);
                ArrayView::from_shape(dims, self.vals()).map_err(|e| refused(s, e))
            }
        }

        #[doc = concat!("Moves an `", stringify!($array), "` in standard layout into a [`")]
        #[doc = concat!(stringify!($dense), "`] (its vector is reused); any other layout is copied.")]
        impl<V: Value> From<$array<V>> for $dense<V> {
            fn from(a: $array<V>) -> Self {
                let dims: [usize; $n] = std::array::from_fn(|k| a.shape()[k]);
                Self::from_ndarray(dims, into_row_major(a))
            }
        }

        #[doc = concat!("Copies an `", stringify!($view), "` (any layout) into a [`", stringify!($dense), "`].")]
        impl<'a, V: Value> From<$view<'a, V>> for $dense<V> {
            fn from(a: $view<'a, V>) -> Self {
                Self::from(&a)
            }
        }

        /// Copies an array of any storage and layout (`&Array`, `&ArrayView`, `&ArcArray`)
        #[doc = concat!("into a [`", stringify!($dense), "`].")]
        impl<V: Value, S: Data<Elem = V>> From<&ArrayBase<S, $ix>> for $dense<V> {
            fn from(a: &ArrayBase<S, $ix>) -> Self {
                let dims: [usize; $n] = std::array::from_fn(|k| a.shape()[k]);
                let vals = match a.as_slice() {
                    Some(row_major) => row_major.to_vec(),
                    None => a.iter().copied().collect(),
                };
                Self::from_ndarray(dims, vals)
            }
        }

        #[doc = concat!("Moves a [`", stringify!($dense), "`]'s values into an `", stringify!($array), "`")]
        /// (no copy).
        ///
        /// Errors: `NotRepresentable` for a shape ndarray cannot hold (the product of the
        /// non-zero dimensions above `isize::MAX`).
        impl<V: Value> TryFrom<$dense<V>> for $array<V> {
            type Error = Error;

            fn try_from(d: $dense<V>) -> Result<Self, Error> {
                let s = d.shape().to_vec();
                let dims: [usize; $n] = std::array::from_fn(|k| s[k]);
                let (_, vals) = d.into_parts();
                Array::from_shape_vec(dims, vals).map_err(|e| refused(&s, e))
            }
        }

        #[doc = concat!("Copies a [`", stringify!($dense), "`] into an `", stringify!($array), "`.")]
        ///
        /// Errors: those of the owned conversion.
        impl<V: Value> TryFrom<&$dense<V>> for $array<V> {
            type Error = Error;

            fn try_from(d: &$dense<V>) -> Result<Self, Error> {
                Ok(d.as_array_view()?.to_owned())
            }
        }
    };
}

dense!(Dense1, Array1, ArrayView1, Ix1, 1, d0);
dense!(Dense2, Array2, ArrayView2, Ix2, 2, d0, d1);
dense!(Dense3, Array3, ArrayView3, Ix3, 3, d0, d1, d2);
