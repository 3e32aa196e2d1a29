//! Format aliases: the common formats as level tuples (Chou et al. 2018, fig. 4),
//! and their format-specific constructors.

use crate::level::{Compressed, CompressedNonUnique, Dense, Hashed, Singleton, SingletonNonUnique};
use crate::mode_order::Modes;
use crate::{Error, Index, Tensor, Value};

/// A dense vector.
pub type Dense1<V> = Tensor<V, (Dense,)>;
/// A dense matrix, row-major.
pub type Dense2<V> = Tensor<V, (Dense, Dense)>;
/// A dense order-3 tensor, row-major.
pub type Dense3<V> = Tensor<V, (Dense, Dense, Dense)>;
/// A sparse vector.
pub type SparseVec<V, I = u32> = Tensor<V, (Compressed<I>,)>;
/// Compressed sparse row matrix.
pub type Csr<V, I = u32> = Tensor<V, (Dense, Compressed<I>)>;
/// Compressed sparse column matrix: CSR's levels over the columns first.
pub type Csc<V, I = u32> = Tensor<V, (Dense, Compressed<I>), Modes<1, 0>>;
/// Doubly compressed sparse row matrix (empty rows are not stored).
pub type Dcsr<V, I = u32> = Tensor<V, (Compressed<I>, Compressed<I>)>;
/// Doubly compressed sparse column matrix: DCSR's levels over the columns
/// first (empty columns are not stored). For matrices with many empty
/// columns, where CSC's column pointer array would dominate.
pub type Dcsc<V, I = u32> = Tensor<V, (Compressed<I>, Compressed<I>), Modes<1, 0>>;
/// Coordinate-list matrix (sorted, duplicates summed at construction).
pub type Coo<V, I = u32> = Tensor<V, (CompressedNonUnique<I>, Singleton<I>)>;
/// Compressed sparse fiber order-3 tensor.
pub type Csf3<V, I = u32> = Tensor<V, (Compressed<I>, Compressed<I>, Compressed<I>)>;
/// Compressed sparse fiber order-4 tensor (for another mode order, write
/// `Tensor<V, (Compressed, Compressed, Compressed, Compressed), Modes<..>>`).
pub type Csf4<V, I = u32> = Tensor<V, (Compressed<I>, Compressed<I>, Compressed<I>, Compressed<I>)>;
/// Coordinate-list order-3 tensor.
pub type Coo3<V, I = u32> =
    Tensor<V, (CompressedNonUnique<I>, SingletonNonUnique<I>, Singleton<I>)>;

/// A hash-map vector: its coordinates in an open-addressing table of
/// `width()` buckets (a [`Hashed`] level). Locating a coordinate is expected
/// O(1), so `x(i) * y(i)` with `x` a `HashVec` costs `y`'s nonzeros only,
/// whatever `x` holds; its coordinates are unordered, so merging it with an
/// ordered operand by union sorts them first. Good for vectors that are
/// probed more than scanned, and for accumulating scattered updates.
pub type HashVec<V, I = u32> = Tensor<V, (Hashed<I>,)>;
/// A matrix of hash-map rows: dense rows, each an open-addressing table of
/// columns (`(Dense, Hashed)`); every row has the same number of buckets
/// (twice the fullest row's entries, rounded up to a power of two). `A(i, j)`
/// is found in expected O(1), so element-wise products with it cost the
/// other operand's nonzeros.
pub type HashMat<V, I = u32> = Tensor<V, (Dense, Hashed<I>)>;

impl<V: Value, I: Index> Csr<V, I> {
    /// A `rows x cols` CSR matrix from its three arrays, validated like
    /// [`Tensor::from_levels`]: `row_ptr` has `rows + 1` entries, starts at 0,
    /// is non-decreasing and ends at `col_idx.len()`; the column indices of each
    /// row are strictly increasing and below `cols`; `vals` matches `col_idx`.
    pub fn from_csr_arrays(
        rows: usize,
        cols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        // from_levels checks every invariant from_raw would, plus the row count.
        let columns = Compressed::from_parts_unchecked(cols, row_ptr, col_idx);
        Self::from_levels(&[rows, cols], (Dense::new(rows), columns), vals)
    }
}
