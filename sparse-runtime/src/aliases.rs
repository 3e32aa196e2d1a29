//! Format aliases: the common formats as level tuples (Chou et al. 2018, fig. 4),
//! and their format-specific constructors.

use crate::level::{
    Compressed, CompressedNonUnique, Dense, Hashed, Singleton, SingletonNonUnique, Slotted,
};
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

/// An ELLPACK (ELL) matrix: every row owns the same number of slots
/// (`width()`, the fullest row's entry count when built from entries), each
/// holding a column and a value or nothing (padding), rows one after the
/// other (Chou et al. 2018, figure 2i, row-major). Stored as
/// `(Dense, Slotted)`: the columns of row `i` are the slots
/// `i * width .. (i + 1) * width` of one [`Slotted`] level, strictly
/// increasing, the empty slots (`I::MAX`) last.
///
/// Good for matrices with about the same number of nonzeros per row (meshes,
/// stencils with boundaries): no row pointers, and every row is a fixed-size
/// block. Bad when one row is much fuller than the rest, since every row is
/// padded to it. In a kernel it is a matrix like `Csr`: its rows merge with
/// other operands' rows in column order (`C(i, j) = A(i, j) + B(i, j)` with A
/// `Ell` and B and C `Csr`), but it cannot be an output.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Ell::<f64>::from_entries(&[2, 4], [([0, 3], 1.0), ([0, 1], 2.0), ([1, 2], 3.0)])?;
/// assert_eq!(a.width(), 2);
/// assert_eq!(a.nnz(), 3);
/// assert_eq!(a.col_idx(), &[1, 3, 2, u32::MAX]);
/// assert_eq!(a.entries()[0], (vec![0, 1], 2.0));
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub type Ell<V, I = u32> = Tensor<V, (Dense, Slotted<I>)>;

impl<V: Value, I: Index> Ell<V, I> {
    /// A `rows x cols` ELL matrix of `width` slots per row from its arrays:
    /// `col_idx[i * width + s]` is the column in slot `s` of row `i`, or
    /// `I::MAX` for an empty slot, and `vals` the value there. Within a row the
    /// columns are strictly increasing and below `cols`, empty slots come
    /// after the others and hold the value zero (else it would be lost).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [1 0 2; 0 3 0] with two slots per row; the second slot of row 1 is empty.
    /// let a = Ell::<f64>::from_ell_arrays(2, 3, 2, vec![0, 2, 1, u32::MAX], vec![1.0, 2.0, 3.0, 0.0])?;
    /// assert_eq!(a.to_dense(), vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]);
    /// // A value in an empty slot would be lost: refused.
    /// let lost = Ell::<f64>::from_ell_arrays(2, 3, 2, vec![0, 2, 1, u32::MAX], vec![1.0, 2.0, 3.0, 9.0]);
    /// assert!(lost.is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_ell_arrays(
        rows: usize,
        cols: usize,
        width: usize,
        col_idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        let columns = Slotted::from_raw(cols, width, col_idx).map_err(|e| e.at_level(1))?;
        let ell = Self::from_levels(&[rows, cols], (Dense::new(rows), columns), vals)?;
        let (_, columns) = ell.levels();
        let lost =
            (0..columns.len()).find(|&p| !columns.is_stored(p) && ell.vals()[p] != V::zero());
        match lost {
            Some(p) => Err(Error::NotRepresentable {
                detail: format!(
                    "vals[{p}] = {:?} is in an empty slot of row {}; empty slots must be zero",
                    ell.vals()[p],
                    p / width
                ),
            }),
            None => Ok(ell),
        }
    }

    /// The number of slots per row.
    pub fn width(&self) -> usize {
        self.levels().1.width()
    }

    /// The column of each slot, row after row (`I::MAX` in an empty slot).
    pub fn col_idx(&self) -> &[I] {
        self.levels().1.crd()
    }
}

impl<V: Value, I: Index> Csr<V, I> {
    /// A `rows x cols` CSR matrix from its three arrays, validated like
    /// [`Tensor::from_levels`]: `row_ptr` has `rows + 1` entries, starts at 0,
    /// is non-decreasing and ends at `col_idx.len()`; the column indices of each
    /// row are strictly increasing and below `cols`; `vals` matches `col_idx`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [0 1 0; 2 0 3]
    /// let a = Csr::<f64>::from_csr_arrays(2, 3, vec![0, 1, 3], vec![1, 0, 2], vec![1.0, 2.0, 3.0])?;
    /// assert_eq!(a.row(1), Some((&[0u32, 2][..], &[2.0, 3.0][..])));
    /// // The columns of a row must increase strictly.
    /// let unsorted = Csr::<f64>::from_csr_arrays(2, 3, vec![0, 1, 3], vec![1, 2, 0], vec![1.0, 2.0, 3.0]);
    /// assert!(unsorted.is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
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

impl<V: Value, I: Index> Csr<V, I> {
    /// The matrix's arrays `(rows, cols, row_ptr, col_idx, vals)`, giving up the matrix:
    /// the inverse of [`Csr::from_csr_arrays`]. The three arrays are moved out, not copied.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0)])?;
    /// let (rows, cols, row_ptr, col_idx, vals) = a.into_csr_arrays();
    /// assert_eq!((rows, cols), (2, 3));
    /// assert_eq!((row_ptr, col_idx, vals), (vec![0, 1, 2], vec![2, 0], vec![1.0, 2.0]));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn into_csr_arrays(self) -> (usize, usize, Vec<I>, Vec<I>, Vec<V>) {
        let (rows, cols) = (self.shape()[0], self.shape()[1]);
        let ((_, columns), vals) = self.into_parts();
        let (row_ptr, col_idx) = columns.into_arrays();
        (rows, cols, row_ptr, col_idx, vals)
    }
}

impl<V: Value, I: Index> Csc<V, I> {
    /// A `rows x cols` CSC matrix from its three arrays, validated like
    /// [`Tensor::from_levels`]: `col_ptr` has `cols + 1` entries, starts at 0, is
    /// non-decreasing and ends at `row_idx.len()`; the row indices of each column are
    /// strictly increasing and below `rows`; `vals` matches `row_idx`. The arrays are
    /// moved into the matrix, not copied.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // [0 1 0; 2 0 3], column by column
    /// let a = Csc::<f64>::from_csc_arrays(2, 3, vec![0, 1, 2, 3], vec![1, 0, 1], vec![2.0, 1.0, 3.0])?;
    /// assert_eq!(a.col(2), Some((&[1u32][..], &[3.0][..])));
    /// assert_eq!(a.to_dense(), vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_csc_arrays(
        rows: usize,
        cols: usize,
        col_ptr: Vec<I>,
        row_idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        // from_levels checks every invariant from_raw would, plus the column count.
        let rows_level = Compressed::from_parts_unchecked(rows, col_ptr, row_idx);
        Self::from_levels(&[rows, cols], (Dense::new(cols), rows_level), vals)
    }

    /// The matrix's arrays `(rows, cols, col_ptr, row_idx, vals)`, giving up the matrix:
    /// the inverse of [`Csc::from_csc_arrays`]. The three arrays are moved out, not copied.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csc::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0)])?;
    /// let (rows, cols, col_ptr, row_idx, vals) = a.into_csc_arrays();
    /// assert_eq!((rows, cols), (2, 3));
    /// assert_eq!((col_ptr, row_idx, vals), (vec![0, 1, 1, 2], vec![1, 0], vec![2.0, 1.0]));
    /// let b = Csc::<f64>::from_csc_arrays(rows, cols, vec![0, 1, 1, 2], vec![1, 0], vec![2.0, 1.0])?;
    /// assert_eq!(b.entries(), vec![(vec![0, 2], 1.0), (vec![1, 0], 2.0)]);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn into_csc_arrays(self) -> (usize, usize, Vec<I>, Vec<I>, Vec<V>) {
        let (rows, cols) = (self.shape()[0], self.shape()[1]);
        let ((_, rows_level), vals) = self.into_parts();
        let (col_ptr, row_idx) = rows_level.into_arrays();
        (rows, cols, col_ptr, row_idx, vals)
    }
}
