//! Compressed sparse blocks (CSB; Buluç, Fineman, Frigo, Gilbert and
//! Leiserson, "Parallel sparse matrix-vector and matrix-transpose-vector
//! multiplication using compressed sparse blocks", SPAA 2009): a matrix cut
//! into square `beta x beta` blocks, each block's entries stored as a list of
//! coordinate pairs.

use crate::build::entry_list;
use crate::convert::{Remapped, Source, Target};
use crate::index::Index;
use crate::level::{CompressedNonUnique, Dense, Singleton};
use crate::structured::{dense_of, logical_entries, matrix_shape};
use crate::{Error, Tensor, Value};

/// The view a [`Csb`] stores: block rows and block columns (`Dense`,
/// `Dense`), then the entries of each block as COO pairs of global
/// coordinates (`CompressedNonUnique` rows, `Singleton` columns).
pub type CsbView<V, I = u32> = Tensor<V, (Dense, Dense, CompressedNonUnique<I>, Singleton<I>)>;

/// A compressed sparse blocks (CSB) matrix: a `rows x cols` matrix cut into
/// square `beta x beta` blocks, every block (empty ones included) owning a
/// possibly empty list of `(i, j, value)` entries (Buluç et al. 2009).
///
/// Its view is the order-4 hierarchy `(I, J, i, j)` of shape
/// `[nb, mb, rows, cols]`, `nb = ceil(rows / beta)` and
/// `mb = ceil(cols / beta)`, stored as
/// `(Dense, Dense, CompressedNonUnique, Singleton)`: block row `I`, block
/// column `J`, then the entries of block `(I, J)` as a COO list whose rows
/// and columns are the matrix's own (global) coordinates, so entry `(i, j)`
/// lies in block `(i / beta, j / beta)`. The compressed level's `pos` is
/// [`blk_ptr`](Csb::blk_ptr) (`nb * mb + 1` entries, block `(I, J)` owning
/// positions `blk_ptr[I * mb + J]..blk_ptr[I * mb + J + 1]`), its `crd`
/// [`row_idx`](Csb::row_idx); the singleton's `crd` is
/// [`col_idx`](Csb::col_idx). Blocks cut by the matrix edge are just
/// smaller: only stored entries exist, nothing is padded. Every `(i, j)` is
/// stored at most once, in the one block that contains it, which is what
/// makes summing the view over `I` and `J` give back the matrix.
///
/// Good for computing both `A x` and `Aᵀ x` from one copy at the same speed
/// (neither rows nor columns are privileged: a block row is a contiguous run
/// of blocks, and so, through `blk_ptr`, is any block column), for locality
/// (a block touches only `beta` entries of `x` and of `y`), and for parallel
/// work split by block rows or block columns. Bad for hypersparse matrices
/// (`nnz` much smaller than `nb * mb`: the block pointers dominate), for
/// code that wants one whole row at a time (a row is spread over `mb`
/// blocks), and for memory: each entry stores two full coordinates of type
/// `I`, where the paper stores short block-relative offsets.
///
/// Within a block, entries are kept in row-major order, not in the Z-Morton
/// (recursive quadrant) order of the paper: the view's levels are ordered,
/// rows below a block and then columns below each row, and kernels merge
/// them relying on that order, which Z-Morton order would break.
///
/// The block size `beta` is a runtime value, at least 1; see
/// [`Csb::from_entries`] for the default.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// let a = Csb::<f64>::from_entries_with_block(
///     &[3, 5],
///     2,
///     [([2, 4], 1.0), ([0, 3], 2.0), ([1, 0], 3.0), ([0, 1], 4.0)],
/// )?;
/// // 2 x 3 blocks; block (0, 0) holds (0, 1), (1, 0); block (0, 1) holds (0, 3);
/// // block (1, 2), cut by both edges, holds (2, 4).
/// assert_eq!(a.blk_ptr(), &[0, 2, 3, 3, 3, 3, 4]);
/// assert_eq!(a.row_idx(), &[0, 1, 0, 2]);
/// assert_eq!(a.col_idx(), &[1, 0, 3, 4]);
/// assert_eq!(a.view().shape(), &[2, 3, 3, 5]);
/// assert_eq!(a.entries()[1], (vec![0, 3], 2.0));
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Csb<V, I: Index = u32> {
    shape: [usize; 2],
    block: usize,
    view: CsbView<V, I>,
}

impl<V: Value, I: Index> Csb<V, I> {
    /// Builds the matrix from `([i, j], value)` entries in any order;
    /// duplicates are summed (explicit zeros are kept).
    ///
    /// The block size is [`Csb::default_block`]`(rows, cols)`: following the
    /// CSB paper's `beta ≈ sqrt(n)` for `n = max(rows, cols)`, the power of
    /// two `2^ceil(floor(log2 n) / 2)`, which lies within a factor `sqrt(2)`
    /// of `sqrt(n)`, and 1 when `n <= 1`.
    ///
    /// Errors: as [`Csb::from_entries_with_block`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csb::<f64>::from_entries(&[100, 50], [([99, 49], 1.0)])?;
    /// assert_eq!(a.block_size(), 8); // Csb::default_block(100, 50)
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries<C: AsRef<[usize]>>(
        shape: &[usize],
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        let [rows, cols] = matrix_shape(shape)?;
        Self::from_entries_with_block(shape, Self::default_block(rows, cols), entries)
    }

    /// The block size [`Csb::from_entries`] chooses for a `rows x cols`
    /// matrix: `2^ceil(floor(log2 n) / 2)` for `n = max(rows, cols) >= 1`
    /// (the power of two nearest `sqrt(n)`, within a factor `sqrt(2)`), else 1.
    ///
    /// ```
    /// use sparse_runtime::Csb;
    ///
    /// assert_eq!(Csb::<f64>::default_block(1, 1), 1);
    /// assert_eq!(Csb::<f64>::default_block(100, 50), 8); // floor(log2 100) = 6, 2^3
    /// assert_eq!(Csb::<f64>::default_block(10, 1000), 32); // floor(log2 1000) = 9, 2^5
    /// ```
    pub fn default_block(rows: usize, cols: usize) -> usize {
        match rows.max(cols) {
            0 | 1 => 1,
            n => 1 << n.ilog2().div_ceil(2),
        }
    }

    /// Builds the matrix with `block x block` blocks from `([i, j], value)`
    /// entries in any order; duplicates are summed (explicit zeros are kept).
    ///
    /// Errors: `shape` or a coordinate is not of length 2 (`OrderMismatch`),
    /// a coordinate is outside `shape` (`CoordinateOutOfBounds`), `block` is
    /// 0 or the block count `nb * mb` cannot be represented or its block
    /// pointers allocated (`NotRepresentable`), a dimension or the number of
    /// entries does not fit `I` (`IndexOverflow`).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csb::<f64>::from_entries_with_block(&[4, 4], 2, [([3, 0], 1.0), ([0, 3], 2.0)])?;
    /// assert_eq!(a.blk_ptr(), &[0, 0, 1, 2, 2]); // blocks (0, 1) and (1, 0) hold an entry each
    /// assert!(Csb::<f64>::from_entries_with_block(&[4, 4], 0, [([0, 0], 1.0)]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_entries_with_block<C: AsRef<[usize]>>(
        shape: &[usize],
        block: usize,
        entries: impl IntoIterator<Item = (C, V)>,
    ) -> Result<Self, Error> {
        let shape = matrix_shape(shape)?;
        Self::with_block_from_source(&entry_list(&shape, entries)?, block)
    }

    /// CSB's conversion specification (Chou et al. 2020, section 4): the
    /// remapping `(i, j) -> (i / block, j / block, i, j)` onto the view
    /// `(Dense, Dense, CompressedNonUnique, Singleton)`, assembled as any
    /// such composition, then checked as [`Csb::from_csb_arrays`] checks.
    ///
    /// Errors: as [`Csb::from_entries_with_block`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csr::<f64>::from_entries(&[4, 4], [([3, 0], 1.0), ([0, 3], 2.0)])?;
    /// let b = Csb::<f64>::with_block_from_source(&a, 2)?;
    /// assert_eq!((b.block_size(), b.entries()), (2, a.entries()));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn with_block_from_source<S: Source<V>>(source: &S, block: usize) -> Result<Self, Error> {
        let shape = matrix_shape(source.shape())?;
        let [nb, mb] = grid(shape, block)?;
        block_count(nb, mb)?;
        let split = Remapped::new(source, vec![nb, mb, shape[0], shape[1]], |c, out| {
            out.copy_from_slice(&[c[0] / block, c[1] / block, c[0], c[1]]);
        });
        let view = CsbView::<V, I>::from_source(&split)?;
        let a = Csb { shape, block, view };
        a.check_blocks()?;
        Ok(a)
    }

    /// A `rows x cols` matrix of `block x block` blocks from its arrays:
    /// `blk_ptr` has `nb * mb + 1` entries (`nb = ceil(rows / block)`,
    /// `mb = ceil(cols / block)`), block `(I, J)` owning positions
    /// `blk_ptr[I * mb + J]..blk_ptr[I * mb + J + 1]`; each position `q`
    /// holds the entry `(row_idx[q], col_idx[q])` with value `vals[q]`, in
    /// global coordinates.
    ///
    /// Checked: `block >= 1` and `nb * mb + 1` fits `usize`
    /// (`NotRepresentable`); everything [`Tensor::from_levels`] checks for
    /// the view (`blk_ptr` starts at 0, is non-decreasing, has `nb * mb + 1`
    /// entries and ends at `row_idx.len()`; `rows`, `cols` and the entry
    /// count fit `I`; `row_idx[q] < rows`, `col_idx[q] < cols`; within a
    /// block, entries strictly increasing row-major, so each `(i, j)` at
    /// most once; `col_idx` and `vals` as long as `row_idx`:
    /// `InvalidLevel`, `IndexOverflow`, `LengthMismatch`); and that every
    /// entry of block `(I, J)` lies in it, `row_idx[q] / block == I` and
    /// `col_idx[q] / block == J` (`InvalidLevel` at view level 2 or 3).
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // A 4 x 4 matrix in 2 x 2 blocks: (0, 3) in block (0, 1), (3, 0) in block (1, 0).
    /// let a = Csb::<f64>::from_csb_arrays(4, 4, 2, vec![0, 0, 1, 2, 2], vec![0, 3], vec![3, 0], vec![2.0, 1.0])?;
    /// assert_eq!(a.entries(), vec![(vec![0, 3], 2.0), (vec![3, 0], 1.0)]);
    /// // Both entries listed under block (0, 0), where neither lies: refused.
    /// let misplaced = Csb::<f64>::from_csb_arrays(4, 4, 2, vec![0, 2, 2, 2, 2], vec![0, 3], vec![3, 0], vec![2.0, 1.0]);
    /// assert!(misplaced.is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_csb_arrays(
        rows: usize,
        cols: usize,
        block: usize,
        blk_ptr: Vec<I>,
        row_idx: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<V>,
    ) -> Result<Self, Error> {
        let shape = [rows, cols];
        let [nb, mb] = grid(shape, block)?;
        block_count(nb, mb)?;
        let entry_rows = CompressedNonUnique::<I>::from_raw(rows, blk_ptr, row_idx)
            .map_err(|e| e.at_level(2))?;
        let entry_cols = Singleton::<I>::from_raw(cols, col_idx).map_err(|e| e.at_level(3))?;
        let levels = (Dense::new(nb), Dense::new(mb), entry_rows, entry_cols);
        let view = CsbView::<V, I>::from_levels(&[nb, mb, rows, cols], levels, vals)?;
        let a = Csb { shape, block, view };
        a.check_blocks()?;
        Ok(a)
    }

    /// An all-zero matrix (no entries) with the block size of
    /// [`Csb::from_entries`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csb::<f64>::new(&[16, 16])?;
    /// assert_eq!((a.block_size(), a.nnz(), a.blk_ptr().len()), (4, 0, 17));
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn new(shape: &[usize]) -> Result<Self, Error> {
        Self::from_entries(shape, std::iter::empty::<([usize; 2], V)>())
    }

    /// The logical shape `[rows, cols]`.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The block size `beta`: blocks are `beta x beta`, cut by the edges.
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// The block pointers (`nb * mb + 1` entries): block `(I, J)` owns
    /// positions `blk_ptr()[I * mb + J]..blk_ptr()[I * mb + J + 1]`.
    pub fn blk_ptr(&self) -> &[I] {
        self.view.levels().2.pos()
    }

    /// The (global) row of each stored entry.
    pub fn row_idx(&self) -> &[I] {
        self.view.levels().2.crd()
    }

    /// The (global) column of each stored entry.
    pub fn col_idx(&self) -> &[I] {
        self.view.levels().3.crd()
    }

    /// The value of each stored entry.
    pub fn vals(&self) -> &[V] {
        self.view.vals()
    }

    /// The number of stored entries (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.view.nnz()
    }

    /// Every stored entry as `([i, j], value)`, explicit zeros included,
    /// sorted by coordinate.
    pub fn entries(&self) -> Vec<(Vec<usize>, V)> {
        logical_entries(self.view.entries(), |c| vec![c[2], c[3]])
    }

    /// The matrix as a row-major dense array (for tests and oracles).
    ///
    /// # Panics
    /// If the array cannot be allocated.
    pub fn to_dense(&self) -> Vec<V> {
        dense_of(self.shape, self.fill(), self.entries())
    }

    /// The stored view `(I, J, i, j)`, the tensor kernels read (it holds the fill value).
    pub fn view(&self) -> &CsbView<V, I> {
        &self.view
    }

    /// The fill value: the value of every component not stored; zero unless set. See
    /// [`Tensor::fill`].
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let a = Csb::<f64>::from_entries_with_block(&[2, 2], 1, [([1, 0], 2.0)])?
    ///     .with_fill(f64::INFINITY);
    /// assert_eq!(a.to_dense(), vec![f64::INFINITY, f64::INFINITY, 2.0, f64::INFINITY]);
    /// let b: Csr<f64> = a.convert()?; // conversions keep the fill value
    /// assert_eq!(b.fill(), f64::INFINITY);
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn fill(&self) -> V {
        self.view.fill()
    }

    /// The same matrix with fill value `fill` (its stored entries unchanged).
    pub fn with_fill(mut self, fill: V) -> Self {
        self.view.set_fill(fill);
        self
    }

    /// Sets the fill value (the stored entries are unchanged).
    pub fn set_fill(&mut self, fill: V) {
        self.view.set_fill(fill);
    }

    /// Every entry lies in the block that owns it. Requires a valid view.
    fn check_blocks(&self) -> Result<(), Error> {
        let mb = self.view.shape()[1];
        let (rows, cols) = (self.row_idx(), self.col_idx());
        for (p, w) in self.blk_ptr().windows(2).enumerate() {
            let (bi, bj) = (p / mb, p % mb);
            for q in w[0].to_usize()..w[1].to_usize() {
                let (i, j) = (rows[q].to_usize(), cols[q].to_usize());
                let (level, mode, coord, want) = if i / self.block != bi {
                    (2, "row", i, bi)
                } else if j / self.block != bj {
                    (3, "column", j, bj)
                } else {
                    continue;
                };
                return Err(Error::invalid_level(
                    level,
                    format!(
                        "position {q} holds entry ({i}, {j}) under block ({bi}, {bj}), but its {mode} {coord} lies in block {mode} {} (blocks are {b} x {b}), not {want}",
                        coord / self.block,
                        b = self.block
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<V: Value, I: Index> std::fmt::Debug for Csb<V, I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Csb")
            .field("shape", &self.shape)
            .field("block", &self.block)
            .field("view", &self.view)
            .finish()
    }
}

/// The block grid `[ceil(rows / block), ceil(cols / block)]`.
fn grid(shape: [usize; 2], block: usize) -> Result<[usize; 2], Error> {
    if block == 0 {
        return Err(Error::NotRepresentable {
            detail: "a CSB block of size 0 holds nothing; the block size must be at least 1".into(),
        });
    }
    Ok([shape[0].div_ceil(block), shape[1].div_ceil(block)])
}

/// `nb * mb`, such that `nb * mb + 1` block pointers can be counted.
fn block_count(nb: usize, mb: usize) -> Result<usize, Error> {
    nb.checked_mul(mb)
        .filter(|&n| n < usize::MAX)
        .ok_or_else(|| Error::NotRepresentable {
            detail: format!(
                "{nb} x {mb} blocks need more than usize::MAX block pointers; choose a larger block size"
            ),
        })
}

/// A CSB matrix with the block size of [`Csb::from_entries`]; see
/// [`Csb::with_block_from_source`].
impl<V: Value, I: Index> Target<V> for Csb<V, I> {
    fn from_source<S: Source<V>>(source: &S) -> Result<Self, Error> {
        let [rows, cols] = matrix_shape(source.shape())?;
        Self::with_block_from_source(source, Self::default_block(rows, cols))
    }
}
