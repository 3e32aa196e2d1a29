//! [`nalgebra_sparse`] matrices (feature `nalgebra-sparse`): `CsrMatrix<V>` ⟷
//! [`Csr<V, I>`](Csr), `CscMatrix<V>` ⟷ [`Csc<V, I>`](Csc), `CooMatrix<V>` ⟷ any format.
//!
//! nalgebra-sparse indexes with `usize`: converting an owned `CsrMatrix` into a
//! `Csr<V, usize>` (and back) **moves** the three arrays; into any other index type the
//! index arrays are converted (the values are still moved). `&CsrMatrix` and `&Csr` are
//! copied. A `CooMatrix` (unsorted, with repeats) becomes an [`Entries`] list, which builds
//! any format ([`from_coo_matrix`], repeats summed); any format becomes a `CooMatrix`
//! ([`to_coo_matrix`], or `CooMatrix::try_from(&tensor)`).
//!
//! What comes from nalgebra-sparse is validated again by [`Csr::from_csr_arrays`] /
//! [`Csc::from_csc_arrays`]; the errors are `IndexOverflow` (a dimension or index too large
//! for `I`) and those of the constructors.
//!
//! nalgebra-sparse matrices have fill value zero: what comes from them has fill value
//! zero, and [`to_coo_matrix`] refuses a tensor whose fill value is not (`NotRepresentable`).
//! `CsrMatrix::from(csr)` and `CscMatrix::from(csc)` cannot fail, and **drop** a fill value
//! that is not zero: check [`Tensor::fill`] before calling them.
//!
//! ```
//! # #[cfg(feature = "nalgebra-sparse")] {
//! use nalgebra_sparse::{CooMatrix, CsrMatrix};
//! use sparse_runtime::interop::nalgebra_sparse::{from_coo_matrix, to_coo_matrix};
//! use sparse_runtime::prelude::*;
//!
//! let m = CsrMatrix::try_from_csr_data(2, 3, vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0])
//!     .unwrap();
//! let a = Csr::<f64>::try_from(&m)?; // copied, indices as u32
//! let b: Csr<f64, usize> = m.try_into()?; // moved
//! assert_eq!(a.entries(), b.entries());
//! let back = CsrMatrix::from(&a);
//! assert_eq!(back.col_indices(), &[2, 0, 1]);
//!
//! let mut coo = CooMatrix::new(2, 2);
//! coo.push(1, 0, 1.0);
//! coo.push(0, 1, 2.0);
//! coo.push(1, 0, 0.5); // repeats are summed
//! let c: Csc<f64> = from_coo_matrix(&coo)?;
//! assert_eq!(c.entries(), vec![(vec![0, 1], 2.0), (vec![1, 0], 1.5)]);
//! let d: Dia<f64> = c.convert()?;
//! assert_eq!(to_coo_matrix(&d)?.nnz(), 2);
//! # }
//! # Ok::<(), sparse_runtime::Error>(())
//! ```

use super::{index_vec_in, index_vec_out};
use crate::convert::{Source, Target};
use crate::io::Entries;
use crate::levels::Levels;
use crate::mode_order::ModeOrder;
use crate::{Csc, Csr, Error, Index, Tensor, Value};
use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};

/// An index array of nalgebra-sparse in `I` (moved if `I` is `usize`).
fn usize_in<I: Index>(v: Vec<usize>, what: &str) -> Result<Vec<I>, Error> {
    index_vec_in(v, what, Some)
}

/// An index array as nalgebra-sparse's `usize` (moved if `I` is `usize`; never fails: every
/// index of a tensor is a `usize` that was converted into `I`).
fn usize_out<I: Index>(v: Vec<I>) -> Vec<usize> {
    index_vec_out(v, Some).unwrap_or_else(|e| unreachable!("every usize is a usize: {e}"))
}

macro_rules! compressed {
    (
        $format:ident, $matrix:ident, $name:literal,
        $from_arrays:ident, $into_arrays:ident, $try_from_data:ident, $data:ident,
        $ptr:literal, $idx:literal
    ) => {
        #[doc = concat!("Moves a `", stringify!($matrix), "` into a [`", stringify!($format), "`]:")]
        /// no copy when `I` is `usize`, else the index arrays are converted.
        ///
        /// Errors: `IndexOverflow` if a dimension or index does not fit `I`.
        impl<V: Value, I: Index> TryFrom<$matrix<V>> for $format<V, I> {
            type Error = Error;

            fn try_from(m: $matrix<V>) -> Result<Self, Error> {
                let (rows, cols) = (m.nrows(), m.ncols());
                let (ptr, idx, vals) = m.disassemble();
                let ptr = usize_in(ptr, $ptr)?;
                let idx = usize_in(idx, $idx)?;
                $format::$from_arrays(rows, cols, ptr, idx, vals)
            }
        }

        #[doc = concat!("Copies a `", stringify!($matrix), "` into a [`", stringify!($format), "`].")]
        ///
        /// Errors: `IndexOverflow` if a dimension or index does not fit `I`.
        impl<V: Value, I: Index> TryFrom<&$matrix<V>> for $format<V, I> {
            type Error = Error;

            fn try_from(m: &$matrix<V>) -> Result<Self, Error> {
                let (ptr, idx, vals) = m.$data();
                let ptr = index_vec_in(ptr.to_vec(), $ptr, Some)?;
                let idx = index_vec_in(idx.to_vec(), $idx, Some)?;
                $format::$from_arrays(m.nrows(), m.ncols(), ptr, idx, vals.to_vec())
            }
        }

        #[doc = concat!("Moves a [`", stringify!($format), "`] into a `", stringify!($matrix), "`:")]
        /// no copy when `I` is `usize`, else the index arrays are converted.
        ///
        /// **The fill value is dropped**: nalgebra-sparse knows only zero, and this
        /// conversion cannot fail, so a matrix whose fill value is not zero becomes one
        /// whose unstored components are zero. Check `a.fill()` first, or use
        /// [`to_coo_matrix`], which refuses such a matrix.
        impl<V: Value, I: Index> From<$format<V, I>> for $matrix<V> {
            fn from(a: $format<V, I>) -> Self {
                let (rows, cols, ptr, idx, vals) = a.$into_arrays();
                // A valid tensor's arrays are valid for nalgebra-sparse, which checks them
                // once more.
                $matrix::$try_from_data(rows, cols, usize_out(ptr), usize_out(idx), vals)
                    .unwrap_or_else(|e| {
                        unreachable!(concat!("a valid ", $name, " refused by nalgebra-sparse: {}"), e)
                    })
            }
        }

        #[doc = concat!("Copies a [`", stringify!($format), "`] into a `", stringify!($matrix), "`")]
        /// (dropping its fill value, as the owned conversion does).
        impl<V: Value, I: Index> From<&$format<V, I>> for $matrix<V> {
            fn from(a: &$format<V, I>) -> Self {
                Self::from(a.clone())
            }
        }
    };
}

compressed!(
    Csr,
    CsrMatrix,
    "Csr",
    from_csr_arrays,
    into_csr_arrays,
    try_from_csr_data,
    csr_data,
    "the row offsets",
    "the column indices"
);
compressed!(
    Csc,
    CscMatrix,
    "Csc",
    from_csc_arrays,
    into_csc_arrays,
    try_from_csc_data,
    csc_data,
    "the column offsets",
    "the row indices"
);

/// The triplets of a `CooMatrix` as an [`Entries`] list, in the matrix's order, repeats
/// kept (building a tensor from the list sums them).
impl<V: Value> TryFrom<&CooMatrix<V>> for Entries<V> {
    type Error = Error;

    fn try_from(m: &CooMatrix<V>) -> Result<Self, Error> {
        let mut e = Entries::with_capacity(&[m.nrows(), m.ncols()], m.nnz());
        for (i, j, &v) in m.triplet_iter() {
            e.push(&[i, j], v)?;
        }
        Ok(e)
    }
}

/// Any format `T` holding the entries of a `CooMatrix` (repeats summed), through an
/// [`Entries`] list and [`Target::from_source`].
///
/// Errors: those of `T`'s assembly (`IndexOverflow`, `NotRepresentable`, `OrderMismatch`
/// for a target that is not a matrix).
pub fn from_coo_matrix<V: Value, T: Target<V>>(m: &CooMatrix<V>) -> Result<T, Error> {
    T::from_source(&Entries::try_from(m)?)
}

/// A `CooMatrix` holding every stored component of a matrix in any format (explicit zeros
/// included), in its storage order.
///
/// Errors: `source` is not a matrix (`OrderMismatch`), or its fill value is not zero
/// (`NotRepresentable`: a `CooMatrix` has fill value zero).
pub fn to_coo_matrix<V: Value, S: Source<V>>(source: &S) -> Result<CooMatrix<V>, Error> {
    let &[rows, cols] = source.shape() else {
        return Err(Error::OrderMismatch {
            expected: 2,
            found: source.shape().len(),
        });
    };
    super::zero_fill(source.fill(), "nalgebra-sparse")?;
    let mut m = CooMatrix::new(rows, cols);
    source.for_each_entry(|c, v| m.push(c[0], c[1], v));
    Ok(m)
}

/// A `CooMatrix` of a tensor's stored components: [`to_coo_matrix`].
impl<V: Value, L: Levels, O: ModeOrder> TryFrom<&Tensor<V, L, O>> for CooMatrix<V> {
    type Error = Error;

    fn try_from(a: &Tensor<V, L, O>) -> Result<Self, Error> {
        to_coo_matrix(a)
    }
}
