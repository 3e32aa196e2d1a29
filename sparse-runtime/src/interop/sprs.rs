//! [`sprs`] matrices (feature `sprs`): `CsMatI<V, J, Jptr>` in CSR storage ⟷
//! [`Csr<V, I>`](Csr), in CSC storage ⟷ [`Csc<V, I>`](Csc).
//!
//! - `Csr::try_from(m)` / `Csc::try_from(m)` for an owned `CsMatI` **moves** its `indptr`,
//!   `indices` and `data` vectors into the tensor when `J` and `Jptr` are `I` (so
//!   `CsMatI<V, u32>` into `Csr<V, u32>`, `sprs::CsMat<V>` into `Csr<V, usize>`), and
//!   converts the index arrays otherwise. A matrix in the other storage order is moved into
//!   its own order first, then converted by counting ([`Source::convert`]).
//! - `&CsMatI` and `CsMatViewI` (a slice of rows, say) are copied.
//! - `CsMatI::try_from(csr)` moves the arrays back out ([`Csr::into_csr_arrays`]);
//!   [`Csr::sprs_view`] and [`Csc::sprs_view`] lend the tensor's arrays to sprs as a
//!   `CsMatViewI` without copying anything.
//!
//! Everything that comes from sprs is validated again by [`Csr::from_csr_arrays`] /
//! [`Csc::from_csc_arrays`]; the errors are those, plus `IndexOverflow` (an index or a
//! dimension too large for the target's index type) and `NotRepresentable` (a negative
//! index, or sprs refusing the arrays). What comes from sprs has fill value zero; a
//! tensor whose fill value is not zero is refused on the way out (`NotRepresentable`):
//! sprs knows only zero.
//!
//! ```
//! # #[cfg(feature = "sprs")] {
//! use sparse_runtime::prelude::*;
//!
//! // sprs's CsMat uses usize indices: moved into a Csr<_, usize> without a copy.
//! let m = sprs::CsMat::new((2, 3), vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0]);
//! let a: Csr<f64, usize> = m.try_into()?;
//! assert_eq!(a.entries(), vec![(vec![0, 2], 1.0), (vec![1, 0], 2.0), (vec![1, 1], 3.0)]);
//!
//! // Into the default u32 indices (converted), and back.
//! let m = sprs::CsMat::new((2, 3), vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0]);
//! let b = Csr::<f64>::try_from(&m)?;
//! let back: sprs::CsMatI<f64, u32> = b.try_into()?;
//! assert_eq!(back.indices(), &[2, 0, 1]);
//!
//! // A borrowed view: sprs computes on the tensor's own arrays.
//! let c = Csc::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([1, 0], 2.0)])?;
//! let v = c.sprs_view()?;
//! assert!(v.is_csc());
//! assert_eq!(v.get(1, 0), Some(&2.0));
//! # }
//! # Ok::<(), sparse_runtime::Error>(())
//! ```

use super::{index_vec_in, index_vec_out};
use crate::convert::Source;
use crate::{Csc, Csr, Error, Index, Value};
use sprs::{CompressedStorage, CsMatI, CsMatViewI, SpIndex};

/// sprs refused arrays (never for arrays that come from a valid tensor, unless a
/// dimension does not fit sprs's index types).
fn refused(e: sprs::errors::StructureError) -> Error {
    Error::NotRepresentable {
        detail: format!("sprs refuses the matrix: {e}"),
    }
}

/// Makes a segment-bounds array that starts at an offset (sprs keeps the offset of a
/// slice of rows) start at 0, in place. Left as it is unless every entry is at least the
/// first, so validation still sees (and rejects) any array that is not non-decreasing.
fn zero_based<I: Index>(pos: &mut [I]) {
    let Some(&first) = pos.first() else { return };
    let first = first.to_usize();
    if first == 0 || pos.iter().any(|p| p.to_usize() < first) {
        return;
    }
    for p in pos.iter_mut() {
        *p = I::from_usize_unchecked(p.to_usize() - first);
    }
}

/// A sprs matrix as the tensor of its own storage order.
enum Stored<V, I> {
    Csr(Csr<V, I>),
    Csc(Csc<V, I>),
}

impl<V: Value, I: Index> Stored<V, I> {
    /// Validates a sprs matrix's arrays (already in `I`; `ptr` made to start at 0 here, as
    /// a matrix copied from a slice of another keeps the slice's offset) as a tensor.
    fn new(
        storage: CompressedStorage,
        (rows, cols): (usize, usize),
        mut ptr: Vec<I>,
        idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        zero_based(&mut ptr);
        Ok(match storage {
            CompressedStorage::CSR => {
                Stored::Csr(Csr::from_csr_arrays(rows, cols, ptr, idx, vals)?)
            }
            CompressedStorage::CSC => {
                Stored::Csc(Csc::from_csc_arrays(rows, cols, ptr, idx, vals)?)
            }
        })
    }

    /// Moves an owned sprs matrix's arrays (converted if `J` or `Jptr` is not `I`).
    fn moved<J: SpIndex + 'static, Jptr: SpIndex + 'static>(
        m: CsMatI<V, J, Jptr>,
    ) -> Result<Self, Error> {
        let (storage, shape) = (m.storage(), m.shape());
        let (indptr, indices, data) = m.into_raw_storage();
        let ptr = index_vec_in(indptr, "the sprs indptr", Jptr::try_index)?;
        let idx = index_vec_in(indices, "the sprs indices", J::try_index)?;
        Self::new(storage, shape, ptr, idx, data)
    }

    /// Copies a sprs view's arrays.
    fn copied<J: SpIndex + 'static, Jptr: SpIndex + 'static>(
        m: &CsMatViewI<'_, V, J, Jptr>,
    ) -> Result<Self, Error> {
        let indptr = m.proper_indptr().into_owned();
        let ptr = index_vec_in(indptr, "the sprs indptr", Jptr::try_index)?;
        let idx = index_vec_in(m.indices().to_vec(), "the sprs indices", J::try_index)?;
        Self::new(m.storage(), m.shape(), ptr, idx, m.data().to_vec())
    }

    fn into_csr(self) -> Result<Csr<V, I>, Error> {
        match self {
            Stored::Csr(a) => Ok(a),
            Stored::Csc(a) => a.convert(),
        }
    }

    fn into_csc(self) -> Result<Csc<V, I>, Error> {
        match self {
            Stored::Csr(a) => a.convert(),
            Stored::Csc(a) => Ok(a),
        }
    }
}

macro_rules! sprs_into {
    ($format:ident, $into:ident, $storage:literal, $other:literal) => {
        #[doc = concat!("Moves a sprs ", $storage, " matrix into a [`", stringify!($format), "`]")]
        #[doc = concat!("(no copy when `J` and `Jptr` are `I`); a ", $other, " one is moved into")]
        /// its own order and converted.
        impl<V, I, J, Jptr> TryFrom<CsMatI<V, J, Jptr>> for $format<V, I>
        where
            V: Value,
            I: Index,
            J: SpIndex + 'static,
            Jptr: SpIndex + 'static,
        {
            type Error = Error;

            fn try_from(m: CsMatI<V, J, Jptr>) -> Result<Self, Error> {
                Stored::moved(m)?.$into()
            }
        }

        /// Copies a sprs view (a slice of a matrix, say) into a
        #[doc = concat!("[`", stringify!($format), "`].")]
        impl<'a, V, I, J, Jptr> TryFrom<CsMatViewI<'a, V, J, Jptr>> for $format<V, I>
        where
            V: Value,
            I: Index,
            J: SpIndex + 'static,
            Jptr: SpIndex + 'static,
        {
            type Error = Error;

            fn try_from(m: CsMatViewI<'a, V, J, Jptr>) -> Result<Self, Error> {
                Stored::copied(&m)?.$into()
            }
        }

        /// Copies a sprs matrix into a
        #[doc = concat!("[`", stringify!($format), "`].")]
        impl<V, I, J, Jptr> TryFrom<&CsMatI<V, J, Jptr>> for $format<V, I>
        where
            V: Value,
            I: Index,
            J: SpIndex + 'static,
            Jptr: SpIndex + 'static,
        {
            type Error = Error;

            fn try_from(m: &CsMatI<V, J, Jptr>) -> Result<Self, Error> {
                Stored::copied(&m.view())?.$into()
            }
        }
    };
}

sprs_into!(Csr, into_csr, "CSR", "CSC");
sprs_into!(Csc, into_csc, "CSC", "CSR");

/// The arrays of a tensor as sprs's index types (moved when they are `I`).
#[allow(clippy::type_complexity)]
fn arrays_out<I: Index, J: SpIndex + 'static, Jptr: SpIndex + 'static>(
    ptr: Vec<I>,
    idx: Vec<I>,
) -> Result<(Vec<Jptr>, Vec<J>), Error> {
    Ok((
        index_vec_out(ptr, Jptr::try_from_usize)?,
        index_vec_out(idx, J::try_from_usize)?,
    ))
}

/// Moves a [`Csr`]'s arrays into a sprs CSR matrix (no copy when `J` and `Jptr` are `I`).
///
/// Errors: `NotRepresentable` if the matrix's fill value is not zero (sprs knows only
/// zero); `IndexOverflow` if an index or dimension does not fit `J` or `Jptr` (sprs also
/// needs `rows + 1` to fit `Jptr`).
impl<V, I, J, Jptr> TryFrom<Csr<V, I>> for CsMatI<V, J, Jptr>
where
    V: Value,
    I: Index,
    J: SpIndex + 'static,
    Jptr: SpIndex + 'static,
{
    type Error = Error;

    fn try_from(a: Csr<V, I>) -> Result<Self, Error> {
        super::zero_fill(a.fill(), "sprs")?;
        let (rows, cols, row_ptr, col_idx, vals) = a.into_csr_arrays();
        let (indptr, indices) = arrays_out(row_ptr, col_idx)?;
        CsMatI::try_new((rows, cols), indptr, indices, vals).map_err(|(_, _, _, e)| refused(e))
    }
}

/// Moves a [`Csc`]'s arrays into a sprs CSC matrix (no copy when `J` and `Jptr` are `I`).
///
/// Errors: `NotRepresentable` if the matrix's fill value is not zero (sprs knows only
/// zero); `IndexOverflow` if an index or dimension does not fit `J` or `Jptr` (sprs also
/// needs `cols + 1` to fit `Jptr`).
impl<V, I, J, Jptr> TryFrom<Csc<V, I>> for CsMatI<V, J, Jptr>
where
    V: Value,
    I: Index,
    J: SpIndex + 'static,
    Jptr: SpIndex + 'static,
{
    type Error = Error;

    fn try_from(a: Csc<V, I>) -> Result<Self, Error> {
        super::zero_fill(a.fill(), "sprs")?;
        let (rows, cols, col_ptr, row_idx, vals) = a.into_csc_arrays();
        let (indptr, indices) = arrays_out(col_ptr, row_idx)?;
        CsMatI::try_new_csc((rows, cols), indptr, indices, vals).map_err(|(_, _, _, e)| refused(e))
    }
}

macro_rules! borrowed_into_sprs {
    ($format:ident) => {
        /// Copies a
        #[doc = concat!("[`", stringify!($format), "`]")]
        /// into a sprs matrix (see the owned conversion).
        impl<V, I, J, Jptr> TryFrom<&$format<V, I>> for CsMatI<V, J, Jptr>
        where
            V: Value,
            I: Index,
            J: SpIndex + 'static,
            Jptr: SpIndex + 'static,
        {
            type Error = Error;

            fn try_from(a: &$format<V, I>) -> Result<Self, Error> {
                super::zero_fill(a.fill(), "sprs")?;
                Self::try_from(a.clone())
            }
        }
    };
}

borrowed_into_sprs!(Csr);
borrowed_into_sprs!(Csc);

impl<V: Value, I: Index + SpIndex> Csr<V, I> {
    /// The matrix as a sprs CSR view over its own arrays: nothing is copied (sprs checks
    /// the arrays once more, in O(stored entries)).
    ///
    /// ```
    /// # #[cfg(feature = "sprs")] {
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 3.0), ([1, 0], 4.0)])?;
    /// let v = a.sprs_view()?;
    /// assert_eq!(v.data().as_ptr(), a.vals().as_ptr());
    /// let x = [1.0, 2.0];
    /// let y: Vec<f64> = v.outer_iterator().map(|row| row.dot_dense(&x[..])).collect();
    /// assert_eq!(y, [6.0, 4.0]);
    /// # }
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    ///
    /// Errors: `NotRepresentable` if the matrix's fill value is not zero (sprs knows only
    /// zero), or if `rows + 1` does not fit `I` (sprs requires it).
    pub fn sprs_view(&self) -> Result<CsMatViewI<'_, V, I>, Error> {
        super::zero_fill(self.fill(), "sprs")?;
        let shape = (self.shape()[0], self.shape()[1]);
        let columns = &self.levels().1;
        CsMatViewI::try_new(shape, columns.pos(), columns.crd(), self.vals())
            .map_err(|(_, _, _, e)| refused(e))
    }
}

impl<V: Value, I: Index + SpIndex> Csc<V, I> {
    /// The matrix as a sprs CSC view over its own arrays: nothing is copied (sprs checks
    /// the arrays once more, in O(stored entries)).
    ///
    /// Errors: `NotRepresentable` if the matrix's fill value is not zero (sprs knows only
    /// zero), or if `cols + 1` does not fit `I` (sprs requires it).
    pub fn sprs_view(&self) -> Result<CsMatViewI<'_, V, I>, Error> {
        super::zero_fill(self.fill(), "sprs")?;
        let shape = (self.shape()[0], self.shape()[1]);
        let rows = &self.levels().1;
        CsMatViewI::try_new_csc(shape, rows.pos(), rows.crd(), self.vals())
            .map_err(|(_, _, _, e)| refused(e))
    }
}
